"""One redaction for everything the project writes or prints: the screen, stderr,
recordings, transcripts, the TUI's inspector and details, exports.

What is blanked out, wherever it appears (typed by a customer, repeated by a model, put
in tool arguments, echoed in a server's error body):
- the configured API key, and the password of `OPENAI_BASE_URL`, in every form that
  derives from them (`credential_forms`): as they are; percent-decoded (a URL's
  `p%40ss` is the password `p@ss` the client sends) and percent-encoded (upper- or
  lower-case hex, `+` for a space); JSON-escaped (ASCII or not, `\\/`, JSON inside JSON);
  Python-repr- and HTML-escaped; hex; base64, standard and urlsafe, with and without
  padding, and the part of it that stays the same at each of the three alignments the
  secret can have inside a longer base64 string: `[redacted]`;
- the `user:password` of `OPENAI_BASE_URL`, which the client sends as `Authorization:
  Basic <base64>`, in each base64 form, even when the password alone is short;
- any of these cut short by a shortened message: at least 4 characters of one before a
  cut's `…` or `...` (with or without a space before it), or at least 8 at the very end of
  the text — so a cut made before the redaction shows no part of a secret either (where
  a redactor is at hand, text is redacted before it is cut);
- the password of any URL: `http://user:key@host` → `http://user:***@host`, and of a
  database URL in every place one can carry it (`domain/database_urls.py`: a login with
  `/`, `?` or `@` unencoded, `?password=…` with its name percent-encoded or not, a libpq
  connection string's `password=…`);
- the values of `Authorization`, `Proxy-Authorization`, `api-key` and `x-api-key`
  headers, of `Bearer` tokens and of `?key=` / `?api_key=` / `?token=` URL parameters:
  `***`.

A literal secret shorter than `MIN_SECRET_LENGTH` is not blanked out everywhere (a key of
`none` or `x`, as local servers take, would wipe every such word from the output); the
patterns above still mask it where it stands as a credential. No form shorter than that
is blanked either.

Not recognised (say so where it matters): a secret changed in other ways (case, spelled
out, reversed, a piece from its middle, split across fields or messages), other encodings
(base32, quoted-printable, base64 wrapped across lines, compressed), and secrets this
process was not told about (another process's key, a customer's own password).

`redact` also replaces lone UTF-16 surrogates (which no encoder can write) with U+FFFD,
so that what it returns can always be written. Streamed text is redacted with
`StreamRedactor`, which holds back the end of a piece that could be the start of a
secret until the next piece says whether it is. `blank_secrets` blanks out only the
known secrets (not credentials by their place): what tool arguments are scrubbed with
before a tool stores them.

Importing it costs the standard library alone (`from_environment`, for a writer given no
settings, reads the key and the base URL as `settings_peek` reads them, without pydantic,
and with python-dotenv only when there is a `.env`), so any front end may use it at
start-up.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit

from airline_agent.domain import database_urls
from airline_agent.domain.database_urls import mask_passwords
from airline_agent.settings_peek import peek_credentials
from airline_agent.terminal_text import clean_text

if TYPE_CHECKING:
    from airline_agent.config import Settings

REDACTED = "[redacted]"  # a secret's literal value, wherever it appears
MASK = database_urls.MASK  # a value in a credential's place (URL password, header, token)
MIN_SECRET_LENGTH = 8
CUT_SHORT_LENGTH = 4  # characters of a secret before a cut's marker that count as it

JsonValue = TypeVar("JsonValue")

# `Authorization: Bearer X`, `"api-key": "X"`, `x-api-key=X` (headers, logs, JSON). Not a
# URL's login named so (`postgresql://api_key:pw@host/db`): its password is masked as a
# URL's, and the host and database stay readable.
_HEADER_VALUE = re.compile(
    r"(?i)(\b(?:proxy-)?authorization|\bx-api-key|(?<![\w/-])api[-_]key)"
    # The value: a secret already blanked as "[redacted]", whole up to a separator (its
    # "]" ends any other value: it would be masked again, "***]"), or what comes before
    # a separator.
    r"([\"']?\s*[:=]\s*[\"']?)((?:bearer|basic|token)\s+)?(\[redacted\](?![^\s\"',;&}\]])|[^\s\"',;&}\]]+)"
)
_BEARER = re.compile(r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/=-]{8,})")
_URL_PARAMETER = re.compile(r"(?i)([?&](?:key|api[-_]?key|token|access_token)=)([^\s&#\"']+)")


# Where a shortened text was cut: `…` or `...`, with any white space before it.
_CUT_MARKER = re.compile(r"\s*(?:…|\.\.\.)")
_PERCENT_ESCAPE = re.compile("%[0-9A-F]{2}")


@dataclass(frozen=True)
class Redactor:
    """Blanks out `secrets` (literal values) and the `logins` (`user:password`) of URLs
    in every form that derives from them, and credentials by their place."""

    secrets: tuple[str, ...] = ()
    logins: tuple[str, ...] = ()
    # Every form of the secrets and logins to blank out, longest first (derived).
    forms: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        forms = {form for secret in self.secrets for form in credential_forms(secret)}
        forms |= {form for login in self.logins for form in basic_forms(login)}
        object.__setattr__(self, "forms", tuple(sorted(forms, key=len, reverse=True)))

    @classmethod
    def from_settings(cls, settings: Settings | None) -> Redactor:
        """The configured API key and the password of the configured base URL."""
        if settings is None:
            return cls()
        key = settings.api_key.get_secret_value() if settings.api_key else None
        url = settings.base_url
        return cls.of(key, url_password(url), logins=[url_login(url)])

    @classmethod
    def from_environment(cls) -> Redactor:
        """The same from the environment and `.env`, read as `Settings` reads them (even
        when other settings are unusable), for a writer given no settings (a
        belt-and-braces default: what the project writes is redacted even then)."""
        key, url = peek_credentials()
        return cls.of(key, url_password(url), logins=[url_login(url)])

    @classmethod
    def of(cls, *secrets: str | None, logins: Iterable[str | None] = ()) -> Redactor:
        """A redactor of these secrets (None and short ones left out) and logins."""
        kept = {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
        return cls(tuple(sorted(kept)), tuple(sorted({login for login in logins if login})))

    def with_secrets(self, secrets: Iterable[str | None]) -> Redactor:
        return Redactor.of(*self.secrets, *secrets, logins=self.logins)

    def redact(self, text: str) -> str:
        """`text` with every secret and credential blanked out, safe to write."""
        text = clean_text(text)
        # Each pattern runs only where its word is (a few MB of export stay fast).
        lowered = text.lower()
        # A password parameter's name may be percent-encoded (`?pass%77ord=`).
        named = "pass" in lowered or "pwd" in lowered or "%" in text
        if "://" in text or ("=" in text and named):
            text = mask_passwords(text, (MASK, REDACTED))
        if "authorization" in lowered or "api-key" in lowered or "api_key" in lowered:
            text = _HEADER_VALUE.sub(_masked(4), text)
        if "bearer" in lowered:
            text = _BEARER.sub(_masked(2), text)
        if "=" in text and ("key=" in lowered or "token=" in lowered):
            text = _URL_PARAMETER.sub(_masked(2), text)
        return self.blank_secrets(text)

    def blank_secrets(self, text: str) -> str:
        """`text` with the known secrets, in every form and cut short, blanked out (the
        credentials by their place are `redact`'s)."""
        if not self.forms or len(text) < CUT_SHORT_LENGTH:
            return text  # no secret, or too short to hold a start of one
        for form in self.forms:
            text = text.replace(form, REDACTED)
        return self._cut_short(text)

    def redact_json(self, value: JsonValue) -> JsonValue:
        """Every string of a JSON-like value (keys included) redacted; the shape kept."""
        if isinstance(value, str):
            return self.redact(value)  # type: ignore[return-value]
        if isinstance(value, dict):
            return {  # type: ignore[return-value]
                self.redact_json(k): self.redact_json(v) for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return type(value)(self.redact_json(item) for item in value)
        return value

    def stream(self) -> StreamRedactor:
        return StreamRedactor(self)

    def _cut_short(self, text: str) -> str:
        """A secret cut short by a shortened message (`sk-abc…`, `sk-abc ...`, or the
        text's end) is still a secret. Right to left, so that positions stay valid."""
        at_cut, at_end, _ = self._starts
        spots = [(len(text), at_end)]
        if "…" in text or "..." in text:
            spots = [(m.start(), at_cut) for m in _CUT_MARKER.finditer(text)] + spots
        reach = len(self.forms[0])
        for end, pattern in reversed(spots):
            found = pattern.search(text, max(0, end - reach), end)
            if found is not None:
                text = text[: found.start()] + REDACTED + text[end:]
        return text

    @cached_property
    def _starts(self) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
        """Patterns of a text ending in a form's first characters (never the whole form):
        at least `CUT_SHORT_LENGTH` of them (before a cut's marker), `MIN_SECRET_LENGTH`
        (at the end of a text), 1 (the end of a streamed piece, held back)."""
        return tuple(  # type: ignore[return-value]
            _ends_in_start(self.forms, least) for least in (CUT_SHORT_LENGTH, MIN_SECRET_LENGTH, 1)
        )


def _ends_in_start(forms: tuple[str, ...], least: int) -> re.Pattern[str]:
    # Each form as its first `least` characters and then, each optional, the next ones:
    # one search of the last characters before a cut, in C, whatever the number of forms.
    branches = []
    for form in forms:
        if len(form) <= least:
            continue
        rest = ""
        for character in reversed(form[least:-1]):
            rest = f"(?:{re.escape(character)}{rest})?"
        branches.append(re.escape(form[:least]) + rest)
    return re.compile(f"(?:{'|'.join(branches)})\\Z" if branches else "(?!)")


def credential_forms(secret: str) -> set[str]:
    """The ways one secret may be written: as it is and percent-decoded, each then
    percent-encoded, JSON-, repr- and HTML-escaped, in hex and in base64 (whole, and
    the part that stays the same inside longer base64). Forms shorter than
    `MIN_SECRET_LENGTH` are left out."""
    forms: set[str] = set()
    for value in {secret, unquote(secret), unquote_plus(secret)}:
        data = value.encode("utf-8", "surrogatepass")
        escaped = json.dumps(value)[1:-1]
        # A secret from the environment may hold undecodable bytes (lone surrogates):
        # every encoding of it passes them through, never raises.
        percent = {
            quote(value, safe="", errors="surrogatepass"),
            quote(value, errors="surrogatepass"),
            quote_plus(value, errors="surrogatepass"),
        }
        forms |= {value, escaped, json.dumps(value, ensure_ascii=False)[1:-1]}
        forms |= {escaped.replace("/", "\\/"), json.dumps(escaped)[1:-1]}
        forms |= {html.escape(value), html.escape(value, quote=False), repr(value)[1:-1]}
        forms |= percent | {_PERCENT_ESCAPE.sub(lambda m: m[0].lower(), p) for p in percent}
        forms |= {data.hex(), data.hex().upper()}
        forms |= _base64_forms(data) | _base64_cores(data)
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


def basic_forms(login: str) -> set[str]:
    """`user:password` as HTTP Basic authentication sends it: base64, in each variant."""
    forms = _base64_forms(login.encode("utf-8", "surrogatepass"))
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


def _base64_forms(data: bytes) -> set[str]:
    standard = base64.b64encode(data).decode()
    urlsafe = base64.urlsafe_b64encode(data).decode()
    return {standard, standard.rstrip("="), urlsafe, urlsafe.rstrip("=")}


def _base64_cores(data: bytes) -> set[str]:
    """What the base64 of any longer string holding `data` at each of the three
    alignments contains for sure: the characters made of `data`'s bits only."""
    cores: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode()
        core = encoded[-(-8 * offset // 6) : 8 * (offset + len(data)) // 6]
        cores |= {core, core.replace("+", "-").replace("/", "_")}
    return cores


def _masked(value_group: int) -> Callable[[re.Match[str]], str]:
    """A `re.sub` replacement: the match with its group `value_group` replaced by MASK."""
    return database_urls.masked(value_group, (MASK, REDACTED))


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
        """How many characters at the end of `text` could begin a secret (in any form)."""
        if not self.redactor.forms:
            return 0
        reach = len(self.redactor.forms[0])
        found = self.redactor._starts[2].search(text, max(0, len(text) - reach))
        return len(text) - found.start() if found is not None else 0

    def _outside_secrets(self, text: str, cut: int) -> int:
        """`cut`, moved back to the start of any secret it would split."""
        moved = True
        while moved:
            moved = False
            for form in self.redactor.forms:
                start = text.find(form, max(0, cut - len(form) + 1))
                if 0 <= start < cut < start + len(form):
                    cut, moved = start, True
        return cut


def as_redactor(given: Redactor | Iterable[str] | None) -> Redactor:
    """A writer's redactor: the one given; else the environment's, with any secrets given
    (a list of them, as callers passed before there was a `Redactor`)."""
    if isinstance(given, Redactor):
        return given
    return Redactor.from_environment().with_secrets(given or ())


def url_password(url: str | None) -> str | None:
    """The password in `url` (`http://user:PASSWORD@host`) as written, if it has one."""
    if not url:
        return None
    try:
        return urlsplit(url).password
    except ValueError:  # an unparseable URL (a bad port): no password to find
        return None


def url_login(url: str | None) -> str | None:
    """`user:password` of `url`, percent-decoded: what HTTP Basic authentication sends."""
    password = url_password(url)
    if password is None or not url:
        return None
    return f"{unquote(urlsplit(url).username or '')}:{unquote(password)}"


def redact_url(url: str) -> str:
    """`url` as it may be shown: its password masked (`domain.database_urls`)."""
    return database_urls.redact_url(url)
