"""The Textual driver of each tab's app (`airline-agent tui`, run by `serve`): textual's
WebDriver, except that a resize the browser sent while the app was starting is the size
the app keeps.

textual's WebDriver hands the app its start size (COLUMNS, ROWS) through a task on the
app's event loop, but each resize from the server straight from its input thread: a
resize already waiting when the app starts (a page opened at a size the server corrected,
or resized while its app loaded) could reach the app first, and the start size then
replaced it. The tab stayed drawn at the start size (at 1×1: nothing to read) until the
browser was resized again. Here a resize goes the way the start size went, after it.
Imported by the app's process, not the server's (TEXTUAL_DRIVER names it).
"""

from __future__ import annotations

from textual import events
from textual.drivers.web_driver import WebDriver
from textual.geometry import Size


class TabDriver(WebDriver):
    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        width, height = payload.get("width"), payload.get("height")
        if packet_type != "resize" or not isinstance(width, int) or not isinstance(height, int):
            super().on_meta(packet_type, payload)
            return
        self._size = (width, height)
        size = Size(width, height)
        self.send_message(events.Resize(size, size))  # queued behind the start size
