"""A database URL's password is masked in every place a URL (or a libpq connection
string) can carry one (issue 30), checked over generated URLs: the login (encoded or not,
with `@`, `/`, `?`, `#` in it), the query's `password=` (its name percent-encoded too),
a connection string's `password=` (quoted or not); every scheme that names PostgreSQL.
Wherever the URL stands: alone (`describe`, `redact_url`), or inside a message."""

from __future__ import annotations

from urllib.parse import quote, quote_plus

from hypothesis import given, settings
from hypothesis import strategies as st

from airline_agent.domain.database_urls import mask_passwords, passwords_in, redact_url
from airline_agent.domain.db import describe
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.redaction import Redactor

SCHEMES = st.sampled_from(["postgresql", "postgres", "postgresql+psycopg", "mysql+pymysql"])
NAMES = st.text("abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=12)
HOSTS = st.sampled_from(["127.0.0.1", "db.example", "[::1]", ""])
PORTS = st.sampled_from(["", ":5432", ":notaport"])
# Any text a password may be (no lone surrogates: nothing can send those).
PASSWORDS = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=24)
# The same, as they go into a URL without being percent-encoded: no white space or quote
# (which end a URL inside a message).
BARE = st.text(
    st.characters(blacklist_categories=("Cs", "Z", "C"), blacklist_characters="\"'<>"),
    min_size=1,
    max_size=24,
)
QUERIES = st.sampled_from(["", "?sslmode=require", "?host=/run/postgresql&connect_timeout=5"])


@st.composite
def password_names(draw: st.DrawFn) -> str:
    """`password` (or `sslpassword`) with any of its letters percent-encoded, as libpq and
    SQLAlchemy decode them."""
    name = draw(st.sampled_from(["password", "sslpassword"]))
    encoded = draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
    upper = draw(st.booleans())
    return "".join(
        (f"%{ord(c):02X}" if upper else f"%{ord(c):02x}") if e else c
        for c, e in zip(name, encoded, strict=True)
    )


def _masked_everywhere(url: str, expected: str, password: str) -> None:
    """`url` is shown as `expected` alone, by `describe`, and inside a message."""
    assert redact_url(url) == expected
    assert describe(url) == expected
    said = f"error: {url} refused (try again)"
    assert Redactor().redact(said) == f"error: {expected} refused (try again)"
    said = DatabaseUnavailable(f"cannot reach {url} now")  # a message quoting it as it is
    assert str(said) == f"cannot reach {expected} now"
    assert str(DatabaseUnavailable(f"{describe(url)}: no server")) == f"{expected}: no server"
    assert password in passwords_in(url)


@settings(max_examples=300, deadline=None)
@given(SCHEMES, NAMES, PASSWORDS, HOSTS, PORTS, NAMES, QUERIES)
def test_the_login_s_password_percent_encoded(
    scheme, user, password, host, port, database, query
) -> None:
    encoded = quote(password, safe="")
    url = f"{scheme}://{user}:{encoded}@{host}{port}/{database}{query}"
    _masked_everywhere(url, f"{scheme}://{user}:***@{host}{port}/{database}{query}", encoded)


@settings(max_examples=300, deadline=None)
@given(SCHEMES, NAMES, BARE, HOSTS, PORTS, NAMES, QUERIES)
def test_the_login_s_password_as_typed(scheme, user, password, host, port, database, query) -> None:
    """Not encoded: `@`, `/`, `?`, `#`, `:` in it (SQLAlchemy takes them)."""
    url = f"{scheme}://{user}:{password}@{host}{port}/{database}{query}"
    expected = f"{scheme}://{user}:***@{host}{port}/{database}{query}"
    assert redact_url(url) == expected
    assert describe(url) == expected
    assert Redactor().redact(f"error: {url} refused") == f"error: {expected} refused"


def test_a_login_named_like_a_header_keeps_its_host_and_database() -> None:
    """A user called `api_key` is a URL's login, not an `api_key: X` header (found by
    the property test above: the host and database were masked with the password)."""
    _masked_everywhere(
        "postgresql://api_key:0@127.0.0.1/0", "postgresql://api_key:***@127.0.0.1/0", "0"
    )


@settings(max_examples=200, deadline=None)
@given(SCHEMES, NAMES, PASSWORDS, HOSTS, PORTS, NAMES)
def test_a_password_with_spaces_in_a_url_alone(scheme, user, password, host, port, database):
    """A URL given alone (`--db`) may hold anything in its password, white space too."""
    url = f"{scheme}://{user}:{password.replace('@', '%40')}@{host}{port}/{database}"
    assert describe(url) == f"{scheme}://{user}:***@{host}{port}/{database}"


@settings(max_examples=300, deadline=None)
@given(SCHEMES, NAMES, PASSWORDS, HOSTS, PORTS, NAMES, password_names(), QUERIES)
def test_the_query_s_password(scheme, user, password, host, port, database, name, query) -> None:
    value = quote_plus(password)
    before = f"{query}&" if query else "?"
    url = f"{scheme}://{user}@{host}{port}/{database}{before}{name}={value}&application_name=x"
    expected = f"{scheme}://{user}@{host}{port}/{database}{before}{name}=***&application_name=x"
    _masked_everywhere(url, expected, value)
    last = f"{scheme}://{user}@{host}{port}/{database}?{name}={value}"  # at the end
    _masked_everywhere(last, f"{scheme}://{user}@{host}{port}/{database}?{name}=***", value)


@settings(max_examples=300, deadline=None)
@given(NAMES, PASSWORDS, NAMES, st.sampled_from(["=", " = ", "= "]))
def test_a_connection_string_s_password(user, password, database, equals) -> None:
    """libpq's `key=value` form: quoted (any text, `'` and `\\` escaped) or bare."""
    quoted = "'" + password.replace("\\", "\\\\").replace("'", "\\'") + "'"
    text = f"host=127.0.0.1 user={user} password{equals}{quoted} dbname={database}"
    expected = f"host=127.0.0.1 user={user} password{equals}*** dbname={database}"
    assert redact_url(text) == expected
    assert describe(text) == expected
    assert mask_passwords(f"({text})") == f"({expected})"


@settings(max_examples=200, deadline=None)
@given(NAMES, BARE, NAMES)
def test_a_connection_string_s_bare_password(user, password, database) -> None:
    bare = password.replace("'", "")
    if not bare:
        return
    text = f"host=h user={user} password={bare} dbname={database}"
    assert describe(text) == f"host=h user={user} password=*** dbname={database}"


def test_what_is_no_password_is_kept() -> None:
    for text in (
        "data/airline.db",
        "postgresql://alice@/airline?host=/run/postgresql",
        "postgresql://db.example:5432/airline?sslmode=require",
        "sqlite:///data/airline.db",
        "http://h:1/v1?email=a@b.example",
        "the password authentication failed for user alice",
        "keyword=value passwordless=yes",
    ):
        assert describe(text) == text
        assert passwords_in(text) == []
    assert redact_url("postgresql://alice:***@h/db") == "postgresql://alice:***@h/db"
