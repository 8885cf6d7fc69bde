"""What each page of the table link shows: pure functions from the game state to plain values.

A seat's page shows that player's munchkin (Level and Gear with their buttons,
strength, class and race, whose turn and which phase, the fight they are in, the
run-away roll the host waits for); the board page shows the level track and the
fight line. Every text is already in the page's language; the words of the game itself
(the turn, the phase, the fight, a character's traits) are the app's own
(`companion.table.words`), so a phone reads as the app's Table does. `changes()` turns two
views into the few values a page must update, which is all that is sent after the
first whole view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.core import RUN_AWAY_TARGET, BaseAction, GameState, RuleError
from companion.core.phrase import Phrase, phrase_template
from companion.core.presses import Press, press_action
from companion.table.words import fight_line, phase_line, traits_line, turn_line
from companion.web.speech import Speech

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


def fight_view(state: GameState, speech: Speech) -> dict[str, Any] | None:
    """The fight going on, in one line, and whether the players are winning it."""
    text = fight_line(state, speech)
    if text is None or state.combat is None:
        return None
    return {"text": text, "winning": state.combat.fighters_winning}


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
        fight = {**(fight_view(state, speech) or {}), "role": speech.gettext(role)}
    can = {}
    for press in BUTTONS:
        try:
            can[press.value] = allowed(press_action(state, press, seat))
        except RuleError:  # a press the rules refuse outright (a Level down at 1)
            can[press.value] = False
    # The fighter may call the kill while the fighters win (the table's countdown follows).
    can["kill"] = bool(combat and seat == combat.fighter and combat.fighters_winning)
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
            Phrase(
                "Run away from {monster}: {n}+ escapes",
                monster=speech.card_name(monster.name),
                n=RUN_AWAY_TARGET,
            )
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
        "fight": fight_view(state, speech),
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
