"""Character (RULES.md §4, §8): classes, races, motivations, styles and their boosts, sex,
the Ally, death and looting the body."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters.base import (
    D6,
    SEX_WORDS,
    TRAIT_KIND_WORDS,
    BaseAction,
    DieName,
    Override,
    Seat,
    player_name,
    rule,
    step,
    words,
)
from companion.core.chapters.combat import end_combat, finish_running_if_done
from companion.core.chapters.rolls import (
    check_dice_named,
    d6,
    fill_rolls,
    ordered_by_rolls,
    rolls_words,
)
from companion.core.chapters.table import alive, player_at, with_player
from companion.core.dice import RandomSource
from companion.core.errors import RuleError
from companion.core.models import AllySpec, Sex, TraitKind
from companion.core.phrase import Phrase, phrase_template
from companion.core.state import (
    CombatResult,
    DieRoll,
    GameState,
    LootOrder,
    PlayerState,
    TraitBonus,
)

TraitBonusValue = Annotated[int, Field(ge=-50, le=50)]

_TRAIT_WORDS = TRAIT_KIND_WORDS
_TRAIT_FIELDS = {
    "class": "classes",
    "race": "races",
    "motivation": "motivations",
    "style": "styles",
}
_BOOSTS = {
    "class": ("super_munchkin", phrase_template("Super Munchkin")),
    "race": ("half_breed", phrase_template("Half-Breed")),
    "motivation": ("extra_motivated", phrase_template("Extra Motivated")),
}


def kill_player(state: GameState, seat: int) -> GameState:
    """Death: keep Level, traits and their bonuses; lose items, gear and Ally (RULES.md §8)."""
    return with_player(state, seat, dead=True, items=(), gear_bonus=0, hands_used=0, ally=None)


def remove_trait(state: GameState, seat: int, kind: TraitKind, name: str) -> GameState:
    """The player discards a trait, and the lasting bonus it gave goes with it (§4)."""
    player = state.players[seat]
    folded = name.casefold()
    keep = tuple(h for h in player.traits(kind) if h.casefold() != folded)
    bonuses = tuple(
        b for b in player.trait_bonuses if not (b.kind == kind and b.name.casefold() == folded)
    )
    return with_player(state, seat, **{_TRAIT_FIELDS[kind]: keep, "trait_bonuses": bonuses})


def _with_trait_bonus(
    bonuses: tuple[TraitBonus, ...], kind: TraitKind, name: str, bonus: int
) -> tuple[TraitBonus, ...]:
    """The bonuses with the one of this trait set to `bonus` (0 removes it); counted once."""
    folded = name.casefold()
    kept = tuple(b for b in bonuses if not (b.kind == kind and b.name.casefold() == folded))
    return (*kept, TraitBonus(kind=kind, name=name, bonus=bonus)) if bonus else kept


class GainTrait(BaseAction):
    """Take a class, race, motivation or style card (RULES.md §4)."""

    type: Literal["gain_trait"] = "gain_trait"
    player: Seat
    kind: TraitKind
    name: Annotated[str, Field(min_length=1, max_length=60)]
    bonus: TraitBonusValue = 0  # a lasting "+N in combat" the card gives (0: none)
    override: Override = None


_TRAIT_LIMIT_WORDS: dict[TraitKind, str] = {
    "class": phrase_template(
        "You can have only one class at a time unless you are a Super Munchkin"
    ),
    "race": phrase_template("You can have only one race at a time unless you are a Half-Breed"),
    "motivation": phrase_template(
        "You can have only one motivation at a time unless you are Extra Motivated"
    ),
    "style": phrase_template("You can have only one style at a time unless you are a Monk"),
}


def _edition_spelling(state: GameState, kind: TraitKind, name: str) -> str:
    """The trait's name as the edition spells it (a name typed in another case finds it)."""
    folded = name.casefold()
    return next((k for k in state.setup.edition.traits(kind) if k.casefold() == folded), name)


@rule.register
def _(action: GainTrait, state: GameState) -> None:
    """One class/race/motivation/style at a time unless Super Munchkin, Half-Breed,
    Extra Motivated or (styles) a Monk (§4)."""
    player = player_at(state, action.player)
    kind = action.kind
    word = _TRAIT_WORDS[kind]
    known = state.setup.edition.traits(kind)
    name = _edition_spelling(state, kind, action.name)
    have = player.traits(kind)
    edition = state.setup.edition.name
    if action.override is None:
        if not known:
            raise RuleError(
                "no_such_trait",
                Phrase("{edition} has no {word} cards", edition=edition, word=word),
            )
        if name not in known:
            raise RuleError(
                "no_such_trait",
                Phrase(
                    "{name} is not a {word} in {edition}", name=name, word=word, edition=edition
                ),
            )
    if any(h.casefold() == name.casefold() for h in have):
        raise RuleError(
            "has_trait", Phrase("{name} is already a {trait}", name=player.name, trait=name)
        )
    if len(have) >= rules.trait_limit(player, kind) and action.override is None:
        raise RuleError("trait_limit", Phrase(_TRAIT_LIMIT_WORDS[kind]))


@step.register
def _(action: GainTrait, state: GameState) -> GameState:
    player = state.players[action.player]
    kind = action.kind
    name = _edition_spelling(state, kind, action.name)
    bonuses = _with_trait_bonus(player.trait_bonuses, kind, name, action.bonus)
    have = player.traits(kind)
    return with_player(
        state, action.player, **{_TRAIT_FIELDS[kind]: (*have, name), "trait_bonuses": bonuses}
    )


@words.register
def _(a: GainTrait, s: GameState) -> str:
    if a.bonus:
        return Phrase(
            GAINED_TRAIT_WITH_BONUS,
            name=player_name(s, a.player),
            trait=a.name,
            kind=TRAIT_KIND_WORDS[a.kind],
            bonus=a.bonus,
        )
    return Phrase(
        "{name} becomes a {trait} ({kind})",
        name=player_name(s, a.player),
        trait=a.name,
        kind=TRAIT_KIND_WORDS[a.kind],
    )


# History sentences are whole templates with named parameters, ready to be translated.
GAINED_TRAIT_WITH_BONUS = phrase_template(
    "{name} becomes a {trait} ({kind}), {bonus:+d} in every combat"
)
TRAIT_BONUS_SET = phrase_template("{name}'s {trait} now gives {bonus:+d} in every combat")
TRAIT_BONUS_REMOVED = phrase_template("{name}'s {trait} no longer gives a combat bonus")


class SetTraitBonus(BaseAction):
    """Say what lasting combat bonus a class, race, motivation or style gives (a trait
    entered by name, or a correction): counted in every combat until the trait goes."""

    type: Literal["set_trait_bonus"] = "set_trait_bonus"
    player: Seat
    kind: TraitKind
    name: str
    bonus: TraitBonusValue


def _own_trait(player: PlayerState, kind: TraitKind, name: str) -> str:
    """The player's trait of that name as they have it spelt, or RuleError."""
    folded = name.casefold()
    found = next((h for h in player.traits(kind) if h.casefold() == folded), None)
    if found is None:
        raise RuleError(
            "no_such_trait", Phrase("{name} is not a {trait}", name=player.name, trait=name)
        )
    return found


@rule.register
def _(action: SetTraitBonus, state: GameState) -> None:
    """A trait's bonus is part of the character, like the trait itself (§4, §8)."""
    player = player_at(state, action.player)
    name = _own_trait(player, action.kind, action.name)
    old = next(
        (b.bonus for b in player.trait_bonuses if b.kind == action.kind and b.name == name), 0
    )
    if old == action.bonus:
        raise RuleError(
            "bonus_unchanged",
            Phrase("{name} already gives {bonus:+d}", name=name, bonus=action.bonus),
        )


@step.register
def _(action: SetTraitBonus, state: GameState) -> GameState:
    player = state.players[action.player]
    name = _own_trait(player, action.kind, action.name)
    bonuses = _with_trait_bonus(player.trait_bonuses, action.kind, name, action.bonus)
    return with_player(state, action.player, trait_bonuses=bonuses)


@words.register
def _(a: SetTraitBonus, s: GameState) -> str:
    template = TRAIT_BONUS_SET if a.bonus else TRAIT_BONUS_REMOVED
    return Phrase(template, name=player_name(s, a.player), trait=a.name, bonus=a.bonus)


class LoseTrait(BaseAction):
    """Discard a class, race, motivation or style (allowed any time, even in combat)."""

    type: Literal["lose_trait"] = "lose_trait"
    player: Seat
    kind: TraitKind
    name: str


@rule.register
def _(action: LoseTrait, state: GameState) -> None:
    """A class (or race, ...) can be discarded any time, even in combat (§4)."""
    _own_trait(player_at(state, action.player), action.kind, action.name)


@step.register
def _(action: LoseTrait, state: GameState) -> GameState:
    return remove_trait(state, action.player, action.kind, action.name)


@words.register
def _(a: LoseTrait, s: GameState) -> str:
    return Phrase("{name} is no longer a {trait}", name=player_name(s, a.player), trait=a.name)


class SetTraitBoost(BaseAction):
    """Play or lose Super Munchkin (class), Half-Breed (race) or Extra Motivated."""

    type: Literal["set_trait_boost"] = "set_trait_boost"
    player: Seat
    kind: Literal["class", "race", "motivation"]
    on: bool = True


@rule.register
def _(action: SetTraitBoost, state: GameState) -> None:
    player = player_at(state, action.player)
    field, card = _BOOSTS[action.kind]
    if getattr(player, field) == action.on:
        how = (
            phrase_template("{name} is already {card}")
            if action.on
            else phrase_template("{name} is not {card}")
        )
        raise RuleError("boost_unchanged", Phrase(how, name=player.name, card=Phrase(card)))
    if not action.on and len(player.traits(action.kind)) > 1:
        raise RuleError(
            "boost_in_use",
            Phrase(
                "Discard one {word} before losing {card}",
                word=_TRAIT_WORDS[action.kind],
                card=Phrase(card),
            ),
        )


@step.register
def _(action: SetTraitBoost, state: GameState) -> GameState:
    field, _card = _BOOSTS[action.kind]
    return with_player(state, action.player, **{field: action.on})


@words.register
def _(a: SetTraitBoost, s: GameState) -> str:
    card = {kind: name for kind, (_field, name) in _BOOSTS.items()}
    how = phrase_template("{name} plays {card}") if a.on else phrase_template("{name} loses {card}")
    return Phrase(how, name=player_name(s, a.player), card=Phrase(card[a.kind]))


class ChangeSex(BaseAction):
    """A card changes a character's sex."""

    type: Literal["change_sex"] = "change_sex"
    player: Seat
    sex: Sex


@rule.register
def _(action: ChangeSex, state: GameState) -> None:
    player = player_at(state, action.player)
    if player.sex == action.sex:
        raise RuleError(
            "sex_unchanged",
            Phrase("{name} is already {sex}", name=player.name, sex=SEX_WORDS[action.sex.value]),
        )


@step.register
def _(action: ChangeSex, state: GameState) -> GameState:
    return with_player(state, action.player, sex=action.sex)


@words.register
def _(a: ChangeSex, s: GameState) -> str:
    return Phrase(
        "{name}'s sex becomes {sex}", name=player_name(s, a.player), sex=SEX_WORDS[a.sex.value]
    )


class SetAlly(BaseAction):
    """Play an Ally (any time, even in combat); one at a time."""

    type: Literal["set_ally"] = "set_ally"
    player: Seat
    ally: AllySpec
    override: Override = None


@rule.register
def _(action: SetAlly, state: GameState) -> None:
    """At most one Ally; it may be played any time, even in combat (§4)."""
    player = player_at(state, action.player)
    alive(player, Phrase("play an Ally"))
    if player.ally is not None and action.override is None:
        raise RuleError("one_ally", Phrase("You can have only one Ally at a time"))


@step.register
def _(action: SetAlly, state: GameState) -> GameState:
    return with_player(state, action.player, ally=action.ally)


@words.register
def _(a: SetAlly, s: GameState) -> str:
    return Phrase("{name} gains the Ally {ally}", name=player_name(s, a.player), ally=a.ally.name)


class DiscardAlly(BaseAction):
    """An Ally leaves play."""

    type: Literal["discard_ally"] = "discard_ally"
    player: Seat


@rule.register
def _(action: DiscardAlly, state: GameState) -> None:
    player = player_at(state, action.player)
    if player.ally is None:
        raise RuleError("no_ally", Phrase("{name} has no Ally", name=player.name))


@step.register
def _(action: DiscardAlly, state: GameState) -> GameState:
    return with_player(state, action.player, ally=None)


@words.register
def _(a: DiscardAlly, s: GameState) -> str:
    return Phrase("{name} loses their Ally", name=player_name(s, a.player))


class Die(BaseAction):
    """A player dies: keeps Level and traits, loses items and Ally (RULES.md §8)."""

    type: Literal["die"] = "die"
    player: Seat
    reason: str = ""


@rule.register
def _(action: Die, state: GameState) -> None:
    player = player_at(state, action.player)
    if player.dead:
        raise RuleError("already_dead", Phrase("{name} is already dead", name=player.name))


@step.register
def _(action: Die, state: GameState) -> GameState:
    """Death keeps Level and traits, loses items; a dead fighter's combat ends (§8)."""
    state = kill_player(state, action.player)
    combat = state.combat
    if combat is None or action.player not in combat.fighters:
        return state
    if combat.running:
        return finish_running_if_done(state)
    if action.player == combat.helper:
        helper_gone = combat.evolve(helper=None, level_only=combat.level_only - {action.player})
        return state.evolve(combat=helper_gone)
    result = CombatResult(
        outcome="fighter_died",
        fighter=combat.fighter,
        helper=combat.helper,
        monsters=tuple(m.spec.name for m in combat.monsters),
    )
    return end_combat(state, result)


@words.register
def _(a: Die, s: GameState) -> str:
    how = phrase_template("{name} dies ({why})") if a.reason else phrase_template("{name} dies")
    return Phrase(how, name=player_name(s, a.player), why=a.reason)


class LootTheBody(BaseAction):
    """Order the looting of a dead player: highest Level first, ties by dice (§8)."""

    type: Literal["loot_the_body"] = "loot_the_body"
    player: Seat
    rolls: tuple[D6, ...] | None = None
    dice: tuple[DieName, ...] = ()  # beside each roll, the smart die that gave it ("" on screen)


def _loot_order(action: LootTheBody, state: GameState) -> tuple[int, ...]:
    groups = rules.loot_groups(state.players, action.player)
    return ordered_by_rolls(groups, action.rolls, Phrase("the looting order"))


@rule.register
def _(action: LootTheBody, state: GameState) -> None:
    """Looting the body: the others take a card each, highest Level first, ties by dice (§8)."""
    player = player_at(state, action.player)
    if not player.dead:
        raise RuleError(
            "not_dead",
            Phrase("{name} is alive: only a dead player's body is looted", name=player.name),
        )
    _loot_order(action, state)
    check_dice_named(action.dice, action.rolls or ())


@step.register
def _(action: LootTheBody, state: GameState) -> GameState:
    order = _loot_order(action, state)
    rolls = action.rolls or ()
    update: dict[str, object] = {
        "loot": LootOrder(dead=action.player, order=order, rolls=rolls),
    }
    if rolls:
        update["last_roll"] = DieRoll(value=rolls[-1], purpose="looting order")
    return state.evolve(**update)


@fill_rolls.register
def _(action: LootTheBody, state: GameState, dice: RandomSource) -> BaseAction:
    seats = len(state.players)
    if action.rolls is not None or not 0 <= action.player < seats:
        return action
    if not state.players[action.player].dead:
        return action  # the rules will refuse it; no die is rolled for nothing
    groups = rules.loot_groups(state.players, action.player)
    _, used = rules.order_by_rolls(groups, lambda: d6(dice))
    return action.evolve(rolls=used)


@words.register
def _(a: LootTheBody, s: GameState) -> str:
    how = (
        phrase_template("The others loot {name}'s body, tie rolls {rolls}")
        if a.rolls
        else (phrase_template("The others loot {name}'s body"))
    )
    rolls = rolls_words(a.rolls or (), a.dice)
    return Phrase(how, name=player_name(s, a.player), rolls=rolls)
