"""Combat: fighter, helper, monsters (card search or quick level), enhancers, one-shots,
the live verdict, the 2.6-second wait before a kill is final, and the rewards."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.core import (
    AddEnhancer,
    AddHelper,
    AddMonster,
    ClearOneShots,
    EnhancerSpec,
    MonsterSpec,
    PlayOneShot,
    RemoveHelper,
    RemoveMonster,
    ResolveCombat,
    RunAway,
    StartCombat,
)
from companion.ui.i18n import _
from companion.ui.screens.base import CompanionScreen
from companion.ui.widgets import FlatButton

ONE_SHOT_VALUES = (1, 2, 3, 5, 10)
COUNTDOWN_STEP_S = 0.1
SEARCH_RESULTS = 4
QUICK_LEVEL_MAX = 30
QUICK_TREASURE_MAX = 10
# Typical enhancers, for tables that do not look cards up: (bonus, treasure change).
QUICK_ENHANCERS = ((5, 1), (10, 2), (-5, -1))


class MonsterRow(BoxLayout):
    """One monster in the fight, with its strength, treasure and enhancer buttons."""

    owner = None
    index = NumericProperty(0)
    title = StringProperty("")
    detail = StringProperty("")


class CombatScreen(CompanionScreen):
    """Build the fight, watch the verdict, then resolve it."""

    active = BooleanProperty(False)
    fighter_text = StringProperty("")
    helper_text = StringProperty("")
    players_strength = NumericProperty(0)
    monsters_strength = NumericProperty(0)
    winning = BooleanProperty(False)
    verdict = StringProperty("")
    rewards = StringProperty("")
    quick_level = NumericProperty(1)
    quick_treasure = NumericProperty(1)
    negative = BooleanProperty(False)
    # Seconds left before the kill is final; 0 when no countdown runs.
    countdown = NumericProperty(0)
    running = BooleanProperty(False)
    # Dimmed (still tappable: a tap says why) when the rules would refuse right now.
    can_run = BooleanProperty(False)
    result_text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fighter = 0
        self._tick = None
        self._search_text = ""
        self.app.bind(wide=self._arrange)
        self._arrange()

    def _arrange(self, *_args: Any) -> None:
        # One-shots are the most used buttons of a fight: on a phone they sit right under
        # the monsters; on a wide window they get the right-hand column.
        shots, left, right = self.ids.block_shots, self.ids.left, self.ids.right
        if shots.parent is not None:
            shots.parent.remove_widget(shots)
        if self.app.wide:
            right.add_widget(shots, index=len(right.children))
        else:
            left.add_widget(shots, index=left.children.index(self.ids.block_add) + 1)

    # -- choosing who fights ------------------------------------------------------------
    def prepare(self, **params: Any) -> None:
        fighter = params.pop("fighter", None)
        super().prepare(**params)
        state = self.session.live_state
        if state is not None and state.combat is None:
            # A new fight starts from a clean quick entry.
            self.fighter = state.current if fighter is None else fighter
            self.quick_level = 1
            self.quick_treasure = 1
            self.negative = False

    def next_fighter(self) -> None:
        """Before the fight: cycle who fights (living players only)."""
        state = self.session.live_state
        if state is None or state.combat is not None:
            return
        count = len(state.players)
        for step in range(1, count + 1):
            seat = (self.fighter + step) % count
            if not state.players[seat].dead:
                self.fighter = seat
                break
        self.refresh()

    def next_helper(self) -> None:
        """Cycle the helper: nobody -> each other living player -> nobody."""
        state = self.session.live_state
        if state is None or state.combat is None:
            self.app.notify(_("Add a monster first."))
            return
        combat = state.combat
        candidates = [s for s, p in enumerate(state.players) if s != combat.fighter and not p.dead]
        if combat.helper is None:
            nxt = candidates[0] if candidates else None
        else:
            later = [s for s in candidates if s > combat.helper]
            nxt = later[0] if later else None
        if combat.helper is not None and not self.session.act(RemoveHelper):
            return
        if nxt is not None:
            self.session.act(AddHelper, helper=nxt)

    # -- monsters ------------------------------------------------------------------------
    def step_quick_level(self, delta: int) -> None:
        """The level stepper of the quick monster entry."""
        self.quick_level = max(1, min(QUICK_LEVEL_MAX, self.quick_level + delta))

    def step_quick_treasure(self, delta: int) -> None:
        """The treasure stepper of the quick monster entry."""
        self.quick_treasure = max(0, min(QUICK_TREASURE_MAX, self.quick_treasure + delta))

    def add_quick_monster(self) -> None:
        """Add a monster known only by its level and treasure count."""
        level = int(self.quick_level)
        name = _("Level {n} monster").format(n=level)
        spec = MonsterSpec(name=name, level=level, treasure=int(self.quick_treasure))
        self._add_monster(spec)

    def search(self, text: str) -> None:
        """Typing in the search box: matching monsters (and, in a fight, enhancers)."""
        self._search_text = text
        box = self.ids.results
        box.clear_widgets()
        cards = self.app.cards if text.strip() else None
        if cards is None:
            return
        state = self.session.live_state
        in_fight = state is not None and state.combat is not None
        found = cards.search(text, kind="monster", limit=SEARCH_RESULTS)
        if in_fight:
            # Enhancers go on the monster that joined last.
            found += cards.search(text, kind="enhancer", limit=SEARCH_RESULTS)
        for card in found[:SEARCH_RESULTS]:
            if card.kind == "enhancer":
                label = _("{name} ({bonus:+d}) on the last monster").format(
                    name=card.name, bonus=card.bonus
                )
            else:
                label = f"{card.name}  ({_('Level')} {card.level})"
            button = FlatButton(
                text=label, size_hint_y=None, height=dp(48), font_size=self.app.theme.body
            )
            button.card_id = card.id
            button.bind(on_release=lambda b: self.add_card(b.card_id))
            box.add_widget(button)

    def add_card(self, card_id: str) -> None:
        """A search result was tapped: a monster joins, or an enhancer is played."""
        cards = self.app.cards
        if cards is None:
            return
        card = cards.get(card_id)
        if card.kind == "enhancer":
            state = self.session.live_state
            if state is None or state.combat is None:
                return
            last = len(state.combat.monsters) - 1
            self.session.act(AddEnhancer, monster=last, enhancer=cards.enhancer(card_id).to_spec())
        else:
            self._add_monster(cards.monster(card_id).to_spec())
        self.ids.search.text = ""

    def _add_monster(self, spec: MonsterSpec) -> None:
        state = self.session.live_state
        if state is None:
            return
        if state.combat is None:
            self.session.act(StartCombat, fighter=self.fighter, monsters=(spec,))
        else:
            self.session.act(AddMonster, monster=spec)

    def remove_monster(self, index: int) -> None:
        """A card takes a monster out of the fight."""
        self.session.act(RemoveMonster, monster=index)

    def enhance(self, index: int, bonus: int, treasure: int) -> None:
        """Play an enhancer on one monster."""
        name = _("Enhancer {bonus:+d}").format(bonus=bonus)
        spec = EnhancerSpec(name=name, bonus=bonus, treasure=treasure)
        self.session.act(AddEnhancer, monster=index, enhancer=spec)

    # -- one-shots -------------------------------------------------------------------
    def toggle_sign(self) -> None:
        """Switch the one-shot buttons between bonuses and penalties."""
        self.negative = not self.negative

    def one_shot(self, side: str, value: int) -> None:
        """A one-shot button: +value (or -value) for one side."""
        bonus = -value if self.negative else value
        self.session.act(PlayOneShot, side=side, bonus=bonus, name=_("One-shot"))

    def clear_side(self, side: str) -> None:
        """Take back the one-shots played for one side."""
        self.session.act(ClearOneShots, side=side)

    # -- the end of the fight ------------------------------------------------------------
    def press_kill(self) -> None:
        """The big button: "Kill!" starts the wait, during the wait it means "Wait!"."""
        if self.countdown:
            self.interfere()
        else:
            self.kill()

    def kill(self) -> None:
        """Start the wait before the kill is final (anyone may still interfere)."""
        state = self.session.live_state
        if state is None or state.combat is None:
            return
        if not state.combat.fighters_winning:
            self.app.notify(_("The monsters are winning: you cannot kill them now."), True)
            return
        wait = float(self.app.settings.victory_countdown_s)
        if wait <= 0:
            self._finish_kill()
            return
        self.countdown = wait
        self._stop_tick()
        self._tick = Clock.schedule_interval(self._count, COUNTDOWN_STEP_S)

    def interfere(self) -> None:
        """Stop the countdown: someone plays a card."""
        self._stop_tick()
        self.countdown = 0
        self.app.notify(_("Wait! Someone interferes."))

    def defeat(self) -> None:
        """A card removes the monsters without a kill: no levels."""
        self._stop_tick()
        self.countdown = 0
        self.session.act(ResolveCombat, outcome="defeat")

    def run_away(self) -> None:
        """The fighters cannot win: go and roll to run away (or hear why not)."""
        self._stop_tick()
        self.countdown = 0
        game, state = self.session.game, self.session.live_state
        if game is not None and state is not None and state.combat and not state.combat.running:
            problem = game.check(RunAway(fighter=state.combat.fighter, monster=0))
            if problem is not None:
                self.app.notify(str(problem), error=True)
                return
        self.app.show("run_away")

    def _count(self, dt: float) -> bool:
        state = self.session.live_state
        if state is None or state.combat is None or not state.combat.fighters_winning:
            # Something was played that turned the fight: the kill is off.
            self.countdown = 0
            self._tick = None
            return False
        self.countdown = max(0.0, self.countdown - dt)
        if self.countdown <= 0:
            self._tick = None
            self._finish_kill()
            return False
        return True

    def _finish_kill(self) -> None:
        self.countdown = 0
        self.session.act(ResolveCombat, outcome="kill")

    def _stop_tick(self) -> None:
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None

    def on_leave(self, *_args: Any) -> None:
        if self.countdown:
            self.interfere()

    # -- drawing --------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state
        if state is None:
            return
        combat = state.combat
        self.active = combat is not None
        box = self.ids.monsters
        box.clear_widgets()
        if combat is None:
            self.fighter = min(self.fighter, len(state.players) - 1)
            self.fighter_text = _("Fighter: {name}").format(name=state.players[self.fighter].name)
            self.helper_text = _("Helper: nobody")
            self.players_strength = state.players[self.fighter].strength
            self.monsters_strength = 0
            self.winning = False
            self.verdict = _("Add a monster to start the fight.")
            self.rewards = ""
            self.running = False
            self.result_text = self._last_result(state)
            return
        self.result_text = ""
        self.fighter = combat.fighter
        fighter = state.players[combat.fighter]
        self.fighter_text = _("Fighter: {name} ({n})").format(
            name=fighter.name, n=combat.fighter_strength
        )
        if combat.helper is None:
            self.helper_text = _("Helper: nobody")
        else:
            self.helper_text = _("Helper: {name} ({n})").format(
                name=state.players[combat.helper].name, n=combat.helper_strength
            )
        self.players_strength = combat.players_strength
        self.monsters_strength = combat.monsters_strength
        self.winning = combat.fighters_winning
        self.running = combat.running
        self.verdict = _("Players win") if combat.fighters_winning else _("Monsters win")
        self.can_run = self.session.allowed(RunAway, fighter=combat.fighter, monster=0)
        self.rewards = _("Kill: {levels} level(s), {treasure} treasure(s)").format(
            levels=combat.levels, treasure=combat.treasure
        )
        for index, monster in enumerate(combat.monsters):
            row = MonsterRow(index=index)
            row.owner = self
            row.title = f"{monster.spec.name}  \u00b7  {monster.strength}"
            parts = [_("Level {n}").format(n=monster.spec.level)]
            parts += [e.name for e in monster.enhancers]
            parts.append(_("{n} treasure(s)").format(n=monster.treasure))
            row.detail = "  \u00b7  ".join(parts)
            box.add_widget(row)

    def _last_result(self, state: Any) -> str:
        result = state.last_combat
        if result is None:
            return ""
        names = ", ".join(result.monsters)
        if result.outcome == "kill":
            return _("Killed {monsters}: +{levels} level(s), {treasure} treasure(s).").format(
                monsters=names, levels=result.levels, treasure=result.treasure
            )
        if result.outcome == "defeat":
            return _("Defeated {monsters} without killing.").format(monsters=names)
        if result.outcome == "fighter_died":
            return _("The fighter died fleeing {monsters}.").format(monsters=names)
        return _("Ran away from {monsters}.").format(monsters=names)
