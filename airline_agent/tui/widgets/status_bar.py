"""The line at the top: what is running, for whom, on which data, under which rules.

It renders the status (status.py: the facts of the feed on screen, read where each is
owned) and keeps none of it: it subscribes and repaints when told of a change. The parts
go on one line when they fit; otherwise they wrap between parts, never inside one
("clock 2024-05-15" stays whole).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

if TYPE_CHECKING:
    from airline_agent.tui.status import Status

SEPARATOR = " │ "
# Shorter words for a part when the line is tight (the labels a value explains itself
# without): "clock 2024-05-15T15:00:00" → "2024-05-15 15:00", "db fresh …" → "fresh …".
COMPACT = (
    (re.compile(r"^clock (\d{4}-\d\d-\d\d)T(\d\d:\d\d)(:00)?"), r"\1 \2"),
    (re.compile(r"^db "), ""),
    (re.compile(r"^approval "), "approve "),
)


def compact(part: Text) -> Text:
    """The part in shorter words (styles kept where the text stays)."""
    plain = part.plain
    for pattern, replacement in COMPACT:
        plain = pattern.sub(replacement, plain)
    if plain == part.plain:
        return part
    shorter = Text(plain)
    for span in part.spans:  # a styled value keeps its style (guard OFF in red)
        shorter.stylize(span.style, 0, len(plain))
    return shorter


def fit_parts(parts: list[Text], width: int) -> Text:
    """The parts joined by SEPARATOR on one line, in shorter words if need be; a new line
    before a part that would not fit (never inside one)."""
    if _joined_width(parts) > width:
        parts = [compact(part) for part in parts]
    lines: list[Text] = []
    line = Text()
    for part in parts:
        if line.cell_len and line.cell_len + len(SEPARATOR) + part.cell_len > width:
            lines.append(line)
            line = Text()
        if line.cell_len:
            line.append(SEPARATOR)
        line.append_text(part)
    lines.append(line)
    return Text("\n").join(lines)


def _joined_width(parts: list[Text]) -> int:
    return sum(part.cell_len for part in parts) + len(SEPARATOR) * (len(parts) - 1)


class FittedParts:
    """The parts fitted to the width they are drawn at (a Rich renderable: its height
    follows the terminal's width)."""

    def __init__(self, parts: list[Text], *, min_lines: int = 1) -> None:
        self.parts = parts
        self.min_lines = min_lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fitted = fit_parts(self.parts, options.max_width)
        missing = self.min_lines - (fitted.plain.count("\n") + 1)
        yield fitted + Text("\n" * missing) if missing > 0 else fitted

    def __str__(self) -> str:
        """Every part in full, on one line (what the status says, at any width)."""
        return SEPARATOR.join(part.plain for part in self.parts)


class StatusBar(Static):
    # Said after the status's parts (the main screen's: auto-play's speed offline).
    trailer: reactive[str] = reactive("", layout=True)
    # Seconds of rest before the line gives back a line it no longer needs: scenario
    # turns played back to back rest a few milliseconds between turns, and shrinking
    # then growing again would lay out the whole screen twice per turn.
    SHRINK_AFTER = 1.0

    def __init__(self, status: Status | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._status = status
        # The line grows at once but shrinks only while no turn runs ("agent working…"
        # gone), so a part that comes and goes during a turn (a guard toggled while
        # playing) does not make the panes below jump and the whole screen lay out again.
        self._lines_kept = 1
        self._width = 0
        self._shrink_timer: Timer | None = None

    def on_mount(self) -> None:
        if self._status is not None:
            self._status.subscribe(self._status_changed)

    def on_unmount(self) -> None:
        if self._status is not None:
            self._status.unsubscribe(self._status_changed)

    def _status_changed(self) -> None:
        needed = self._line_count()
        grows = needed > self._lines_kept
        if grows:
            self._lines_kept = needed
        if self._shrink_timer is not None and (grows or self._busy):
            self._shrink_timer.stop()
            self._shrink_timer = None
        elif needed < self._lines_kept and not self._busy and self._shrink_timer is None:
            self._shrink_timer = self.set_timer(self.SHRINK_AFTER, self._shrink)
        self.refresh(layout=grows)

    @property
    def shrink_pending(self) -> bool:
        """A line it no longer needs is given back once the rest has lasted long enough."""
        return self._shrink_timer is not None

    @property
    def _busy(self) -> bool:
        return self._status is not None and bool(self._status.activity)

    def _shrink(self) -> None:
        """Still at rest: the line takes only the lines it needs."""
        self._shrink_timer = None
        needed = self._line_count()
        if needed < self._lines_kept and not self._busy:
            self._lines_kept = needed
            self.refresh(layout=True)

    def paint_alone(self) -> None:
        """A change of the line (a key's: the guard toggled) on the terminal now, alone,
        instead of in the screen's next frame.

        While a scenario plays, that frame also lays out and paints the panes' updates
        (tens of milliseconds); the line has its own rows at the top, so when the screen's
        map of them still holds (same size, the line not grown) only they are painted
        here, and the frame leaves them out (their regions are taken). Textual's own
        steps for a frame, for this one widget (Screen._on_timer_update).
        """
        screen = self.screen
        app = self.app
        try:
            compositor = screen._compositor
            if (
                not self._repaint_regions  # nothing new to paint
                or not screen.is_current
                or app._batch_count
                or app.is_inline  # drawn below the prompt: the screen's frame places it
                or self not in compositor.visible_widgets
                or compositor.size != screen.size  # a resize is under way
                or self._layout_required  # the line grew: the screen lays out again
                or self.content_size.height != self._lines_kept
            ):
                return
            screen._dirty_widgets.add(self)  # as the screen does when told of the refresh
            compositor.update_widgets({self})
            app._display(screen, compositor.render_update(screen_stack=app._background_screens))
        except AttributeError:
            # These are Textual's own steps, not its public API (pyproject.toml keeps
            # Textual to the major version they are read from): should a release rename
            # one, the line is painted by the screen's next frame, as any other change.
            return

    def _line_count(self, parts: list[Text] | None = None) -> int:
        fitted = fit_parts(self.parts() if parts is None else parts, self.content_size.width)
        return fitted.plain.count("\n") + 1

    def on_resize(self) -> None:
        if self.content_size.width != self._width:  # not when only the height grew
            self._width = self.content_size.width
            self._lines_kept = self._line_count()

    def parts(self) -> list[Text]:
        if self._status is None:
            return [Text("starting…")]
        parts = [Text.from_markup(part) for part in self._status.parts()]
        if self.trailer:
            parts.append(Text(self.trailer, style="dim"))
        return parts

    def render(self) -> FittedParts:
        parts = self.parts()  # once: each key press while playing repaints the line
        if self.content_size.width:
            self._lines_kept = max(self._lines_kept, self._line_count(parts))
        return FittedParts(parts, min_lines=self._lines_kept)
