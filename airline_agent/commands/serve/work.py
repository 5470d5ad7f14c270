"""What `serve` does (its options are `command.py`'s): the settings read, the database each
tab gets a copy of made ready, the tabs' environment set, and the web server run
(`server.py`) until Ctrl-C.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit

import typer

from airline_agent.commands.serve import DEFAULT_HOST
from airline_agent.commands.serve.server import ListenError, TabSettings, TuiServer, local_url
from airline_agent.commands.settings import settings_or_exit
from airline_agent.config import Settings, variable_name
from airline_agent.domain.database_urls import redact_url
from airline_agent.domain.db import describe
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.postgres import TemplateCopies
from airline_agent.stack import open_database, session_copies


def serve(
    *,
    host: str,
    port: int,
    public_url: str | None,
    max_tabs: int,
    model: str | None,
    base_url: str | None,
    db: str | None,
    guard: bool | None,
    approve: str | None,
    prompt: str | None,
) -> None:
    """Serve the TUI in a browser until Ctrl-C."""
    flags: dict[str, object] = {
        "model": model,
        "base_url": base_url,
        "db": db,
        "guard": guard,
        "approve": approve,
        "prompt": prompt,
    }
    settings = settings_or_exit(**flags)
    if public_url is not None:
        _check_public_url(public_url)

    live = _live_database(settings) if settings.model_configured else None
    # What each tab gets a copy of: a SQLite file, copied; or a PostgreSQL database,
    # copied now into a template, each tab's copy a TEMPLATE copy of that template.
    database = live if isinstance(live, Path) else None
    copies = None if live is None or isinstance(live, Path) else live
    copied = str(database) if database is not None else None
    if copies is not None:
        copied = describe(settings.db)

    # Each tab's app reads the settings as `tui` would, from its environment: the flags
    # given here, applied there (and a key is never on a command line).
    environment = {
        variable_name(name): _env_value(value)
        for name, value in flags.items()
        if value is not None and name != "db"
    }
    if settings.model_configured and copied is None:
        environment[variable_name("db")] = settings.db  # neither kind: shared by every tab
    try:
        with tempfile.TemporaryDirectory(prefix="airline-agent-serve-") as scratch:
            tabs = TabSettings(
                argv=(sys.executable, "-m", "airline_agent", "tui"),
                environment=environment,
                database=database,
                scratch=Path(scratch),
                server_copies=copies,
            )
            server = TuiServer(
                tabs, host=host, port=port, public_url=public_url, max_tabs=max_tabs, say=_say
            )
            try:
                _run(server, settings, copied)
            except ListenError as error:
                _fail(str(error))
    finally:
        if copies is not None:
            _drop(copies)


def _drop(copies: TemplateCopies) -> None:
    try:
        copies.close()
    except DatabaseUnavailable as error:
        typer.echo(f"error: {error}", err=True)


def _run(server: TuiServer, settings: Settings, copied: str | None) -> None:
    def listening(url: str) -> None:
        if server.exposed:
            typer.echo(_warning(server, settings, copied), err=True)
        if not settings.model_configured:
            what = "offline: the scenario library, each scenario on a fresh copy of its data"
        elif copied is not None:
            what = f"live: each tab on its own copy of {copied}"
        else:
            what = "live: every tab on the same database"
        if server.public_url:
            _say(f"listening on {local_url(server.host, server.port_bound or 0)}")
        _say(f"serving the TUI at {url} (one app per browser tab; {what})")
        _say("press ctrl+c to stop")

    asyncio.run(server.listen(listening))


def _live_database(settings: Settings) -> Path | TemplateCopies | None:
    """The SQLite file each tab gets a copy of (built now when it is absent, so that tabs
    never race to build it); for a PostgreSQL database, a template copy of it on its server
    that each tab's copy is made from; None for a database of any other kind."""
    try:
        database = open_database(settings.db)
    except DatabaseUnavailable as error:
        _fail(str(error))
    except Exception as error:  # one clear line, never a traceback
        _fail(f"{redact_url(settings.db)}: cannot open the database ({_reason(error)})")
    try:
        if database.dialect == "postgresql":
            try:
                return session_copies(database)
            except DatabaseUnavailable as error:
                _fail(f"{error} (each tab gets a copy of it)")
        file = database.path
        return file.resolve() if file is not None else None
    finally:
        database.close()


def _warning(server: TuiServer, settings: Settings, copied: str | None) -> str:
    if server.public_url and server.loopback:
        exposed = f"served at {server.public_url}, not this machine's own address"
        reach = "that URL"
    else:
        exposed = f"{server.host or 'every interface'} is not a loopback address"
        reach = f"port {server.port_bound} of this machine"
    if not settings.model_configured:
        given = "fresh copies of the scenario datasets"
    elif copied is not None:
        given = f"each tab a copy of {copied}; and the model you configured, at your cost"
    else:
        shared = redact_url(settings.db)
        given = f"{shared}, shared by every tab; and the model you configured, at your cost"
    return (
        f"warning: {exposed}: anyone who can reach {reach} controls the app and the database "
        f"it is given ({given}), and saves files (s, t) wherever this user may write. Serve "
        f"on {DEFAULT_HOST} (the default) unless you trust everyone who can reach it."
    )


def _check_public_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        typer.echo(
            "error: --public-url: not an http(s) URL of a host, e.g. "
            f"https://demo.example.org/airline (got {url!r})",
            err=True,
        )
        raise typer.Exit(2)


def _env_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _say(line: str) -> None:
    typer.echo(f"airline-agent serve: {line}")


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)
