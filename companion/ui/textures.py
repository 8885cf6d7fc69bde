"""Text that changes is drawn on a new texture, never written into the one on screen.

Kivy re-renders a label into the texture it already has whenever the new text has the
same size in pixels ("9" becoming "10" does not, "⚔ 24" becoming "⚔ 25" does). Writing
into a texture that the frame before is still being drawn from makes the graphics
driver finish that frame first: with Mesa's software renderer the write waited 2 to
15 ms per label, and in the frame after a win (the Table's strength, the title, the
Fight button and the navigation bar all change) 15 to 25 ms in all, which alone made
Game over miss its two frames. A fresh texture has no such wait (under 0.3 ms), and
graphics processors prefer it too: it is the usual way to replace a picture in use
("orphaning") instead of making the driver copy or wait. The old texture is freed
by Kivy once nothing draws from it.
"""

from __future__ import annotations

from typing import Any

from kivy.core.text import LabelBase


def fresh_label_textures() -> None:
    """From now on every label re-rendered gets a texture of its own (idempotent)."""
    in_place = LabelBase.refresh
    if getattr(in_place, "fresh_textures", False):
        return

    def refresh(self: Any) -> None:
        # Without a texture Kivy creates one of the new text's size; its pixels are
        # written when it is first drawn, as before.
        self.texture = None
        in_place(self)

    refresh.__doc__ = in_place.__doc__
    refresh.fresh_textures = True  # type: ignore[attr-defined]
    LabelBase.refresh = refresh
