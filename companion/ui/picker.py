"""Picking one thing from a list in a pop-up: every choice a row a thumb can hit, each by
the name a player knows it by, the one in use marked; one tap picks (a tap beside the
list keeps what was chosen)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView

from companion.ui.recycled import RecycledList  # noqa: F401  (the kv file uses it)

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

# Rows that show without scrolling on the smallest phone (640 dp tall).
ROWS_IN_VIEW = 7


@dataclass(frozen=True)
class Choice:
    """One row of a picker: what it stands for, its name and a line saying more."""

    key: Any
    text: str
    detail: str = ""


class PickerRow(ButtonBehavior, BoxLayout):
    """One choice: its name, and a smaller line under it when there is more to say."""

    text = StringProperty("")
    detail = StringProperty("")
    selected = BooleanProperty(False)
    index = ObjectProperty(0)
    picker = ObjectProperty(None, allownone=True)

    def on_release(self) -> None:
        if self.picker is not None:
            self.picker.pick(self.index)


class ListPicker(ModalView):
    """A titled list of choices; `on_pick(key)` hears the one tapped."""

    title = StringProperty("")

    def __init__(
        self,
        title: str,
        choices: Sequence[Choice],
        chosen: Any,
        on_pick: Callable[[Any], Any],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.title = title
        self.choices = list(choices)
        self.chosen = chosen
        self._on_pick = on_pick
        self.ids.rows.data = [
            {
                "text": choice.text,
                "detail": choice.detail,
                "selected": choice.key == chosen,
                "index": index,
                "picker": self,
                "height": ROW_HEIGHTS[bool(choice.detail)],
            }
            for index, choice in enumerate(self.choices)
        ]
        keys = [choice.key for choice in self.choices]
        # The list opens at its top, unless the choice in use would be below the fold.
        if chosen in keys and keys.index(chosen) >= ROWS_IN_VIEW:
            self.ids.rows.scroll_to_index(keys.index(chosen))

    def pick(self, index: int) -> None:
        """A row was tapped: close the list, then hand its choice over."""
        self.dismiss()
        key = self.choices[index].key
        if key != self.chosen:
            self._on_pick(key)

    def row(self, text: str) -> PickerRow | None:
        """The row on screen whose name is `text` (None when it is scrolled away)."""
        for view in self.ids.list_box.children:
            if isinstance(view, PickerRow) and view.text == text:
                return view
        return None


def pick_one(
    title: str, choices: Sequence[Choice], chosen: Any, on_pick: Callable[[Any], Any]
) -> ListPicker:
    """Open a list of `choices`; `on_pick(key)` hears the one tapped, if another than
    `chosen`. Returns the pop-up on show."""
    picker = ListPicker(title, choices, chosen, on_pick)
    picker.open()
    return picker


# A row with a line of detail is taller (both >= 48 dp: a thumb's tap).
ROW_HEIGHTS = {False: dp(52), True: dp(66)}
