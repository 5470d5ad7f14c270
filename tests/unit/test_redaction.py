"""The one redaction (airline_agent/redaction.py): what it blanks out, and that streamed
text split anywhere is redacted exactly as the whole text would be."""

from __future__ import annotations

import random

import pytest

from airline_agent.config import Settings
from airline_agent.redaction import MASK, REDACTED, Redactor, as_redactor, redact_url

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
    ],
)
def test_credentials_are_masked_by_their_place(text: str, shown: str) -> None:
    assert Redactor().redact(text) == shown


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
    redactor = as_redactor(["another-secret-42"])
    assert redactor.redact(f"{KEY} another-secret-42") == f"{REDACTED} {REDACTED}"


def test_redact_url_masks_only_the_password() -> None:
    assert redact_url("http://u:p@h:1/v1") == f"http://u:{MASK}@h:1/v1"
    assert redact_url("http://h:1/v1") == "http://h:1/v1"
