"""A real headless browser for the tests of `airline-agent serve`: Debian's chromium,
driven by Playwright (never `playwright install`, which downloads a browser of its own),
and a tab's screen read from the terminal it draws.

textual-serve's page draws the TUI with xterm.js on a canvas: the text is in no element.
It is read from the terminal's own buffer (`buffer.active.getLine(y).translateToString`),
what xterm.js draws from. textual.js keeps its terminal in a closure; the script below,
run before the page's own, catches it as textual.js builds it: textual.js's class assigns
`this.fitAddon` right after `this.terminal`, and a setter for that name on
Object.prototype hands the object over. If textual-serve changes that, `Tab.screen` says
so rather than a wait timing out on an empty screen.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

CHROMIUM = Path("/usr/bin/chromium")
# Root needs --no-sandbox; without the background-networking flags Chromium's own
# connections (updates, sync, field trials) are refused by this machine's closed network.
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
VIEWPORT = {"width": 1600, "height": 1000}  # 166×52 cells at the page's 16 px: three panes

CATCH_TERMINAL = """
window.__airlineTerminals = [];
Object.defineProperty(Object.prototype, "fitAddon", {
  configurable: true,
  set(addon) {
    Object.defineProperty(this, "fitAddon", {
      value: addon, writable: true, configurable: true, enumerable: true,
    });
    if (this.terminal) window.__airlineTerminals.push(this.terminal);
  },
});
window.__airlineScreen = () => {
  const terminal = window.__airlineTerminals[0];
  if (!terminal) return null;
  const buffer = terminal.buffer.active, rows = [];
  for (let y = 0; y < terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
};
"""


def why_no_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (it is in the dev extra: pip install -e '.[dev]')"
    if not CHROMIUM.is_file():
        return (
            f"Debian's chromium is not at {CHROMIUM} (scripts/test installs it with apt-get "
            "when run as root: apt-get install -y chromium)"
        )
    return None


@contextmanager
def chromium(user_data: Path) -> Iterator[BrowserContext]:
    """A headless Chromium on a new, empty profile (`user_data`), its pages ready to read."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(user_data),
            executable_path=str(CHROMIUM),
            args=list(CHROMIUM_FLAGS),
            headless=True,
            viewport=VIEWPORT,
        )
        context.add_init_script(CATCH_TERMINAL)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(user_data, ignore_errors=True)


class Tab:
    """One browser tab on the served TUI: keys in, the terminal's text out."""

    def __init__(self, page: Page, app: int) -> None:
        self.page = page
        self.app = app  # the pid of the app process serving this tab

    def screen(self) -> str:
        text = self.page.evaluate("window.__airlineScreen()")
        if text is None:
            caught = self.page.evaluate("window.__airlineTerminals.length")
            raise AssertionError(
                f"no terminal to read ({caught} caught): textual.js no longer builds it as "
                "tests/support/browser.py expects"
            )
        return text

    def wait_for(self, text: str, timeout: float = 90, *, pattern: bool = False) -> str:
        """Wait until the screen shows `text` (`pattern`: a match of that regular
        expression); the screen then."""
        check = (
            "text => new RegExp(text).test(window.__airlineScreen() || '')"
            if pattern
            else "text => (window.__airlineScreen() || '').includes(text)"
        )
        try:
            self.page.wait_for_function(check, arg=text, timeout=timeout * 1000, polling=100)
        except Exception as error:  # playwright's TimeoutError: say what the screen showed
            raise AssertionError(
                f"{text!r} not shown in {timeout} s; the tab shows:\n{self.screen()}"
            ) from error
        return self.screen()

    def press(self, *keys: str) -> None:
        """Keys as typed on this tab (into xterm.js's input, not at a mouse position)."""
        self.page.focus(".xterm-helper-textarea")
        for key in keys:
            self.page.keyboard.press(key)

    def close(self) -> None:
        if not self.page.is_closed():
            self.page.close()
