"""`Toolbox`: the one way the agent (and `call`, replays, the TUI) uses the tools.

`call` parses and validates the arguments, runs the guard (in front of write tools, and
of the reads of another customer's data), runs the tool and returns a `ToolOutcome`; it
never raises. A write is one transaction: the write lock is taken, the guard decides on
what it reads in that transaction, the tool writes in it, and it commits (its row
changes recorded) or rolls back as a whole; one the database rolled back for a concurrent
writer (PostgreSQL: a deadlock, a key taken at the same moment) is decided and written
again from the start (`Database.run_write`). `preview` does exactly the same in a
transaction that always rolls back (`Database.rehearsal`) and says in words what the
call would change, or why the guard would refuse it.

The toolbox holds only what outlives a conversation (database, clock, guard, scrub); who
the conversation acts for and what it changed come with each call, in a `ToolConversation`.

`scrub`, when given, is applied to every text of a call's arguments before the tool sees
them: the stack passes the redaction of the secrets this process knows (the API key, the
base URL's password), so that a key a model put into a passenger's name is stored as
`[redacted]`, never in clear for a later process that does not know it to show.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlmodel import Session

from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.domain.errors import DomainError, failure_sentence
from airline_agent.domain.operations import WriteRows
from airline_agent.tools import guard as policy_guard
from airline_agent.tools.airline import WriteContext  # importing it registers the tools
from airline_agent.tools.changes import recording
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.describe import describe_changes
from airline_agent.tools.outcome import (
    RowChange,
    ToolArguments,
    ToolOutcome,
    ToolResult,
    error_result,
)
from airline_agent.tools.registry import (
    REGISTRY,
    ArgumentsRejected,
    ToolSchema,
    ToolSpec,
    ValidatedArguments,
    domain_error_result,
    parse_arguments,
    validate,
)

_SCHEMAS: list[ToolSchema] | None = None


class Toolbox:
    # Its calls wait on the database (a write lock, PostgreSQL over the network): the loop
    # runs them in a worker thread, so that a slow one never freezes a front end.
    calls_block = True

    def __init__(
        self,
        database: Database,
        *,
        clock: Clock,
        guard: bool = True,
        scrub: Callable[[str], str] | None = None,
        dated_direct_flights: bool = True,
    ) -> None:
        self.database = database
        self.clock = clock
        self.guard = guard
        self.scrub = scrub
        # False: the tools answer as τ²'s do, so that the agent reads what τ²'s agent reads
        # (`eval --like tau2`): search_direct_flight leaves each flight's date null, and a
        # result's text is written as τ²'s environment writes it (non-ASCII escaped).
        self.dated_direct_flights = dated_direct_flights

    # ---------------------------------------------------------------- catalogue

    def schemas(self) -> list[dict[str, Any]]:
        """The tools' `ToolSchema`s, each a copy the caller may change (Any: the loop and
        the MCP catalogue read them as plain dicts)."""
        global _SCHEMAS
        if _SCHEMAS is None:
            _SCHEMAS = [spec.schema() for spec in REGISTRY.values()]
        return [dict(schema) for schema in _SCHEMAS]

    def names(self) -> list[str]:
        return tool_names()

    def is_write(self, name: str) -> bool:
        spec = REGISTRY.get(name)
        return spec is not None and spec.write

    # ---------------------------------------------------------------- calling

    def call(
        self, name: str, arguments: str | ToolArguments | None, conversation: ToolConversation
    ) -> ToolOutcome:
        start = time.perf_counter()
        parsed: ToolArguments | None = None
        changes: tuple[RowChange, ...] = ()
        bound: str | None = None
        spec = REGISTRY.get(name) if isinstance(name, str) else None
        result: ToolResult
        try:
            if spec is None:
                result = error_result(
                    "UNKNOWN_TOOL",
                    f"there is no tool named {name!r}; the tools are: {', '.join(REGISTRY)}",
                )
                parsed = parse_arguments(arguments)  # what was asked, for the record
            else:
                parsed = parse_arguments(arguments)
                validated = validate(spec, parsed, self.scrub)
                if spec.write:
                    result, changes = self._write(spec, validated, conversation)
                else:
                    if self.guard:
                        policy_guard.check_read(self.database, conversation, spec, validated)
                    result = spec.function(self, **validated)
                    if spec.identifies_customer and conversation.customer is None:
                        bound = _binds(result, conversation)
        except ArgumentsRejected as rejected:
            if spec is not None:
                result = rejected.result
        except DomainError as exc:
            result = domain_error_result(exc)
        except Exception as exc:  # a tool never raises into the loop
            result = error_result("INTERNAL_ERROR", failure_sentence(exc))
        error = result.get("error") if isinstance(result, dict) else None
        return ToolOutcome(
            name=name if isinstance(name, str) else repr(name),
            arguments=parsed,
            result=result,
            error=error,
            elapsed_ms=(time.perf_counter() - start) * 1000,
            changes=() if error is not None else changes,
            bound_customer=bound if error is None else None,
            tau2_text=not self.dated_direct_flights,
        )

    def _write(
        self, spec: ToolSpec, arguments: ValidatedArguments, conversation: ToolConversation
    ) -> tuple[ToolResult, tuple[RowChange, ...]]:
        """A write tool's result and the rows it changed (raises domain errors)."""

        def attempt(session: Session) -> tuple[ToolResult, tuple[RowChange, ...]]:
            # Recorded per attempt: a transaction the database rolled back for a
            # concurrent writer is run again from the start (`Database.run_write`).
            with recording() as log:
                result = self._decide_and_write(session, spec, arguments, conversation)
                session.flush()
            return result, log.changes()

        result, changes = self.database.run_write(attempt)
        if isinstance(result, dict) and "reservation_id" in result:
            conversation.changed_reservations.add(result["reservation_id"])
        return result, changes

    def _decide_and_write(
        self,
        session: Session,
        spec: ToolSpec,
        arguments: ValidatedArguments,
        conversation: ToolConversation,
    ) -> ToolResult:
        """The guard's decision and the write, in one transaction (`session`): both see
        the state as it is under the write lock, and the write finds the rows the
        decision read (`WriteRows`) without reading them again."""
        rows = WriteRows(session)
        if self.guard:
            policy_guard.check(rows, self.clock, conversation, spec, arguments)
        return spec.function(WriteContext(rows, self.clock), **arguments)

    # ---------------------------------------------------------------- preview

    def preview(self, name: str, arguments: dict, conversation: ToolConversation) -> str:
        """What the write would change, in words; never raises, never writes. The same
        decision and write as `call`, in a transaction that is rolled back."""
        try:
            spec = REGISTRY.get(name)
            if spec is None:
                return f"There is no tool named {name!r}."
            if not spec.write:
                return f"{name} only reads; it changes nothing."
            validated = validate(spec, parse_arguments(arguments), self.scrub)
            with recording() as log, self.database.rehearsal() as session:
                rows = WriteRows(session)
                if self.guard:
                    try:
                        policy_guard.check(rows, self.clock, conversation, spec, validated)
                    except DomainError as exc:
                        refusal = domain_error_result(exc)
                        rule = f" {refusal['rule']}" if "rule" in refusal else ""
                        return (
                            f"The guard would refuse this ({refusal['error']}{rule}): "
                            f"{refusal['message']}"
                        )
                spec.function(WriteContext(rows, self.clock), **validated)
            return describe_changes(name, log.changes())
        except ArgumentsRejected as rejected:
            return f"This call would be rejected: {rejected.result['message']}"
        except DomainError as exc:
            refusal = domain_error_result(exc)
            return f"This would fail ({refusal['error']}): {refusal['message']}"
        except Exception as exc:
            return f"Cannot preview this call. {failure_sentence(exc)}"


def _binds(result: ToolResult, conversation: ToolConversation) -> str | None:
    """I1: a profile looked up under the id the customer gave binds the conversation to it;
    one the model chose by itself does not (it may have guessed, or misread). For a tool
    declared `identifies_customer`, in a conversation that acts for nobody yet."""
    user_id = result.get("user_id") if isinstance(result, dict) else None
    if not isinstance(user_id, str) or not conversation.customer_gave(user_id):
        return None
    conversation.bind(user_id)
    return user_id


def tool_names() -> list[str]:
    """The tools' names, without opening a database."""
    return list(REGISTRY)
