"""The domain's precise failures. The tool layer turns them into error results."""

from __future__ import annotations

from airline_agent.domain.database_urls import mask_passwords


class DomainError(Exception):
    """Base of every failure a domain operation reports on purpose."""

    code = "INTERNAL_ERROR"


class NotFound(DomainError):
    code = "NOT_FOUND"


class Conflict(DomainError):
    """The request is valid but the data says no: no seats, balance too low, sums differ."""

    code = "CONFLICT"


class InvalidArguments(DomainError):
    code = "INVALID_ARGUMENTS"


class PolicyViolation(DomainError):
    """A rule of the airline's policy forbids this; `rule` is its id, e.g. "M1"."""

    code = "POLICY_VIOLATION"

    def __init__(self, rule: str, why: str) -> None:
        super().__init__(f"{rule}: {why}")
        self.rule = rule
        self.why = why


class PermissionDenied(DomainError):
    code = "PERMISSION_DENIED"


class DatabaseUnavailable(Exception):
    """The database is missing, corrupt or not ours; the message says what to run. It
    never holds a password: every place a URL or a connection string carries one is
    masked (database_urls.py), whatever the message quotes (a URL, a driver's words)."""

    def __init__(self, message: str) -> None:
        super().__init__(mask_passwords(message))


class ReadOnlyDatabase(PermissionDenied):
    """The database can be read here but not written (its file or folder is read-only)."""


def failure_sentence(exc: BaseException) -> str:
    """A failure nobody reported on purpose, as one plain sentence for a tool result:
    the kind of failure and its first line, never SQL text or its parameters (which
    SQLAlchemy appends to its messages, and which may hold customers' data)."""
    orig = getattr(exc, "orig", None)  # a SQLAlchemy error wrapping the driver's
    detail = str(orig if isinstance(orig, BaseException) else exc)
    detail = detail.split("[SQL:")[0].strip().splitlines()[0] if detail.strip() else ""
    if len(detail) > 200:
        detail = detail[:200] + "…"
    kind = type(exc).__name__
    what = f"{kind}: {detail}" if detail else kind
    return f"The tool failed unexpectedly ({what}); nothing was changed."


class Contended(Conflict):
    """The database rolled the write back because a concurrent one got in its way
    (PostgreSQL: a serialization failure, a deadlock, a new key taken at the same
    moment): nothing was changed, and running it again from the start is safe."""


class ConnectionLost(DomainError):
    """The connection to the database server went away before the write was committed:
    the server rolled it back, nothing was changed (running it again is safe)."""


class ServerUnreachable(DomainError):
    """The database server cannot be reached now (down, restarting, the network between):
    nothing was read or changed."""


class CommitUncertain(DomainError):
    """The connection went away while the write was being committed: it may or may not
    have been saved, so it is not run again."""
