"""The domain's precise failures. The tool layer turns them into error results."""

from __future__ import annotations


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
    """A rule of airline-policy.md forbids this; `rule` is its id, e.g. "M1"."""

    code = "POLICY_VIOLATION"

    def __init__(self, rule: str, why: str) -> None:
        super().__init__(f"{rule}: {why}")
        self.rule = rule
        self.why = why


class PermissionDenied(DomainError):
    code = "PERMISSION_DENIED"


class DatabaseUnavailable(Exception):
    """The database is missing, corrupt or not ours; the message says what to run."""
