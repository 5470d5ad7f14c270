"""The web server of `airline-agent serve`: textual-serve's protocol and terminal page
(its `textual.js`, xterm.js underneath) with our page, one app process per browser tab.

What differs from textual-serve's own `Server`, and why:
- The page (`page/app_index.html`) loads nothing from outside this server: textual-serve's
  asks fonts.googleapis.com for its font; ours declares the same font from the copy
  textual-serve ships, and a Content-Security-Policy header lets the browser load nothing
  from any other origin. Its URLs are those of the address the browser used (or
  `--public-url`, behind a proxy): textual-serve writes `http://0.0.0.0:8000/…` into the
  page of a server bound to every interface, which points a browser on another machine
  at itself.
- Each tab is a `TabApp`: `airline-agent tui` run directly (no shell), its settings in its
  environment (a key never on a command line, where `ps` shows it), live on a copy of the
  database of its own (on a PostgreSQL server: a TEMPLATE copy of the template the
  command made, dropped with the tab). Closing the tab asks the app to quit and ends it
  if it has not within a few seconds: textual-serve waits for ever. The app's output is
  read to its end even once its browser has gone (textual-serve stops reading it, and an
  app in the middle of drawing then never ends), and a browser that reads nothing more
  (a frozen page, a machine asleep with the connection open) is cut off: neither a tab's
  end nor ctrl+c waits for it.
- Listening is ours (`listen`): a port in use or a host that is not this machine's is one
  line, port 0 takes any free port, and what is printed is the address bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import json
import math
import shlex
import shutil
import signal
import socket
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload
from urllib.parse import urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, web
from aiohttp.typedefs import Handler
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.postgres import TemplateCopies
from airline_agent.domain.sqlite_files import copy_sqlite

PAGE = Path(__file__).resolve().parent / "page"
QUIT_SECONDS = 5.0  # an app asked to quit that still runs then is sent SIGTERM…
TERMINATE_SECONDS = 3.0  # …and SIGKILL after this
# A killed app's last output reaches its browser within this, or the browser (which reads
# nothing more) is cut off.
LAST_OUTPUT_SECONDS = 3.0
# A tab's connection is closed within this (a browser that neither reads nor answers the
# close is cut off), so that ctrl+c ends serve within a few seconds whatever browsers do.
CLOSE_SECONDS = 5.0
HEARTBEAT_SECONDS = 15.0  # a browser gone without closing its socket is noticed within 2×
# The terminal sizes a tab's app is given, whatever the browser sends (the page's query,
# its resize messages): at least one cell (at -5 rows Textual's compositor fails with a
# traceback), at most more than a 4K screen holds at the page's smallest font (about
# 1,070 × 300 cells): a size of millions would have the app draw millions of cells.
MAX_COLUMNS = 1_200
MAX_ROWS = 400
DEFAULT_SIZE = (80, 24)  # a page that gives no usable size
# Each tab's app: textual's web driver, but a resize sent while it starts is not lost.
TAB_DRIVER = "airline_agent.commands.serve.driver:TabDriver"


class ListenError(Exception):
    """The server cannot listen where it was asked; one line says why."""


@dataclass(frozen=True)
class TabSettings:
    """What every tab's app is started with."""

    argv: Sequence[str]  # the command: `python -m airline_agent tui`
    environment: Mapping[str, str]  # settings for the app, added to the server's environment
    database: Path | None  # live: the SQLite file each tab gets a copy of; None: no copy
    scratch: Path  # where the copies are made (removed with the server)
    # Live on PostgreSQL: the template each tab's TEMPLATE copy is made from (and dropped).
    server_copies: TemplateCopies | None = None


class TabApp(AppService):
    """One browser tab's app: its process and, live, its copy of the database."""

    def __init__(
        self,
        number: int,
        settings: TabSettings,
        *,
        connection: asyncio.Transport | None = None,
        **service: Any,
    ) -> None:
        super().__init__(shlex.join(settings.argv), **service)
        self.number = number
        self.settings = settings
        self.connection = connection  # the browser's; cut off when it holds up the app's end
        self.folder: Path | None = None  # this tab's own files (its database copy)
        self.server_copy: str | None = None  # its own database on a PostgreSQL server
        self._stopping: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def start(self, width: int, height: int) -> None:
        width, height = fitted_size(width, height, DEFAULT_SIZE)
        copies = self.settings.server_copies
        if copies is not None:
            self.server_copy = await asyncio.to_thread(copies.copy, f"tab_{self.number}")
        if self.settings.database is not None:
            self.folder = self.settings.scratch / f"tab-{self.number}"
            self.folder.mkdir()
            await asyncio.to_thread(copy_sqlite, self.settings.database, self._copy)
        await super().start(width, height)

    async def set_terminal_size(self, width: object, height: object) -> None:
        """A resize from the browser: a size it cannot have is brought within bounds, one
        that is no number leaves the terminal as it was."""
        size = fitted_size(width, height, None)
        if size is not None:
            await super().set_terminal_size(*size)

    @property
    def _copy(self) -> Path:
        assert self.folder is not None and self.settings.database is not None
        return self.folder / self.settings.database.name

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width=width, height=height)
        environment["TEXTUAL_DRIVER"] = TAB_DRIVER
        environment.update(self.settings.environment)
        if self.folder is not None:
            environment["AIRLINE_AGENT_DB"] = str(self._copy)
        if self.server_copy is not None:
            environment["AIRLINE_AGENT_DB"] = self.server_copy
        return environment

    async def _open_app_process(
        self, width: int = 80, height: int = 24
    ) -> asyncio.subprocess.Process:
        # textual-serve runs its command through a shell: a path with a space would break
        # it, and a shell between us and the app would be what SIGTERM ends.
        self._process = process = await asyncio.create_subprocess_exec(
            *self.settings.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def run(self) -> None:
        try:
            await super().run()
        finally:
            task = asyncio.current_task()
            if task is None or not task.cancelling():  # not when serve's end cancels it
                await self._read_to_end()

    async def _read_to_end(self) -> None:
        """What the app writes once textual-serve has stopped reading (its browser gone),
        read and dropped until the app ends: an app in the middle of drawing would wait
        for a reader for ever, and asyncio sees no app end before its output is read."""
        process = self._process
        assert process is not None
        await asyncio.gather(_drop(process.stdout), _drop(process.stderr))

    def cut_off(self) -> None:
        """Drop the browser's connection, and whatever it was sent and has not read."""
        if self.connection is not None:
            self.connection.abort()

    async def stop(self) -> None:
        """End the app (asked to quit; terminated, then killed, if it does not) and remove
        its files. Called by the tab's handler and by the server's shutdown, maybe both at
        once, maybe while the caller is being cancelled: one stop, shielded, for all."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._stopping)

    async def _stop(self) -> None:
        try:
            process, running = self._process, self._task
            if process is None:
                return
            if running is not None:
                await self._download_manager.cancel_app_downloads(
                    app_service_id=self.app_service_id
                )
                await self.send_meta({"type": "quit"})
            # An app is seen to end once its output is read to its end: the last step is
            # for an app whose output waits for a browser that reads nothing.
            for seconds, end in (
                (QUIT_SECONDS, process.terminate),
                (TERMINATE_SECONDS, process.kill),
                (LAST_OUTPUT_SECONDS, self.cut_off),
            ):
                if await _within(process.wait(), seconds):
                    break
                with contextlib.suppress(ProcessLookupError):
                    end()
            await process.wait()
            if running is not None:
                # An app that quits as asked skips the steps above, but what it last drew
                # may still wait for a browser that reads nothing: cut off in time too.
                if not await _within(running, LAST_OUTPUT_SECONDS):
                    self.cut_off()
                await running  # the app's last output, read to its end
        finally:
            if self.folder is not None:
                await asyncio.to_thread(shutil.rmtree, self.folder, True)
            copies = self.settings.server_copies
            if self.server_copy is not None and copies is not None:
                # A server that went away: the serve command's end tries again, says so.
                with contextlib.suppress(DatabaseUnavailable):
                    await asyncio.to_thread(copies.discard, self.server_copy)


async def _drop(stream: asyncio.StreamReader | None) -> None:
    with contextlib.suppress(OSError):
        while stream is not None and await stream.read(2**16):
            pass


async def _within(waited: Awaitable[object], seconds: float) -> bool:
    """Whether `waited` ends within `seconds` (if not, it goes on)."""
    done, _ = await asyncio.wait([asyncio.ensure_future(waited)], timeout=seconds)
    return bool(done)


async def _hang_up(
    websocket: web.WebSocketResponse,
    connection: asyncio.Transport | None,
    code: int = WSCloseCode.OK,
    message: bytes = b"",
) -> None:
    """Close a tab's websocket; a browser that neither takes what it was sent nor answers
    the close within CLOSE_SECONDS is cut off (aiohttp would wait for it for ever)."""
    # At its limit the close is not cancelled (aiohttp's writes to one browser share one
    # wait: the app's output to that tab would be cancelled with it) but the browser is cut
    # off: what it has not read is dropped, and the close then ends at once.
    closing = asyncio.ensure_future(websocket.close(code=code, message=message))
    done, _ = await asyncio.wait([closing], timeout=CLOSE_SECONDS)
    if not done and connection is not None:
        connection.abort()
        done, _ = await asyncio.wait([closing], timeout=CLOSE_SECONDS)
    if done:
        await closing
    else:
        closing.cancel()


class TuiServer(Server):
    """textual-serve's server with our page, our tabs and our way of listening."""

    def __init__(
        self,
        tabs: TabSettings,
        *,
        host: str,
        port: int,
        public_url: str | None,
        max_tabs: int,
        say: Callable[[str], None],
    ) -> None:
        super().__init__(
            shlex.join(tabs.argv),
            host=host,
            port=port,
            title="airline-agent",
            public_url=public_url,
            templates_path=PAGE,
        )
        # None: each page's URLs are those of the address its browser used.
        self.public_url = public_url.rstrip("/") if public_url else ""  # "": none given
        self.tab_settings = tabs
        self.max_tabs = max_tabs
        self.say = say
        self.tabs: set[TabApp] = set()
        # Each tab's websocket and the connection it is on (cut off if it holds up the end).
        self.sockets: dict[web.WebSocketResponse, asyncio.Transport | None] = {}
        self.opened = 0
        self.port_bound: int | None = None
        # Bound to loopback, the server answers only to loopback names: a page of another
        # site whose name is made to point at 127.0.0.1 (DNS rebinding) is refused.
        self.loopback = True  # known once listening

    @property
    def exposed(self) -> bool:
        """Whether others than this machine's users may reach the apps: bound beyond
        loopback, or served through a URL that is not this machine's."""
        public = urlsplit(self.public_url).hostname if self.public_url else None
        return not self.loopback or (public is not None and not names_loopback(public))

    async def _make_app(self) -> web.Application:
        """textual-serve's routes, but its static folder lists no folder (textual-serve's
        shows any folder's files to whoever asks)."""
        app = web.Application(middlewares=[self._only_our_own])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        app.on_shutdown.append(self.on_shutdown)
        return app

    @web.middleware
    async def _only_our_own(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Refuse a request for another host name, and a tab opened by another site's page
        (a browser lets any page open a websocket to any address: without this check, a
        page you visit could drive this server's apps)."""
        host = request.host.lower()
        if not self._answers_to(host):
            raise web.HTTPForbidden(text=f"airline-agent serve does not answer to {host}\n")
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin is not None and not self._own_origin(origin, host):
            # As a JSON string: ASCII, whatever bytes the header held (a client is no browser).
            self.say(f"refused a tab opened by a page of {json.dumps(origin)}")
            raise web.HTTPForbidden(text="a tab is opened only by this server's own page\n")
        try:
            return await handler(request)
        except web.HTTPForbidden:
            if request.match_info.route.name != "static":
                raise
            # aiohttp forbids a folder it does not list; it is answered as nothing there.
            raise web.HTTPNotFound() from None

    def _answers_to(self, host: str) -> bool:
        """Whether a request for `host` (the Host header, lowercased) is for this server."""
        public = _authority(self.public_url) if self.public_url else None
        if not self.loopback or host == public:
            return True
        names = {"127.0.0.1", "localhost", "[::1]", self.host.lower()}
        port = self.port_bound
        allowed = {f"{name}:{port}" for name in names} | (names if port == 80 else set())
        return host in allowed

    def _own_origin(self, origin: str, host: str) -> bool:
        """Whether a page of `origin` is this server's own: the origin of the address the
        browser used (the Host it sent, which `_answers_to` let through), or of
        --public-url. Exactly that: another port, scheme or address of this machine is
        another site (a page served there could drive the apps), and so is `null` (a
        sandboxed page or a file)."""
        given = origin.lower()  # a scheme and a host name are the same in any case
        if self.public_url and given == _web_origin(self.public_url):
            return True
        return given == f"http://{host}"

    async def handle_index(self, request: web.Request) -> web.Response:
        base = self.public_url or f"{request.scheme}://{request.host}"
        router = request.app.router
        static = base + str(router["static"].url_for(filename="/")).rstrip("/") + "/"
        websocket = base + str(router["websocket"].url_for())
        websocket = ("wss:" if base.startswith("https:") else "ws:") + websocket.split(":", 1)[1]
        context = {
            "font_size": max(6, min(to_int(request.query.get("fontsize", "16"), 16), 64)),
            "app_websocket_url": websocket,
            "config": {"static": {"url": static}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Content-Security-Policy"] = content_policy(base, websocket)
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT_SECONDS)
        await websocket.prepare(request)
        connection = request.transport

        async def hang_up() -> None:
            await _hang_up(websocket, connection)

        if len(self.tabs) >= self.max_tabs:
            await _tell(
                websocket,
                f"{self.max_tabs} {'tab is' if self.max_tabs == 1 else 'tabs are'} open, "
                "the most this server runs at once "
                "(airline-agent serve --max-tabs). Close one, then reload this page.",
            )
            await hang_up()
            return websocket
        query = request.query
        self.opened += 1
        tab = TabApp(
            self.opened,
            self.tab_settings,
            connection=connection,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=hang_up,
            download_manager=self.download_manager,
        )
        self.tabs.add(tab)
        self.sockets[websocket] = connection
        try:
            await tab.start(*fitted_size(query.get("width"), query.get("height"), DEFAULT_SIZE))
            self.say(f"tab {tab.number} opened (app process {tab.pid}; {len(self.tabs)} open)")
            await self._process_messages(websocket, tab)
        except Exception as error:
            # A copy that could not be made, an app that could not start, a message from
            # the browser that is not textual's: this tab ends, the server goes on.
            self.say(f"tab {tab.number}: {type(error).__name__}: {_sentence(error)}")
            with contextlib.suppress(Exception):
                await _tell(websocket, f"this tab's app ended: {_sentence(error)}")
        finally:
            await tab.stop()
            self.tabs.discard(tab)
            self.sockets.pop(websocket, None)
            await hang_up()
            self.say(f"tab {tab.number} closed ({len(self.tabs)} open)")
        return websocket

    async def stop_tabs(self) -> None:
        """Every tab's app ended and every tab's websocket closed, all at once: ctrl+c
        takes a few seconds however many tabs are open and whatever their browsers do."""
        await asyncio.gather(
            *(tab.stop() for tab in list(self.tabs)),
            *(
                _hang_up(websocket, connection, WSCloseCode.GOING_AWAY, b"server stopped")
                for websocket, connection in list(self.sockets.items())
            ),
        )

    async def listen(self, on_listening: Callable[[str], None]) -> None:
        """Serve until SIGINT or SIGTERM; `on_listening` gets the URL once bound.
        Raises ListenError, said plainly."""
        try:
            self.loopback = is_loopback(self.host)
        except OSError as error:
            raise ListenError(listen_problem(error, self.host, self.port)) from None
        except UnicodeError:  # "a..b": a name no DNS can carry, refused before any lookup
            raise ListenError(f"cannot serve on {self.host!r}: not a host name") from None
        runner = web.AppRunner(
            await self._make_app(), handle_signals=False, access_log=None, shutdown_timeout=5
        )
        await runner.setup()
        site = web.TCPSite(runner, self.host or None, self.port)
        try:
            await site.start()
        except OSError as error:
            await runner.cleanup()
            raise ListenError(listen_problem(error, self.host, self.port)) from None
        stopped = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(number, stopped.set)
        try:
            self.port_bound = port = runner.addresses[0][1]
            on_listening(self.public_url or local_url(self.host, port))
            await stopped.wait()
            self.say("stopping: closing every tab's app")
        finally:
            await site.stop()  # no tab opens while the others close
            await self.stop_tabs()
            await runner.cleanup()


@overload
def fitted_size(width: object, height: object, default: tuple[int, int]) -> tuple[int, int]: ...
@overload
def fitted_size(width: object, height: object, default: None) -> tuple[int, int] | None: ...
def fitted_size(
    width: object, height: object, default: tuple[int, int] | None
) -> tuple[int, int] | None:
    """A terminal size from what a browser sent (numbers, or their text: a query string),
    each within 1 and MAX_COLUMNS or MAX_ROWS; `default` when either is no number."""
    columns, rows = _cells(width), _cells(height)
    if columns is None or rows is None:
        return default
    return min(max(columns, 1), MAX_COLUMNS), min(max(rows, 1), MAX_ROWS)


def _cells(value: object) -> int | None:
    """A whole number of cells: an int, a finite float (its whole part), or the text of
    one; None for anything else (a bool, a list, "80px", NaN)."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        value = int(value)
    return value


async def _tell(websocket: web.WebSocketResponse, message: str) -> None:
    """A line in the tab's terminal (the page writes whatever bytes come to it)."""
    await websocket.send_bytes(f"\r\nairline-agent serve: {message}\r\n".encode())


def _sentence(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def content_policy(base: str, websocket: str) -> str:
    """Nothing from any origin but this server's (inline style and script: the page's own
    and textual.js's, which inserts its style sheet)."""
    origin, socket_origin = _origin(base), _origin(websocket)
    return (
        f"default-src 'none'; script-src {origin} 'unsafe-inline'; "
        f"style-src {origin} 'unsafe-inline'; font-src {origin}; img-src {origin} data:; "
        f"connect-src {origin} {socket_origin}; base-uri 'none'; form-action 'none'"
    )


def is_loopback(host: str) -> bool:
    """Whether every address `host` names is a loopback one (raises socket.gaierror for a
    name that resolves to nothing)."""
    if not host:
        return False  # every interface
    addresses = {info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
    return all(
        ipaddress.ip_address(str(address).split("%")[0]).is_loopback for address in addresses
    )


def names_loopback(hostname: str) -> bool:
    """Whether a URL's host is this machine by its name alone (no DNS: a proxy's public
    name is taken for what it says, another machine)."""
    if hostname.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False


def _authority(url: str) -> str:
    """The host and port of a URL as a browser sends them in Host and Origin: lowercased,
    without a login, without the scheme's default port."""
    parts = urlsplit(url)
    authority = parts.netloc.rpartition("@")[2].lower()
    default = {"http": ":80", "https": ":443"}.get(parts.scheme, "")
    return authority.removesuffix(default) if default else authority


def _web_origin(url: str) -> str:
    """The Origin a browser sends from a page at `url`."""
    return f"{urlsplit(url).scheme}://{_authority(url)}"


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def local_url(host: str, port: int) -> str:
    shown = host or "0.0.0.0"
    if ":" in shown:  # an IPv6 address
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def listen_problem(error: OSError, host: str, port: int) -> str:
    """Why the server cannot listen on host:port, in one line."""
    if isinstance(error, socket.gaierror):
        return f"cannot serve on {host!r}: no such host here ({error.strerror})"
    reason = error.strerror or str(error)
    if error.errno == errno.EADDRINUSE:
        where = host or "every interface"
        return f"port {port} on {where} is already in use; choose another with --port (0: any free)"
    if error.errno == errno.EADDRNOTAVAIL:
        return f"cannot serve on {host!r}: not an address of this machine ({reason})"
    if error.errno == errno.EACCES:
        return f"not allowed to listen on port {port} ({reason}); ports below 1024 need privileges"
    return f"cannot listen on {host}:{port}: {reason}"
