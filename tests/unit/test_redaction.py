"""The one redaction (airline_agent/redaction.py): what it blanks out, and that streamed
text split anywhere is redacted exactly as the whole text would be; a secret cut short by
any shortening, in either order, and every encoded form of a credential (issue 19 item 3)."""

from __future__ import annotations

import base64
import html
import json
import random
import re
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given
from hypothesis import strategies as st

from airline_agent.agent.events import ToolFinished, TurnStarted
from airline_agent.config import Settings
from airline_agent.redaction import (
    MASK,
    MIN_SECRET_LENGTH,
    REDACTED,
    Redactor,
    as_redactor,
    redact_url,
)
from airline_agent.scenarios.transcript import MARKDOWN_RESULT_LIMIT, to_markdown

KEY = "sk-unit-secret-0123456789"


def test_from_settings_blanks_the_key_and_the_base_urls_password() -> None:
    settings = Settings(api_key=KEY, base_url="http://bob:hunter2-long@llm.local:8080/v1")
    redactor = Redactor.from_settings(settings)
    text = f"key {KEY}; password hunter2-long alone; url http://bob:hunter2-long@llm.local:8080/v1"
    assert redactor.redact(text) == (
        f"key {REDACTED}; password {REDACTED} alone; url http://bob:{MASK}@llm.local:8080/v1"
    )


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Authorization: Bearer abc.def-123", f"Authorization: Bearer {MASK}"),
        ('{"authorization": "Basic dXNlcjpwYXNz"}', f'{{"authorization": "Basic {MASK}"}}'),
        ('headers: {"api-key": "azure-key-1"}', f'headers: {{"api-key": "{MASK}"}}'),
        ("x-api-key=abc123", f"x-api-key={MASK}"),
        ("sent bearer tok_1234567890", f"sent bearer {MASK}"),
        ("https://h/v1?key=AIzaXYZ&alt=json", f"https://h/v1?key={MASK}&alt=json"),
        ("postgresql://app:s3cret@db/airline", f"postgresql://app:{MASK}@db/airline"),
        # Without a URL around them: a connection string's password, by each of its names.
        ("host=db password=s3cret dbname=airline", f"host=db password={MASK} dbname=airline"),
        ("host=db pwd=s3cret", f"host=db pwd={MASK}"),
        ("dbname=airline %70assword=s3cret", f"dbname=airline %70assword={MASK}"),
        ("Api_Key: abc123", f"Api_Key: {MASK}"),
        ("GET /v1?token=abc123", f"GET /v1?token={MASK}"),
    ],
)
def test_credentials_are_masked_by_their_place(text: str, shown: str) -> None:
    assert Redactor().redact(text) == shown


@pytest.mark.parametrize("blank", [MASK, REDACTED])
def test_a_credential_blanked_already_stays_as_it_was_blanked(blank: str) -> None:
    # Text written redacted and redacted again on its way out (a saved chat exported).
    for text in (
        f"https://h/v1?key={blank}&alt=json",
        f"GET /v1?access_token={blank}",
        f"postgresql://app:{blank}@db/airline",
        f"api_key={blank}",
        f'{{"x-api-key": "{blank}"}}',
        f"Authorization: Bearer {blank}",
    ):
        assert Redactor.of(KEY).redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "Set OPENAI_API_KEY to a valid key for this server.",
        "The model server at http://localhost:8080/v1 refused the API key (401).",
        "The customer's authorization to travel is pending.",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert Redactor.of(KEY).redact(text) == text


def test_a_short_key_is_not_blanked_everywhere() -> None:
    # A local server's placeholder key ("none", "x") would otherwise wipe those words.
    assert Redactor.of("none").redact("none of that") == "none of that"


def test_a_secret_cut_short_by_a_shortened_message_is_still_blanked() -> None:
    assert Redactor.of(KEY).redact(f"bad key {KEY[:12]}…") == f"bad key {REDACTED}…"


def test_lone_surrogates_become_replacement_characters_and_pairs_are_joined() -> None:
    assert Redactor().redact("a\ud83d b") == "a\ufffd b"
    assert Redactor().redact("\ud83d\ude00") == "😀"
    assert Redactor().redact("x\udcff").encode("utf-8") == "x\ufffd".encode()


def test_redact_json_keeps_the_shape() -> None:
    value = {"turns": [{"customer": KEY, "n": 3, "ok": True}], KEY: None}
    assert Redactor.of(KEY).redact_json(value) == {
        "turns": [{"customer": REDACTED, "n": 3, "ok": True}],
        REDACTED: None,
    }


@pytest.mark.parametrize("seed", range(20))
def test_streamed_text_split_anywhere_is_redacted_as_the_whole(seed: int) -> None:
    redactor = Redactor.of(KEY, "hunter2-long", "hunter2-longer-still")
    text = f"a {KEY} b hunter2-longer-still c {KEY[:-1]} d hunter2-long{KEY} e 😀 f"
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(text)), 12))
    pieces = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    stream = redactor.stream()
    shown = "".join(stream.feed(piece) for piece in pieces) + stream.flush()
    assert shown == redactor.redact(text)


def test_a_list_of_secrets_is_added_to_the_environments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", LOGIN_URL)
    redactor = as_redactor(["another-secret-42"])
    assert redactor.redact(f"{KEY} another-secret-42") == f"{REDACTED} {REDACTED}"
    # The base URL's login is kept too: its Basic credential blanked whole.
    assert redactor.redact(f"Basic {BASIC} sent") == f"Basic {REDACTED} sent"


def test_redact_url_masks_only_the_password() -> None:
    assert redact_url("http://u:p@h:1/v1") == f"http://u:{MASK}@h:1/v1"
    assert redact_url("http://h:1/v1") == "http://h:1/v1"


# -- issue 19 item 3: a secret cut short in any way, and its encoded forms ----------------

LOGIN_URL = "http://agent:p%40ss%2Fword-123@llm.local/v1"  # the password is p@ss/word-123
PASSWORD = "p@ss/word-123"
BASIC = base64.b64encode(b"agent:p@ss/word-123").decode()  # what the client sends


@pytest.mark.parametrize("marker", ["…", " …", "...", " ...", "\u00a0…", "\n…"])
@pytest.mark.parametrize("kept", [4, 5, 12, len(KEY) - 1])
def test_a_secret_cut_short_before_any_marker_is_blanked(marker: str, kept: int) -> None:
    shown = Redactor.of(KEY).redact(f"bad key {KEY[:kept]}{marker} (shortened)")
    assert shown == f"bad key {REDACTED}{marker} (shortened)"


@pytest.mark.parametrize("kept", [8, 12, len(KEY) - 1])
def test_a_secret_cut_short_at_the_end_of_the_text_is_blanked(kept: int) -> None:
    assert Redactor.of(KEY).redact(f"the key is {KEY[:kept]}") == f"the key is {REDACTED}"


def test_a_few_letters_at_the_end_are_no_secret() -> None:
    # Four letters of a key are what many words begin with: only 8 or more at the very end.
    assert Redactor.of("password-long").redact("you shall not pass") == "you shall not pass"


@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60), st.data())
def test_redacted_then_cut_or_cut_then_redacted_shows_no_part_of_the_key(
    around: str, data: st.DataObject
) -> None:
    text = around[: len(around) // 2] + KEY + around[len(around) // 2 :]
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    marker = data.draw(st.sampled_from(["…", " …", "...", " ...", ""]))
    redactor = Redactor.of(KEY)
    for shown in (
        redactor.redact(text[:cut] + marker),  # cut, then redacted (the lower layers)
        redactor.redact(text)[:cut] + marker,  # redacted, then cut (where the redactor is)
    ):
        assert KEY[:8] not in shown
        at_cut = shown.removesuffix(marker)
        assert not any(at_cut.endswith(KEY[:k]) for k in range(4, len(KEY)) if marker), shown


def test_the_markdown_transcript_cuts_a_long_result_after_redacting_it() -> None:
    # Issue 19: 1,500 characters with the key across the cut left 'xxxxxsk-planted- …'.
    result = "x" * (MARKDOWN_RESULT_LIMIT - 10) + KEY + " and more"
    events = [
        TurnStarted(1, "hi"),
        ToolFinished("call_1", "get_user_details", {"user_id": "u"}, result, None, 1.0),
    ]
    markdown = to_markdown(events, "cut", Redactor.of(KEY))
    assert KEY[:4] not in markdown
    assert "x" * 20 + REDACTED in markdown


def encodings_of(secret: str) -> dict[str, str]:
    """Each form a secret may take in text, written the way its writer writes it."""
    data = secret.encode("utf-8", "surrogatepass")
    return {
        "base64": base64.b64encode(data).decode(),
        "base64, unpadded": base64.b64encode(data).decode().rstrip("="),
        "urlsafe base64": base64.urlsafe_b64encode(data).decode(),
        "urlsafe base64, unpadded": base64.urlsafe_b64encode(data).decode().rstrip("="),
        "percent-encoded": quote(secret, safe="", errors="surrogatepass"),
        "percent-encoded, / kept": quote(secret, errors="surrogatepass"),
        "percent-encoded, lower case": re.sub(
            "%[0-9A-F]{2}", lambda m: m[0].lower(), quote(secret, safe="", errors="surrogatepass")
        ),
        "form-encoded": quote_plus(secret, errors="surrogatepass"),
        "JSON-escaped": json.dumps(secret)[1:-1],
        "JSON-escaped, not ASCII": json.dumps(secret, ensure_ascii=False)[1:-1],
        "JSON-escaped with \\/": json.dumps(secret)[1:-1].replace("/", "\\/"),
        "JSON in JSON": json.dumps(json.dumps(secret)[1:-1])[1:-1],
        "HTML-escaped": html.escape(secret),
        "HTML-escaped, quotes kept": html.escape(secret, quote=False),
        "Python repr": repr(secret)[1:-1],
        "hex": data.hex(),
        "HEX": data.hex().upper(),
    }


def embedded_base64_of(secret: str) -> dict[str, str]:
    """The secret's base64 inside a longer base64 text, at each of the three alignments
    (`Bearer …!` encoded whole, as a Basic header or a data URL would hold it)."""
    data = secret.encode()
    return {
        f"base64 at offset {n}{variant}": encode(b"Bearer "[:n] + data + b"!").decode()
        for n in (1, 2, 3)
        for variant, encode in (("", base64.b64encode), (", urlsafe", base64.urlsafe_b64encode))
    }


ODD = 'k"ey\\with/odd+chars é & <more>'  # a character for every escape above
# Its base64 holds '/' and '+' at each of the three alignments ('_' and '-' url-safe).
SLASHES = "sk-???>>>???>>>-key"


@pytest.mark.parametrize("secret", [KEY, PASSWORD, ODD])
def test_every_encoding_of_a_secret_is_blanked_whole(secret: str) -> None:
    redactor = Redactor.of(secret)
    for name, form in encodings_of(secret).items():
        shown = redactor.redact(f"echo: {form} :end")
        assert shown == f"echo: {REDACTED} :end", (name, form, shown)


@pytest.mark.parametrize("secret", [KEY, PASSWORD, ODD, SLASHES])
def test_a_secrets_base64_inside_longer_base64_is_blanked(secret: str) -> None:
    redactor = Redactor.of(secret)
    for name, form in embedded_base64_of(secret).items():
        shown = redactor.redact(f"echo: {form} :end")
        assert REDACTED in shown, (name, form, shown)
        # What is left around it is only the few characters the neighbours' bits share.
        left = shown.removeprefix("echo: ").removesuffix(" :end").replace(REDACTED, "")
        assert len(left) <= 8, (name, form, shown)


def test_a_secret_given_percent_encoded_is_blanked_decoded_too() -> None:
    # A base URL's password arrives percent-encoded; servers echo it decoded.
    for encoded in (quote(PASSWORD, safe=""), quote_plus("p@ss word+123")):
        decoded = PASSWORD if "%2F" in encoded else "p@ss word+123"
        assert Redactor.of(encoded).redact(f"got {decoded}.") == f"got {REDACTED}."


def test_a_secret_with_a_lone_surrogate_is_blanked_in_its_encoded_forms() -> None:
    # An environment variable of undecodable bytes comes as lone surrogates.
    secret = "sk-planted-\udcff-key-0123"
    redactor = Redactor.of(secret)
    login = Redactor(logins=("agent:pw-\udcff-0123",))
    for name, form in encodings_of(secret).items():
        if "\udcff" in form:
            continue  # the text form itself: cleaned to U+FFFD before matching
        assert redactor.redact(f"echo: {form} :end") == f"echo: {REDACTED} :end", name
    basic = base64.b64encode("agent:pw-\udcff-0123".encode("utf-8", "surrogatepass")).decode()
    assert login.redact(f"Basic {basic}") == f"Basic {REDACTED}"


def test_a_form_exactly_as_long_as_the_shortest_secret_is_blanked() -> None:
    secret = "k" * MIN_SECRET_LENGTH
    assert Redactor.of(secret).redact(f"key {secret}.") == f"key {REDACTED}."
    login = "u:" + "p" * 4  # its base64 is exactly 8 characters long
    basic = base64.b64encode(login.encode()).decode()
    assert len(basic) == MIN_SECRET_LENGTH
    assert Redactor(logins=(login,)).redact(f"Basic {basic}") == f"Basic {REDACTED}"


def test_the_basic_credential_of_the_base_url_is_blanked_in_every_form() -> None:
    redactor = Redactor.from_settings(Settings(api_key=KEY, base_url=LOGIN_URL))
    login = "agent:p@ss/word-123"
    forms = {
        **encodings_of(login),
        **embedded_base64_of(login),
        "the password, decoded": PASSWORD,
        "as sent": BASIC,
    }
    forms |= {f"password {name}": form for name, form in encodings_of(PASSWORD).items()}
    for name, form in forms.items():
        shown = redactor.redact(f"the server echoes {form} back")
        assert form not in shown, (name, form, shown)
    # A short password's Basic credential is long enough to be blanked wherever it is.
    short = Redactor.from_settings(Settings(base_url="http://user:pw@h/v1"))
    assert short.redact("got dXNlcjpwdw== and dXNlcjpwdw") == f"got {REDACTED} and {REDACTED}"


def test_blank_secrets_leaves_credentials_by_their_place_alone() -> None:
    # What a tool's arguments are scrubbed with: the known secrets, not every "Bearer x".
    redactor = Redactor.of(KEY)
    assert (
        redactor.blank_secrets(f"Bearer tok_1234567890 {KEY}")
        == f"Bearer tok_1234567890 {REDACTED}"
    )


@pytest.mark.parametrize("settings_usable", [True, False], ids=["settings", "unusable settings"])
def test_the_environments_key_and_url_login_are_blanked_with_or_without_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path, settings_usable: bool
) -> None:
    """`Redactor.from_environment`, what a writer given no settings uses: the key and the
    base URL's password and Basic login, also when the settings cannot be read (the
    variables as they are)."""
    monkeypatch.chdir(tmp_path)  # no developer's .env
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", LOGIN_URL)
    if not settings_usable:
        monkeypatch.setenv("AIRLINE_AGENT_TEMPERATURE", "hot")
    redactor = Redactor.from_environment()
    text = f"key {KEY} password {PASSWORD} basic {BASIC} end"
    assert redactor.redact(text) == f"key {REDACTED} password {REDACTED} basic {REDACTED} end"


def test_the_dotenv_key_is_blanked_also_when_other_settings_are_unusable(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """The key in `.env` only, and a bad value elsewhere: `Settings()` cannot be built,
    and the key it would have read is still blanked out (it used to be only when it was
    in the environment)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")
    monkeypatch.setenv("AIRLINE_AGENT_TEMPERATURE", "hot")
    assert Redactor.from_environment().redact(f"key {KEY}") == f"key {REDACTED}"


STREAMED = f"a {KEY} b\ud83d\ude00c {PASSWORD} d {BASIC}{KEY[:-1]} e"


@pytest.mark.parametrize("cut", range(1, len(STREAMED)))
def test_streamed_text_cut_in_two_anywhere_is_redacted_as_the_whole(cut: int) -> None:
    """Every place a piece can end: inside a secret, inside an encoded form, between the
    halves of a surrogate pair (joined as in the whole text), at a secret's last letter."""
    redactor = Redactor.from_settings(Settings(api_key=KEY, base_url=LOGIN_URL))
    stream = redactor.stream()
    shown = stream.feed(STREAMED[:cut]) + stream.feed(STREAMED[cut:]) + stream.flush()
    assert shown == redactor.redact(STREAMED)
    assert KEY not in shown and PASSWORD not in shown and BASIC not in shown


def test_streamed_text_one_character_at_a_time_is_redacted_as_the_whole() -> None:
    redactor = Redactor.from_settings(Settings(api_key=KEY, base_url=LOGIN_URL))
    stream = redactor.stream()
    pieces = [stream.feed(character) for character in STREAMED]
    assert "".join(pieces) + stream.flush() == redactor.redact(STREAMED)
    assert stream.flush() == ""  # nothing held twice


def test_a_stream_shows_at_once_what_can_begin_no_secret() -> None:
    """What each piece lets through: all of it when its end can begin no secret; up to a
    possible start of one, held until a later piece says whether it is one."""
    plain = Redactor().stream()
    assert [plain.feed("Your flight "), plain.feed("is on time."), plain.flush()] == [
        "Your flight ",
        "is on time.",
        "",
    ]
    stream = Redactor.of(KEY).stream()
    pieces = ["Your key is ", "s", "k-unit", "-and more", " at last."]
    assert [stream.feed(piece) for piece in pieces] == [
        "Your key is ",
        "",  # "s" may begin the key
        "",  # so may "sk-unit"
        "sk-unit-and more",  # it was not the key after all
        " at last.",
    ]
    assert stream.flush() == ""


def _streamed(redactor: Redactor, pieces: list[str]) -> list[str]:
    stream = redactor.stream()
    return [stream.feed(piece) for piece in pieces] + [stream.flush()]


def test_a_piece_never_ends_inside_a_secret_whose_end_begins_another() -> None:
    """The end of a whole secret may be the start of another: the piece stops before the
    first (wherever it is, however often), which is blanked whole with the next piece,
    never shown cut in two; a whole secret at a piece's end is shown blanked at once."""
    ends_begin = Redactor.of("abcd-secret-1", "ret-1-more-x")
    assert _streamed(ends_begin, ["see abcd-secret-1", " ok", " and ret-1-m"]) == [
        "see ",
        f"{REDACTED} ok",
        " and ",
        "ret-1-m",  # shorter than any secret: no start of one
    ]
    assert _streamed(ends_begin, ["abcd-secret-1", " ok"]) == ["", f"{REDACTED} ok", ""]
    assert _streamed(ends_begin, ["abcd-secret-1 and abcd-secret-1", " ok"]) == [
        f"{REDACTED} and ",
        f"{REDACTED} ok",
        "",
    ]
    last_letter = Redactor.of("abcd-secret-1", "1-more-secret-x")
    assert _streamed(last_letter, ["see abcd-secret-1", " ok"]) == [
        "see ",
        f"{REDACTED} ok",
        "",
    ]
    assert _streamed(Redactor.of(KEY), [f"Your key is {KEY}", " ok"]) == [
        f"Your key is {REDACTED}",
        " ok",
        "",
    ]


def test_a_piece_ending_in_half_a_surrogate_pair_waits_for_the_other_half_only() -> None:
    # The first and the last high surrogates (U+10000 and U+10FFFF begin with them).
    pieces = ["a\ud800", "\udc00b", "c\udbff", "\udfffd"]
    assert _streamed(Redactor(), pieces) == ["a", "\U00010000b", "c", "\U0010ffffd", ""]


def test_the_longest_form_of_a_secret_cut_short_is_blanked() -> None:
    # Its hex form is twice as long as the key: the longest form is looked for.
    cut = KEY.encode().hex()[:-2]
    assert Redactor.of(KEY).redact(f"hex: {cut}") == f"hex: {REDACTED}"
    assert Redactor.of(KEY).redact(f"hex: {cut}…") == f"hex: {REDACTED}…"


def test_a_base_url_without_a_password_or_without_a_user() -> None:
    no_password = Redactor.from_settings(Settings(api_key=KEY, base_url="http://llm.local/v1"))
    assert no_password.logins == ()
    assert no_password.redact(f"key {KEY}") == f"key {REDACTED}"
    no_user = Redactor.from_settings(Settings(base_url="http://:s3cret-pw@llm.local/v1"))
    basic = base64.b64encode(b":s3cret-pw").decode()
    assert no_user.redact(f"Basic {basic} sent") == f"Basic {REDACTED} sent"
