"""A database URL as it may be shown: its password masked, in every place a URL (or a
libpq connection string) can carry one. `describe` in db.py names every database this
way, and `airline_agent.redaction` masks the same places in any text it redacts.

The places, each masked as `***`, the rest kept as written:
- the login, `scheme://user:PASSWORD@host`. SQLAlchemy's grammar takes a password with
  `/`, `?`, `#` and `:` unencoded (an HTTP URL's may hold none of them); a password with
  an unencoded `@` is everything up to the last `@`: `postgresql://alice:p@ss/w@host/db`
  → `postgresql://alice:***@host/db`;
- a query parameter by its name, `?password=…` / `&password=…`, which libpq and
  SQLAlchemy take as the password; its name percent-encoded too (`?pass%77ord=…`: both
  decode it);
- a libpq connection string's `password=…` (`host=h password=… dbname=d`, also
  `password = '…'`, quoted, with `\\'` inside);
- the same for `sslpassword` (the password of libpq's client key), `passwd` and `pwd`
  (other databases' drivers).

Standard library only: the domain names databases with it, and any front end may import
it at start-up.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote_plus

MASK = "***"  # a value in a credential's place

# scheme://user:PASSWORD@host, as an HTTP URL holds it (RFC 3986: no / ? # @ inside).
URL_PASSWORD = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/?#@:\"'<>]*:)([^\s/?#@\"'<>]+)(@)")
# A database URL's (any scheme but the web's): SQLAlchemy's grammar, up to the last `@`.
DATABASE_URL_PASSWORD = re.compile(
    r"(\b(?!(?i:https?|wss?|ftps?)://)[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/?#@:\"'<>]*:)"
    r"([^\s\"'<>]*)(@)"
)
_WEB_SCHEME = re.compile(r"(?i)https?|wss?|ftps?")
# `NAME=VALUE` in a URL's query (the name may be percent-encoded) …
_QUERY_PARAMETER = re.compile(r"([?&])([^=&#\s\"'<>]+)(=)([^&\s\"'<>]*)")
# … and in a libpq connection string (`password = 'it\'s'`: quoted, with \' escapes).
_DSN_PARAMETER = re.compile(r"(?<![\w%.?&/-])([\w%.-]+)(\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s\"<>]*)")
_PASSWORD_NAMES = frozenset({"password", "sslpassword", "passwd", "pwd"})


def redact_url(url: str) -> str:
    """`url` (the whole text is one URL, or a connection string) as it may be shown: its
    password masked in every place above."""
    login, after = _login(url)
    if login is not None:
        user, colon, password = login.partition(":")
        if colon and password != MASK:
            url = f"{url.partition('://')[0]}://{user}:{MASK}@{after}"
    return mask_passwords(url)


def _login(url: str) -> tuple[str | None, str]:
    """The `user:password` of a URL that is the whole text, and what follows its `@`:
    a web URL's login ends at its authority's last `@`; a database URL's, at the last
    `@` of all (whatever it holds: SQLAlchemy takes a space, a quote, a `/` in it)."""
    scheme, found, rest = url.partition("://")
    if not found:
        return None, url
    if _WEB_SCHEME.fullmatch(scheme):
        end = min((rest.find(c) for c in "/?#" if c in rest), default=len(rest))
        authority, path = rest[:end], rest[end:]
        if "@" not in authority:
            return None, rest
        login, _, host = authority.rpartition("@")
        return login, host + path
    if "@" not in rest:
        return None, rest
    login, _, after = rest.rpartition("@")
    return (login if "/" not in login.partition(":")[0] else None), after


def passwords_in(text: str) -> list[str]:
    """The passwords `text` carries in the places above, as written (a redactor blanks
    out their other forms, percent-decoded among them)."""
    found: list[str] = []

    def keep(match: re.Match[str], group: int) -> str:
        found.append(match.group(group).strip("'"))
        return match.group(0)

    login = _login(text)[0]
    if login is not None and ":" in login:
        found.append(login.partition(":")[2])
    if "=" in text:
        _QUERY_PARAMETER.sub(_if_password(2, 4, lambda m: keep(m, 4)), text)
        _DSN_PARAMETER.sub(_if_password(1, 3, lambda m: keep(m, 3)), text)
    return [password for password in found if password]


def mask_passwords(text: str, kept: tuple[str, ...] = (MASK,)) -> str:
    """Every password in `text` by its place (the logins of URLs, the parameters named
    as a password's), wherever it stands in the text; a value in `kept` stays."""
    if "://" in text:
        text = URL_PASSWORD.sub(masked(2, kept), text)
        text = DATABASE_URL_PASSWORD.sub(masked(2, kept), text)
    if "=" in text:
        text = _QUERY_PARAMETER.sub(_masked_if_password(2, 4, kept), text)
        text = _DSN_PARAMETER.sub(_masked_if_password(1, 3, kept), text)
    return text


def masked(value_group: int, kept: tuple[str, ...] = (MASK,)) -> Callable[[re.Match[str]], str]:
    """A `re.sub` replacement: the match with its group `value_group` replaced by MASK
    (unless it is one of `kept`, a value masked already)."""

    def replace(match: re.Match[str]) -> str:
        # Masked already, perhaps followed by the punctuation of the sentence around it.
        if match.group(value_group).rstrip(":;,.)") in kept:
            return match.group(0)
        offset = match.start()
        start, end = match.span(value_group)
        whole = match.group(0)
        return whole[: start - offset] + MASK + whole[end - offset :]

    return replace


def _masked_if_password(
    name_group: int, value_group: int, kept: tuple[str, ...]
) -> Callable[[re.Match[str]], str]:
    """The same, only where the parameter's name, decoded, is a password's."""
    return _if_password(name_group, value_group, masked(value_group, kept))


def _if_password(
    name_group: int, value_group: int, then: Callable[[re.Match[str]], str]
) -> Callable[[re.Match[str]], str]:
    """A `re.sub` replacement: `then` where the parameter's name, decoded, is a
    password's and it has a value; else the match as it is."""

    def replace(match: re.Match[str]) -> str:
        name = unquote_plus(match.group(name_group)).strip().lower()
        if name not in _PASSWORD_NAMES or not match.group(value_group):
            return match.group(0)
        return then(match)

    return replace
