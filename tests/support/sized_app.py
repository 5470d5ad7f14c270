"""A Textual app run as `airline-agent serve` runs a tab's (the driver named in
TEXTUAL_DRIVER, its start size in COLUMNS and ROWS) that writes the size it has on
stderr a moment after it started, then quits. Its start is held until its input thread
has read what already waited on stdin: a resize the server sent while the app loaded.
Run by tests/unit/commands/test_serve_driver.py: `python -m tests.support.sized_app`."""

from __future__ import annotations

import sys
import time

from textual.app import App
from textual.driver import Driver

HELD_SECONDS = 0.5  # the input thread reads a waiting resize well within this
REPORT_SECONDS = 1.0  # after mount: every resize already read has reached the app


class SizedApp(App[None]):
    def on_mount(self) -> None:
        self.set_timer(REPORT_SECONDS, self.report)

    def report(self) -> None:
        # sys.__stderr__: the app takes sys.stderr for its own log while it runs.
        sys.__stderr__.write(f"{self.size.width}x{self.size.height}\n")
        sys.__stderr__.flush()
        self.exit()


def held(driver: type[Driver]) -> type[Driver]:
    """`driver`, its start held (the app's event loop with it) once its input thread runs."""

    class Held(driver):  # type: ignore[valid-type,misc]
        def start_application_mode(self) -> None:
            super().start_application_mode()
            time.sleep(HELD_SECONDS)

    return Held


def main() -> None:
    SizedApp(driver_class=held(SizedApp().driver_class)).run()


if __name__ == "__main__":
    main()
