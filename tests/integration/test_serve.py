"""`airline-agent serve` without a browser: its errors and warning, the page it sends, who
may open a tab, and the app process and database copy each tab gets and gives back.
(The TUI itself in a real browser: test_serve_browser.py.)"""

from __future__ import annotations

import asyncio
import re
import signal
import socket
import sqlite3
import sys
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest
from aiohttp.connector import AddrInfoType
from textual_serve.download_manager import DownloadManager
from typer.testing import CliRunner

from airline_agent import cli
from airline_agent.commands.serve import server as serve_server
from airline_agent.commands.serve.server import MAX_COLUMNS, MAX_ROWS, listen_problem
from tests.support.sample_db import seeded
from tests.support.serve import (
    ServeProcess,
    process_environment,
    running_on_linux,
    wait_until,
)

pytestmark = pytest.mark.skipif(not running_on_linux(), reason="counts processes in /proc")


def _serve(*args: str):
    """The command in this process: what it says before it would serve."""
    return CliRunner().invoke(cli.app, ["serve", *args])


def test_a_port_in_use_is_one_line_and_status_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _serve("--port", str(port))
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: port {port} on 127.0.0.1 is already in use; choose another with --port "
        "(0: any free)\n"
    )
    assert result.stdout == ""


def test_an_address_that_is_not_this_machines_is_one_line() -> None:
    # 192.0.2.1 (TEST-NET-1, never assigned): the bind fails here, nothing is sent.
    result = _serve("--host", "192.0.2.1", "--port", "0")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot serve on '192.0.2.1': not an address of this")
    assert result.stderr.count("\n") == 1


def test_a_host_that_is_no_name_is_one_line() -> None:
    result = _serve("--host", "a..b", "--port", "0")  # refused before any DNS lookup
    assert result.exit_code == 2
    assert result.stderr == "error: cannot serve on 'a..b': not a host name\n"


def test_a_name_that_resolves_to_nothing_is_said_so() -> None:
    unknown = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert listen_problem(unknown, "no-such-host", 8000) == (
        "cannot serve on 'no-such-host': no such host here (Name or service not known)"
    )


def test_a_public_url_that_is_not_http_is_refused() -> None:
    result = _serve("--public-url", "ftp://example.org/")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --public-url: not an http(s) URL")
    assert result.stderr.count("\n") == 1


async def test_each_tab_is_an_app_process_ended_with_its_tab_or_by_ctrl_c() -> None:
    server = ServeProcess("--max-tabs", "2")
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", server.url)
        url = server.url.replace("http://", "ws://") + "ws?width=120&height=40"
        async with aiohttp.ClientSession() as session:
            first = await session.ws_connect(url, headers={"Origin": server.url.rstrip("/")})
            one = server.wait_for_apps(lambda apps: len(apps) == 1, what="one app")
            second = await session.ws_connect(url)  # no Origin: not a browser
            both = server.wait_for_apps(lambda apps: len(apps) == 2, what="two apps")
            third = await session.ws_connect(url)  # one more than --max-tabs
            refused = await third.receive_bytes(timeout=30)
            assert b"2 tabs are open, the most this server runs at once" in refused
            assert (await third.receive(timeout=30)).type == aiohttp.WSMsgType.CLOSE
            assert server.app_processes() == both
            await first.close()
            (left,) = server.wait_for_apps(lambda apps: apps == both - one, what="one ended")
            code = server.stop()  # ctrl+c, with the second tab still open
            await second.close()
    finally:
        server.stop()
    assert code == 0, server.report
    assert not Path(f"/proc/{left}").exists()  # ended, and reaped by the server
    assert "tab 1 closed (1 open)" in server.output
    assert "stopping: closing every tab's app" in server.output
    assert "warning" not in server.output and "Traceback" not in server.output


async def _open_tab(
    server: ServeProcess, session: aiohttp.ClientSession, query: str
) -> tuple[aiohttp.ClientWebSocketResponse, int]:
    """A tab opened as the server's own page opens one, and its app (the only one)."""
    url = server.url.replace("http://", "ws://") + "ws" + query
    tab = await session.ws_connect(url, headers={"Origin": server.url.rstrip("/")})
    (app,) = server.wait_for_apps(lambda apps: len(apps) == 1, what="one app")
    return tab, app


async def test_a_tab_closed_while_its_app_draws_is_closed_and_ctrl_c_ends_serve() -> None:
    """A browser that closes its tab while the app still draws a large screen: the app
    ends, the tab is closed (its place free for another) and ctrl+c then ends serve. The
    app's last output was no longer read once the browser had gone, so the app could not
    end and, once killed, was never seen to: the tab stayed open for ever, and ctrl+c
    waited for it (the test's stop() killed serve after 30 s)."""
    server = ServeProcess("--max-tabs", "2")
    try:
        async with aiohttp.ClientSession() as session:
            # 600×200 cells: its first screen (about 1.5 MB) and one more are far more than
            # serve still reads once the tab is gone (at 400×150 this passed before the fix).
            tab, app = await _open_tab(server, session, "?width=600&height=200")
            await tab.receive(timeout=90)  # the app has started drawing
            await tab.send_json(["resize", {"width": 599, "height": 200}])  # all drawn again
            await asyncio.wait_for(tab.close(), 30)
        server.wait_for_apps(lambda apps: app not in apps, what=f"without {app}")
        server.wait_for_output("tab 1 closed (0 open)", timeout=30)
        code = server.stop()
    finally:
        server.stop()
    assert code == 0, server.report
    assert "Traceback" not in server.output, server.output


async def test_ctrl_c_ends_serve_in_time_though_a_tab_stopped_reading() -> None:
    """A browser that stops reading what its tab is sent (a frozen page, a machine gone to
    sleep with the connection open) while its app draws a lot: serve still ends promptly
    on ctrl+c, with its app. It did not end at all: the tab's last output waited for that
    browser for ever, and the test's stop() had to kill it after 30 s."""
    server = ServeProcess("--max-tabs", "2")
    try:
        connector = aiohttp.TCPConnector(socket_factory=_small_receive_buffer)
        async with aiohttp.ClientSession(connector=connector) as session:
            tab, app = await _open_tab(server, session, f"?width={MAX_COLUMNS}&height={MAX_ROWS}")
            screen = b""
            async with asyncio.timeout(90):  # the first frame, on a busy machine
                while b"Scenario library" not in screen:
                    message = await tab.receive()
                    assert message.type == aiohttp.WSMsgType.BINARY, (message, server.output)
                    screen += message.data
            # From here this client reads nothing: each resize has the app draw its whole
            # screen again (megabytes at this size), more than the connection holds.
            for number in range(20):
                await tab.send_json(
                    ["resize", {"width": MAX_COLUMNS - number % 2, "height": MAX_ROWS}]
                )
                await asyncio.sleep(0.1)
            # ctrl+c; nor does this client answer serve's close. Still running 30 s later
            # (no timed assertion: a generous deadline), serve is killed and says -9.
            code = server.stop()
            await asyncio.wait_for(tab.close(), 30)
    finally:
        server.stop()
    assert code == 0, server.report
    assert "stopping: closing every tab's app" in server.output
    assert not Path(f"/proc/{app}").exists()  # the app ended, and was reaped by the server
    assert "Traceback" not in server.output, server.output


def _small_receive_buffer(address: AddrInfoType) -> socket.socket:
    """A client socket that holds little of what it is sent and has not read: a browser
    that stops reading holds up serve after a few of the app's screens, not dozens."""
    family, kind, protocol, _, _ = address
    client = socket.socket(family, kind, protocol)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return client


def test_every_interface_is_served_with_the_warning() -> None:
    server = ServeProcess("--host", "0.0.0.0")
    try:
        server.wait_for_output("anyone who can reach")
    finally:
        server.stop()
    warning = "".join(server.stderr)
    port = urlsplit(server.url).port
    assert warning.startswith("warning: 0.0.0.0 is not a loopback address: anyone who can reach")
    assert f"port {port} of this machine controls the app and the database it is given" in warning


def test_a_public_url_elsewhere_is_warned_about_and_used_in_the_page() -> None:
    server = ServeProcess("--public-url", "https://192.0.2.10:8443/airline/")
    try:
        server.wait_for_output("warning: served at https://192.0.2.10:8443/airline")
        page, policy = _fetch_page(server.local_url)
    finally:
        server.stop()
    assert 'data-session-websocket-url="wss://192.0.2.10:8443/airline/ws"' in page
    assert 'href="https://192.0.2.10:8443/airline/static/css/xterm.css"' in page
    assert "connect-src https://192.0.2.10:8443 wss://192.0.2.10:8443" in policy


async def test_an_app_that_does_not_quit_is_terminated_then_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serve_server, "QUIT_SECONDS", 0.2)
    monkeypatch.setattr(serve_server, "TERMINATE_SECONDS", 0.2)
    ready = tmp_path / "ready"
    stubborn = (  # ignores SIGTERM, says it is a Textual app, then ignores quit too
        "import pathlib, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        f"pathlib.Path({str(ready)!r}).touch(); print('__GANGLION__', flush=True); "
        "time.sleep(120)"
    )
    settings = serve_server.TabSettings(
        argv=(sys.executable, "-c", stubborn), environment={}, database=None, scratch=tmp_path
    )

    async def ignore(*_: object) -> None:
        return None

    tab = serve_server.TabApp(
        1,
        settings,
        write_bytes=ignore,
        write_str=ignore,
        close=ignore,
        download_manager=DownloadManager(),
    )
    await tab.start(80, 24)
    for _ in range(1200):  # up to a minute for Python to start on a busy machine
        if ready.exists():
            break
        await asyncio.sleep(0.05)
    await tab.stop()
    assert tab._process is not None and tab._process.returncode == -signal.SIGKILL


async def test_an_app_that_ends_while_its_browser_reads_nothing_is_stopped_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app quits at once, but what it last drew waits for a browser that reads
    nothing: the browser is cut off and the tab ends. It waited for that browser for ever."""
    monkeypatch.setattr(serve_server, "LAST_OUTPUT_SECONDS", 0.2)
    frame = serve_server.TabApp.encode_packet(b"D", b"x" * 100)
    quits = (  # says it is a Textual app, draws, and ends when asked to quit
        f"import sys; sys.stdout.buffer.write(b'__GANGLION__\\n' + {frame!r}); "
        "sys.stdout.flush(); sys.stdin.buffer.read(1)"
    )
    settings = serve_server.TabSettings(
        argv=(sys.executable, "-c", quits), environment={}, database=None, scratch=tmp_path
    )
    drawing = asyncio.Event()
    cut_off = asyncio.Event()

    async def never_read(_: bytes) -> None:  # a browser that takes nothing more…
        drawing.set()
        await cut_off.wait()
        raise ConnectionResetError("Cannot write to closing transport")  # …until cut off

    async def ignore(*_: object) -> None:
        return None

    class Connection:
        def abort(self) -> None:
            cut_off.set()

    tab = serve_server.TabApp(
        1,
        settings,
        connection=Connection(),  # type: ignore[arg-type]  # only abort() is used
        write_bytes=never_read,
        write_str=ignore,
        close=ignore,
        download_manager=DownloadManager(),
    )
    await tab.start(80, 24)
    await asyncio.wait_for(drawing.wait(), 60)  # up to a minute for Python to start
    await asyncio.wait_for(tab.stop(), 30)
    assert cut_off.is_set()
    assert tab._process is not None and tab._process.returncode == 0  # it quit, unkilled


@pytest.fixture(scope="module")
def offline_server():
    server = ServeProcess()
    yield server
    assert server.stop() == 0, server.report
    assert "Traceback" not in server.output


def test_the_page_names_only_this_server(offline_server: ServeProcess) -> None:
    page, policy = _fetch_page(offline_server.url)
    origin = offline_server.url.rstrip("/")
    websocket = origin.replace("http://", "ws://", 1)
    addresses = re.findall(r'(?:src|href|url)\s*[=(]\s*"([^"]+)"', page)
    assert len(addresses) >= 5, page
    ours = (origin + "/", websocket + "/", "data:")
    assert [a for a in addresses if not a.startswith(ours)] == []
    assert "googleapis" not in page
    assert "fonts/RobotoMono-VariableFont_wght.ttf" in page
    # …and the browser is told to load nothing from anywhere else.
    assert policy.startswith("default-src 'none'; ")
    assert f"font-src {origin};" in policy


async def test_a_tab_opened_by_another_sites_page_is_refused(offline_server: ServeProcess) -> None:
    url = offline_server.url.replace("http://", "ws://") + "ws"
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(url, headers={"Origin": "http://attacker.example"})
        assert refused.value.status == 403
        # A name that only points here (DNS rebinding) gets no page either.
        async with session.get(offline_server.url, headers={"Host": "attacker.example"}) as page:
            assert page.status == 403
    assert offline_server.app_processes() == set()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory):
    """Live (a model configured; no request is made until a customer types), on a
    database of the test's own, seeded first (a named database is never built by serve)."""
    database = seeded(tmp_path_factory.mktemp("serve-live") / "airline.db")
    server = ServeProcess(
        "--db", str(database), model="gpt-4o-mini", OPENAI_BASE_URL="http://127.0.0.1:9/v1"
    )
    server.database = database
    yield server
    assert server.stop() == 0, server.report
    assert "Traceback" not in server.output


async def test_live_each_tab_works_on_its_own_copy_removed_with_the_tab(
    live_server: ServeProcess,
) -> None:
    assert f"live: each tab on its own copy of {live_server.database}" in live_server.output
    url = live_server.url.replace("http://", "ws://") + "ws?width=120&height=40"
    async with aiohttp.ClientSession() as session:
        tabs = [await session.ws_connect(url), await session.ws_connect(url)]
        apps = live_server.wait_for_apps(lambda apps: len(apps) == 2, what="two apps")
        copies = {Path(process_environment(pid)["AIRLINE_AGENT_DB"]) for pid in apps}
        assert len(copies) == 2 and live_server.database not in copies
        for copy in copies:
            assert _reservations(copy) == _reservations(live_server.database)
        for tab in tabs:
            await tab.close()
        live_server.wait_for_apps(lambda apps: not apps, what="none left")
    # Removed once its app has ended (a moment after the process is gone).
    wait_until(lambda: not any(copy.parent.exists() for copy in copies), "both copies removed")
    assert live_server.database.is_file()


def _reservations(database: Path) -> int:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT count(*) FROM reservation").fetchone()[0]


def _fetch_page(url: str) -> tuple[str, str]:
    from urllib.request import urlopen

    with urlopen(url, timeout=30) as response:
        return response.read().decode(), response.headers["Content-Security-Policy"]
