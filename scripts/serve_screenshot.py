"""Regenerate the documentation's browser picture (docs/serve.png, shown in docs/serve.md):
`airline-agent serve` in headless Chromium, the showcase (cancel-ehglp3) after its first turn.

    .venv/bin/python scripts/serve_screenshot.py [--output docs/serve.png]

Needs what the browser tests need: Debian's chromium at /usr/bin/chromium (scripts/test
installs it) and playwright (the dev extra). Offline: no model, no network.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "serve.png")
    arguments = parser.parse_args()
    for variable in [name for name in os.environ if name.startswith(("OPENAI_", "AIRLINE_AGENT_"))]:
        del os.environ[variable]  # offline, whatever the shell has set
    sys.path.insert(0, str(ROOT))
    from tests.support.browser import Tab, chromium, why_no_browser
    from tests.support.serve import ServeProcess

    if (missing := why_no_browser()) is not None:
        sys.exit(f"serve_screenshot: {missing}")
    server = ServeProcess()
    try:
        with chromium(Path(tempfile.mkdtemp(prefix="serve-screenshot-"))) as browser:
            page = browser.new_page()
            page.goto(server.url)
            tab = Tab(page, app=0)
            tab.wait_for("Scenario library")
            tab.press("Enter")
            tab.wait_for("scenario: cancel-ehglp3")
            tab.press("+", "+", "+", "+")  # up to instant: the picture, not the pace
            tab.wait_for("auto-play instant")
            tab.press(">")  # the whole first turn (space steps it)
            # The usage pane's totals after the turn's two requests ("total … 2 req"). What
            # the scenario sets is a note in the chat (no toast over the panes to wait out).
            tab.wait_for(r"\btotal[\d,\s]*\s2 req\b", pattern=True)
            page.screenshot(path=str(arguments.output))
    finally:
        server.stop()
    print(f"wrote {arguments.output}")


if __name__ == "__main__":
    main()
