"""Abilities (RULES.md §4, §10): what classes, races and roles let a player do that changes a
number the app shows, powered by discarding cards (berserking, turning, backstabbing,
charming a monster, stealing), and magic quotes that may not be said twice in a game.

Who has an ability is the edition's business (`Edition.cards`, e.g. the classic Warrior
berserks) or the card's (a pack's class card); the engine checks the player has it.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field

from companion.core.chapters.base import (
    D6,
    BaseAction,
    DieName,
    Override,
    Seat,
    item_name,
    monster_name,
    player_name,
    rule,
    step,
    words,
)
from companion.core.chapters.combat import (
    UNDEAD,
    HelperTreasure,
    check_removal,
    in_combat,
    monster_tags,
    open_combat,
    remove_monster,
)
from companion.core.chapters.gear import fighting, without_item
from companion.core.chapters.rolls import d6, fill_rolls
from companion.core.chapters.table import alive, current_combat, find_item, player_at, with_player
from companion.core.dice import RandomSource
from companion.core.errors import RuleError
from companion.core.models import Ability
from companion.core.phrase import Phrase, phrase_template
from companion.core.state import AbilityUse, GameState, PlayerState

MAX_CARDS = 3  # cards one ability takes at the most in one combat
CHARM_CARDS = 3  # the whole hand, and at least this many cards
THEFT_ROLL = 4  # a theft succeeds on this or more


def _able(player: PlayerState, ability: Ability, doing: str) -> None:
    if not player.can(ability):
        raise RuleError(
            "no_ability", Phrase("{name} cannot {doing}", name=player.name, doing=Phrase(doing))
        )


_DOING: dict[str, str] = {
    "berserking": phrase_template("go berserk"),
    "turning": phrase_template("turn Undead"),
    "backstab": phrase_template("backstab"),
}


class UseAbility(BaseAction):
    """Discard cards to power an ability in the combat going on: berserking (+1 a card),
    turning Undead (+3 a card against Undead), each at most 3 cards a combat; or a backstab
    on `target`, a fighter or helper (-2 to them, once per victim and combat)."""

    type: Literal["use_ability"] = "use_ability"
    player: Seat
    ability: Literal["berserking", "turning", "backstab"]
    cards: Annotated[int, Field(ge=1, le=MAX_CARDS)] = 1
    target: Seat | None = None


@rule.register
def rule_use_ability(action: UseAbility, state: GameState) -> None:
    """An ability powered by discards, in an open fight, within its cards and victims (§4)."""
    combat = open_combat(state)
    player = player_at(state, action.player)
    alive(player, phrase_template("use an ability"))
    _able(player, action.ability, _DOING[action.ability])
    if action.ability == "backstab":
        if action.target is None or action.target == action.player:
            raise RuleError("backstab_whom", Phrase("Backstab another player in the combat"))
        in_combat(state, combat, action.target)
        if action.cards != 1:
            raise RuleError("backstab_cards", Phrase("A backstab takes one card"))
        if any(
            u.ability == "backstab" and u.player == action.player and u.target == action.target
            for u in combat.uses
        ):
            raise RuleError(
                "backstab_twice", Phrase("Each player can be backstabbed once per combat")
            )
        return
    in_combat(state, combat, action.player)
    if action.ability == "turning" and UNDEAD not in monster_tags(combat):
        raise RuleError("no_undead", Phrase("Turning works only against Undead"))
    used = sum(
        u.cards for u in combat.uses if u.player == action.player and u.ability == action.ability
    )
    if used + action.cards > MAX_CARDS:
        raise RuleError(
            "ability_cards",
            Phrase("At most {cards} cards can power it in one combat", cards=MAX_CARDS),
        )


@step.register
def step_use_ability(action: UseAbility, state: GameState) -> GameState:
    """The combat records the ability used; the verdict counts it from then on (§4)."""
    combat = current_combat(state)
    use = AbilityUse(
        player=action.player, ability=action.ability, cards=action.cards, target=action.target
    )
    return state.evolve(combat=combat.evolve(uses=(*combat.uses, use)))


_USED: dict[str, str] = {
    "berserking": phrase_template("{name} goes berserk (+{bonus})"),
    "turning": phrase_template("{name} turns the Undead (+{bonus} against them)"),
    "backstab": phrase_template("{name} backstabs {target} (-2)"),
}


@words.register
def words_use_ability(a: UseAbility, s: GameState) -> str:
    """History: the ability used, with what it adds or takes (§4)."""
    bonus = a.cards * (3 if a.ability == "turning" else 1)
    return Phrase(
        _USED[a.ability],
        name=player_name(s, a.player),
        target=player_name(s, a.target),
        bonus=bonus,
    )


class Charm(BaseAction):
    """Discard the whole hand (at least 3 cards) to charm one monster out of the fight: no
    level, but its treasure is won (the classic Wizard). Charming the last monster ends the
    combat: `helper_treasure` and `helper_first` are then the helper's share as agreed."""

    type: Literal["charm"] = "charm"
    player: Seat
    monster: Annotated[int, Field(ge=0)]
    cards: Annotated[int, Field(ge=0, le=100)]
    helper_treasure: HelperTreasure = 0
    helper_first: bool = False

    def gives(self, state: GameState) -> int:
        """The charmed monster's treasure, won as if it were killed."""
        return current_combat(state).monsters[self.monster].treasure


@rule.register
def rule_charm(action: Charm, state: GameState) -> None:
    """Charming takes the ability, a fighter, a monster in the fight and 3+ cards (§4)."""
    combat = open_combat(state)
    player = in_combat(state, combat, action.player)
    _able(player, "charm", phrase_template("charm a monster"))
    check_removal(action, state)
    if action.cards < CHARM_CARDS:
        raise RuleError(
            "charm_cards",
            Phrase("Charming takes the whole hand, {cards} cards at least", cards=CHARM_CARDS),
        )


@step.register
def step_charm(action: Charm, state: GameState) -> GameState:
    """The charmed monster leaves with its treasure, as if a card removed it (§4, §6)."""
    return remove_monster(state, action)


@words.register
def words_charm(a: Charm, s: GameState) -> str:
    """History: a fighter charms a monster away, its treasure still won."""
    return Phrase(
        "{name} charms {monster} away (its treasure counts)",
        name=player_name(s, a.player),
        monster=monster_name(s, a.monster),
    )


class Steal(BaseAction):
    """Try to steal a small (not Big) item from another player, neither of them in a
    combat: 4 or more on a die takes it; less, and the thief is caught and loses a Level
    (the classic Thief)."""

    type: Literal["steal"] = "steal"
    thief: Seat
    victim: Seat
    item_id: str
    roll: D6 | None = None
    die: DieName = ""


@rule.register
def rule_steal(action: Steal, state: GameState) -> None:
    """Theft: a thief with the ability, a small item, nobody in combat, a roll (§4)."""
    thief = player_at(state, action.thief)
    victim = player_at(state, action.victim)
    item = find_item(victim, action.item_id)
    alive(thief, phrase_template("steal"))
    _able(thief, "theft", phrase_template("steal"))
    if action.thief == action.victim:
        raise RuleError("steal_self", Phrase("A thief cannot steal from themselves"))
    if fighting(state, action.thief) or fighting(state, action.victim):
        raise RuleError(
            "steal_in_combat", Phrase("Nobody can steal from or while fighting in a combat")
        )
    if item.spec.big:
        raise RuleError("steal_big", Phrase("Only small items can be stolen, not Big ones"))
    if action.roll is None:
        raise RuleError("roll_missing", Phrase("The die roll was not recorded"))


@step.register
def step_steal(action: Steal, state: GameState) -> GameState:
    """A roll of 4 or more moves the item to the thief; less costs the thief a Level (§4)."""
    roll = action.roll or 0  # the rule refuses a roll that was not recorded
    if roll < THEFT_ROLL:
        thief = state.players[action.thief]
        return with_player(state, action.thief, level=max(1, thief.level - 1))
    item = find_item(state.players[action.victim], action.item_id)
    state = without_item(state, action.victim, action.item_id)
    thief = state.players[action.thief]
    moved = item.evolve(equipped=False)
    return with_player(state, action.thief, items=(*thief.items, moved))


@fill_rolls.register
def fill_rolls_steal(action: Steal, state: GameState, dice: RandomSource) -> BaseAction:
    """Rolls the theft's d6 when no result was recorded."""
    return action if action.roll is not None else action.evolve(roll=d6(dice))


@words.register
def words_steal(a: Steal, s: GameState) -> str:
    """History: the theft's roll, and whether the thief got the item or was caught."""
    template = (
        phrase_template("{thief} rolls {roll} and steals {item} from {victim}")
        if (a.roll or 0) >= THEFT_ROLL
        else phrase_template(
            "{thief} rolls {roll}, is caught stealing from {victim} and loses a level"
        )
    )
    return Phrase(
        template,
        thief=player_name(s, a.thief),
        victim=player_name(s, a.victim),
        item=item_name(s, a.victim, a.item_id),
        roll=a.roll,
    )


_SPACES = re.compile(r"\s+")


def quote_key(quote: str) -> str:
    """A quote as compared with the ones said before: case, spaces and end punctuation aside.

    >>> quote_key("  Just keep   swimming! ") == quote_key("just keep swimming")
    True
    """
    return _SPACES.sub(" ", quote.casefold()).strip().strip(".!?…").strip()


class SayQuote(BaseAction):
    """A player unlocks a card's magic by quoting a film or song; in the editions with this
    magic, a quote may not be repeated in a game (RULES.md §10)."""

    type: Literal["say_quote"] = "say_quote"
    player: Seat
    quote: Annotated[str, Field(min_length=1, max_length=200)]
    card: Annotated[str, Field(max_length=80)] = ""
    override: Override = None


@rule.register
def rule_say_quote(action: SayQuote, state: GameState) -> None:
    """Magic by quoting, in the editions that have it: each quote once a game (§10)."""
    player_at(state, action.player)
    if not state.setup.edition.magic_quotes:
        raise RuleError(
            "no_magic_quotes",
            Phrase("{edition} has no magic by quoting", edition=state.setup.edition.name),
        )
    key = quote_key(action.quote)
    if not key:
        raise RuleError("empty_quote", Phrase("Say the quote, not only punctuation"))
    if key in state.quotes and action.override is None:
        raise RuleError(
            "quote_repeated", Phrase("That quote was already used in this game: find another")
        )


@step.register
def step_say_quote(action: SayQuote, state: GameState) -> GameState:
    """The quote joins those said, so it cannot unlock magic again (§10)."""
    return state.evolve(quotes=(*state.quotes, quote_key(action.quote)))


@words.register
def words_say_quote(a: SayQuote, s: GameState) -> str:
    """History: who quoted what, and for which card."""
    if a.card:
        return Phrase(
            "{name} quotes \u201c{quote}\u201d for {card}",
            name=player_name(s, a.player),
            quote=a.quote,
            card=a.card,
        )
    return Phrase("{name} quotes \u201c{quote}\u201d", name=player_name(s, a.player), quote=a.quote)
