"""What the Combat screen shows, as plain values: no Kivy here.

`combat_view` turns the game state (with the rules' answers and what the screen holds of
its own: the fighter picked before the fight, the helper's share agreed so far, the
one-shot sign, the level being typed, the countdown) into the texts, numbers, rows and
which buttons are enabled. `combat_buttons` is the part that follows the screen's own
values (the countdown ticks, the steppers), without the game having changed. The screen
assigns the values to its properties of the same names; the decisions are all here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core import AddHelper, Bribe, CombatState, GameState, RuleError, RunAway
from companion.ui.abilities import Offer
from companion.ui.i18n import _, card_name, ngettext

# The rules' answers when the victim of a Bad Stuff has to choose what it takes: the Run
# away screen asks that before the roll.
ASKED_WHEN_RUNNING = frozenset({"bad_stuff_choice", "allowance_gone"})

# The rules' objection to an action now (None: they would take it), as `Game.check`.
Check = Callable[[Any], RuleError | None]


@dataclass(frozen=True)
class MonsterLine:
    """One monster in the fight: its name and strength, then level, enhancers, treasure."""

    title: str
    detail: str
    power: str = ""


@dataclass(frozen=True)
class AbilityLine:
    """A button for an ability someone could use in this fight (`ability` "quote": the
    edition's Magic by quoting), dimmed when the rules refuse it now."""

    seat: int
    ability: str
    text: str
    usable: bool


@dataclass(frozen=True)
class HelperChoice:
    """One line of the helper list: a player who may help (None: nobody)."""

    seat: int | None
    text: str
    selected: bool


@dataclass(frozen=True)
class CombatButtons:
    """What follows the screen's own values: the countdown, the level typed, the sign."""

    # The line in the middle of the verdict box: the countdown while one runs.
    verdict_text: str
    kill_text: str
    # The kill waits for interference: its button now says "Wait!".
    kill_waits: bool
    kill_enabled: bool
    run_enabled: bool
    defeat_enabled: bool
    add_text: str
    shots_caption: str
    sign_text: str
    # The sign on the one-shot buttons: "+" for bonuses, "−" for penalties.
    shot_sign: str


@dataclass(frozen=True)
class CombatView:
    """Everything the Combat screen shows of a game (see the module's docstring)."""

    active: bool
    # Who fights: the fighter of the fight, or the one picked before it.
    fighter: int
    fighter_text: str
    fighter_enabled: bool
    helper_text: str
    # The helper's share of the treasure as agreed, within the treasure on show.
    has_helper: bool
    helper_share: int
    helper_first: bool
    share_text: str
    players_strength: int
    monsters_strength: int
    winning: bool
    running: bool
    verdict: str
    # The colour of the verdict box: a theme colour's name (surface, good or bad).
    verdict_tone: str
    rewards: str
    # How the last fight ended, shown until the next one starts.
    result_text: str
    # The line under the verdict: the rewards in a fight, the last result before one.
    rewards_text: str
    wins_ties: bool
    wins_ties_text: str
    level_only: bool
    level_only_text: str
    # A monster in the fight whose power makes every fighter count their Level only (its
    # name; "" when none): the card effect's switch then shows it, and cannot lift it.
    level_only_monster: str
    effects_enabled: bool
    # Dimmed (still tappable: a tap says why) when the rules would refuse running now.
    can_run: bool
    # The "tap a level" caption: before the first monster the verdict line says it.
    add_caption: bool
    has_abilities: bool
    abilities_caption: str
    monsters: tuple[MonsterLine, ...]
    abilities: tuple[AbilityLine, ...]
    buttons: CombatButtons


def combat_view(
    state: GameState,
    check: Check,
    *,
    fighter: int,
    helper_share: int = 0,
    helper_first: bool = False,
    offers: Sequence[Offer] = (),
    countdown: float = 0.0,
    quick_level: int = 1,
    negative: bool = False,
) -> CombatView:
    """What the Combat screen shows of `state`, in the language on show.

    `check(action)` is the rules' objection to an action now (None when they would take
    it): a Bad Stuff's question, asked on the Run away screen, is no reason not to run.
    `fighter` is who was picked to fight before the fight; `helper_share` and
    `helper_first` the helper's share as agreed so far; `offers` the abilities someone
    could use (`companion.ui.abilities.combat_offers`); `countdown` the seconds before
    the kill is final (0: none runs); `quick_level` the level on the stepper; `negative`
    whether the one-shot buttons take strength away.
    """
    combat = state.combat
    if combat is None:
        seat = min(fighter, len(state.players) - 1)
        result = last_result(state)
        view = CombatView(
            active=False,
            fighter=seat,
            fighter_text=_("Fighter: {name}").format(name=state.players[seat].name),
            fighter_enabled=True,
            helper_text=_("Helper: nobody"),
            has_helper=False,
            helper_share=0,
            helper_first=False,
            share_text="",
            players_strength=state.players[seat].strength,
            monsters_strength=0,
            winning=False,
            running=False,
            verdict=_("Tap a monster's level to start the fight."),
            verdict_tone="surface",
            rewards="",
            result_text=result,
            rewards_text=result,
            wins_ties=False,
            wins_ties_text=_wins_ties_text(False),
            level_only=False,
            level_only_text=_level_only_text(False),
            level_only_monster="",
            effects_enabled=False,
            can_run=False,
            add_caption=False,
            has_abilities=False,
            abilities_caption="",
            monsters=(),
            abilities=(),
            buttons=_NO_BUTTONS,
        )
    else:
        winning = combat.fighters_winning
        if winning:
            rewards = _("Kill: {levels}, {treasures}").format(
                levels=_levels(combat.levels), treasures=_treasures(combat.treasure)
            )
        elif combat.running:
            rewards = _("Running away")
        else:
            rewards = _("Run away, or play a card")
        abilities = _abilities(state, combat, offers)
        binding = next((m.spec.name for m in combat.monsters if m.spec.level_only), "")
        level_only = combat.fighter in combat.level_only or bool(binding)
        has_helper = combat.helper is not None
        share = min(helper_share, combat.treasure) if has_helper else 0
        view = CombatView(
            active=True,
            fighter=combat.fighter,
            fighter_text=_("Fighter: {name} ({n})").format(
                name=state.players[combat.fighter].name, n=combat.fighter_strength
            ),
            fighter_enabled=False,
            helper_text=_helper_text(state, combat),
            has_helper=has_helper,
            helper_share=share,
            helper_first=helper_first and has_helper,
            share_text=(
                _("{helper} takes {share} of {total}").format(
                    helper=state.players[combat.helper].name, share=share, total=combat.treasure
                )
                if combat.helper is not None
                else ""
            ),
            players_strength=combat.players_strength,
            monsters_strength=combat.monsters_strength,
            winning=winning,
            running=combat.running,
            verdict=_("Players win") if winning else _("Monsters win"),
            verdict_tone="good" if winning else "bad",
            rewards=rewards,
            result_text="",
            rewards_text=rewards,
            wins_ties=combat.wins_ties,
            wins_ties_text=_wins_ties_text(combat.wins_ties),
            level_only=level_only,
            level_only_text=(
                _("Fighters count Level only: {monster}").format(monster=card_name(binding))
                if binding
                else _level_only_text(level_only)
            ),
            level_only_monster=binding,
            effects_enabled=True,
            can_run=run_problem(state, check) is None,
            add_caption=True,
            has_abilities=bool(abilities),
            abilities_caption=_("Abilities and Magic") if abilities else "",
            monsters=tuple(_monster_line(monster) for monster in combat.monsters),
            abilities=abilities,
            buttons=_NO_BUTTONS,
        )
    buttons = combat_buttons(view, countdown=countdown, quick_level=quick_level, negative=negative)
    return dataclasses.replace(view, buttons=buttons)


def combat_buttons(
    view: CombatView | None,
    *,
    countdown: float = 0.0,
    quick_level: int = 1,
    negative: bool = False,
) -> CombatButtons:
    """The part of `view` that follows the screen's own values (see `combat_view`); with
    no view (no game drawn yet) no button of the fight is enabled."""
    waits = countdown > 0
    active = view is not None and view.active
    running = view is not None and view.running
    winning = view is not None and view.winning
    verdict = view.verdict if view is not None else ""
    return CombatButtons(
        verdict_text=_("Kill in {s:.1f} s").format(s=countdown) if waits else verdict,
        # "Kill!" starts the wait; during the wait the same button means "Wait!".
        kill_text=_("Wait! Interfere") if waits else _("Kill!"),
        kill_waits=waits,
        kill_enabled=active and not running and (winning or waits),
        run_enabled=active and not waits,
        defeat_enabled=active and not running and not waits,
        add_text=_("Add a level {n} monster").format(n=quick_level),
        shots_caption=_("One-shot penalties") if negative else _("One-shot bonuses"),
        sign_text=_("Switch to bonuses") if negative else _("Switch to penalties"),
        shot_sign="\u2212" if negative else "+",
    )


def run_problem(state: GameState, check: Check) -> RuleError | None:
    """Why the fighter may not run now (the rules' error), or None. What a Bad Stuff would
    take is chosen on the Run away screen, so that question is no refusal here."""
    if state.combat is None:
        return None
    problem = check(RunAway(fighter=state.combat.fighter, monster=0))
    if problem is not None and problem.rule in ASKED_WHEN_RUNNING:
        return None
    return problem


def helper_choices(state: GameState) -> tuple[HelperChoice, ...]:
    """The helper list: "Nobody helps", then every other living player with their strength."""
    combat = state.combat
    helper = combat.helper if combat is not None else None
    fighter = combat.fighter if combat is not None else None
    choices: list[tuple[int | None, str]] = [(None, _("Nobody helps"))]
    choices += [
        (seat, _("{name} ({n})").format(name=player.name, n=player.strength))
        for seat, player in enumerate(state.players)
        if seat != fighter and not player.dead
    ]
    return tuple(HelperChoice(seat, text, seat == helper) for seat, text in choices)


@dataclass(frozen=True)
class HelpChoices:
    """What a sheet offers when the fighter asks for help: (key, text) options the rules
    accept now, and, when there are none, the rules' reason (or a plain sentence)."""

    options: tuple[tuple[str, str], ...]
    problem: RuleError | str | None = None


def bribe_items(state: GameState) -> HelpChoices:
    """ "Give an item for help", first step: the fighter's items on the table, any of which
    may go as a bribe inside the fight (RULES.md §11: a bribe is no trade)."""
    combat = state.combat
    if combat is None:
        return HelpChoices((), _("Add a monster first."))
    fighter = state.players[combat.fighter]
    options = tuple((item.id, item_text(item)) for item in fighter.items)
    if not options:
        return HelpChoices(
            (), _("{name} has no item on the table to give").format(name=fighter.name)
        )
    return HelpChoices(options)


def bribe_takers(state: GameState, item_id: str, check: Check) -> HelpChoices:
    """ "Give an item for help", second step: who may take the item for their help (alive,
    not the fighter, room for it if it is Big), as the rules answer `Bribe`."""
    return _seats_the_rules_take(state, lambda seat: Bribe(helper=seat, item_id=item_id), check)


def compelled_helpers(state: GameState, check: Check) -> HelpChoices:
    """ "A card makes someone help": whom a card may make help now (never in a fight for the
    win, and only while nobody helps), as the rules answer `AddHelper(compelled=True)`."""
    return _seats_the_rules_take(state, lambda seat: AddHelper(helper=seat, compelled=True), check)


def _seats_the_rules_take(
    state: GameState, action_for: Callable[[int], Any], check: Check
) -> HelpChoices:
    combat = state.combat
    if combat is None:
        return HelpChoices((), _("Add a monster first."))
    options: list[tuple[str, str]] = []
    problem: RuleError | None = None
    for seat, player in enumerate(state.players):
        if seat == combat.fighter or player.dead:
            continue
        refused = check(action_for(seat))
        if refused is None:
            options.append((str(seat), player.name))
        elif problem is None:
            problem = refused
    if options:
        return HelpChoices(tuple(options))
    return HelpChoices((), problem if problem is not None else _("Nobody else can help now"))


def item_text(item: Any) -> str:
    """An item as a list offers it: "Boots of Running · +2 · Big"."""
    parts = [card_name(item.spec.name)]
    if item.spec.bonus:
        parts.append(f"{item.spec.bonus:+d}")
    if item.spec.big:
        parts.append(_("Big"))
    return " \u00b7 ".join(parts)


def search_label(card: Any) -> str:
    """A card found by the search box: a monster with its level, an enhancer (played on
    the monster that joined last), or a one-shot item (played for the players; its row
    also offers it for the monsters)."""
    if card.kind == "enhancer":
        return _("{name} ({bonus:+d}) on the last monster").format(
            name=card_name(card.name), bonus=card.bonus
        )
    if card.kind == "item":  # a one-shot: played at once, for the players unless said
        return _("{name} ({bonus:+d}) for the players").format(
            name=card_name(card.name), bonus=card.bonus
        )
    return f"{card_name(card.name)}  ({_('Level')} {card.level})"


def last_result(state: GameState) -> str:
    """How the last fight ended, while its turn lasts ("" before the first fight, and once
    the turn has passed: the next player's Combat starts with nothing of it)."""
    result = state.last_combat
    if result is None or result.turn != state.turn:
        return ""
    names = ", ".join(card_name(name) for name in result.monsters)
    fighter = state.players[result.fighter].name
    if result.outcome == "kill":
        text = _("Killed {monsters}: +{levels}, {treasures}.").format(
            monsters=names, levels=_levels(result.levels), treasures=_treasures(result.treasure)
        )
        if result.helper is not None and (result.helper_treasure or result.helper_picks_first):
            helper = state.players[result.helper].name
            share = (
                _("{helper} takes {n} and picks first.")
                if result.helper_picks_first
                else _("{helper} takes {n}.")
            )
            text += " " + share.format(helper=helper, n=result.helper_treasure)
        return text
    if result.outcome == "defeat":
        return _("Ended without a kill: {monsters}.").format(monsters=names)
    if result.outcome == "fighter_died":
        return _("{name} died in the fight ({monsters}).").format(name=fighter, monsters=names)
    dead = list(dict.fromkeys(state.players[r.fighter].name for r in result.rolls if r.died))
    if dead:
        return ngettext(
            "{names} died running away ({monsters}).",
            "{names} died running away ({monsters}).",
            len(dead),
        ).format(names=" & ".join(dead), monsters=names)
    caught = [r for r in result.rolls if not r.escaped]
    if not caught:
        return _("Ran away from {monsters}.").format(monsters=names)
    by = ", ".join(dict.fromkeys(card_name(result.monsters[r.monster]) for r in caught))
    return _("Caught running away ({monsters}): the Bad Stuff hit.").format(monsters=by)


def _helper_text(state: GameState, combat: CombatState) -> str:
    if combat.helper is None:
        return _("Helper: nobody")
    if combat.compelled:  # a card made them help: they did not volunteer
        return _("Made to help: {name} ({n})").format(
            name=state.players[combat.helper].name, n=combat.helper_strength
        )
    return _("Helper: {name} ({n})").format(
        name=state.players[combat.helper].name, n=combat.helper_strength
    )


def _monster_line(monster: Any) -> MonsterLine:
    parts = [_("Level {n}").format(n=monster.spec.level)]
    parts += [card_name(e.name) for e in monster.enhancers]
    parts.append(_treasures(monster.treasure))
    return MonsterLine(
        title=f"{card_name(monster.spec.name)}  \u00b7  {monster.strength}",
        detail="  \u00b7  ".join(parts),
        # The monster's power binds the whole fight: said on its own line.
        power=_("Its power: fighters count Level only") if monster.spec.level_only else "",
    )


def _abilities(
    state: GameState, combat: CombatState, offers: Sequence[Offer]
) -> tuple[AbilityLine, ...]:
    """A button per ability someone could use in this fight, dimmed when the rules refuse
    it now, and one per player in the fight for the edition's Magic quotes."""
    shown = [AbilityLine(o.seat, o.ability, o.text, o.usable) for o in offers]
    if state.setup.edition.magic_quotes:
        shown += [
            AbilityLine(
                seat, "quote", _("{name}: Magic quote").format(name=state.players[seat].name), True
            )
            for seat in combat.fighters
        ]
    return tuple(shown)


def _wins_ties_text(on: bool) -> str:
    if on:
        return _("Players win ties (e.g. Warrior): on")
    return _("Players win ties (e.g. Warrior): off")


def _level_only_text(on: bool) -> str:
    if on:
        return _("Fighter counts Level only: on")
    return _("Fighter counts Level only: off")


def _levels(n: int) -> str:
    return ngettext("{n} level", "{n} levels", n).format(n=n)


def _treasures(n: int) -> str:
    return ngettext("{n} treasure", "{n} treasures", n).format(n=n)


# Replaced by `combat_buttons` as soon as a view is made.
_NO_BUTTONS = CombatButtons("", "", False, False, False, False, "", "", "", "+")
