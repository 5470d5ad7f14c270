"""One MCP session: one conversation of one client with the airline.

A session owns what a chat conversation owns — whom it acts for, what it changed, the
events of its calls — and the database it works on: its own copy of the server's
database, made when its first tool call comes (so nothing it writes reaches the user's
database, nor another session; on a PostgreSQL server a TEMPLATE copy of the template the
server made when it started, dropped when the session ends), or, with `--shared`, the
database itself, which every
session then writes through the domain's write transactions (each takes the write lock
before its first read, so two sessions never sell the last seat twice).

Every tool call goes through `Toolbox.call`, as the agent loop's do, and gives the same
result; what the loop decides before calling, the session decides the same way: arguments
that are not a JSON object get the loop's `INVALID_ARGUMENTS` without running, a write
asks for approval (here by elicitation) or, for a client that cannot be asked, follows
`--approve auto|deny` (deny: the loop's "changes are switched off" result, nothing run).

Binding (I1, I2). In the loop a conversation binds to a customer when the model looks up
the user id the customer gave. An MCP client is the agent itself and no customer's words
reach the server, so nothing can show the id was given: the first successful
`get_user_details` of the session binds it (`--as USER` binds it from the start, as for
`call`). From then on the guard keeps the session to that customer's profile and
reservations, as in the loop. This limits a session to one customer; it does not prove
who the client is: any client can look up any user id first. Before the binding a session
may read reservations (a customer may give a reservation id first) but writes nothing.

The session's calls run one at a time, in a worker thread (a slow write never holds the
server's event loop, so other sessions go on); their events go to the session's record
(`--record`) and the server's event log (`--events`), which the TUI can watch.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.to_thread
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_REQUEST,
    CallToolResult,
    InputRequiredResult,
    InputResponses,
    TextContent,
)

from airline_agent.agent import texts
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalDecision,
    ApprovalRequested,
    AssistantMessage,
    CustomerBound,
    PendingWrite,
    ToolCall,
    ToolFinished,
    ToolStarted,
)
from airline_agent.agent.history import parse_arguments
from airline_agent.config import Settings
from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.postgres import TemplateCopies
from airline_agent.domain.sqlite_files import copy_sqlite
from airline_agent.mcp_server import approval
from airline_agent.mcp_server.context import McpRequest
from airline_agent.scenarios.provenance import DatasetMatch, match_dataset
from airline_agent.stack import (
    ToolCaller,
    open_existing_database,
    private_copy,
    session_tool_caller,
)

Fallback = Literal["auto", "deny"]
EventSink = Callable[[int, AgentEvent], None]


@dataclass(frozen=True)
class SessionRules:
    """What every session of one server shares: settings (database, clock, guard), the
    customer bound from the start, the approval for clients that cannot be asked, and
    whether the sessions share the database."""

    settings: Settings
    customer: str | None = None
    fallback: Fallback = "deny"
    shared: bool = False


@dataclass
class McpSession:
    number: int  # 1-based, in the order the server's sessions made their first call
    caller: ToolCaller
    rules: SessionRules
    sink: EventSink
    scratch: Path | None = None  # its own folder (database copy, start copy), removed at the end
    start: Path | None = None  # a copy of its database as the session began (--record)
    server_copy: str | None = None  # its own database on a PostgreSQL server, dropped at the end
    writes: WriteCount | None = None  # the server's count of successful writes
    writes_before: int = 0  # that count when the session began
    origin: StartingDataset | None = None  # which dataset it began as (--record)
    events: list[AgentEvent] = field(default_factory=list)
    calls: int = 0
    own_writes: int = 0  # its successful writes
    last_used: float = 0.0  # time.monotonic() of its latest call
    _questions: approval.PendingQuestions = field(default_factory=approval.PendingQuestions)
    _lock: anyio.Lock = field(default_factory=anyio.Lock)
    closed: bool = False

    @property
    def customer(self) -> str | None:
        return self.caller.conversation.customer

    @property
    def database(self) -> Database:
        return self.caller.database

    # ---------------------------------------------------------------- calls

    async def call(
        self,
        name: str,
        arguments: object,
        request: McpRequest | None,
        *,
        request_state: str | None = None,
        responses: InputResponses | None = None,
    ) -> CallToolResult | InputRequiredResult:
        """Answer one `tools/call`. `request` is None where no question can be asked (a
        call answered outside the SDK: bad text on stdio)."""
        async with self._lock:
            if self.closed:
                raise MCPError(code=INVALID_REQUEST, message="this MCP session has ended")
            text = _arguments_text(arguments)
            parsed = arguments if isinstance(arguments, dict) else parse_arguments(text)
            if parsed is None:
                call = self._called(name, text)
                return self._answer_unrun(call, None, texts.invalid_arguments(call))
            if not self.caller.toolbox.is_write(name):
                return await self._run(self._called(name, text), parsed)
            if request is None or not approval.can_ask(request):
                call = self._called(name, text)
                if self.rules.fallback == "auto":
                    return await self._run(call, parsed)
                return self._answer_unrun(call, parsed, texts.writes_switched_off())
            answered = await self._ask(name, text, parsed, request, request_state, responses)
            if not isinstance(answered, tuple):
                return answered  # 2026-07-28: the question goes back to the client
            yes, asked = answered
            self.events.append(self._message(asked.request, asked.call))  # recorded now
            self._emit(_approval_requested(asked.request, asked.call, parsed, asked.preview, yes))
            if not yes:
                return self._answer_unrun(asked.call, parsed, texts.declined_by_customer())
            return await self._run(asked.call, parsed)

    async def _ask(
        self,
        name: str,
        text: str,
        arguments: dict[str, Any],
        request: McpRequest,
        request_state: str | None,
        responses: InputResponses | None,
    ) -> tuple[bool, approval.AskedCall] | InputRequiredResult:
        """Ask the client's user about a write: yes or no, and the call it is about; at
        2026-07-28 first the question to return (the answer comes with the next call).

        The call is logged (`--events`) as it is asked for, so that a watcher sees it while
        the question is open; the record (`--record`) takes it once answered: a call whose
        client left mid-question was never made, and its replay could not be answered."""
        modern = approval.is_modern(request)
        if modern and (answered := self._questions.answer(request_state, responses)):
            return answered
        self.calls += 1
        call = ToolCall(f"mcp-{self.calls}", name, text)
        self.sink(self.number, self._message(self.calls, call))
        try:
            preview = await anyio.to_thread.run_sync(
                self.caller.toolbox.preview, name, arguments, self.caller.conversation
            )
            asked = approval.AskedCall(self.calls, call, preview)
            message = approval.question(name, self.customer, preview)
            if modern:
                return self._questions.ask(message, asked)
            return await approval.ask_now(request, message), asked
        except BaseException:  # the client left (the request was cancelled) mid-question
            self._log_unanswered(call)
            raise

    def _called(self, name: str, text: str) -> ToolCall:
        """A call that runs at once (or is refused at once): numbered, recorded, logged."""
        self.calls += 1
        call = ToolCall(f"mcp-{self.calls}", name, text)
        self._emit(self._message(self.calls, call))
        return call

    @staticmethod
    def _message(request: int, call: ToolCall) -> AssistantMessage:
        """The client's call as the model's response holding it (the loop's event)."""
        return AssistantMessage(
            request=request,
            content=None,
            tool_calls=(call,),
            reasoning=None,
            finish_reason="tool_calls",
            latency_ms=0.0,
        )

    def _log_unanswered(self, call: ToolCall) -> None:
        """A question never answered ends its call in the log: nothing was written."""
        unrun = ToolFinished(
            call_id=call.call_id,
            name=call.name,
            arguments=None,
            result=texts.interrupted(),
            error=texts.interrupted()["error"],
            elapsed_ms=0.0,
        )
        self.sink(self.number, unrun)

    async def _run(self, call: ToolCall, arguments: dict[str, Any]) -> CallToolResult:
        self._emit(ToolStarted(call.call_id, call.name, arguments, call.arguments))
        conversation = self.caller.conversation
        unbound = conversation.customer is None
        outcome = await anyio.to_thread.run_sync(self.caller.call, call.name, arguments)
        self._emit(
            ToolFinished(
                call_id=call.call_id,
                name=call.name,
                arguments=arguments,
                result=outcome.result,
                error=outcome.error,
                elapsed_ms=outcome.elapsed_ms,
                changes=tuple(outcome.changes),
            )
        )
        if outcome.ok and self.caller.toolbox.is_write(call.name):
            self.own_writes += 1
            if self.writes is not None:
                self.writes.total += 1
        bound = outcome.bound_customer
        if bound is None and unbound and outcome.ok and call.name == "get_user_details":
            user_id = outcome.result.get("user_id") if isinstance(outcome.result, dict) else None
            if isinstance(user_id, str):
                conversation.bind(user_id)
                bound = user_id
        if bound is not None:
            self._emit(CustomerBound(bound, call.call_id, call.name))
        return tool_result(outcome.result, outcome.content(), outcome.error)

    def _answer_unrun(
        self, call: ToolCall, arguments: dict[str, Any] | None, result: dict[str, Any]
    ) -> CallToolResult:
        self._emit(
            ToolFinished(
                call_id=call.call_id,
                name=call.name,
                arguments=arguments,
                result=result,
                error=result["error"],
                elapsed_ms=0.0,
            )
        )
        return tool_result(result, json.dumps(result, ensure_ascii=False), result["error"])

    def _emit(self, event: AgentEvent) -> None:
        self.events.append(event)
        self.sink(self.number, event)

    # ---------------------------------------------------------------- end

    @property
    def others_wrote(self) -> bool:
        """Whether another session wrote while this one ran (only possible with --shared)."""
        if self.writes is None:
            return False
        return self.writes.total - self.writes_before - self.own_writes > 0

    def end_questions(self) -> None:
        """2026-07-28: the calls whose questions the client never came back to answer end
        in the log, unrun (the session ends)."""
        for asked in self._questions.unanswered():
            self._log_unanswered(asked.call)

    def close(self) -> None:
        """Release the database (the session's own copy is removed)."""
        if self.closed:
            return
        self.closed = True
        self.end_questions()
        if not self.rules.shared:
            self.caller.close()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


def _approval_requested(
    request: int, call: ToolCall, arguments: dict[str, Any], preview: str, yes: bool
) -> ApprovalRequested:
    """The question as the loop yields it, already answered, so that the record keeps
    the answer call by call."""
    decision: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
    decision.set_result(ApprovalDecision({call.call_id: yes}))
    pending = PendingWrite(call.call_id, call.name, arguments, preview)
    return ApprovalRequested(request, (pending,), decision)


def tool_result(result: object, content: str, error: str | None) -> CallToolResult:
    """A tool's result as MCP carries it: the text the model would read (the JSON of the
    result, or its text), the object itself as structured content when it is one, and
    `isError` on an error result."""
    return CallToolResult(
        content=[TextContent(type="text", text=content)],
        structured_content=result if isinstance(result, dict) else None,
        is_error=error is not None,
    )


def _arguments_text(arguments: object) -> str:
    """The arguments as the JSON text a model would have sent (escaped: a lone surrogate
    stays visible as `\\ud800`, and the text can always be written)."""
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return ""
    try:
        return json.dumps(arguments)
    except (TypeError, ValueError, RecursionError):
        return repr(arguments)


# ---------------------------------------------------------------- the server's sessions


class SessionEnded(Exception):
    """A call for a session the server has already ended (idle too long)."""


@dataclass
class Sessions:
    """The server's sessions by key (the transport's session id; one for stdio).

    Opened, looked up and taken on the server's event loop; a session taken is then
    finished (recorded, its copy removed) anywhere, a worker thread included.
    """

    rules: SessionRules
    shared_database: Database
    sink: EventSink
    on_open: Callable[[McpSession], None] = lambda session: None
    on_close: Callable[[McpSession], None] = lambda session: None
    keep_start: bool = False  # copy each session's database as it began (for --record)
    # On a PostgreSQL server: the template each session's copy is made from (a copy of
    # the served database made when the server started: stack.session_copies).
    copies: TemplateCopies | None = None
    _by_key: dict[str, McpSession] = field(default_factory=dict)
    _ended: set[str] = field(default_factory=set)
    _count: int = 0
    _scratch: Path | None = None
    writes: WriteCount = field(default_factory=lambda: WriteCount())

    def get(self, key: str) -> McpSession:
        """The session for `key`, opened on its first call (its database copied then)."""
        session = self._by_key.get(key)
        if session is None:
            if key in self._ended:
                raise SessionEnded("this MCP session has ended; start a new one")
            session = self._by_key[key] = self._open()
            self.on_open(session)
        session.last_used = time.monotonic()
        return session

    def _open(self) -> McpSession:
        self._count += 1
        database = self.shared_database
        scratch = None
        server_copy = None
        if self.copies is not None and not self.rules.shared:
            server_copy = self.copies.copy(f"session_{self._count}")
            try:
                database = open_existing_database(server_copy)
            except BaseException:
                self._discard(server_copy)
                raise
        elif not self.rules.shared or self.keep_start:
            scratch = Path(tempfile.mkdtemp(prefix=f"session-{self._count}-", dir=self._folder()))
        try:
            if not self.rules.shared and server_copy is None:
                assert scratch is not None
                database = private_copy(self.shared_database, scratch / "airline.db")
            start = None
            source = database.path
            origin = None
            if self.keep_start and source is not None and scratch is not None:
                start = scratch / "start.db"
                copy_sqlite(source, start)
                origin = StartingDataset(start)
        except BaseException:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
            raise
        caller = session_tool_caller(database, self.rules.settings, customer=self.rules.customer)
        return McpSession(
            self._count,
            caller,
            self.rules,
            self.sink,
            scratch=scratch,
            start=start,
            server_copy=server_copy,
            writes=self.writes,
            writes_before=self.writes.total,
            origin=origin,
        )

    def _folder(self) -> Path:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="airline-agent-mcp-"))
        return self._scratch

    def items(self) -> list[tuple[str, McpSession]]:
        return list(self._by_key.items())

    def take(self, key: str) -> McpSession | None:
        """The session for `key`, no longer the server's (calls for it are refused)."""
        session = self._by_key.pop(key, None)
        if session is not None:
            self._ended.add(key)
        return session

    def finish(self, session: McpSession) -> None:
        """Record the session (`on_close`) and release its database."""
        try:
            session.end_questions()  # before the log's line that the session closed
            self.on_close(session)
        finally:
            session.close()
            if session.server_copy is not None:
                self._discard(session.server_copy)

    def _discard(self, server_copy: str) -> None:
        assert self.copies is not None
        # A server that went away: `end_all` tries again, and says what it left.
        with contextlib.suppress(DatabaseUnavailable):
            self.copies.discard(server_copy)

    def end_all(self) -> None:
        """End every session; then the sessions' template on a server is dropped (a
        DatabaseUnavailable says what the server did not let go)."""
        for key in list(self._by_key):
            session = self.take(key)
            if session is not None:
                self.finish(session)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        if self.copies is not None:
            copies, self.copies = self.copies, None
            copies.close()


@dataclass
class WriteCount:
    """Successful writes of all sessions (for --shared: did another session write?)."""

    total: int = 0


class StartingDataset:
    """Which dataset a session's database was when it began, worked out in a thread from
    its first call on: comparing with a pristine dataset builds that dataset first, which
    takes seconds, and a stdio client gives a server two seconds to end."""

    def __init__(self, start: Path) -> None:
        self._match: DatasetMatch | None = None
        self._thread = threading.Thread(target=self._compare, args=(start,), daemon=True)
        self._thread.start()

    def _compare(self, start: Path) -> None:
        self._match = match_dataset(start)

    def result(self) -> DatasetMatch:
        """Which dataset it was (waits for it)."""
        self._thread.join()
        assert self._match is not None  # set by the thread, which has ended
        return self._match
