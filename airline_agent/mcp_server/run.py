"""One run of `airline-agent mcp`: open the database, serve, and end every session.

What a run says goes to stderr, one line each (stdout is the protocol's on stdio):
where it serves, each session opened and ended, each recording written or refused.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Literal

import anyio

from airline_agent.agent.events import AgentEvent
from airline_agent.config import Settings
from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.mcp_server import transports
from airline_agent.mcp_server.addresses import exposure_warning, is_loopback
from airline_agent.mcp_server.event_log import EventLog
from airline_agent.mcp_server.recording import RecordTarget, save_session
from airline_agent.mcp_server.server import AirlineServer, Transport
from airline_agent.mcp_server.session import McpSession, SessionRules, Sessions
from airline_agent.redaction import Redactor
from airline_agent.scenarios.datasets import pristine
from airline_agent.stack import session_copies, session_tool_caller, settings_database


class ServerSetupError(Exception):
    """The server cannot start; the message is one line, `status` the exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def say(line: str) -> None:
    print(f"airline-agent mcp: {line}", file=sys.stderr, flush=True)


@dataclass
class Server:
    database: Database
    sessions: Sessions
    mcp: AirlineServer
    redactor: Redactor
    record: RecordTarget | None
    events: EventLog | None

    @classmethod
    def open(
        cls,
        settings: Settings,
        *,
        customer: str | None,
        fallback: Literal["auto", "deny"],
        shared: bool,
        record: RecordTarget | None,
        events: Path | None,
        transport: Transport,
    ) -> Server:
        try:
            database = settings_database(settings)
        except DatabaseUnavailable as exc:
            raise ServerSetupError(str(exc)) from None
        copies = None
        try:
            if not shared and database.dialect == "postgresql":
                try:
                    copies = session_copies(database)
                except DatabaseUnavailable as exc:
                    raise ServerSetupError(
                        f"{exc} (each session gets a copy of it; or give --shared to serve "
                        "the database itself to every session)"
                    ) from None
            elif not shared and database.path is None:
                raise ServerSetupError(
                    f"{database.location}: neither a SQLite file nor a PostgreSQL database, so no "
                    "session can have its own copy; give --shared to serve it to every session",
                    status=2,
                )
            catalogue = session_tool_caller(database, settings, customer=customer)
            if customer is not None:
                found = catalogue.call("get_user_details", {"user_id": customer})
                if not found.ok:
                    message = found.result.get("message") if isinstance(found.result, dict) else ""
                    raise ServerSetupError(f"--as {customer}: {message}", status=2)
            redactor = Redactor.from_settings(settings)
            log = None
            if events is not None:
                try:
                    log = EventLog(events, redactor).open()
                except OSError as exc:
                    raise ServerSetupError(
                        f"--events {events}: cannot be written ({exc.strerror or exc})", status=2
                    ) from None
            rules = SessionRules(settings, customer=customer, fallback=fallback, shared=shared)

            def sink(number: int, event: AgentEvent) -> None:
                if log is not None:
                    log.event(number, event)

            sessions = Sessions(rules, database, sink, keep_start=record is not None, copies=copies)
            if record is not None:
                _warm_up_datasets()
            server = cls(
                database,
                sessions,
                AirlineServer(
                    sessions,
                    catalogue.toolbox,
                    transport=transport,
                    version=version("airline-agent"),
                ),
                redactor,
                record,
                log,
            )
        except BaseException:
            if copies is not None:
                with contextlib.suppress(DatabaseUnavailable):
                    copies.close()
            database.close()
            raise
        sessions.on_open = server._opened
        sessions.on_close = server._closed
        return server

    def run(self, listen: tuple[str, int] | None) -> int:
        """Serve until the client leaves (stdio) or a signal; the exit status."""
        rules = self.sessions.rules
        where = "the database itself (--shared)" if rules.shared else "a copy per session"
        try:
            if listen is None:
                say(f"serving {self.database.location} on stdio, {where}")
                anyio.run(transports.serve_stdio, self.mcp)
                return 0
            host, port = listen
            try:
                sock = transports.bind(host, port)
            except OSError as exc:
                say(f"cannot listen on {host}:{port} ({exc.strerror or exc})")
                return 2
            loopback = is_loopback(host)
            if not loopback:
                print(exposure_warning(host, port, rules.customer), file=sys.stderr, flush=True)
            bound_host, bound_port = sock.getsockname()[:2]
            shown = f"[{bound_host}]" if ":" in bound_host else bound_host
            say(f"serving {self.database.location} at http://{shown}:{bound_port}/mcp, {where}")
            anyio.run(transports.serve_http, self.mcp, sock, loopback)
            return 0
        except KeyboardInterrupt:
            return 0
        finally:
            try:
                self.sessions.end_all()
            except DatabaseUnavailable as exc:  # the sessions' copies on a server
                say(str(exc))
            if self.events is not None:
                self.events.close()
            self.database.close()

    def _opened(self, session: McpSession) -> None:
        if self.events is not None:
            self.events.write({"session": session.number, "type": "session_opened"})
        copy = "the shared database" if self.sessions.rules.shared else "its own database copy"
        say(f"session {session.number} opened, on {copy}")

    def _closed(self, session: McpSession) -> None:
        """A session ended: write its recording (if asked) and say so."""
        if self.events is not None:
            self.events.write({"session": session.number, "type": "session_closed"})
        if self.record is None or session.calls == 0:
            return

        path = self.record.for_session(session.number)
        try:
            warnings = save_session(
                session,
                path,
                start=session.start,
                others_wrote=session.others_wrote,
                redactor=self.redactor,
                outputs=self.record.outputs,
            )
        except OSError as exc:  # OutputRefused among them
            say(f"session {session.number} not recorded: {path} cannot be written ({exc})")
            return
        for warning in warnings:
            say(f"session {session.number}: {warning}")
        say(f"session {session.number} recorded in {path} ({session.calls} calls)")


def _warm_up_datasets() -> None:
    """Build the pristine sample now, in a thread: a recording compares its session's
    start with it, and building it takes seconds that a client leaving may not give."""
    threading.Thread(target=pristine, args=("sample",), daemon=True).start()
