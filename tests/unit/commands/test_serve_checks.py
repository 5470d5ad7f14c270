"""`airline-agent serve`'s checks of what reaches it, in this process (no app is started:
the server runs with `max_tabs=0`, so a tab it lets through is told "0 tabs are open"
and closed): who may open a tab (the Origin), which names it answers to (the Host), the
static folder (files only, no folder listed), and the terminal sizes a browser sends.
The same against the real command: tests/integration/test_serve_requests.py."""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from airline_agent.commands.serve.server import (
    DEFAULT_SIZE,
    MAX_COLUMNS,
    MAX_ROWS,
    TabSettings,
    TuiServer,
    fitted_size,
)

REFUSED = "a tab is opened only by this server's own page"


@dataclass
class Served:
    server: TuiServer
    port: int
    said: list[str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def opens_a_tab(self, origin: str | None, host: str | None = None) -> bool:
        """Whether a websocket to /ws with these headers is let through (False: 403)."""
        headers = {} if origin is None else {"Origin": origin}
        if host is not None:
            headers["Host"] = host
        async with aiohttp.ClientSession() as session:
            try:
                websocket = await session.ws_connect(f"{self.url}/ws", headers=headers)
            except aiohttp.WSServerHandshakeError as refused:
                assert refused.status == 403
                return False
            told = await websocket.receive_bytes(timeout=30)
            assert b"0 tabs are open, the most this server runs at once" in told
            await websocket.close()
            return True

    async def status(self, path: str, host: str | None = None) -> int:
        headers = {"Host": host} if host is not None else {}
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{self.url}{path}", headers=headers, allow_redirects=False) as answer,
        ):
            return answer.status


async def serve(
    tmp_path: Path, *, public_url: str | None = None, host: str = "127.0.0.1"
) -> AsyncIterator[Served]:
    """The server on a free port of 127.0.0.1; `host`: the --host it was given (a name of
    this machine's loopback)."""
    said: list[str] = []
    tabs = TabSettings(
        argv=(sys.executable, "-c", "pass"), environment={}, database=None, scratch=tmp_path
    )
    server = TuiServer(tabs, host=host, port=0, public_url=public_url, max_tabs=0, say=said.append)
    # What `listen` does, without its signal handlers (they are pytest's).
    runner = web.AppRunner(await server._make_app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    server.port_bound = port = runner.addresses[0][1]
    server.loopback = True
    try:
        yield Served(server, port, said)
    finally:
        await runner.cleanup()


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    async for running in serve(tmp_path):
        yield running


@pytest.fixture
async def behind_a_proxy(tmp_path: Path) -> AsyncIterator[Served]:
    async for running in serve(tmp_path, public_url="https://demo.example.org:443/airline/"):
        yield running


# -- Origin: only this server's own page opens a tab ---------------------------------------


async def test_the_servers_own_page_and_a_client_without_origin_open_a_tab(
    served: Served,
) -> None:
    assert await served.opens_a_tab(served.url)
    assert await served.opens_a_tab(None)  # not a browser: no page to come from
    # A scheme and a host name are the same in any case.
    assert await served.opens_a_tab(f"HTTP://127.0.0.1:{served.port}")
    assert served.said == []


def _other_origins(port: int) -> list[str]:
    """Origins of this machine (and tricks) that are not the page the browser used."""
    return [
        # other ports of this machine's names
        f"http://127.0.0.1:{port + 1}",
        f"http://localhost:{port + 1}",
        f"http://[::1]:{port + 1}",
        f"http://127.0.0.1:{port}0",
        f"http://127.0.0.1:0{port}",
        "http://127.0.0.1",
        "http://127.0.0.1:80",
        # other addresses of this machine, on this port
        f"http://0.0.0.0:{port}",
        f"http://127.0.0.2:{port}",
        f"http://127.1:{port}",
        f"http://2130706433:{port}",
        f"http://[::ffff:127.0.0.1]:{port}",
        f"http://[::1]:{port}",  # the server's, but not the name the browser used
        f"http://localhost:{port}",
        # this address and port with another scheme
        f"https://127.0.0.1:{port}",
        f"ws://127.0.0.1:{port}",
        f"file://127.0.0.1:{port}",
        # sandboxed pages, files, nothing
        "null",
        "",
        # the same host written otherwise
        f"http://127.0.0.1.:{port}",
        f"http://localhost.:{port}",
        f"http://user@127.0.0.1:{port}",
        f"http://user:secret@127.0.0.1:{port}",
        f"http://127.0.0.1:{port}/",
        f"http://127.0.0.1:{port}/ws",
        f"http://127.0.0.1:{port}.attacker.example",
        f"http://127.0.0.1:{port}@attacker.example",
        "http://attacker.example",
    ]


async def test_every_other_origin_of_this_machine_is_refused(served: Served) -> None:
    let_through = [o for o in _other_origins(served.port) if await served.opens_a_tab(o)]
    assert let_through == []
    assert f'refused a tab opened by a page of "http://127.0.0.1:{served.port + 1}"' in served.said


async def test_a_page_of_the_name_the_browser_used_opens_a_tab(served: Served) -> None:
    port = served.port
    for name in ("localhost", "[::1]"):
        assert await served.opens_a_tab(f"http://{name}:{port}", host=f"{name}:{port}")
        assert await served.opens_a_tab(f"http://{name.upper()}:{port}", host=f"{name}:{port}")
    # …and only that name: the page of localhost does not open one on 127.0.0.1.
    assert not await served.opens_a_tab(f"http://127.0.0.1:{port}", host=f"localhost:{port}")


async def test_a_refused_origin_is_said_in_ascii_whatever_its_bytes(served: Served) -> None:
    # Not from a browser (aiohttp's client refuses to send it): written on the socket. A
    # byte 0x9b is CSI, a terminal command, on a terminal that takes 8-bit controls.
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(
        b"GET /ws HTTP/1.1\r\n"
        + f"Host: 127.0.0.1:{served.port}\r\n".encode()
        + b"Origin: http://a\x9b2Jb\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    await writer.drain()
    status = await reader.readline()
    writer.close()
    assert b" 403 " in status
    assert served.said == ['refused a tab opened by a page of "http://a\\udc9b2Jb"']


async def test_behind_a_proxy_the_public_urls_origin_opens_a_tab(behind_a_proxy: Served) -> None:
    port = behind_a_proxy.port
    # Browsers leave out the default port; the URL's path is no part of an origin.
    assert await behind_a_proxy.opens_a_tab("https://demo.example.org")
    assert await behind_a_proxy.opens_a_tab("https://DEMO.example.org")
    assert await behind_a_proxy.opens_a_tab(f"http://127.0.0.1:{port}")
    for other in (
        "http://demo.example.org",
        "https://demo.example.org:8443",
        "https://demo.example.org.",
        "https://demo.example.org/airline",
        "https://other.example.org",
        "null",
    ):
        assert not await behind_a_proxy.opens_a_tab(other), other


# -- Host: loopback answers to loopback names only (DNS rebinding) -------------------------


async def test_loopback_answers_only_to_its_names_on_its_port(served: Served) -> None:
    port = served.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LocalHost:{port}"):
        assert await served.status("/static/css/xterm.css", host=host) == 200, host
    for host in (
        "attacker.example",
        f"attacker.example:{port}",
        f"127.0.0.1:{port + 1}",
        f"localhost:{port + 1}",
        "127.0.0.1",  # port 80, which this is not
        "localhost",
        f"127.0.0.2:{port}",
        f"0.0.0.0:{port}",
        f"localhost.:{port}",
        f"127.0.0.1.:{port}",
        f"user@127.0.0.1:{port}",
        "",  # no name at all (a server without a public URL has no public name either)
    ):
        assert await served.status("/static/css/xterm.css", host=host) == 403, host
        assert not await served.opens_a_tab(None, host=host), host


async def test_behind_a_proxy_the_public_host_is_answered(behind_a_proxy: Served) -> None:
    assert await behind_a_proxy.status("/static/css/xterm.css", host="demo.example.org") == 200
    assert await behind_a_proxy.status("/static/css/xterm.css", host="other.example.org") == 403
    assert await behind_a_proxy.status("/static/css/xterm.css", host="demo.example.org:80") == 403


# -- the static folder: its files, never a folder -------------------------------------------


async def test_the_static_folder_gives_files_and_no_folder(served: Served) -> None:
    assert await served.status("/static/js/textual.js") == 200
    assert await served.status("/static/css/xterm.css") == 200
    for folder in ("/static/", "/static/js", "/static/js/", "/static/fonts/", "/static//"):
        assert await served.status(folder) == 404, folder
    assert await served.status("/static/nothing.js") == 404
    assert await served.status("/static/../server.py") in (403, 404)


# -- terminal sizes a browser sends --------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "fitted"),
    [
        (80, 24, (80, 24)),
        ("120", "40", (120, 40)),
        (" 100 ", "30", (100, 30)),
        (80.7, 24.2, (80, 24)),
        ("80.5", "24.9", (80, 24)),
        (-5, -5, (1, 1)),
        ("-5", 24, (1, 24)),
        (0, 0, (1, 1)),
        (1, 1, (1, 1)),
        (MAX_COLUMNS, MAX_ROWS, (MAX_COLUMNS, MAX_ROWS)),
        (MAX_COLUMNS + 1, MAX_ROWS + 1, (MAX_COLUMNS, MAX_ROWS)),
        (10**30, 10**30, (MAX_COLUMNS, MAX_ROWS)),
        ("99999999999999999999", "1e9", (MAX_COLUMNS, MAX_ROWS)),
        (-(10**30), 24, (1, 24)),
    ],
)
def test_a_size_is_brought_within_what_the_app_draws(
    width: object, height: object, fitted: tuple[int, int]
) -> None:
    assert fitted_size(width, height, DEFAULT_SIZE) == fitted
    assert fitted_size(width, height, None) == fitted


@pytest.mark.parametrize(
    "unusable",
    [
        None,
        "",
        "abc",
        "80px",
        "0x50",
        True,
        False,
        [80],
        {"w": 80},
        math.nan,
        math.inf,
        -math.inf,
        "nan",
        "inf",
        "9" * 5000,
    ],
)
def test_a_size_that_is_no_number_gives_the_default(unusable: object) -> None:
    assert fitted_size(unusable, 24, DEFAULT_SIZE) == DEFAULT_SIZE
    assert fitted_size(80, unusable, DEFAULT_SIZE) == DEFAULT_SIZE
    assert fitted_size(unusable, 24, None) is None
    assert fitted_size(80, unusable, None) is None


def test_the_bounds_hold_a_4k_screen_at_the_pages_smallest_font() -> None:
    # xterm.js cells at 6 px (the page's smallest font): about 3.6 × 7.2 px.
    assert (MAX_COLUMNS, MAX_ROWS) >= (3840 // 3.6, 2160 // 7.2)
    assert DEFAULT_SIZE == (80, 24)


async def test_a_resize_is_brought_within_bounds_and_one_of_no_numbers_is_ignored(
    tmp_path: Path,
) -> None:
    from textual_serve.download_manager import DownloadManager

    from airline_agent.commands.serve.server import TabApp

    async def ignore(*_: object) -> None:
        return None

    tabs = TabSettings(
        argv=(sys.executable, "-c", "pass"), environment={}, database=None, scratch=tmp_path
    )
    tab = TabApp(
        1,
        tabs,
        write_bytes=ignore,
        write_str=ignore,
        close=ignore,
        download_manager=DownloadManager(),
    )
    sent: list[dict[str, object]] = []

    async def send_meta(meta: dict[str, object]) -> bool:
        sent.append(meta)
        return True

    tab.send_meta = send_meta  # type: ignore[method-assign]  # the app's stdin, recorded
    await tab.set_terminal_size(-5, 10**9)
    await tab.set_terminal_size("wide", 30)
    await tab.set_terminal_size(100, None)
    await tab.set_terminal_size(120.5, "40")
    assert sent == [
        {"type": "resize", "width": 1, "height": MAX_ROWS},
        {"type": "resize", "width": 120, "height": 40},
    ]


async def test_served_at_a_loopback_name_it_answers_to_that_name_and_loopbacks(
    tmp_path: Path,
) -> None:
    async for served in serve(tmp_path, host="MyLoopback"):
        port = served.port
        for host in (f"myloopback:{port}", f"127.0.0.1:{port}", f"localhost:{port}"):
            assert await served.status("/static/css/xterm.css", host=host) == 200, host
        assert await served.opens_a_tab(f"http://myloopback:{port}", host=f"myloopback:{port}")


async def test_on_port_80_a_browser_leaves_the_port_out(served: Served) -> None:
    served.server.port_bound = 80  # what the Host header says is all that is checked
    assert await served.status("/static/css/xterm.css", host="localhost") == 200
    assert await served.status("/static/css/xterm.css", host="localhost:80") == 200
    assert await served.status("/static/css/xterm.css", host="localhost:8080") == 403
    assert await served.opens_a_tab("http://localhost", host="localhost")


async def test_a_public_url_with_a_login_and_the_default_port_is_its_host(
    tmp_path: Path,
) -> None:
    async for served in serve(tmp_path, public_url="http://user:pw@demo.example.org:80/x/"):
        assert await served.status("/static/css/xterm.css", host="demo.example.org") == 200
        assert await served.opens_a_tab("http://demo.example.org")
        assert not await served.opens_a_tab("http://user:pw@demo.example.org")


async def test_the_page_points_at_this_servers_websocket_and_files(served: Served) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(served.url + "/") as page,
    ):
        text = await page.text()
        assert page.status == 200
    assert f'data-session-websocket-url="ws://127.0.0.1:{served.port}/ws"' in text
    assert f'href="{served.url}/static/css/xterm.css"' in text


async def test_a_download_that_is_no_tabs_is_not_found(served: Served) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(served.url + "/download/nokey") as answer,
    ):
        assert answer.status == 404
        assert await answer.text() == "Download with key 'nokey' not found"
