"""What a browser (or anything speaking HTTP) sends `airline-agent serve`, against the real
command on loopback with a websocket client: terminal sizes it cannot have (on the page's
query and in resize messages) are brought within what the app draws, without a traceback
on the server's console; the static folder lists no folder; only the server's own page
opens a tab. (Each check in this process, case by case: tests/unit/commands/
test_serve_checks.py.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import aiohttp
import pytest
from aiohttp import web

from airline_agent.commands.serve.server import MAX_COLUMNS, MAX_ROWS
from tests.support.serve import ServeProcess, process_environment, running_on_linux

pytestmark = [
    pytest.mark.skipif(not running_on_linux(), reason="counts processes in /proc"),
    pytest.mark.xdist_group("serve-requests"),  # one server for the module
]
DEADLINE = 90.0  # an app's first frame, on a machine whose cores are all busy
LIBRARY = b"Scenario library"  # the app's first screen, offline


@pytest.fixture(scope="module")
def server() -> Iterator[ServeProcess]:
    served = ServeProcess("--max-tabs", "2")
    yield served
    assert served.stop() == 0, served.report
    assert "Traceback" not in served.output, served.output


async def _drawn(
    websocket: aiohttp.ClientWebSocketResponse, text: bytes, seconds: float = DEADLINE
) -> bool:
    """Read the tab's terminal until `text` is drawn (True) or the tab closes or `seconds`
    pass (False). One limit for the whole read: aiohttp's receive(timeout=…) starts its
    wait anew after each ping it answers, and serve pings a tab that sends nothing (its
    heartbeat), so a tab that never drew waited for ever."""
    screen = b""
    try:
        async with asyncio.timeout(seconds):
            while text not in screen:
                message = await websocket.receive()
                if message.type == aiohttp.WSMsgType.BINARY:
                    screen += message.data
                elif message.type != aiohttp.WSMsgType.TEXT:
                    return False  # closed: the app ended
    except TimeoutError:
        return False
    return True


class Tab:
    def __init__(self, websocket: aiohttp.ClientWebSocketResponse, app: int) -> None:
        self.websocket = websocket
        self.app = app

    def terminal(self) -> tuple[int, int]:
        """The size the app was started with (its environment, as textual-serve sets it).
        A child seen between its fork and its exec still has the server's environment,
        without the size: wait until it has its own (on a busy machine that moment lasts)."""
        deadline = time.monotonic() + 60
        while True:
            environment = process_environment(self.app)
            if "COLUMNS" in environment and "ROWS" in environment:
                return int(environment["COLUMNS"]), int(environment["ROWS"])
            assert time.monotonic() < deadline, f"app {self.app} never had a size: {environment}"
            time.sleep(0.05)


async def _open(server: ServeProcess, session: aiohttp.ClientSession, query: str) -> Tab:
    before = server.app_processes()
    url = server.url.replace("http://", "ws://") + "ws" + query
    websocket = await session.ws_connect(url, headers={"Origin": server.url.rstrip("/")})
    (app,) = server.wait_for_apps(lambda apps: len(apps - before) == 1, what="one more") - before
    return Tab(websocket, app)


async def _close(server: ServeProcess, tab: Tab) -> None:
    # aiohttp's close reads whatever the server still sends until its answer to the
    # close, with no overall limit: a tab that never closes fails here, with what serve
    # printed, instead of at the run's 300 s timeout.
    try:
        await asyncio.wait_for(tab.websocket.close(), 30)
    except TimeoutError:
        message = f"the tab did not close in 30 s; serve printed:\n{server.output}"
        raise AssertionError(message) from None
    server.wait_for_apps(lambda apps: tab.app not in apps, what=f"without {tab.app}")


async def test_a_tab_that_never_draws_fails_in_time_though_the_server_pings_it() -> None:
    async def quiet(request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=0.2)  # a ping every 0.2 s, no output
        await websocket.prepare(request)
        async for _ in websocket:
            pass
        return websocket

    app = web.Application()
    app.router.add_get("/ws", quiet)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"ws://127.0.0.1:{port}/ws") as websocket,
        ):
            started = time.monotonic()
            assert not await asyncio.wait_for(_drawn(websocket, LIBRARY, seconds=1), 30)
            assert time.monotonic() - started < 10
    finally:
        await runner.cleanup()


@pytest.mark.parametrize(
    ("query", "size"),
    [
        ("?width=120&height=-5", (120, 1)),
        ("?width=-5&height=0", (1, 1)),
        ("?width=99999999999&height=100000", (MAX_COLUMNS, MAX_ROWS)),
        ("?width=wide&height=24.5", (80, 24)),
    ],
)
async def test_a_tab_asking_for_a_size_it_cannot_have_gets_one_the_app_draws(
    server: ServeProcess, query: str, size: tuple[int, int]
) -> None:
    async with aiohttp.ClientSession() as session:
        tab = await _open(server, session, query)
        try:
            assert tab.terminal() == size
            # The app runs at that size; at a size a person can read, it shows its library.
            await tab.websocket.send_json(["resize", {"width": 120, "height": 40}])
            assert await _drawn(tab.websocket, LIBRARY), server.output
        finally:
            await _close(server, tab)
    assert "Traceback" not in server.output and "Error" not in server.output


async def test_resizes_to_sizes_it_cannot_have_leave_the_tab_drawing(
    server: ServeProcess,
) -> None:
    async with aiohttp.ClientSession() as session:
        tab = await _open(server, session, "?width=100&height=30")
        try:
            assert await _drawn(tab.websocket, LIBRARY), server.output
            # Each a size the app draws at once (it did not: at -5 rows it ended with a
            # traceback on the server's console)…
            for width, height in [(120, -5), (-5, 0), (10**12, 10**12), (80.5, 24.5)]:
                await tab.websocket.send_json(["resize", {"width": width, "height": height}])
                assert await _drawn(tab.websocket, b"\x1b"), (width, height, server.output)
            # …and sizes that are no numbers leave the terminal as it was.
            for width, height in [("wide", 24), (None, None), (True, [40])]:
                await tab.websocket.send_json(["resize", {"width": width, "height": height}])
            await tab.websocket.send_json(["resize", {"width": 120, "height": 40}])
            assert await _drawn(tab.websocket, LIBRARY), server.output
        finally:
            await _close(server, tab)
    assert "Traceback" not in server.output and "Error" not in server.output


async def test_the_static_folder_lists_no_folder(server: ServeProcess) -> None:
    async with aiohttp.ClientSession() as session:
        for folder in ("static/", "static/js", "static/js/", "static/css/", "static/fonts"):
            async with session.get(server.url + folder, allow_redirects=False) as answer:
                assert answer.status == 404, folder
                assert "Index of" not in await answer.text()
        async with session.get(server.url + "static/js/textual.js") as answer:
            assert answer.status == 200


async def test_only_the_servers_own_page_opens_a_tab(server: ServeProcess) -> None:
    port = int(server.url.rstrip("/").rsplit(":", 1)[1])
    others = [
        f"http://127.0.0.1:{port + 1}",
        f"http://localhost:{port + 1}",
        f"http://[::1]:{port + 1}",
        f"http://0.0.0.0:{port}",
        f"http://127.0.0.2:{port}",
        f"http://localhost:{port}",  # this server, but not the name the page was opened at
        f"https://127.0.0.1:{port}",
        "null",
        f"http://127.0.0.1.:{port}",
        f"http://user@127.0.0.1:{port}",
        f"http://127.0.0.1:{port}/",
    ]
    before = server.app_processes()
    url = server.url.replace("http://", "ws://") + "ws"
    async with aiohttp.ClientSession() as session:
        for origin in others:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(url, headers={"Origin": origin})
            assert refused.value.status == 403, origin
    assert server.app_processes() == before
    # serve's console reaches this process through a pipe a thread reads: the line may
    # come after the 403 did.
    server.wait_for_output(f'refused a tab opened by a page of "http://127.0.0.1:{port + 1}"')
