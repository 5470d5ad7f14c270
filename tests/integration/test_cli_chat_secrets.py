"""Secrets never leave through what the chat writes (issue 10 §3): the API key and the
password of OPENAI_BASE_URL are planted everywhere they can come from — the customer's
text, the model's streamed reply (split across chunks), tool arguments and so the tool's
result, a server's error body (with an Authorization header echoed), the base URL in an
error message — and every output is searched: stdout, stderr, the recording, the
transcript files."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.chat_server import ChatServer
from tests.support.cli import run_cli

KEY = "sk-planted-secret-0123456789abcdef"
PASSWORD = "urlpass-9876543210"


def streamed_reply(pieces: list[str]) -> bytes:
    """SSE whose content arrives in exactly these pieces."""
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in pieces]
    chunks.append(chunk({}, "stop"))
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    chunks.append({**base, "choices": [], "usage": usage})
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def test_the_key_and_url_password_appear_in_no_output(
    chat_server: ChatServer, db: Path, tmp_path: Path
):
    host = chat_server.url.removeprefix("http://")
    base_url = f"http://agent:{PASSWORD}@{host}"
    chat_server.error(401, f"bad key {KEY}")  # turn 1: the base URL is in the message
    chat_server.error(400, f"rejected {KEY}: Authorization: Bearer {KEY} via {base_url}")
    chat_server.stream(tool_calls=[("get_user_details", {"user_id": KEY})])  # turn 3
    half = len(KEY) // 2
    chat_server.raw(
        streamed_reply(["Your key ", KEY[:half], KEY[half:], f" and {PASSWORD[:5]}", PASSWORD[5:]]),
        content_type="text/event-stream",
    )
    recording, transcripts = tmp_path / "secrets.yaml", tmp_path / "transcripts"
    customer = f"Hello, my key is {KEY} and the password {PASSWORD}"
    result = run_cli(
        "chat",
        "--db",
        str(db),
        "--record",
        str(recording),
        "--transcript",
        str(transcripts),
        stdin=f"hello\n{customer}\n{customer}\n",
        server=chat_server,
        timeout=120,
        OPENAI_API_KEY=KEY,
        OPENAI_BASE_URL=base_url,
    )

    assert len(chat_server.requests) == 4, result.stderr  # every source was exercised
    outputs = {
        "stdout": result.stdout,
        "stderr": result.stderr,
        "recording": recording.read_text(),
        "transcript.jsonl": (transcripts / "secrets.jsonl").read_text(),
        "transcript.md": (transcripts / "secrets.md").read_text(),
    }
    for name, text in outputs.items():
        for secret in (KEY, PASSWORD, KEY[:half], PASSWORD[:8]):
            assert secret not in text, f"{secret!r} in {name}:\n{text}"
    assert f"http://agent:***@{host}" in result.stderr  # the URL shown, its password masked
    assert "Authorization: Bearer ***" in result.stderr
    assert "Your key [redacted] and [redacted]" in result.stdout
    assert "Traceback" not in result.stderr
