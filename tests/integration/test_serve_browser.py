"""`airline-agent serve` in a real headless browser (Debian's chromium, through Playwright):
the page loads from this server alone, the library appears, a scenario plays and its
trace shows the lookup, a second tab plays another scenario on its own, closing a tab ends
its app, and the server outlives a tab closed mid-turn and a reload.

One server (on a free port) and one browser for the module, kept on one xdist worker;
the screen is read from xterm.js's buffer (tests/support/browser.py).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.browser import Tab, chromium, why_no_browser
from tests.support.serve import ServeProcess, running_on_linux

NO_BROWSER = why_no_browser()
# The usage pane's totals row after two requests: "total    4,260  2,816   120    12    2 req".
TWO_REQUESTS = re.compile(r"\btotal[\d,\s]*\s2 req\b")
pytestmark = [
    pytest.mark.skipif(NO_BROWSER is not None, reason=NO_BROWSER or ""),
    pytest.mark.skipif(not running_on_linux(), reason="counts processes in /proc"),
    # The tests build on one another's tabs (module fixtures): under pytest-xdist's
    # `--dist loadgroup` they stay on one worker instead of each worker opening them all.
    pytest.mark.xdist_group("serve-browser"),
]

OpenTab = Callable[[], Tab]


@pytest.fixture(scope="module")
def server() -> Iterator[ServeProcess]:
    served = ServeProcess()
    yield served
    code = served.stop()
    assert code == 0, served.report
    assert "Traceback" not in served.output, served.output


@pytest.fixture(scope="module")
def traffic() -> list[str]:
    """The URL of every request the browser's pages make, websockets included."""
    return []


@pytest.fixture(scope="module")
def complaints() -> list[str]:
    """Every error the pages' consoles show (a refusal by the page's Content-Security-
    Policy is one) and every uncaught error of their scripts."""
    return []


@pytest.fixture(scope="module")
def browser(traffic: list[str], complaints: list[str]):
    def watch(page) -> None:
        page.on("websocket", lambda websocket: traffic.append(websocket.url))
        page.on("pageerror", lambda error: complaints.append(f"uncaught: {error}"))
        page.on(
            "console",
            lambda message: complaints.append(message.text) if message.type == "error" else None,
        )

    with chromium(Path(tempfile.mkdtemp(prefix="serve-browser-"))) as context:
        context.on("request", lambda request: traffic.append(request.url))
        context.on("page", watch)
        yield context


@pytest.fixture(scope="module")
def open_tab(server: ServeProcess, browser) -> Iterator[OpenTab]:
    """Open a tab on the server: the page, and the app process it started."""
    opened: list[Tab] = []

    def open_one() -> Tab:
        before = server.app_processes()
        page = browser.new_page()
        page.goto(server.url)
        apps = server.wait_for_apps(lambda apps: len(apps - before) == 1, what="one more app")
        tab = Tab(page, app=(apps - before).pop())
        opened.append(tab)
        return tab

    yield open_one
    for tab in opened:
        tab.close()
    server.wait_for_apps(lambda apps: not apps, what="every app ended with its tab")


@pytest.fixture(scope="module")
def first_tab(open_tab: OpenTab) -> Tab:
    tab = open_tab()
    tab.wait_for("Scenario library")
    return tab


@pytest.fixture(scope="module")
def played_tab(first_tab: Tab) -> Tab:
    """The first tab, having played the first turn of cancel-ehglp3 (at once: `+` up to
    instant)."""
    first_tab.press("Enter")  # the library's first scenario
    first_tab.wait_for("scenario: cancel-ehglp3")
    first_tab.press("+", "+", "+", "+")
    first_tab.wait_for("auto-play instant")
    first_tab.press(">")  # the whole turn (space steps it)
    first_tab.wait_for("tool get_reservation_details  ok")
    first_tab.wait_for(r"turn 1 +\d", pattern=True)  # its usage row: the turn is over
    return first_tab


@pytest.fixture(scope="module")
def second_tab(open_tab: OpenTab, played_tab: Tab) -> Tab:
    """A second tab, with the library's second scenario (bags-approval-declined) played
    while the first tab holds its own."""
    tab = open_tab()
    tab.wait_for("Scenario library")
    tab.press("ArrowDown", "Enter")
    tab.wait_for("scenario: bags-approval-declined")
    tab.press("+", "+", "+", "+")
    tab.wait_for("auto-play instant")
    tab.press(">")  # the whole turn (space steps it)
    tab.wait_for("tool get_reservation_details  ok")
    tab.wait_for(r"turn 1 +\d", pattern=True)  # its usage row: the turn is over
    return tab


@pytest.fixture(scope="module")
def closed_mid_turn(server: ServeProcess, second_tab: Tab) -> int:
    """The second tab closed in the middle of a turn; its app's pid, once that process
    has ended."""
    # One step of turn 2 (space), and the turn waits there for the next: still under way
    # however late a busy machine's browser draws it. (Played at a pace, even 0.25×, its
    # end was once read in the same screen as its start.)
    second_tab.press(" ")
    screen = second_tab.wait_for("turn 2 · customer message")
    # No usage row for it yet: still running.
    assert re.search(r"turn 2 +\d", screen) is None, screen
    second_tab.close()
    server.wait_for_apps(lambda apps: second_tab.app not in apps, what=f"without {second_tab.app}")
    return second_tab.app


def test_the_page_loads_nothing_from_outside_the_server(
    first_tab: Tab, server: ServeProcess, traffic: list[str], complaints: list[str]
) -> None:
    served = urlsplit(server.url).netloc
    addresses = [urlsplit(url) for url in traffic]
    assert [url for url in traffic if urlsplit(url).netloc != served] == []
    assert {parts.scheme for parts in addresses} == {"http", "ws"}
    assert ("ws", "/ws") in {(parts.scheme, parts.path) for parts in addresses}
    # The terminal's font is the one served here (textual-serve's page asks a CDN for it).
    assert "/static/fonts/RobotoMono-VariableFont_wght.ttf" in {parts.path for parts in addresses}
    assert first_tab.page.evaluate("document.fonts.check('16px \"Roboto Mono\"')")
    assert complaints == []  # nothing refused by the page's policy, no script failed


def test_the_library_appears(first_tab: Tab) -> None:
    screen = first_tab.wait_for("Scenario library")
    assert "cancel-ehglp3" in screen and "bags-approval-declined" in screen


def test_a_scenario_plays_and_the_trace_shows_its_lookup(played_tab: Tab) -> None:
    screen = played_tab.screen()
    assert "scenario: cancel-ehglp3" in screen
    assert 'get_reservation_details(reservation_id="EHGLP3")' in screen  # the trace's entry
    assert "I'm sorry, but I can't cancel it." in screen  # the chat's reply


def test_a_second_tab_plays_another_scenario_without_touching_the_first(
    played_tab: Tab, second_tab: Tab
) -> None:
    assert second_tab.app != played_tab.app
    second = second_tab.screen()
    assert "RLIVUH" in second and "EHGLP3" not in second
    first = played_tab.screen()
    assert "scenario: cancel-ehglp3" in first and "customer emma_kim_9957" in first
    assert "RLIVUH" not in first and "bags-approval-declined" not in first
    # Its usage: its own two requests, none of the other's (the totals row ends "2 req").
    assert TWO_REQUESTS.search(first), first


def test_closing_a_tab_mid_turn_ends_its_app_process_and_only_its(
    server: ServeProcess, played_tab: Tab, closed_mid_turn: int
) -> None:
    apps = server.app_processes()
    assert closed_mid_turn not in apps
    assert played_tab.app in apps
    assert "scenario: cancel-ehglp3" in played_tab.screen()


def test_the_server_outlives_a_tab_closed_mid_turn_and_serves_a_reload(
    server: ServeProcess, played_tab: Tab, closed_mid_turn: int
) -> None:
    before = server.app_processes()
    played_tab.page.reload()
    after = server.wait_for_apps(
        lambda apps: played_tab.app not in apps and len(apps - before) == 1,
        what=f"{played_tab.app} replaced by a new app",
    )
    played_tab.app = (after - before).pop()
    screen = played_tab.wait_for("Scenario library")  # a new app: its own conversation
    assert not TWO_REQUESTS.search(screen), screen
    assert server.process.poll() is None
