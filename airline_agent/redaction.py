"""One redaction for everything the project writes or prints: the screen, stderr,
recordings, transcripts, the TUI's inspector and details, exports.

What is blanked out, wherever it appears (typed by a customer, repeated by a model, put
in tool arguments, echoed in a server's error body):
- the configured API key, and the password of `OPENAI_BASE_URL`: `[redacted]`;
- the password of any URL: `http://user:key@host` → `http://user:***@host`;
- the values of `Authorization`, `Proxy-Authorization`, `api-key` and `x-api-key`
  headers, of `Bearer` tokens and of `?key=` / `?api_key=` / `?token=` URL parameters:
  `***`.

A literal secret shorter than `MIN_SECRET_LENGTH` is not blanked out everywhere (a key of
`none` or `x`, as local servers take, would wipe every such word from the output); the
patterns above still mask it where it stands as a credential.

`redact` also replaces lone UTF-16 surrogates (which no encoder can write) with U+FFFD,
so that what it returns can always be written. Streamed text is redacted with
`StreamRedactor`, which holds back the end of a piece that could be the start of a
secret until the next piece says whether it is.

Importing it costs only the standard library (the settings are read inside
`from_environment`, for a writer given none), so any front end may use it at start-up.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from airline_agent.tools.untrusted import clean_text

if TYPE_CHECKING:
    from airline_agent.config import Settings

REDACTED = "[redacted]"  # a secret's literal value, wherever it appears
MASK = "***"  # a value in a credential's place (URL password, header, token)
MIN_SECRET_LENGTH = 8

JsonValue = TypeVar("JsonValue")

# scheme://user:PASSWORD@host — the password masked, the user and host kept.
_URL_PASSWORD = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/?#@:\"'<>]*:)([^\s/?#@\"'<>]+)(@)")
# `Authorization: Bearer X`, `"api-key": "X"`, `x-api-key=X` (headers, logs, JSON).
_HEADER_VALUE = re.compile(
    r"(?i)(\b(?:proxy-)?authorization|\bx-api-key|(?<![\w-])api[-_]key)"
    r"([\"']?\s*[:=]\s*[\"']?)((?:bearer|basic|token)\s+)?([^\s\"',;&}\]]+)"
)
_BEARER = re.compile(r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/=-]{8,})")
_URL_PARAMETER = re.compile(r"(?i)([?&](?:key|api[-_]?key|token|access_token)=)([^\s&#\"']+)")


@dataclass(frozen=True)
class Redactor:
    """Blanks out `secrets` (literal values) and credentials by their place."""

    secrets: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings | None) -> Redactor:
        """The configured API key and the password of the configured base URL."""
        if settings is None:
            return cls()
        key = settings.api_key.get_secret_value() if settings.api_key else None
        return cls.of(key, url_password(settings.base_url))

    @classmethod
    def from_environment(cls) -> Redactor:
        """The same from the environment and `.env`, for a writer given no settings (a
        belt-and-braces default: what the project writes is redacted even then)."""
        try:
            from airline_agent.config import Settings

            return cls.from_settings(Settings())
        except Exception:  # unusable settings: the variables as they are
            return cls.of(
                os.environ.get("OPENAI_API_KEY"), url_password(os.environ.get("OPENAI_BASE_URL"))
            )

    @classmethod
    def of(cls, *secrets: str | None) -> Redactor:
        """A redactor of these secrets (None and short ones left out), longest first so
        that a secret containing another is blanked whole."""
        kept = {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
        return cls(tuple(sorted(kept, key=len, reverse=True)))

    def with_secrets(self, secrets: Iterable[str | None]) -> Redactor:
        return Redactor.of(*self.secrets, *secrets)

    def redact(self, text: str) -> str:
        """`text` with every secret and credential blanked out, safe to write."""
        text = clean_text(text)
        # Each pattern runs only where its word is (a few MB of export stay fast).
        lowered = text.lower()
        if "://" in text:
            text = _URL_PASSWORD.sub(_masked(2), text)
        if "authorization" in lowered or "api-key" in lowered or "api_key" in lowered:
            text = _HEADER_VALUE.sub(_masked(4), text)
        if "bearer" in lowered:
            text = _BEARER.sub(_masked(2), text)
        if "=" in text and ("key=" in lowered or "token=" in lowered):
            text = _URL_PARAMETER.sub(_masked(2), text)
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return self._truncated(text)

    def redact_json(self, value: JsonValue) -> JsonValue:
        """Every string of a JSON-like value (keys included) redacted; the shape kept."""
        if isinstance(value, str):
            return self.redact(value)  # type: ignore[return-value]
        if isinstance(value, dict):
            return {  # type: ignore[return-value]
                self.redact_json(k): self.redact_json(v) for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return type(value)(self.redact_json(item) for item in value)  # type: ignore[return-value]
        return value

    def stream(self) -> StreamRedactor:
        return StreamRedactor(self)

    def _truncated(self, text: str) -> str:
        """A secret cut short by a shortened message (`sk-abc…`) is still a secret."""
        if "…" not in text:
            return text
        for secret in self.secrets:
            for size in range(len(secret) - 1, 3, -1):
                text = text.replace(secret[:size] + "…", REDACTED + "…")
        return text


def _masked(value_group: int) -> Callable[[re.Match[str]], str]:
    """A `re.sub` replacement: the match with its group `value_group` replaced by MASK."""

    def replace(match: re.Match[str]) -> str:
        if match.group(value_group) in (MASK, REDACTED):
            return match.group(0)
        offset = match.start()
        start, end = match.span(value_group)
        whole = match.group(0)
        return whole[: start - offset] + MASK + whole[end - offset :]

    return replace


class StreamRedactor:
    """Redacts text that arrives in pieces: a piece's end that could begin a secret is
    held back until the next piece (or `flush`) says whether it does."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        cut = self._outside_secrets(text, len(text) - self._possible_start(text))
        if cut and "\ud800" <= text[cut - 1] <= "\udbff":
            cut -= 1  # half of a surrogate pair: wait for the other half
        ready, self._held = text[:cut], text[cut:]
        return self.redactor.redact(ready) if ready else ""

    def flush(self) -> str:
        text, self._held = self._held, ""
        return self.redactor.redact(text) if text else ""

    def _possible_start(self, text: str) -> int:
        """How many characters at the end of `text` could begin a secret."""
        longest = 0
        for secret in self.redactor.secrets:
            for size in range(min(len(secret) - 1, len(text)), longest, -1):
                if text.endswith(secret[:size]):
                    longest = size
                    break
        return longest

    def _outside_secrets(self, text: str, cut: int) -> int:
        """`cut`, moved back to the start of any secret it would split."""
        moved = True
        while moved:
            moved = False
            for secret in self.redactor.secrets:
                start = text.find(secret, max(0, cut - len(secret) + 1))
                if 0 <= start < cut < start + len(secret):
                    cut, moved = start, True
        return cut


def as_redactor(given: Redactor | Iterable[str] | None) -> Redactor:
    """A writer's redactor: the one given; else the environment's, with any secrets given
    (a list of them, as callers passed before there was a `Redactor`)."""
    if isinstance(given, Redactor):
        return given
    return Redactor.from_environment().with_secrets(given or ())


def url_password(url: str | None) -> str | None:
    """The password in `url` (`http://user:PASSWORD@host`), if it has one."""
    if not url:
        return None
    try:
        return urlsplit(url).password
    except ValueError:  # an unparseable URL (a bad port): no password to find
        return None


def redact_url(url: str) -> str:
    """`url` as it may be shown: its password masked."""
    return _URL_PASSWORD.sub(_masked(2), url)
