"""Encoded and cut-short credentials never leave through what the chat writes (issue 19
item 3). With `OPENAI_BASE_URL=http://agent:p%40ss%2Fword-123@host/v1` the client sends
`Authorization: Basic <base64 of agent:p@ss/word-123>`; a loopback server echoes that and
every other form of the key and the password (base64 standard and urlsafe, padded or not,
inside longer base64 at each alignment, percent-encoded, JSON-escaped, hex) in error
bodies and in a streamed reply, and the model puts the key into tool arguments (one cut
short by the tool's own error message, one written into the database). Every output is
searched: stdout, stderr, the recording, both transcript files — and, in a later run that
does not know the key, `call` and `export` of the database the write went to. (The chat
runs in this process; test_cli_chat_secrets.py watches a child process's file
descriptors for the key and the password as they are.)"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from urllib.parse import quote, quote_plus

from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli

KEY = "sk-planted-secret-0123456789abcdef"
URL_PASSWORD = "p%40ss%2Fword-123"  # as written in the URL
PASSWORD = "p@ss/word-123"  # what it means, and what the client sends
LOGIN = f"agent:{PASSWORD}"
HOLDERS = ["Evelyn", "Taylor", "1965-01-16"], ["Anya", "Silva", "1971-11-22"]


def forms_of(secret: str) -> dict[str, str]:
    data = secret.encode()
    forms = {
        "as is": secret,
        "base64": base64.b64encode(data).decode(),
        "base64 unpadded": base64.b64encode(data).decode().rstrip("="),
        "urlsafe base64": base64.urlsafe_b64encode(data).decode(),
        "urlsafe base64 unpadded": base64.urlsafe_b64encode(data).decode().rstrip("="),
        "percent-encoded": quote(secret, safe=""),
        "percent-encoded, lower case": re.sub(
            "%[0-9A-F]{2}", lambda m: m[0].lower(), quote(secret, safe="")
        ),
        "form-encoded": quote_plus(secret),
        "JSON-escaped": json.dumps(secret)[1:-1],
        "JSON-escaped with \\/": json.dumps(secret)[1:-1].replace("/", "\\/"),
        "hex": data.hex(),
    }
    for offset, before in enumerate((b"B", b"Be", b"Bea"), start=1):
        forms[f"inside base64, alignment {offset}"] = base64.b64encode(
            before + data + b"!"
        ).decode()
    return forms


PLANTED = {
    **{f"key {name}": form for name, form in forms_of(KEY).items()},
    **{f"password {name}": form for name, form in forms_of(PASSWORD).items()},
    **{f"login {name}": form for name, form in forms_of(LOGIN).items() if name != "as is"},
    "password as in the URL": URL_PASSWORD,
}


def sse(pieces: list[str]) -> bytes:
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in pieces]
    chunks.append(chunk({}, "stop"))
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def test_no_encoded_or_cut_short_credential_appears_in_any_output(
    chat_server: ChatServer, db: Path, tmp_path: Path
):
    host = chat_server.url.removeprefix("http://")
    # One error turn per form (an error body is cut at 160 characters).
    for name, form in PLANTED.items():
        chat_server.error(400, f"the server echoes ({name}) {form} back")
    # A streamed reply repeating every form, each split across two chunks.
    pieces = []
    for form in PLANTED.values():
        pieces += [f" {form[: len(form) // 2]}", form[len(form) // 2 :]]
    chat_server.raw(sse(["Echo:", *pieces]), content_type="text/event-stream")
    # The model puts the key into arguments: one the tool refuses, quoting it cut short at
    # 57 characters + "..." (inside the key), one a write stores in the database.
    too_long = {"user_id": ["x" * 30 + KEY]}
    passengers = [
        {"first_name": f"{KEY}", "last_name": HOLDERS[0][1], "dob": HOLDERS[0][2]},
        {"first_name": HOLDERS[1][0], "last_name": HOLDERS[1][1], "dob": HOLDERS[1][2]},
    ]
    chat_server.stream(
        tool_calls=[
            ("get_user_details", too_long),
            (
                "update_reservation_passengers",
                {"reservation_id": "EHGLP3", "passengers": passengers},
            ),
        ]
    )
    chat_server.stream("Done.")
    recording, transcripts = tmp_path / "secrets.yaml", tmp_path / "transcripts"
    turns = len(PLANTED) + 2
    result = invoke_cli(
        "chat",
        "--db",
        str(db),
        "--as",
        "emma_kim_9957",
        "--approve",
        "auto",
        "--record",
        str(recording),
        "--transcript",
        str(transcripts),
        stdin="".join(f"turn {n}\n" for n in range(turns)),
        server=chat_server,
        OPENAI_API_KEY=KEY,
        OPENAI_BASE_URL=f"http://agent:{URL_PASSWORD}@{host}/v1",
    )
    assert len(chat_server.requests) == len(PLANTED) + 3, result.stderr  # every form was sent
    sent = chat_server.headers[0]["authorization"]
    assert sent == f"Basic {forms_of(LOGIN)['base64']}"  # what a server may echo
    # Later, in a process that does not know the key: what the database holds.
    later = invoke_cli(
        "call", "get_reservation_details", '{"reservation_id": "EHGLP3"}', "--db", str(db)
    )
    exported = tmp_path / "export.json"
    invoke_cli("export", "--db", str(db), "-o", str(exported))
    outputs = {
        "stdout": result.stdout,
        "stderr": result.stderr,
        "recording": recording.read_text(),
        "transcript.jsonl": (transcripts / "secrets.jsonl").read_text(),
        "transcript.md": (transcripts / "secrets.md").read_text(),
        "a later call": later.stdout,
        "a later export": exported.read_text(),
    }
    for where, text in outputs.items():
        for name, form in {**PLANTED, "the key cut short": KEY[:8]}.items():
            assert form not in text, f"{name} {form!r} in {where}"
    assert "Traceback" not in result.stderr
    names = [p["first_name"] for p in json.loads(later.stdout)["passengers"]]
    assert names == ["[redacted]", "Anya"]  # written without the key, the rest kept
