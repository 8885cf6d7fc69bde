"""Combat: fighter, helper, monsters (one tap on a level with a one-tap Bad Stuff, or a
card search), enhancers, one-shots, card effects, the live verdict, the wait before a kill
is final, the rewards.

On a phone the level grid sits above the fold: from the Table, "Combat" and a level
show the verdict, and a third tap kills or runs away.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from kivy.metrics import dp
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from companion.core import (
    AddEnhancer,
    AddMonster,
    Charm,
    ClearOneShots,
    EnhancerSpec,
    FightWithLevelOnly,
    MonsterSpec,
    PlayOneShot,
    RemoveMonster,
    ResolveCombat,
    SetWinsTies,
    StartCombat,
)
from companion.core.chapters.combat import resolved_treasure, treasure_if_last
from companion.ui.abilities import Choice, Offer, charm_hands, combat_offers
from companion.ui.i18n import _, card_name, quick_monster_name, tr
from companion.ui.questions import QUICK_BAD_STUFF, quick_bad_stuff_of
from companion.ui.screens.combat_help import CombatHelp
from companion.ui.screens.combat_view import (
    AbilityLine,
    CombatButtons,
    CombatView,
    MonsterLine,
    combat_buttons,
    combat_view,
    run_problem,
    search_label,
)
from companion.ui.sheets import ChoiceSheet, QuoteSheet, option_button
from companion.ui.weak import weakly
from companion.ui.widgets import FlatButton

ONE_SHOT_VALUES = (1, 2, 3, 5, 10)
SEARCH_RESULTS = 4
GRID_LEVELS = 20  # one button per monster level 1..20; rarer levels use the stepper
GRID_COLUMNS = 5
QUICK_LEVEL_MAX = 30
QUICK_TREASURE_MAX = 10
# Typical enhancers, for tables that do not look cards up: (bonus, treasure change).
QUICK_ENHANCERS = ((5, 1), (10, 2), (-5, -1))


class MonsterRow(BoxLayout):
    """One monster in the fight, with its strength, treasure and enhancer buttons."""

    # The screen the row belongs to (set when the row is made).
    owner: CombatScreen | None = None
    index = NumericProperty(0)
    title = StringProperty("")
    detail = StringProperty("")
    # The monster's own power over the whole fight ("" when it has none worth a line).
    power = StringProperty("")


# The view's values that are properties of the screen by the same name (see `_show`).
_SHOWN = tuple(
    f.name
    for f in fields(CombatView)
    if f.name not in ("fighter", "verdict_tone", "add_caption", "monsters", "abilities", "buttons")
)
_BUTTONS = tuple(f.name for f in fields(CombatButtons))


class CombatScreen(CombatHelp):
    """Build the fight, watch the verdict, then resolve it.

    What it shows is decided by `combat_view` (companion/ui/screens/combat_view.py):
    the screen hands it the game and its own values and copies the answer into its
    properties, which combat.kv binds to.
    """

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
    # The colour of the verdict box (good, bad, or a plain surface before the fight).
    verdict_colour = ColorProperty([0, 0, 0, 1])
    # A card lets the players win ties (a Warrior, say).
    wins_ties = BooleanProperty(False)
    # A card makes the fighter count only their Level.
    level_only = BooleanProperty(False)
    # Seconds left before the kill is final; 0 when no countdown runs (follows the app's).
    countdown = NumericProperty(0)
    running = BooleanProperty(False)
    # Dimmed (still tappable: a tap says why) when the rules would refuse right now.
    can_run = BooleanProperty(False)
    result_text = StringProperty("")
    # The Bad Stuff the next monster entered by its level gets (a `QUICK_BAD_STUFF` key).
    quick_bad = StringProperty("none")
    # Someone helps the fighter (what they share is CombatHelp's).
    has_helper = BooleanProperty(False)
    share_text = StringProperty("")
    # Someone in this fight has an ability (or the edition's Magic) to use.
    has_abilities = BooleanProperty(False)
    abilities_caption = StringProperty("")
    fighter_enabled = BooleanProperty(True)
    # Under the verdict: the rewards in a fight, how the last one ended before it.
    rewards_text = StringProperty("")
    wins_ties_text = StringProperty("")
    level_only_text = StringProperty("")
    # A monster whose power makes every fighter count Level only (its name, or "").
    level_only_monster = StringProperty("")
    # The next monster entered by its level (or the one just entered) has that power.
    quick_level_only = BooleanProperty(False)
    effects_enabled = BooleanProperty(False)
    # What follows the countdown, the level stepper and the one-shot sign (`CombatButtons`).
    verdict_text = StringProperty("")
    kill_text = StringProperty("")
    kill_waits = BooleanProperty(False)
    kill_enabled = BooleanProperty(False)
    run_enabled = BooleanProperty(False)
    defeat_enabled = BooleanProperty(False)
    add_text = StringProperty("")
    shots_caption = StringProperty("")
    sign_text = StringProperty("")
    shot_sign = StringProperty("+")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fighter = 0
        self._search_text = ""
        self.level_buttons: dict[int, FlatButton] = {}
        # Imported here: the drop-down module opens Kivy's window on import, and a screen
        # module must be importable before the app has sized its window.
        from kivy.uix.dropdown import DropDown

        self.helper_menu = DropDown(auto_width=False, width=dp(240))
        self.bad_stuff_buttons: dict[str, FlatButton] = {}
        # The monster entered last by its level, while nothing else has happened since:
        # (the action that entered it, its card without Bad Stuff). A Bad Stuff tapped
        # now is that monster's; with none, the Bad Stuff is the next monster's.
        self._entered: tuple[Any, MonsterSpec] | None = None
        self._amending = False
        self._add_caption: Widget | None = None
        # The ability buttons on show, by (seat, ability); "quote" for Magic by quoting.
        self.ability_buttons: dict[tuple[int, str], FlatButton] = {}
        self.sheet: Any = None  # the sheet on show over the screen, if any
        self._view: CombatView | None = None  # what the screen shows, as plain values
        self._show_buttons()
        for value in ("countdown", "quick_level", "negative"):
            self.fbind(value, self._show_buttons)
        self._build_level_grid()
        self._build_bad_stuff_strip()
        self.app.bind(wide=self._arrange)
        self.app.countdown.bind(remaining=self._countdown_changed)
        self._arrange()

    def _build_level_grid(self) -> None:
        grid = self.ids.level_grid
        for level in range(1, GRID_LEVELS + 1):
            button = FlatButton(text=str(level), font_size=self.app.theme.button)
            button.level = level
            button.bind(on_release=weakly(self.add_level, level))
            grid.add_widget(button)
            self.level_buttons[level] = button

    def _build_bad_stuff_strip(self) -> None:
        strip = self.ids.bad_stuff_strip
        for key, label, _kind, _count in QUICK_BAD_STUFF:
            button = FlatButton(
                text=_(label),
                font_size=self.app.theme.body,
                wrap=False,
                size_hint=(None, None),
                height=dp(48),
            )
            button.bind(
                texture_size=lambda b, size: setattr(b, "width", max(dp(56), size[0] + dp(22)))
            )
            button.bad_stuff = key
            button.bind(on_release=weakly(self.choose_quick_bad_stuff, key))
            strip.add_widget(button)
            self.bad_stuff_buttons[key] = button
        self.on_quick_bad(self, self.quick_bad)

    def _show_add_caption(self, show: bool) -> None:
        """Before the first monster the verdict line already says to tap a level: the
        caption would only push the level grid's last row below a phone's fold."""
        if self._add_caption is None:  # kept here: out of the tree, only this holds it
            self._add_caption = self.ids.add_caption.__self__
        caption = self._add_caption
        if show and caption.parent is None:
            block = self.ids.block_add
            block.add_widget(caption, index=len(block.children))
        elif not show and caption.parent is not None:
            caption.parent.remove_widget(caption)

    def choose_quick_bad_stuff(self, key: str) -> None:
        """One tap: the Bad Stuff of the monster just entered by its level (it is entered
        again with it, in its place), or, before one is, of the next one."""
        self.quick_bad = key
        self._amend_entered({"bad_stuff": quick_bad_stuff_of(key)})

    def toggle_quick_level_only(self) -> None:
        """One tap: the monster just entered by its level has the power that makes every
        fighter count their Level only (it is entered again with it, in its place), or,
        before one is, the next one has it. A second tap takes it away again."""
        self.quick_level_only = not self.quick_level_only
        self._amend_entered({"level_only": bool(self.quick_level_only)})

    def _amend_entered(self, update: dict[str, Any]) -> None:
        """The monster entered last by its level, while nothing else has happened since,
        is entered again in its place with `update` (its Bad Stuff, its power)."""
        entered = self._entered if self._entered_last() else None
        if entered is None:
            return
        kept = {"bad_stuff": quick_bad_stuff_of(self.quick_bad)}
        spec = entered[1].model_copy(update={**kept, **update})
        self._amending = True
        try:
            if self.session.table.undo(1).applied:
                self._enter(spec)
        finally:
            self._amending = False

    def _entered_last(self) -> bool:
        """Whether the last action of the game is the monster entered by its level here."""
        game = self.session.game
        if self._entered is None or game is None or game.revision < 1:
            return False
        return game.action_at(game.revision - 1) is self._entered[0]

    def on_quick_bad(self, _screen: Any, key: str) -> None:
        for known, button in self.bad_stuff_buttons.items():
            button.selected = known == key

    def _countdown_changed(self, _countdown: Any, remaining: float) -> None:
        self.countdown = remaining

    def _arrange(self, *_args: Any) -> None:
        # On a phone everything is one column: the level grid first (above the fold), then
        # one-shots and card effects; a wide window gives those two the right-hand column.
        blocks = (self.ids.block_shots, self.ids.block_effects)
        left, right = self.ids.left, self.ids.right
        for block in blocks:
            if block.parent is not None:
                block.parent.remove_widget(block)
        for block in blocks:
            if self.app.wide:
                right.add_widget(block, index=1)  # above the spacer at the bottom
            else:
                left.add_widget(block, index=1)

    # -- choosing who fights ------------------------------------------------------------
    def prepare(self, **params: Any) -> None:
        fighter = params.pop("fighter", None)
        super().prepare(**params)
        state = self.session.live_state
        if state is not None and state.combat is None:
            # A new fight starts from a clean quick entry, the level grid in view.
            self.ids.scroll.scroll_y = 1
            self.fighter = state.current if fighter is None else fighter
            self.quick_level = 1
            self.quick_treasure = 1
            self.quick_bad = "none"
            self.quick_level_only = False
            self._entered = None
            self.negative = False
            self.helper_share = 0
            self.helper_first = False

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

    # -- monsters ------------------------------------------------------------------------
    def step_quick_level(self, delta: int) -> None:
        """The level stepper of the quick monster entry."""
        self.quick_level = max(1, min(QUICK_LEVEL_MAX, self.quick_level + delta))

    def step_quick_treasure(self, delta: int) -> None:
        """The treasure stepper of the quick monster entry."""
        self.quick_treasure = max(0, min(QUICK_TREASURE_MAX, self.quick_treasure + delta))

    def add_quick_monster(self) -> None:
        """The "Add monster" button: a monster of the stepper's level."""
        self.add_level(int(self.quick_level))

    def add_level(self, level: int) -> None:
        """One tap on a level: a monster of that level joins (or starts) the fight.

        A name typed in the search box names it, and the table's card pack remembers
        it for next time; otherwise it is "Level 8 monster" (with "#2" for a second one).
        """
        typed = self.ids.search.text.strip()
        treasure = int(self.quick_treasure)
        # A Bad Stuff chosen for the monster entered before stays that monster's.
        # So does its power; the next monster's is chosen anew.
        bad = "none" if self._entered_last() else self.quick_bad
        only = False if self._entered_last() else bool(self.quick_level_only)
        spec = MonsterSpec(
            name=typed or self._quick_name(level),
            level=int(level),
            treasure=treasure,
            level_only=only,
        )
        if self._enter(spec.model_copy(update={"bad_stuff": quick_bad_stuff_of(bad)})):
            self.quick_bad = bad
            self.quick_level_only = only
            if typed:
                self.app.remember_monster(typed, int(level), treasure)

    def _enter(self, spec: MonsterSpec) -> bool:
        """A monster entered by its level joins the fight; its Bad Stuff may follow."""
        plain = spec.model_copy(update={"bad_stuff": quick_bad_stuff_of("none")})
        if not self._add_monster(spec, keep_bad_stuff=True):
            return False
        game = self.session.game
        assert game is not None  # a monster was just added to it
        self._entered = (game.action_at(game.revision - 1), plain)
        return True

    def _quick_name(self, level: int) -> str:
        # The log keeps the English name; every screen shows it in the player's language.
        state = self.session.live_state
        taken = set()
        if state is not None and state.combat is not None:
            taken = {monster.spec.name for monster in state.combat.monsters}
        number = 1
        while quick_monster_name(level, number) in taken:
            number += 1
        return quick_monster_name(level, number)

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
            # Enhancers go on the monster that joined last; one-shots are played at once.
            found += cards.search(text, kind="enhancer", limit=SEARCH_RESULTS)
            items = cards.search(text, kind="item", limit=SEARCH_RESULTS)
            found += [card for card in items if card.one_shot]
        for card in found[:SEARCH_RESULTS]:
            button = FlatButton(
                text=search_label(card),
                size_hint_y=None,
                height=dp(48),
                font_size=self.app.theme.body,
            )
            button.card_id = card.id
            button.bind(on_release=weakly(self.add_card, card.id))
            if card.kind != "item":
                box.add_widget(button)
                continue
            row = BoxLayout(size_hint_y=None, height=dp(48), spacing=dp(4))
            theirs = FlatButton(
                text=_("For the monsters"),
                size_hint_x=0.4,
                font_size=self.app.theme.body,
            )
            theirs.bind(on_release=weakly(self.add_card, card.id, "monsters"))
            row.add_widget(button)
            row.add_widget(theirs)
            box.add_widget(row)

    def add_card(self, card_id: str, side: str = "players") -> None:
        """A search result was tapped: a monster joins, an enhancer is played, or a
        one-shot is played for `side`."""
        cards = self.app.cards
        if cards is None:
            return
        card = cards.get(card_id)
        if card.kind == "item":
            state = self.session.live_state
            if state is None or state.combat is None:
                return
            chosen = "monsters" if side == "monsters" else "players"
            self.session.act(cards.item(card_id).one_shot_action(chosen))
        elif card.kind == "enhancer":
            state = self.session.live_state
            if state is None or state.combat is None:
                return
            last = len(state.combat.monsters) - 1
            self.session.act(AddEnhancer, monster=last, enhancer=cards.enhancer(card_id).to_spec())
        else:
            self._add_monster(cards.monster(card_id).to_spec())
        self.ids.search.text = ""

    # -- card effects ----------------------------------------------------------------
    def toggle_wins_ties(self) -> None:
        """A card (a Warrior, say) lets the players win ties, or no longer does."""
        state = self.session.live_state
        if state is None or state.combat is None:
            self.app.notify(_("Add a monster first."))
            return
        on = not state.combat.wins_ties
        self.session.act(SetWinsTies, on=on, reason=_("a card says so") if on else "")

    def toggle_level_only(self) -> None:
        """A card makes the fighter count only their Level, or no longer does. While a
        monster's power binds the whole fight, no card on the fighter changes that: the
        tap says so."""
        state = self.session.live_state
        if state is None or state.combat is None:
            self.app.notify(_("Add a monster first."))
            return
        if self.level_only_monster:
            self.app.notify(
                _("{monster}'s power: the fighter and any helper count their Level only").format(
                    monster=card_name(self.level_only_monster)
                )
            )
            return
        fighter = state.combat.fighter
        self.session.act(
            FightWithLevelOnly, player=fighter, on=fighter not in state.combat.level_only
        )

    def _add_monster(self, spec: MonsterSpec, keep_bad_stuff: bool = False) -> bool:
        state = self.session.live_state
        if state is None:
            return False
        if state.combat is None:
            added = self.session.act(StartCombat, fighter=self.fighter, monsters=(spec,))
        else:
            added = self.session.act(AddMonster, monster=spec)
        if added:
            self._reset_quick_entry(keep_bad_stuff)
        return added

    def _reset_quick_entry(self, keep_bad_stuff: bool = False) -> None:
        """After a monster joins, the quick entry starts over for the next one (the Bad
        Stuff strip goes on showing that of a monster entered by its level: a tap there
        changes it)."""
        self.quick_level = 1
        self.quick_treasure = 1
        if not keep_bad_stuff:
            self._entered = None
            self.quick_bad = "none"
            self.quick_level_only = False
        self.ids.search.text = ""

    def remove_monster(self, index: int) -> None:
        """A card takes a monster out of the fight (the last one ends it: the helper's
        share goes with it as agreed)."""
        self._remove(RemoveMonster(monster=index))

    def _remove(self, action: RemoveMonster | Charm) -> None:
        """Take a monster away (a card, a charm); the last one ends the combat."""
        state = self.session.live_state
        if state is not None and state.combat is not None:
            self._act_ending(action, treasure_if_last(action, state))

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
        """Call the kill: the table's wait starts (anyone may still interfere), and the
        helper's share as agreed goes with the kill."""
        self.session.table.agree_share(int(self.helper_share), bool(self.helper_first))
        self.session.kill()

    def interfere(self) -> None:
        """Stop the countdown: someone plays a card."""
        self.session.interfere()

    def defeat(self) -> None:
        """A card removes the monsters without a kill: no levels. Where that still gives
        treasure (the edition's rule, or monsters a card removed earlier), the helper's
        share goes with it as agreed."""
        self.session.table.countdown.stop()
        self._resolve("defeat")

    def run_away(self) -> None:
        """The fighters cannot win: go and roll to run away (or hear why not)."""
        self.session.table.countdown.stop()
        state = self.session.live_state
        if state is not None and state.combat and not state.combat.running:
            problem = run_problem(state, self._check)
            if problem is not None:
                self.app.notify(tr(problem), error=True)
                return
        # A warning about the fight (a refused tap) is no longer about the screen on show.
        self.app.clear_notice()
        self.app.show("run_away")

    def _resolve(self, outcome: str) -> None:
        """End the combat: a kill, or a defeat without a kill."""
        state = self.session.live_state
        if state is not None and state.combat is not None:
            ending = ResolveCombat(outcome=outcome)
            self._act_ending(ending, resolved_treasure(ending, state, state.combat))

    def _act_ending(self, action: ResolveCombat | RemoveMonster | Charm, total: int | None) -> None:
        """Apply `action`. When it ends the combat (`total`, the treasure it ends with; None
        when it does not), the helper's share as agreed goes with it, capped to that
        treasure (none, say, for a defeat where the edition gives no treasure)."""
        if total is not None and self.has_helper:
            share = min(int(self.helper_share), total)
            first = bool(self.helper_first) and total > 0
            action = action.model_copy(update={"helper_treasure": share, "helper_first": first})
        if self.session.act(action) and total is not None:  # the share went with the treasure
            self.helper_share = 0
            self.helper_first = False

    # -- abilities -------------------------------------------------------------------
    def _offer(self, seat: int, ability: str) -> Offer | None:
        game = self.session.game
        if game is None:
            return None
        return next(
            (o for o in combat_offers(game) if o.seat == seat and o.ability == ability), None
        )

    def use_ability(self, seat: int, ability: str) -> None:
        """An ability's button: what it needs (cards, a victim, a monster) is asked on a
        sheet offering only what the rules accept; refused now, the tap says why."""
        offer = self._offer(seat, ability)
        state = self.session.live_state
        if offer is None or state is None:
            return
        if not offer.usable:
            if offer.problem is not None:
                self.app.notify(tr(offer.problem), error=True)
            return
        name = state.players[seat].name
        if ability == "charm":
            if len(offer.choices) == 1:
                self._ask_hand(offer.choices[0], name)
            else:
                question = _("Which monster does {name} charm away?").format(name=name)
                self._ask(offer, question, lambda choice: self._ask_hand(choice, name))
        elif ability == "backstab":
            if len(offer.choices) == 1:
                self.session.act(offer.choices[0].action)
            else:
                question = _("Whom does {name} backstab?").format(name=name)
                self._ask(offer, question, self._apply)
        else:
            question = _("How many cards does {name} discard for it?").format(name=name)
            self._ask(offer, question, self._apply)

    def _ask(self, offer: Offer, question: str, answered: Any) -> None:
        choices = offer.choices
        self.sheet = ChoiceSheet(
            title=offer.text,
            question=question,
            options=[(str(i), c.text) for i, c in enumerate(choices)],
            count=1,
            answered=lambda keys: answered(choices[int(keys[0])]),
        )
        self.sheet.open()

    def _ask_hand(self, charm: Choice, name: str) -> None:
        """A charm takes the whole hand: how many cards that is goes into the log."""
        game = self.session.game
        if game is None:
            return
        hands = charm_hands(game, charm.action)  # type: ignore[arg-type]
        self.sheet = ChoiceSheet(
            title=_("{name} charms {monster}").format(name=name, monster=charm.text),
            question=_("How many cards are in {name}'s hand? All of them go.").format(name=name),
            options=[(str(i), c.text) for i, c in enumerate(hands)],
            count=1,
            answered=lambda keys: self._apply(hands[int(keys[0])]),
        )
        self.sheet.open()

    def _apply(self, choice: Choice) -> None:
        if isinstance(choice.action, Charm):
            self._remove(choice.action)
        else:
            self.session.act(choice.action)

    def say_quote(self, seat: int) -> QuoteSheet:
        """Magic by quoting: the quote a player in the fight says, checked by the rules."""
        state = self.session.live_state
        name = state.players[seat].name if state is not None else ""
        self.sheet = QuoteSheet(
            self.session, seat, title=_("{name}: Magic quote").format(name=name)
        )
        self.sheet.open()
        return self.sheet

    # -- drawing --------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state
        if state is None:
            return
        if self._entered is not None and not self._amending and not self._entered_last():
            # Something else happened since: the strip is for the next monster again.
            self._entered = None
            self.quick_bad = "none"
            self.quick_level_only = False
        game = self.session.game
        self._view = combat_view(
            state,
            self._check,
            fighter=self.fighter,
            helper_share=int(self.helper_share),
            helper_first=bool(self.helper_first),
            offers=combat_offers(game) if game is not None else (),
            countdown=self.countdown,
            quick_level=int(self.quick_level),
            negative=self.negative,
        )
        self._show(self._view)

    def _show(self, view: CombatView) -> None:
        self.fighter = view.fighter
        for name in _SHOWN:
            setattr(self, name, getattr(view, name))
        self.verdict_colour = getattr(self.app.theme, view.verdict_tone)
        self._show_add_caption(view.add_caption)
        self._show_abilities(view.abilities)
        self._show_monsters(view.monsters)
        self._show_buttons()

    def _show_buttons(self, *_args: Any) -> None:
        """What follows the countdown, the level stepper and the one-shot sign."""
        buttons = combat_buttons(
            self._view,
            countdown=self.countdown,
            quick_level=int(self.quick_level),
            negative=self.negative,
        )
        for name in _BUTTONS:
            setattr(self, name, getattr(buttons, name))

    def _show_monsters(self, lines: tuple[MonsterLine, ...]) -> None:
        box = self.ids.monsters
        box.clear_widgets()
        for index, line in enumerate(lines):
            row = MonsterRow(index=index, title=line.title, detail=line.detail, power=line.power)
            row.owner = self
            box.add_widget(row)

    def _show_abilities(self, lines: tuple[AbilityLine, ...]) -> None:
        """A button per ability (dimmed when the rules refuse it now: a tap says why)."""
        grid = self.ids.abilities
        grid.clear_widgets()
        self.ability_buttons = {}
        for line in lines:
            button = option_button(line.text, self.app.theme.body)
            button.dimmed = not line.usable
            if line.ability == "quote":
                button.bind(on_release=weakly(self.say_quote, line.seat))
            else:
                button.bind(on_release=weakly(self.use_ability, line.seat, line.ability))
            grid.add_widget(button)
            self.ability_buttons[(line.seat, line.ability)] = button
