"""Retry timing and failure wording (agent/errors.py)."""

from __future__ import annotations

import email.utils

from airline_agent.agent.errors import (
    Failure,
    ScriptExhausted,
    StreamCutOff,
    backoff_delay,
    classify,
    retry_after_seconds,
)


def test_retry_after_in_ms_seconds_or_http_date():
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after": "7"}) == 7.0
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert retry_after_seconds({"retry-after": date}, now=1_000_000) == 30
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_backoff_doubles_unless_the_server_says_and_is_capped():
    plain = Failure("server", "x", retryable=True)
    assert [backoff_delay(n, plain, base=0.5, cap=3) for n in (1, 2, 3, 4)] == [0.5, 1, 2, 3]
    told = Failure("rate_limit", "x", retryable=True, retry_after=2.0)
    assert backoff_delay(3, told, base=0.5, cap=30) == 2.0
    assert backoff_delay(1, Failure("r", "x", retry_after=99), base=0.5, cap=30) == 30


def test_backend_errors_keep_their_kind():
    assert classify(ScriptExhausted("done")).kind == "script_exhausted"
    cut = classify(StreamCutOff("cut"))
    assert (cut.kind, cut.retryable) == ("stream_cut", True)


def test_an_unexpected_exception_is_named_not_hidden():
    failure = classify(RuntimeError("kaboom"))
    assert failure.kind == "internal" and "RuntimeError: kaboom" in failure.message
