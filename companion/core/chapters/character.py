"""Character (RULES.md §4, §8): classes, races, motivations, styles and their boosts, what
they give, sex, Allies, death and looting the body."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters import allowance
from companion.core.chapters.base import (
    D6,
    SEX_WORDS,
    TRAIT_KIND_WORDS,
    BaseAction,
    DieName,
    Override,
    Seat,
    item_name,
    player_name,
    rule,
    step,
    words,
)
from companion.core.chapters.combat import end_combat, finish_running_if_done
from companion.core.chapters.levels import level_up, levels_to_sell
from companion.core.chapters.rolls import (
    check_dice_named,
    fill_rolls,
    ordered_by_rolls,
    rolls_for,
    rolls_words,
)
from companion.core.chapters.table import alive, player_at, turn_passed, with_player
from companion.core.dice import RandomSource
from companion.core.errors import RuleError
from companion.core.models import (
    LEGACY_RULES,
    LOST_ALLOWANCE,
    SECOND_READING,
    Ability,
    AllySpec,
    Sex,
    TagBonus,
    TraitKind,
)
from companion.core.phrase import Phrase, joined, phrase_template
from companion.core.state import (
    CombatResult,
    DieRoll,
    GameState,
    LootOrder,
    PlayerState,
    TraitBonus,
)

TraitBonusValue = Annotated[int, Field(ge=-50, le=50)]
RunAwayValue = Annotated[int, Field(ge=-10, le=10)]
Picks = tuple[Annotated[str, Field(min_length=1, max_length=60)], ...]

_TRAIT_WORDS = TRAIT_KIND_WORDS
_TRAIT_FIELDS = {
    "class": "classes",
    "race": "races",
    "motivation": "motivations",
    "style": "styles",
}
_BOOSTS: dict[TraitKind, tuple[str, str]] = {
    "class": ("super_munchkin", phrase_template("Super Munchkin")),
    "race": ("half_breed", phrase_template("Half-Breed")),
    "motivation": ("extra_motivated", phrase_template("Extra Motivated")),
}
_BOOST_NEEDS: dict[TraitKind, str] = {
    "class": phrase_template("Super Munchkin is played on a class: {name} has none"),
    "race": phrase_template("Half-Breed is played on a race: {name} has none"),
    "motivation": phrase_template("Extra Motivated is played on a motivation: {name} has none"),
}


def kill_player(state: GameState, seat: int) -> GameState:
    """Death: keep Level, traits and their bonuses; lose items, gear and Allies (§8)."""
    return with_player(state, seat, dead=True, items=(), gear_bonus=0, hands_used=0, allies=())


def remove_trait(state: GameState, seat: int, kind: TraitKind, name: str) -> GameState:
    """The player discards a trait, and what it gave goes with it (§4)."""
    player = state.players[seat]
    folded = name.casefold()
    keep = tuple(h for h in player.traits(kind) if h.casefold() != folded)
    bonuses = tuple(
        b for b in player.trait_bonuses if not (b.kind == kind and b.name.casefold() == folded)
    )
    return with_player(state, seat, **{_TRAIT_FIELDS[kind]: keep, "trait_bonuses": bonuses})


def settle_allowances(
    state: GameState, seat: int, drops: tuple[tuple[allowance.Excessive, str, str], ...]
) -> GameState:
    """After a loss: boosts whose last trait went go too (rules 3 on), and the player gives
    up what they chose for each allowance that went (`chosen_drops`)."""
    player = state.players[seat]
    if player.rules > LEGACY_RULES:
        gone = {
            field: False
            for kind, field in allowance.BOOST_FIELDS.items()
            if getattr(player, field) and not player.traits(kind)
        }
        if gone:
            state = with_player(state, seat, **gone)
    extra_big: list[str] = []
    for what, key, _name in drops:
        if what == "big_item" and player.rules >= SECOND_READING:
            extra_big.append(key)
        elif what == "big_item":
            player = state.players[seat]
            state = with_player(state, seat, items=tuple(i for i in player.items if i.id != key))
        else:
            state = remove_trait(state, seat, allowance.TRAIT_OF[what], key)
    return place_extra_big_items(state, seat, extra_big) if extra_big else state


def place_extra_big_items(state: GameState, seat: int, item_ids: list[str]) -> GameState:
    """Big items a player may no longer carry (RULES.md §11, a lost allowance): sold, if it
    is their turn and no fight is on (a level per full 1000 gold, never the winning one;
    from rules 5 only if that buys a level); otherwise each goes to the lowest-Level player
    who can carry it (ties: the first to the owner's left, as Charity's cards go without a
    split), and only what nobody can carry is discarded."""
    owner = state.players[seat]
    gone = [i for i in owner.items if i.id in item_ids]
    state = with_player(state, seat, items=tuple(i for i in owner.items if i.id not in item_ids))
    if seat == state.current and state.combat is None and not turn_passed(state, seat):
        levels = levels_to_sell(state, seat, sum(i.spec.gold for i in gone), None)
        # From rules 5, a sale that buys no level (under 1000 gold, or only the winning
        # level left) is no sale: the items go to other players, as off one's turn.
        if levels > 0 or owner.rules < LOST_ALLOWANCE:
            return level_up(state, seat, levels) if levels > 0 else state
    for item in gone:
        taker = _lowest_who_can_carry(state, seat)
        if taker is not None:
            carried = state.players[taker].items
            state = with_player(state, taker, items=(*carried, item.evolve(equipped=False)))
    return state


def _lowest_who_can_carry(state: GameState, seat: int) -> int | None:
    """The living player, not `seat`, of the lowest Level with room for one more Big item."""
    able = []
    for other in rules.seats_to_the_left(seat, len(state.players)):
        player = state.players[other]
        if other == seat or player.dead:
            continue
        limit = allowance.big_item_limit(player)
        if limit is None or len(allowance.big_items(player)) < limit:
            able.append(other)
    if not able:
        return None
    return min(able, key=lambda s: state.players[s].level)  # min keeps the first of ties


def _set_trait_effects(
    bonuses: tuple[TraitBonus, ...], kind: TraitKind, name: str, **effects: object
) -> tuple[TraitBonus, ...]:
    """The traits' effects with this one's changed (kept once; dropped when it gives nothing)."""
    folded = name.casefold()
    old = next((b for b in bonuses if b.kind == kind and b.name.casefold() == folded), None)
    kept = tuple(b for b in bonuses if b is not old)
    new = (old or TraitBonus(kind=kind, name=name)).evolve(**effects)
    return (*kept, new) if new.gives_anything else kept


class GainTrait(BaseAction):
    """Take a class, race, motivation or style card (RULES.md §4).

    What it gives (a lasting combat bonus, a run-away bonus, bonuses against a monster's
    tag) is what the card in hand says; left out, what the edition's card of that name gives
    (nothing, for a name the edition says nothing about). Its abilities are the edition's
    for that name and any the card adds (`trait_effects`).
    """

    type: Literal["gain_trait"] = "gain_trait"
    player: Seat
    kind: TraitKind
    name: Annotated[str, Field(min_length=1, max_length=60)]
    bonus: TraitBonusValue | None = None
    run_away: RunAwayValue | None = None
    against: tuple[TagBonus, ...] | None = None
    abilities: tuple[Ability, ...] | None = None
    override: Override = None


def trait_effects(action: GainTrait, state: GameState, name: str) -> TraitBonus:
    """What a trait the player takes gives: the numbers are the action's (the card in hand),
    or the edition card's when it gives none; the abilities are the edition card's for that
    name and the card's own together (the edition's from rules 3 on: the rules before knew
    only the numbers the table entered)."""
    card = state.setup.edition.card(action.kind, name) if state.rules > LEGACY_RULES else None
    bonus = action.bonus if action.bonus is not None else (card.bonus if card else 0)
    run_away = action.run_away if action.run_away is not None else (card.run_away if card else 0)
    against = action.against if action.against is not None else (card.against if card else ())
    abilities = (*(card.abilities if card else ()), *(action.abilities or ()))
    return TraitBonus(
        kind=action.kind,
        name=name,
        bonus=bonus,
        run_away=run_away,
        against=against,
        abilities=tuple(dict.fromkeys(abilities)),
    )


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
def rule_gain_trait(action: GainTrait, state: GameState) -> None:
    """One class/race/motivation/style at a time unless Super Munchkin, Half-Breed,
    Extra Motivated or (styles) a Monk (§4)."""
    player = player_at(state, action.player)
    if state.rules > LEGACY_RULES and action.override is None:
        alive(player, phrase_template("receive cards"))
    kind = action.kind
    word = _TRAIT_WORDS[kind]
    known = state.setup.edition.traits(kind)
    name = _edition_spelling(state, kind, action.name)
    have = player.traits(kind)
    edition = state.setup.edition.name
    if action.override is None and kind not in state.setup.edition.open_traits:
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
def step_gain_trait(action: GainTrait, state: GameState) -> GameState:
    """The trait joins the player's, spelt as the edition spells it, with its effects (§4)."""
    player = state.players[action.player]
    kind = action.kind
    name = _edition_spelling(state, kind, action.name)
    effects = trait_effects(action, state, name)
    kept = tuple(b for b in player.trait_bonuses if not (b.kind == kind and b.name == name))
    bonuses = (*kept, effects) if effects.gives_anything else kept
    have = player.traits(kind)
    return with_player(
        state, action.player, **{_TRAIT_FIELDS[kind]: (*have, name), "trait_bonuses": bonuses}
    )


@words.register
def words_gain_trait(a: GainTrait, s: GameState) -> str:
    """History: who takes which trait, and its lasting combat bonus if any."""
    bonus = trait_effects(a, s, _edition_spelling(s, a.kind, a.name)).bonus
    if bonus:
        return Phrase(
            GAINED_TRAIT_WITH_BONUS,
            name=player_name(s, a.player),
            trait=a.name,
            kind=TRAIT_KIND_WORDS[a.kind],
            bonus=bonus,
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
    """Say what lasting combat bonus (and, if given, run-away bonus) a class, race,
    motivation or style gives (a trait entered by name, or a correction): counted until the
    trait goes."""

    type: Literal["set_trait_bonus"] = "set_trait_bonus"
    player: Seat
    kind: TraitKind
    name: str
    bonus: TraitBonusValue
    run_away: RunAwayValue | None = None


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
def rule_set_trait_bonus(action: SetTraitBonus, state: GameState) -> None:
    """A trait's bonus is part of the character, like the trait itself (§4, §8)."""
    player = player_at(state, action.player)
    name = _own_trait(player, action.kind, action.name)
    old = next((b for b in player.trait_bonuses if b.kind == action.kind and b.name == name), None)
    bonus, run_away = (old.bonus, old.run_away) if old is not None else (0, 0)
    if bonus == action.bonus and action.run_away in (None, run_away):
        raise RuleError(
            "bonus_unchanged",
            Phrase("{name} already gives {bonus:+d}", name=name, bonus=action.bonus),
        )


@step.register
def step_set_trait_bonus(action: SetTraitBonus, state: GameState) -> GameState:
    """The trait's combat (and run-away) bonus becomes the one given (§4)."""
    player = state.players[action.player]
    name = _own_trait(player, action.kind, action.name)
    changes: dict[str, object] = {"bonus": action.bonus}
    if action.run_away is not None:
        changes["run_away"] = action.run_away
    bonuses = _set_trait_effects(player.trait_bonuses, action.kind, name, **changes)
    return with_player(state, action.player, trait_bonuses=bonuses)


@words.register
def words_set_trait_bonus(a: SetTraitBonus, s: GameState) -> str:
    """History: the bonus a trait now gives, or that it gives none."""
    template = TRAIT_BONUS_SET if a.bonus else TRAIT_BONUS_REMOVED
    return Phrase(template, name=player_name(s, a.player), trait=a.name, bonus=a.bonus)


class LoseTrait(BaseAction):
    """Discard a class, race, motivation or style (allowed any time, even in combat).

    When it took an allowance with it (the Dwarf's Big items, a Monk's second style, the
    last class Super Munchkin was on), `drop` names what the player gives up: item ids or
    trait names.
    """

    type: Literal["lose_trait"] = "lose_trait"
    player: Seat
    kind: TraitKind
    name: str
    drop: Picks = ()
    override: Override = None


def allowance_questions(
    state: GameState,
    seat: int,
    lose: tuple[TraitKind, str] | None = None,
    boost_off: TraitKind | None = None,
    picks: tuple[str, ...] = (),
) -> tuple[allowance.Excess, ...]:
    """What the player in `seat` would still have to give up, and choose among, on losing a
    trait (`lose`, as (kind, name)) or a boost (`boost_off`), given the `picks` made so
    far: the app asks before it applies the `LoseTrait` or `SetTraitBoost`, and passes
    every pick as its `drop`. A pick can take another allowance with it (rules 5: the Monk
    class and a second style): ask again with the picks until nothing is left to ask."""
    if not 0 <= seat < len(state.players):
        return ()
    player = state.players[seat]
    found = allowance.lost_allowances(
        player,
        picks,
        lost_traits=(lose,) if lose is not None else (),
        boosts_off=(boost_off,) if boost_off is not None else (),
    )
    return allowance.open_allowances(found, picks)


def _trait_loss_drops(
    action: LoseTrait, state: GameState
) -> tuple[tuple[allowance.Excessive, str, str], ...]:
    player = state.players[action.player]
    if action.override is not None or player.rules <= LEGACY_RULES:
        return ()
    found = allowance.lost_allowances(
        player, action.drop, lost_traits=((action.kind, action.name),)
    )
    return allowance.chosen_drops(player, found, action.drop)


@rule.register
def rule_lose_trait(action: LoseTrait, state: GameState) -> None:
    """A class (or race, ...) can be discarded any time, even in combat; what it allowed
    goes with it, and the excess is given up at once (§4)."""
    _own_trait(player_at(state, action.player), action.kind, action.name)
    _trait_loss_drops(action, state)


@step.register
def step_lose_trait(action: LoseTrait, state: GameState) -> GameState:
    """The trait and its effects go; so does what the player gives up with it (§4)."""
    drops = _trait_loss_drops(action, state)
    state = remove_trait(state, action.player, action.kind, action.name)
    return settle_allowances(state, action.player, drops)


@words.register
def words_lose_trait(a: LoseTrait, s: GameState) -> str:
    """History: who stops being which trait, and what they give up with it."""
    if a.drop:
        return Phrase(
            "{name} is no longer a {trait} and gives up {things}",
            name=player_name(s, a.player),
            trait=a.name,
            things=dropped_names(s, a.player, a.drop),
        )
    return Phrase("{name} is no longer a {trait}", name=player_name(s, a.player), trait=a.name)


def dropped_names(state: GameState, seat: int, drop: tuple[str, ...]) -> str:
    """What a player gives up, by name: item ids become the items' names."""
    return joined(item_name(state, seat, key) for key in drop)


class SetTraitBoost(BaseAction):
    """Play or lose Super Munchkin (class), Half-Breed (race) or Extra Motivated.

    Losing it with two of the trait, `drop` names the one that goes with it.
    """

    type: Literal["set_trait_boost"] = "set_trait_boost"
    player: Seat
    kind: Literal["class", "race", "motivation"]
    on: bool = True
    drop: Picks = ()
    override: Override = None


def _boost_loss_drops(
    action: SetTraitBoost, state: GameState
) -> tuple[tuple[allowance.Excessive, str, str], ...]:
    player = state.players[action.player]
    if action.on or action.override is not None or player.rules <= LEGACY_RULES:
        return ()
    found = allowance.lost_allowances(player, action.drop, boosts_off=(action.kind,))
    return allowance.chosen_drops(player, found, action.drop)


@rule.register
def rule_set_trait_boost(action: SetTraitBoost, state: GameState) -> None:
    """A boost is played on a trait it attaches to, and goes when the last one goes; lost
    with two of the trait, one of them goes with it, the player's choice (§4)."""
    player = player_at(state, action.player)
    field, card = _BOOSTS[action.kind]
    if getattr(player, field) == action.on:
        how = (
            phrase_template("{name} is already {card}")
            if action.on
            else phrase_template("{name} is not {card}")
        )
        raise RuleError("boost_unchanged", Phrase(how, name=player.name, card=Phrase(card)))
    legacy = state.rules <= LEGACY_RULES
    if action.on and not legacy and action.override is None:
        alive(player, phrase_template("receive cards"))
        if not player.traits(action.kind):
            raise RuleError("boost_alone", Phrase(_BOOST_NEEDS[action.kind], name=player.name))
    if not action.on and legacy and len(player.traits(action.kind)) > 1:
        raise RuleError(
            "boost_in_use",
            Phrase(
                "Discard one {word} before losing {card}",
                word=_TRAIT_WORDS[action.kind],
                card=Phrase(card),
            ),
        )
    _boost_loss_drops(action, state)


@step.register
def step_set_trait_boost(action: SetTraitBoost, state: GameState) -> GameState:
    """The boost is played or lost; losing it, the chosen excess trait goes (§4)."""
    drops = _boost_loss_drops(action, state)
    field, _card = _BOOSTS[action.kind]
    state = with_player(state, action.player, **{field: action.on})
    return settle_allowances(state, action.player, drops) if drops else state


@words.register
def words_set_trait_boost(a: SetTraitBoost, s: GameState) -> str:
    """History: who plays or loses which boost, and what goes with it."""
    card = {kind: name for kind, (_field, name) in _BOOSTS.items()}
    how = phrase_template("{name} plays {card}") if a.on else phrase_template("{name} loses {card}")
    sentence = Phrase(how, name=player_name(s, a.player), card=Phrase(card[a.kind]))
    if not a.drop:
        return sentence
    return Phrase(
        "{sentence} and gives up {things}",
        sentence=sentence,
        things=dropped_names(s, a.player, a.drop),
    )


class ChangeSex(BaseAction):
    """A card changes a character's sex."""

    type: Literal["change_sex"] = "change_sex"
    player: Seat
    sex: Sex


@rule.register
def rule_change_sex(action: ChangeSex, state: GameState) -> None:
    """A card that changes sex must change it: the same sex again is refused."""
    player = player_at(state, action.player)
    if player.sex == action.sex:
        raise RuleError(
            "sex_unchanged",
            Phrase("{name} is already {sex}", name=player.name, sex=SEX_WORDS[action.sex.value]),
        )


@step.register
def step_change_sex(action: ChangeSex, state: GameState) -> GameState:
    """The player's sex becomes the one the card gives."""
    return with_player(state, action.player, sex=action.sex)


@words.register
def words_change_sex(a: ChangeSex, s: GameState) -> str:
    """History: whose sex changes, and to what."""
    return Phrase(
        "{name}'s sex becomes {sex}", name=player_name(s, a.player), sex=SEX_WORDS[a.sex.value]
    )


class SetAlly(BaseAction):
    """Play an Ally (any time, even in combat). A player with as many Allies as they may
    keep (one; two with a role that says so) discards one to make room, in the same step:
    `replaces` names which when there is a choice."""

    type: Literal["set_ally"] = "set_ally"
    player: Seat
    ally: AllySpec
    replaces: str | None = None
    override: Override = None


def ally_limit(player: PlayerState) -> int:
    """How many Allies a player may keep: one, or two with the ability (a role's)."""
    return 2 if "two_allies" in player.abilities else 1


def _ally_room_full(player: PlayerState) -> bool:
    """Whether a new Ally must take the place of one the player has (§4)."""
    return len(player.allies) >= ally_limit(player)


def _find_ally(player: PlayerState, name: str | None) -> int:
    """The place of the player's Ally of that name (the first one without a name)."""
    if not player.allies:
        raise RuleError("no_ally", Phrase("{name} has no Ally", name=player.name))
    if name is None:
        return 0
    folded = name.casefold()
    for place, ally in enumerate(player.allies):
        if ally.name.casefold() == folded:
            return place
    raise RuleError(
        "no_ally", Phrase("{name} has no Ally called {ally}", name=player.name, ally=name)
    )


def without_ally(player: PlayerState, name: str | None) -> tuple[AllySpec, ...]:
    """The player's Allies but the one named (the first one without a name)."""
    place = _find_ally(player, name)
    return player.allies[:place] + player.allies[place + 1 :]


@rule.register
def rule_set_ally(action: SetAlly, state: GameState) -> None:
    """Allies may be played any time, even in combat; a new one takes the place of an old
    one when the player has no room (§4; the Oz rulebook, Allies)."""
    player = player_at(state, action.player)
    alive(player, phrase_template("play an Ally"))
    if not _ally_room_full(player):
        return
    if state.rules <= LEGACY_RULES and action.override is None:
        raise RuleError("one_ally", Phrase("You can have only one Ally at a time"))
    if action.replaces is None and len(player.allies) > 1:
        names = joined((a.name for a in player.allies), "or")
        raise RuleError(
            "which_ally",
            Phrase(
                "Choose which Ally {ally} replaces: {names}", ally=action.ally.name, names=names
            ),
        )
    _find_ally(player, action.replaces)


@step.register
def step_set_ally(action: SetAlly, state: GameState) -> GameState:
    """The Ally joins the player's, in place of one when there is no room (§4)."""
    player = state.players[action.player]
    allies = player.allies
    if _ally_room_full(player):
        allies = without_ally(player, action.replaces)
    return with_player(state, action.player, allies=(*allies, action.ally))


@words.register
def words_set_ally(a: SetAlly, s: GameState) -> str:
    """History: who gains which Ally."""
    return Phrase("{name} gains the Ally {ally}", name=player_name(s, a.player), ally=a.ally.name)


class DiscardAlly(BaseAction):
    """An Ally leaves play (`name` says which when the player has two)."""

    type: Literal["discard_ally"] = "discard_ally"
    player: Seat
    name: str | None = None


@rule.register
def rule_discard_ally(action: DiscardAlly, state: GameState) -> None:
    """Only an Ally the player has can leave play (§4)."""
    _find_ally(player_at(state, action.player), action.name)


@step.register
def step_discard_ally(action: DiscardAlly, state: GameState) -> GameState:
    """The named Ally, or the only one, leaves play (§4)."""
    return with_player(
        state, action.player, allies=without_ally(state.players[action.player], action.name)
    )


@words.register
def words_discard_ally(a: DiscardAlly, s: GameState) -> str:
    """History: who loses an Ally, and which when named."""
    if a.name:
        return Phrase("{name} loses the Ally {ally}", name=player_name(s, a.player), ally=a.name)
    return Phrase("{name} loses their Ally", name=player_name(s, a.player))


class Die(BaseAction):
    """A player dies: keeps Level and traits, loses items and Ally (RULES.md §8)."""

    type: Literal["die"] = "die"
    player: Seat
    reason: str = ""


@rule.register
def rule_die(action: Die, state: GameState) -> None:
    """Death (§8): a player who is already dead cannot die again."""
    player = player_at(state, action.player)
    if player.dead:
        raise RuleError("already_dead", Phrase("{name} is already dead", name=player.name))


@step.register
def step_die(action: Die, state: GameState) -> GameState:
    """Death keeps Level and traits, loses items; a dead fighter's combat ends (§8)."""
    state = kill_player(state, action.player)
    combat = state.combat
    if combat is None or action.player not in combat.fighters:
        return state
    if combat.running:
        return finish_running_if_done(state)
    if action.player == combat.helper:
        helper_gone = combat.evolve(
            helper=None, level_only=combat.level_only - {action.player}, compelled=False
        )
        return state.evolve(combat=helper_gone)
    result = CombatResult(
        outcome="fighter_died",
        fighter=combat.fighter,
        helper=combat.helper,
        monsters=tuple(m.spec.name for m in combat.monsters),
    )
    return end_combat(state, result)


@words.register
def words_die(a: Die, s: GameState) -> str:
    """History: who dies, and why when a reason is given."""
    how = phrase_template("{name} dies ({why})") if a.reason else phrase_template("{name} dies")
    return Phrase(how, name=player_name(s, a.player), why=a.reason)


class LootTheBody(BaseAction):
    """Order the looting of a dead player: highest Level first, ties by dice (§8)."""

    type: Literal["loot_the_body"] = "loot_the_body"
    player: Seat
    rolls: tuple[D6, ...] | None = None
    dice: tuple[DieName, ...] = ()  # beside each roll, the smart die that gave it ("" on screen)


def _loot_groups(action: LootTheBody, state: GameState) -> list[list[int]]:
    """Who loots the body: the living others by Level, highest first; ties share a group (§8)."""
    return rules.loot_groups(state.players, action.player)


def _loot_order(action: LootTheBody, state: GameState) -> tuple[int, ...]:
    return ordered_by_rolls(_loot_groups(action, state), action.rolls, Phrase("the looting order"))


@rule.register
def rule_loot_the_body(action: LootTheBody, state: GameState) -> None:
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
def step_loot_the_body(action: LootTheBody, state: GameState) -> GameState:
    """The looting order, by Level and tie rolls, becomes the table's (§8)."""
    order = _loot_order(action, state)
    rolls = action.rolls or ()
    update: dict[str, object] = {
        "loot": LootOrder(dead=action.player, order=order, rolls=rolls),
    }
    if rolls:
        update["last_roll"] = DieRoll(value=rolls[-1], purpose="looting order")
    return state.evolve(**update)


@fill_rolls.register
def fill_rolls_loot_the_body(
    action: LootTheBody, state: GameState, dice: RandomSource
) -> BaseAction:
    """Rolls the d6s that break ties in the looting order of a dead player (§8)."""
    seats = len(state.players)
    if action.rolls is not None or not 0 <= action.player < seats:
        return action
    if not state.players[action.player].dead:
        return action  # the rules will refuse it; no die is rolled for nothing
    return action.evolve(rolls=rolls_for(_loot_groups(action, state), dice))


@words.register
def words_loot_the_body(a: LootTheBody, s: GameState) -> str:
    """History: whose body the others loot, with the tie rolls."""
    how = (
        phrase_template("The others loot {name}'s body, tie rolls {rolls}")
        if a.rolls
        else (phrase_template("The others loot {name}'s body"))
    )
    rolls = rolls_words(a.rolls or (), a.dice)
    return Phrase(how, name=player_name(s, a.player), rolls=rolls)
