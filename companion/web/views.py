"""What each page of the table link shows: pure functions from the game state to plain values.

A seat's page shows that player's munchkin (Level and Gear with their buttons,
strength, class and race, whose turn and which phase, the fight they are in, the
run-away roll the host waits for); the board page shows the level track and the
fight line. Every text is already in the page's language. `changes()` turns two
views into the few values a page must update, which is all that is sent after the
first whole view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.core import RUN_AWAY_TARGET, BaseAction, GameState, Phase, PlayerState
from companion.core.phrase import Phrase, phrase_template
from companion.core.presses import Press, press_action
from companion.web.speech import Speech

# How a page names each phase of a turn (the app's Table says the same).
PHASES: dict[str, str] = {
    Phase.LISTEN_AT_THE_DOOR: phrase_template("Listen at the door"),
    Phase.KICK_OPEN_THE_DOOR: phrase_template("Kick open the door"),
    Phase.LOOT_OR_TROUBLE: phrase_template("Loot the room or look for trouble"),
    Phase.CHARITY: phrase_template("Charity"),
    Phase.GAME_OVER: phrase_template("Game over"),
}
SEXES: dict[str, str] = {
    "male": phrase_template("Male"),
    "female": phrase_template("Female"),
    "none": phrase_template("Neither"),
}
# The buttons of a seat's page, by the press each one makes.
BUTTONS: tuple[Press, ...] = (Press.LEVEL_UP, Press.LEVEL_DOWN, Press.GEAR_UP, Press.GEAR_DOWN)

# Whether the rules would take an action now (Game.check, without changing anything).
Allowed = Callable[[BaseAction], bool]
View = dict[str, Any]


@dataclass(frozen=True)
class RollOffer:
    """The host waits for this fighter's run-away roll against this monster."""

    seat: int
    monster: int


def ink(colour: str) -> str:
    """Black or white, whichever reads better on a "#rrggbb" colour (WCAG luminance).

    >>> ink("#f2b134"), ink("#3e1e8f"), ink("not a colour")
    ('#111214', '#ffffff', '#111214')
    """
    try:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    except (ValueError, IndexError):
        return "#111214"
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    # Contrast with white is (1.05)/(L+0.05), with near-black (L+0.05)/(0.05+0.006).
    return "#ffffff" if 1.05 / (luminance + 0.05) > (luminance + 0.05) / 0.056 else "#111214"


def initials(name: str) -> str:
    """What a token on the track shows: the first two letters of a name.

    >>> initials("anna"), initials(""), initials("Łucja")
    ('An', '?', 'Łu')
    """
    letters = name.strip()[:2]
    return letters[:1].upper() + letters[1:] if letters else "?"


def traits_line(player: PlayerState, has_races: bool, speech: Speech) -> str:
    """Sex, classes, races and the like in one line."""
    parts = [speech.gettext(SEXES.get(player.sex, player.sex))]
    parts += list(player.classes)
    if player.races:
        parts += list(player.races)
    elif has_races:
        parts.append(speech.gettext(phrase_template("Human")))
    parts += list(player.motivations) + list(player.styles)
    if player.ally is not None:
        parts.append(speech.say(Phrase("Ally: {name}", name=player.ally.name)))
    return " \u00b7 ".join(parts)


def turn_line(state: GameState, speech: Speech) -> str:
    """Whose turn it is, or who won."""
    if state.winners:
        names = " & ".join(state.players[seat].name for seat in state.winners)
        return speech.say(Phrase("{names} won!", names=names))
    return speech.say(Phrase("Turn {n}: {name}", n=state.turn, name=state.current_player.name))


def phase_line(state: GameState, speech: Speech) -> str:
    """Where the turn is; during a fight, how it stands."""
    combat = state.combat
    if combat is None:
        return speech.gettext(PHASES.get(state.phase, state.phase))
    if combat.running:
        return speech.gettext(phrase_template("Combat: running away"))
    if combat.fighters_winning:
        sentence = Phrase(
            "Combat: players win {p} to {m}", p=combat.players_strength, m=combat.monsters_strength
        )
    else:
        sentence = Phrase(
            "Combat: monsters win {m} to {p}", p=combat.players_strength, m=combat.monsters_strength
        )
    return speech.say(sentence)


def fight_line(state: GameState, speech: Speech) -> dict[str, Any] | None:
    """The fight going on, in one line, and whether the players are winning it."""
    combat = state.combat
    if combat is None:
        return None
    fighters = state.players[combat.fighter].name
    if combat.helper is not None:
        fighters += " + " + state.players[combat.helper].name
    monsters = ", ".join(m.spec.name for m in combat.monsters) or speech.gettext(
        phrase_template("Monsters")
    )
    verdict = Phrase("winning") if combat.fighters_winning else Phrase("losing")
    text = Phrase(
        "{fighters} {ours} vs {theirs} {monsters}: {verdict}",
        fighters=fighters,
        ours=combat.players_strength,
        theirs=combat.monsters_strength,
        monsters=monsters,
        verdict=verdict,
    )
    return {"text": speech.say(text), "winning": combat.fighters_winning}


def seat_view(
    state: GameState,
    seat: int,
    speech: Speech,
    allowed: Allowed,
    roll: RollOffer | None = None,
) -> View:
    """Everything a seat's phone shows: that player's munchkin, the turn, their fight."""
    if not 0 <= seat < len(state.players):
        return {"seat": seat, "absent": speech.gettext(phrase_template("This seat is empty"))}
    player = state.players[seat]
    strength = state.strength_of(seat)
    combat = state.combat
    fight = None
    if combat is not None and seat in combat.fighters:
        role = (
            phrase_template("You are fighting")
            if seat == combat.fighter
            else phrase_template("You are helping")
        )
        fight = {**(fight_line(state, speech) or {}), "role": speech.gettext(role)}
    can = {}
    for press in BUTTONS:
        try:
            can[press.value] = allowed(press_action(state, press, seat))
        except ValueError:
            can[press.value] = False
    return {
        "seat": seat,
        "name": player.name,
        "colour": player.colour,
        "ink": ink(player.colour),
        "level": player.level,
        "gear": player.strength - player.level,
        "strength": strength,
        "traits": traits_line(player, bool(state.setup.edition.races), speech),
        "dead": player.dead,
        "yours": seat == state.current and not state.winners,
        "turn": turn_line(state, speech),
        "phase": phase_line(state, speech),
        "fight": fight,
        "roll": roll_view(state, roll, speech) if roll is not None else None,
        "can": can,
        "won": seat in state.winners,
    }


def roll_view(state: GameState, roll: RollOffer, speech: Speech) -> dict[str, Any] | None:
    """The run-away roll the host waits for from this phone: against what, and what escapes."""
    combat = state.combat
    if combat is None or not 0 <= roll.monster < len(combat.monsters):
        return None
    player = state.players[roll.seat]
    monster = combat.monsters[roll.monster].spec
    return {
        "monster": roll.monster,
        "text": speech.say(
            Phrase("Run away from {monster}: {n}+ escapes", monster=monster.name, n=RUN_AWAY_TARGET)
        ),
        "detail": speech.say(
            Phrase(
                "Your bonus {own:+d}, monster {theirs:+d}",
                own=player.total_run_away_bonus,
                theirs=monster.run_away_modifier,
            )
        ),
    }


def board_view(state: GameState, speech: Speech) -> View:
    """Everything the board page shows: the level track, the turn, the fight line."""
    combat = state.combat
    fighting = set() if combat is None else {combat.fighter, combat.helper} - {None}
    players = []
    for seat, player in enumerate(state.players):
        players.append(
            {
                "name": player.name,
                "short": initials(player.name),
                "colour": player.colour,
                "ink": ink(player.colour),
                "level": player.level,
                "strength": state.strength_of(seat),
                "turn": seat == state.current and not state.winners,
                "fighting": seat in fighting,
                "dead": player.dead,
                "winner": seat in state.winners,
                "detail": speech.say(
                    Phrase(
                        "Level {level} \u00b7 Strength {strength}",
                        level=player.level,
                        strength=state.strength_of(seat),
                    )
                ),
            }
        )
    return {
        "headline": turn_line(state, speech),
        "detail": phase_line(state, speech),
        "spaces": state.winning_level,
        "finished": bool(state.winners),
        "fight": fight_line(state, speech),
        "players": players,
    }


def changes(old: Any, new: Any, path: tuple[Any, ...] = ()) -> list[list[Any]]:
    """The `[path, value]` pairs that turn view `old` into view `new` (none when equal).

    Dictionaries and lists of the same length are compared item by item, so one
    player's new Level is one small pair, not the whole view.

    >>> changes({"a": 1, "p": [{"l": 1}, {"l": 2}]}, {"a": 1, "p": [{"l": 1}, {"l": 3}]})
    [[['p', 1, 'l'], 3]]
    >>> changes({"a": [1]}, {"a": [1, 2]})
    [[['a'], [1, 2]]]
    >>> changes({"a": 1}, {"b": 1})  # an empty path: the whole view
    [[[], {'b': 1}]]
    """
    if type(old) is not type(new):
        return [[list(path), new]]
    if isinstance(new, dict):
        if old.keys() != new.keys():
            return [[list(path), new]]
        found: list[list[Any]] = []
        for key, value in new.items():
            found += changes(old[key], value, (*path, key))
        return found
    if isinstance(new, list):
        if len(old) != len(new):
            return [[list(path), new]]
        found = []
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            found += changes(before, after, (*path, index))
        return found
    return [] if old == new else [[list(path), new]]
