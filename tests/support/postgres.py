"""A real PostgreSQL server for the tests, started from Debian's `postgresql` binaries
(`/usr/lib/postgresql/*/bin`, installed by scripts/test when it runs as root) in a
temporary directory, reachable only on a unix socket there (no TCP port, so parallel
workers never collide).

One server per test process (each pytest-xdist worker starts its own, ~3 s); each test
gets its own database, a `CREATE DATABASE … TEMPLATE` copy of a template built once
(tens of milliseconds). The cluster's default collation is ICU `en-US`, as on most
servers people run: an ordering that the code forgot to make byte-wise (SQLite's) shows
up as an export that differs from SQLite's.

Where no server can be started the tests that need one skip, saying why; under CI
(`CI=true`) that is an error instead, so a CI run never passes without them.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# A role that must give its password over the socket (the authentication tests); every
# other role is trusted.
PASSWORD_ROLE = "airline_password"
PASSWORD = "right-horse-battery"
SUPERUSER = "airline"


class ServerUnavailable(Exception):
    """No PostgreSQL server can be started here; the message says why."""


def binaries() -> Path | None:
    """The folder of the newest PostgreSQL server binaries on this machine."""
    found = []
    for folder in Path("/usr/lib/postgresql").glob("*/bin"):
        if all((folder / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres")):
            try:
                found.append((int(folder.parent.name), folder))
            except ValueError:
                continue
    if found:
        return max(found)[1]
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _run_as() -> str | None:
    """PostgreSQL refuses to run as root: as root, the server runs as `postgres` (made by
    Debian's package), else `nobody`; as anyone else, as that user."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise ServerUnavailable("running as root with neither a `postgres` nor a `nobody` user")


@dataclass
class PostgresServer:
    """A running server: `url(name)` is the SQLAlchemy URL of one of its databases."""

    root: Path
    bin: Path
    user: str | None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _templates: dict[str, str] = field(default_factory=dict)

    @property
    def socket_dir(self) -> Path:
        return self.root

    def url(self, database: str, *, role: str = SUPERUSER, password: str | None = None) -> str:
        secret = f":{password}" if password is not None else ""
        return f"postgresql+psycopg://{role}{secret}@/{database}?host={self.socket_dir}"

    def sql(self, statement: str, database: str = "postgres") -> list[tuple]:
        """One statement in autocommit (CREATE DATABASE cannot run in a transaction)."""
        import psycopg

        with psycopg.connect(
            host=str(self.socket_dir), dbname=database, user=SUPERUSER, autocommit=True
        ) as connection:
            cursor = connection.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def new_name(self, prefix: str = "test") -> str:
        return f"{prefix}_{uuid.uuid4().hex[:12]}"

    def template(self, key: str, build: Callable[[str], None]) -> str:
        """The name of a template database built once by `build(url)` (which must close
        every connection it opened: a template is copied only while nobody is on it)."""
        with self._lock:
            if key not in self._templates:
                name = self.new_name(f"template_{key}")
                build(self.url(name))
                self._templates[key] = name
            return self._templates[key]

    def copy_of(self, template: str, name: str | None = None) -> str:
        """A fresh database copied from `template`; its URL."""
        name = name or self.new_name()
        # FILE_COPY: faster than the default (WAL_LOG) for small databases.
        self.sql(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
        return self.url(name)

    def drop(self, url_or_name: str) -> None:
        name = url_or_name.rsplit("/", 1)[-1].split("?", 1)[0]
        self.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        _pg_ctl(self, "stop", "-m", "fast")
        shutil.rmtree(self.root, ignore_errors=True)


def _as_user(user: str | None) -> dict:
    return {} if user is None else {"user": user}


def _pg_ctl(server: PostgresServer, *arguments: str) -> None:
    subprocess.run(
        [str(server.bin / "pg_ctl"), "-D", str(server.root / "data"), *arguments],
        check=True,
        capture_output=True,
        timeout=120,
        **_as_user(server.user),
    )


def start_server() -> PostgresServer:
    """Initialise and start a server in a new temporary directory, or ServerUnavailable."""
    folder = binaries()
    if folder is None:
        raise ServerUnavailable(
            "no PostgreSQL server binaries (Debian's `postgresql` package: scripts/test "
            "installs it when it runs as root)"
        )
    user = _run_as()
    # In memory where there is a tmpfs: creating a database opens ~600 files, which
    # takes 0.6-1 s on this machine's disk under load, 65 ms in /dev/shm. Short: a unix
    # socket's path must stay under ~100 bytes.
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else Path("/tmp")
    root = Path(tempfile.mkdtemp(prefix="aa-pg-", dir=base))
    if user is not None:
        shutil.chown(root, user)
    data = root / "data"
    server = PostgresServer(root, folder, user)
    try:
        subprocess.run(
            [
                str(folder / "initdb"),
                "-D",
                str(data),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--locale-provider=icu",
                "--icu-locale=en-US",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            timeout=120,
            **_as_user(user),
        )
        hba = data / "pg_hba.conf"
        hba.write_text(
            f"local all {PASSWORD_ROLE} scram-sha-256\nlocal all all trust\n", encoding="utf-8"
        )
        options = " ".join(
            [
                "-c listen_addresses=''",
                f"-c unix_socket_directories={root}",
                "-c fsync=off",
                "-c synchronous_commit=off",
                "-c full_page_writes=off",
                "-c max_connections=200",
                "-c deadlock_timeout=100ms",
            ]
        )
        _pg_ctl(server, "-l", str(root / "server.log"), "-w", "-t", "60", "-o", options, "start")
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        shutil.rmtree(root, ignore_errors=True)
        why = detail.decode(errors="replace").strip().splitlines()[-1:] or [str(exc)]
        raise ServerUnavailable(f"the PostgreSQL server did not start: {why[0]}") from exc
    server.sql(f"CREATE ROLE {PASSWORD_ROLE} LOGIN CREATEDB PASSWORD '{PASSWORD}'")
    return server


class Outage:
    """The server as a client on 127.0.0.1 sees it, through a relay this test controls:
    `url(name)` reaches a database through it; `cut()` closes every connection it carries
    and stops listening, as a server going down does (connections refused from then on)."""

    def __init__(self, server: PostgresServer) -> None:
        self._target = str(server.socket_dir / ".s.PGSQL.5432")
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # cut
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(self._target)
            with self._lock:
                self._open += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        # shutdown first: a close alone leaves the socket listening while the accepting
        # thread still holds it (Linux).
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            for end in self._open:
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()
            self._open.clear()
