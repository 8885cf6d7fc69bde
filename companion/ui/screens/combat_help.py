"""Combat: who helps the fighter — a volunteer from the list, a player given an item for
their help (a bribe), or one a card makes help — and the helper's share of the treasure.
The part of the Combat screen (combat.py) that chooses and records help."""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty

from companion.core import AddHelper, Bribe, ChangeHelper, RuleError
from companion.ui.i18n import _, card_name, tr
from companion.ui.screens.base import CompanionScreen
from companion.ui.screens.combat_view import (
    HelpChoices,
    bribe_items,
    bribe_takers,
    compelled_helpers,
    helper_choices,
)
from companion.ui.sheets import ChoiceSheet
from companion.ui.weak import weakly
from companion.ui.widgets import FlatButton


class CombatHelp(CompanionScreen):
    """The Combat screen's help: its drop-down of helpers (`helper_menu`) and the sheet on
    show (`sheet`) are made by the screen."""

    # The helper's share of the treasure, as the fighter and helper agreed, and who picks
    # first: given with the kill and recorded with it.
    helper_share = NumericProperty(0)
    helper_first = BooleanProperty(False)
    helper_menu: Any
    sheet: Any

    def open_helpers(self) -> None:
        """The helper button: a list of the other living players (and "Nobody") to pick from."""
        state = self.session.live_state
        if state is None or state.combat is None:
            self.app.notify(_("Add a monster first."))
            return
        menu = self.helper_menu
        menu.clear_widgets()
        for choice in helper_choices(state):
            button = FlatButton(text=choice.text, size_hint_y=None, height=dp(52))
            button.selected = choice.selected
            button.seat = choice.seat
            button.bind(on_release=weakly(self.pick_helper, choice.seat))
            menu.add_widget(button)
        menu.width = max(dp(200), self.ids.helper.width)
        menu.open(self.ids.helper)

    def pick_helper(self, seat: int | None) -> None:
        """One pick from the helper list: that player helps (or nobody does)."""
        self.helper_menu.dismiss()
        state = self.session.live_state
        if state is None or state.combat is None or state.combat.helper == seat:
            return
        self.session.act(ChangeHelper, helper=seat)

    def offer_item(self) -> None:
        """ "Give an item for help": which of the fighter's items, then who takes it for
        their help (only those the rules accept). A bribe is no trade, so it may be given
        inside the fight (RULES.md §11); the one who takes it helps, if nobody does yet."""
        state = self.session.live_state
        if state is None:
            return
        items = bribe_items(state)
        if not self._can_ask(items) or state.combat is None:
            return
        name = state.players[state.combat.fighter].name
        self.sheet = ChoiceSheet(
            title=_("Give an item for help"),
            question=_("Which item does {name} give?").format(name=name),
            options=items.options,
            count=1,
            answered=lambda keys: self._offer_to(keys[0]),
        )
        self.sheet.open()

    def _offer_to(self, item_id: str) -> None:
        state = self.session.live_state
        if state is None or state.combat is None:
            return
        takers = bribe_takers(state, item_id, self._check)
        if not self._can_ask(takers):
            return
        item = next(i for i in state.players[state.combat.fighter].items if i.id == item_id)
        self.sheet = ChoiceSheet(
            title=_("Give an item for help"),
            question=_("Who takes {item} for their help?").format(item=card_name(item.spec.name)),
            options=takers.options,
            count=1,
            answered=lambda keys: self._bribe(item_id, int(keys[0])),
        )
        self.sheet.open()

    def _bribe(self, item_id: str, seat: int) -> None:
        if not self.session.act(Bribe, helper=seat, item_id=item_id):
            return
        state = self.session.live_state
        if state is not None and state.combat is not None and state.combat.helper is None:
            self.session.act(ChangeHelper, helper=seat)

    def make_help(self) -> None:
        """ "A card makes someone help": whom (only those the rules accept: never in a fight
        for the win); recorded as compelled help, not a volunteer's (RULES.md §11)."""
        state = self.session.live_state
        if state is None:
            return
        helpers = compelled_helpers(state, self._check)
        if not self._can_ask(helpers) or state.combat is None:
            return
        name = state.players[state.combat.fighter].name
        self.sheet = ChoiceSheet(
            title=_("A card makes someone help"),
            question=_("Whom does the card make help {name}?").format(name=name),
            options=helpers.options,
            count=1,
            answered=lambda keys: self.session.act(AddHelper, helper=int(keys[0]), compelled=True),
        )
        self.sheet.open()

    def _can_ask(self, choices: HelpChoices) -> bool:
        """Whether there is anything to offer; if not, the rules' reason is said."""
        if choices.options:
            return True
        if choices.problem is not None:
            self.app.notify(tr(choices.problem), error=True)
        return False

    def step_helper_share(self, delta: int) -> None:
        """How many of the treasures the helper takes (never more than the combat shows)."""
        state = self.session.live_state
        if state is None or state.combat is None:
            return
        self.helper_share = max(0, min(int(self.helper_share) + delta, state.combat.treasure))
        self.session.table.agree_share(int(self.helper_share), bool(self.helper_first))
        self.refresh()

    def toggle_helper_first(self) -> None:
        """Whether the helper picks first from the treasures drawn."""
        self.helper_first = not self.helper_first
        self.session.table.agree_share(int(self.helper_share), bool(self.helper_first))
        self.refresh()

    def _check(self, action: Any) -> RuleError | None:
        """The rules' objection to `action` now (None: they would take it)."""
        game = self.session.game
        return None if game is None else game.check(action)
