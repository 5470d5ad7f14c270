"""The footer: Textual's, composed again only when the keys it offers change.

Textual's `Footer` composes its keys anew (a widget per key, mounted and styled, and a
layout of the whole screen) each time its screen says the keys may have changed. The main
screen says so at every turn's start and end (a hold offers `e`, a turn's end takes it
back), Textual when the focus moves; while a scenario plays, turn after turn, the keys on
offer stay the same, and each of those compositions cost the playback a frame and held up
a key pressed meanwhile.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

# What a footer shows of a screen's keys: each key with its binding, whether it is
# enabled, and its tooltip (Textual's `Screen.active_bindings`), and whether the app has
# the focus (Textual's footer waits for it).
Offer = tuple[bool, tuple[tuple[str, Binding, bool, str], ...]]


def keys_on_offer(screen: Screen[object]) -> Offer:
    """The keys `screen` offers now, as a footer composes them."""
    return screen.app.app_focus, tuple(
        (key, binding, enabled, tooltip)
        for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
    )


class KeysFooter(Footer):
    """A `Footer` that composes its keys again only when the keys on offer changed."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._composed_for: Offer | None = None  # the keys its widgets show

    def compose(self) -> ComposeResult:
        # Textual's footer composes nothing until its screen first says what it offers.
        self._composed_for = keys_on_offer(self.screen) if self._bindings_ready else None
        yield from super().compose()

    def bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen and keys_on_offer(screen) == self._composed_for:
            return  # these keys are on screen already
        super().bindings_changed(screen)
