"""API failures, told plainly: what went wrong, what to do, and whether a retry may help.

The loop catches failures of one model request and turns them into a `Failure` through
`classify`; it retries the retryable ones with backoff and otherwise ends the turn with an
`ErrorOccurred` event. The loop imports this module, and the loop runs without `openai`
(`call`, `seed`, `replay`, the MCP server: agent/backends.py): `classify` imports it
once a request has failed that is no `BackendError` of ours.
"""

from __future__ import annotations

import email.utils
import json
import sys
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from airline_agent.tools.untrusted import clean_text


class BackendError(Exception):
    """A failure a backend detected itself (not an HTTP status): kind + plain message."""

    kind = "backend"
    status: int | None = None
    retryable = False  # whether trying again may help (the loop retries with backoff)

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class ScriptExhausted(BackendError):
    kind = "script_exhausted"


class StreamCutOff(BackendError):
    kind = "stream_cut"
    retryable = True


class NotACompletion(BackendError):
    kind = "bad_response"


class RecordedFailure(BackendError):
    """A request that failed when the conversation was recorded, failing again in its
    replay with the same kind, words and status (never retried: it is not the network)."""

    def __init__(
        self, kind: str, message: str, *, hint: str | None = None, status: int | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.kind = kind
        self.status = status


@dataclass(frozen=True)
class Failure:
    kind: str
    message: str
    hint: str | None = None
    status: int | None = None
    retryable: bool = False
    retry_after: float | None = None  # seconds the server asked us to wait


_CONTEXT_MARKERS = ("context_length_exceeded", "context length", "maximum context", "too long")


def classify(exc: BaseException, *, model: str = "", base_url: str | None = None) -> Failure:
    """One plain sentence and a hint for any failure of one model request."""
    if isinstance(exc, BackendError):
        return Failure(exc.kind, exc.message, exc.hint, exc.status, retryable=exc.retryable)
    where = base_url or "the API"
    # Here: the exceptions of a server's client (0.6 s to import), which a run that talks
    # to no model never loads.
    import openai

    httpx = _http_library()

    if isinstance(exc, openai.APITimeoutError):
        return Failure(
            "timeout",
            f"The model server at {where} did not answer in time.",
            "Try again; a slow local model may need a longer AIRLINE_AGENT_TIMEOUT.",
            retryable=True,
        )
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, httpx.RemoteProtocolError | httpx.ReadError):
            return _stream_cut(str(cause))
        return Failure(
            "connection",
            f"Could not connect to the model server at {where}.",
            "Is the server running? Check OPENAI_BASE_URL / --base-url.",
            retryable=True,
        )
    if isinstance(exc, openai.APIStatusError):
        return _from_status(exc, model=model, where=where)
    if isinstance(exc, openai.APIResponseValidationError):
        return _not_a_completion(str(exc))
    if isinstance(exc, httpx.TimeoutException):
        return Failure("timeout", f"The model server at {where} stopped answering.", None, True)
    if isinstance(exc, httpx.TransportError):
        # httpx errors raised while reading a stream are not wrapped by openai.
        return _stream_cut(str(exc))
    if isinstance(exc, openai.APIError):
        # An `error` object inside an SSE stream.
        return Failure("api", f"The model server reported an error: {_short(exc.message)}")
    if isinstance(exc, json.JSONDecodeError):
        # A completion (or a chunk of a stream) that is not JSON: say what it was.
        return _failure_of(not_json(exc.doc))
    if isinstance(exc, UnicodeDecodeError):
        # A 200 whose body is not UTF-8 text (an image, compressed bytes, a proxy's junk).
        return Failure(
            "bad_response",
            "The server's answer was not a chat completion: it sent binary data, not text.",
            "Check that --base-url / OPENAI_BASE_URL points at an OpenAI-compatible "
            f"endpoint (usually ending in /v1). (byte {exc.start}: {exc.reason})",
        )
    if isinstance(exc, RecursionError):
        return _not_a_completion("its JSON is nested too deeply to read")
    return Failure(
        "internal", f"The request failed unexpectedly: {type(exc).__name__}: {_short(str(exc))}"
    )


def _http_library() -> Any:
    """The HTTP library `openai` has loaded: `httpx2` in newer releases, `httpx` in older
    ones."""
    return sys.modules.get("httpx2") or sys.modules["httpx"]


def _stream_cut(detail: str) -> Failure:
    return Failure(
        "stream_cut",
        "The model's streamed answer was cut off before it finished.",
        f"Try again; if it keeps happening, use --no-stream. ({_short(detail)})",
        retryable=True,
    )


CHECK_BASE_URL = (
    "Check that --base-url / OPENAI_BASE_URL points at an OpenAI-compatible endpoint "
    "(usually ending in /v1)."
)


def _failure_of(error: BackendError) -> Failure:
    return Failure(error.kind, error.message, error.hint, error.status)


def not_json(text: str) -> NotACompletion:
    return NotACompletion(
        f"The server's answer was not valid JSON: {body_excerpt(text, 120)!r}.", hint=CHECK_BASE_URL
    )


def not_a_stream(text: str, content_type: str) -> NotACompletion:
    """A 200 to a streamed request whose body is no event stream (and no completion), said
    as what it is: nothing, an HTML page, text that is not JSON, other text."""
    media = content_type.split(";")[0].strip().lower() or "no content type"
    if not text.strip():
        message = f"The server answered with an empty body ({media}), not a stream of chunks."
    elif _looks_like_html(text):
        words = body_excerpt(text, 120)
        message = f"The server answered with an HTML page, not a stream of chunks: {words!r}."
    elif media.endswith("json"):
        return not_json(text)
    else:
        shown = body_excerpt(text, 120)
        message = f"The server answered with text ({media}), not a stream of chunks: {shown!r}."
    return NotACompletion(message, hint=CHECK_BASE_URL)


def no_choices(body: str) -> NotACompletion:
    return NotACompletion(
        "The server answered a completion with no choices (`choices: []`), so there is no "
        f"reply: {body_excerpt(body, 120)!r}.",
        hint="The server may have filtered the reply or failed to generate one; see its log.",
    )


def _not_a_completion(detail: str) -> Failure:
    return Failure(
        "bad_response",
        "The server's answer was not a chat completion.",
        "Check that --base-url / OPENAI_BASE_URL points at an OpenAI-compatible "
        f"endpoint (usually ending in /v1). ({_short(detail)})",
    )


def _from_status(exc: Any, *, model: str, where: str) -> Failure:
    status: int = exc.status_code
    detail = _server_message(exc)
    if status == 401:
        return Failure(
            "auth",
            f"The model server at {where} refused the API key (401).",
            "Set OPENAI_API_KEY to a valid key for this server.",
            status,
        )
    if status == 403:
        return Failure(
            "auth",
            f"The API key may not use model '{model}' (403): {detail}",
            "Use a key with access to this model, or choose another with --model.",
            status,
        )
    if status == 404:
        return Failure(
            "not_found",
            f"The server does not know model '{model}' or this endpoint (404): {detail}",
            "Check --model / AIRLINE_AGENT_MODEL, and that the base URL ends in /v1.",
            status,
        )
    if status == 429:
        return Failure(
            "rate_limit",
            f"The model server is rate-limiting us (429): {detail}",
            "Wait a moment and try again, or lower the request rate.",
            status,
            retryable=True,
            retry_after=retry_after_seconds(exc.response.headers),
        )
    code = _error_code(exc)
    if status in (400, 413, 422) and (
        code == "context_length_exceeded" or any(m in detail.lower() for m in _CONTEXT_MARKERS)
    ):
        return Failure(
            "context_length",
            "The conversation is too long for the model's context window.",
            "Start a new conversation, or use a model with a larger context window.",
            status,
        )
    if status >= 500:
        return Failure(
            "server",
            f"The model server failed ({status}): {detail}",
            "Try again; if it keeps failing, check the server's log.",
            status,
            retryable=True,
        )
    return Failure(
        "bad_request",
        f"The model server rejected the request ({status}): {detail}",
        "This is likely a server incompatibility; the request is shown in the trace.",
        status,
    )


def _error_body(exc: Any) -> dict[str, Any]:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        return inner if isinstance(inner, dict) else {"message": str(inner)}
    return {}


def _error_code(exc: Any) -> str | None:
    code = getattr(exc, "code", None) or _error_body(exc).get("code")
    return str(code) if code is not None else None


def _server_message(exc: Any) -> str:
    message = _error_body(exc).get("message")
    if not message:
        try:
            message = exc.response.text
        except Exception:  # a streamed response whose body was not read
            message = ""
    return body_excerpt(str(message or exc.message or "no details"))


def _short(text: str, limit: int = 240) -> str:
    text = " ".join(clean_text(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def body_excerpt(text: str, limit: int = 160) -> str:
    """What a server's body says, in one plain line: an HTML page's words without its
    markup, binary data named as such, anything else as it is; at most `limit` characters."""
    text = clean_text(text)
    if _looks_binary(text):
        return f"binary data ({len(text)} characters), not text"
    if _looks_like_html(text):
        text = html_text(text) or "an HTML page with no text"
    return _short(text, limit)


def _looks_binary(text: str) -> bool:
    sample = text[:512]
    odd = sum(1 for ch in sample if ch == "\ufffd" or (ch < " " and ch not in "\t\n\r"))
    return bool(sample) and odd * 10 > len(sample)


def _looks_like_html(text: str) -> bool:
    head = text.lstrip()[:200].lower()
    return head.startswith("<") and any(
        tag in head for tag in ("<html", "<!doctype", "<head", "<body", "<title", "<h1", "<p>")
    )


def html_text(page: str) -> str:
    """The words of an HTML page: its body's text, or its title when the body has none;
    scripts and styles left out (stdlib parser: never raises on broken markup)."""

    class Words(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.title: list[str] = []
            self.body: list[str] = []
            self._skip = 0
            self._in_title = False

        def handle_starttag(self, tag: str, attrs: Any) -> None:
            if tag in ("script", "style"):
                self._skip += 1
            self._in_title = self._in_title or tag == "title"

        def handle_endtag(self, tag: str) -> None:
            if tag in ("script", "style") and self._skip:
                self._skip -= 1
            if tag == "title":
                self._in_title = False

        def handle_data(self, data: str) -> None:
            if self._skip:
                return
            (self.title if self._in_title else self.body).append(data)

    words = Words()
    words.feed(page)
    words.close()
    body = " ".join(" ".join(words.body).split())
    return body or " ".join(" ".join(words.title).split())


def retry_after_seconds(headers: Any, *, now: float | None = None) -> float | None:
    """`retry-after-ms`, `retry-after` in seconds, or as an HTTP date; None if absent/odd."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(raw)
    if parsed is None:
        return None
    when = email.utils.mktime_tz(parsed)
    return max(0.0, when - (time.time() if now is None else now))


def backoff_delay(attempt: int, failure: Failure, *, base: float, cap: float) -> float:
    """The wait before retry `attempt` (1-based): the server's retry-after, else exponential."""
    if failure.retry_after is not None:
        return min(failure.retry_after, cap)
    return min(base * (2 ** (attempt - 1)), cap)
