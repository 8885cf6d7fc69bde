"""The abilities a player may use now (berserking, turning, backstabbing, charming, stealing),
each with the choices the rules accept, found by asking the engine about every choice
rather than by knowing its rules here."""

from __future__ import annotations

from dataclasses import dataclass

from companion.core import Charm, Game, GameState, RuleError, Steal, UseAbility, apply_action
from companion.core.chapters.abilities import CHARM_CARDS, MAX_CARDS
from companion.core.chapters.base import BaseAction
from companion.ui.i18n import N_, _, card_name, ngettext

# The abilities the Combat screen offers, in the order it shows them, with their button.
COMBAT_ABILITIES: tuple[tuple[str, str], ...] = (
    ("berserking", N_("{name}: go berserk")),
    ("turning", N_("{name}: turn Undead")),
    ("backstab", N_("{name}: backstab")),
    ("charm", N_("{name}: charm a monster")),
)
# The most cards a player is asked about for a charm (it takes the whole hand).
CHARM_HAND_MAX = 10


@dataclass(frozen=True)
class Choice:
    """One way to use an ability: the action and how a player knows it."""

    action: BaseAction
    text: str


@dataclass(frozen=True)
class Offer:
    """An ability a player has and could use in this fight: the choices the rules accept
    now, or, when they accept none, why not (the engine's words for the simplest)."""

    seat: int
    ability: str
    text: str
    choices: tuple[Choice, ...]
    problem: RuleError | None

    @property
    def usable(self) -> bool:
        return bool(self.choices)


def _strength_change(state: GameState, action: BaseAction) -> int:
    """What the action changes on the players' side, as the engine counts it."""
    before = state.combat.players_strength if state.combat is not None else 0
    after = apply_action(state, action).combat
    return (after.players_strength if after is not None else 0) - before


def _candidates(state: GameState, seat: int, ability: str) -> list[Choice]:
    combat = state.combat
    assert combat is not None
    if ability in ("berserking", "turning"):
        found = []
        for cards in range(1, MAX_CARDS + 1):
            action = UseAbility(player=seat, ability=ability, cards=cards)
            found.append(Choice(action, _cards_text(cards)))
        return found
    if ability == "backstab":
        targets = [t for t in combat.fighters if t != seat]
        return [
            Choice(
                UseAbility(player=seat, ability="backstab", target=target),
                state.players[target].name,
            )
            for target in targets
        ]
    return [
        Choice(Charm(player=seat, monster=index, cards=CHARM_CARDS), card_name(monster.spec.name))
        for index, monster in enumerate(combat.monsters)
    ]


def _cards_text(cards: int) -> str:
    return ngettext("{n} card", "{n} cards", cards).format(n=cards)


def _with_change(state: GameState, choice: Choice) -> Choice:
    """The choice's words with what it does to the players' strength, where it does."""
    if isinstance(choice.action, Charm):
        return choice
    change = _strength_change(state, choice.action)
    if not change:
        return choice
    sign = "+" if change > 0 else "\u2212"  # a true minus, as the one-shot buttons have
    return Choice(choice.action, f"{choice.text}: {sign}{abs(change)}")


def combat_offers(game: Game) -> list[Offer]:
    """Every ability someone could use in the combat going on: those of the fighters and
    helper, and the backstab of anyone alive. Each lists the choices the rules accept."""
    state = game.state
    combat = state.combat
    if combat is None:
        return []
    offers = []
    for ability, label in COMBAT_ABILITIES:
        for seat, player in enumerate(state.players):
            if player.dead or ability not in player.abilities:
                continue
            if ability != "backstab" and seat not in combat.fighters:
                continue
            candidates = _candidates(state, seat, ability)
            if not candidates:
                continue  # a backstab with nobody else in the fight to take it
            accepted = tuple(
                _with_change(state, c) for c in candidates if game.check(c.action) is None
            )
            problem = None if accepted else game.check(candidates[0].action)
            text = _(label).format(name=player.name)
            offers.append(Offer(seat, ability, text, accepted, problem))
    return offers


def charm_hands(game: Game, charm: Charm) -> list[Choice]:
    """How many cards the charmer's whole hand may hold, as the rules accept them."""
    choices = []
    for cards in range(CHARM_CARDS, CHARM_HAND_MAX + 1):
        action = charm.model_copy(update={"cards": cards})
        if game.check(action) is None:
            choices.append(Choice(action, _cards_text(cards)))
    return choices


def steal_choices(game: Game, thief: int) -> tuple[list[Choice], RuleError | None]:
    """Every item of another player the thief may try to steal now, and, when there is
    none, why not (the engine's words for the first item tried; None: nobody has one)."""
    state = game.state
    choices: list[Choice] = []
    problem: RuleError | None = None
    for victim, player in enumerate(state.players):
        if victim == thief:
            continue
        for item in player.items:
            action = Steal(thief=thief, victim=victim, item_id=item.id)
            refused = game.check(action)
            if refused is None:
                text = _("{item} of {name}").format(
                    item=card_name(item.spec.name), name=player.name
                )
                choices.append(Choice(action, text))
            elif problem is None:
                problem = refused
    return choices, (None if choices else problem)
