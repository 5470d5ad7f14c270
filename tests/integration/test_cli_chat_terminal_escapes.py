"""What a model or a tool writes never reaches the terminal as control codes (issue 19
item 2): `chat` shows escape sequences in a reply (streamed, with the sequence split
across chunks, or whole), in its reasoning, in tool arguments, in a tool's result (through
the approval question's preview) and in a server's error body as visible escapes
(`\\u001b]0;…`), never as the bytes a terminal would obey: no ESC, BEL, DEL, C1 control
or bidi override comes out of the real CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.chat_server import ChatServer
from tests.support.cli import run_cli_bytes

TITLE = "\x1b]0;pwned by the model\x07"  # sets the window title (OSC 0)
CLIPBOARD = "\x1b]52;c;ZWNobyBvd25lZA==\x07"  # writes the clipboard (OSC 52)
CLEAR = "\x1b[2J\x1b[H"  # clears the screen
C1_CSI = "\x9b31m"  # CSI as one C1 character: red text on a terminal that takes C1
OVERRIDE = "\u202etxt.exe\u202c"  # right-to-left override: shows "exe.txt"
HOSTILE = f"{TITLE} {CLIPBOARD} {CLEAR} {C1_CSI} {OVERRIDE} del\x7f bell\x07 cr\rx"
# Bytes a terminal would act on: C0 controls but newline and tab, DEL, C1 in UTF-8,
# and the UTF-8 of the bidi embeddings, overrides and isolates.
COMMAND_BYTES = re.compile(
    rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)


def sse(content_pieces: list[str]) -> bytes:
    """A streamed reply whose content arrives in exactly these pieces."""
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in content_pieces]
    chunks.append(chunk({}, "stop"))
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def chat(server: ChatServer, stdin: str, *args: str):
    return run_cli_bytes("chat", *args, stdin=stdin.encode(), server=server, timeout=120)


def assert_no_command_bytes(name: str, data: bytes) -> None:
    found = COMMAND_BYTES.findall(data)
    assert not found, f"{name} holds {found!r}: {data!r}"


def test_a_streamed_reply_split_inside_its_sequences_reaches_the_terminal_escaped(
    chat_server: ChatServer, db: Path
):
    # Each sequence is cut between its ESC and the rest, and C1 and the override alone.
    pieces = ["Hello \x1b", "]0;pwned by the model\x07 and \x1b", "]52;c;ZWNobyBvd25lZA==", "\x07"]
    pieces += [" then \x1b[", "2J\x1b[H ", "\x9b", "31m ", "\u202e", "txt.exe\u202c bye"]
    chat_server.raw(sse(pieces), content_type="text/event-stream")
    result = chat(chat_server, "hello\n", "--db", str(db))
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert_no_command_bytes("stdout", result.stdout)
    assert_no_command_bytes("stderr", result.stderr)
    out = result.stdout.decode()
    assert (
        "agent> Hello \\u001b]0;pwned by the model\\u0007 and \\u001b]52;c;ZWNobyBvd25lZA==\\u0007"
        " then \\u001b[2J\\u001b[H \\u009b31m \\u202etxt.exe\\u202c bye"
    ) in out


def test_a_whole_reply_its_reasoning_tool_arguments_and_results_reach_the_terminal_escaped(
    chat_server: ChatServer, db: Path
):
    arguments = {"reservation_id": "EHGLP3", "reason": f"other {HOSTILE}"}
    chat_server.completion(
        reasoning=f"thinking {HOSTILE}", tool_calls=[("calculate", {"expression": HOSTILE})]
    )
    chat_server.completion(tool_calls=[("cancel_reservation", arguments)])
    chat_server.completion(f"Answer: {HOSTILE}")
    chat_server.error(400, f"the server says {HOSTILE}")
    result = chat(
        chat_server, "hello\nn\nagain\n", "--db", str(db), "--no-stream", "--approve", "ask"
    )
    assert len(chat_server.requests) == 4, result.stderr.decode(errors="replace")
    assert_no_command_bytes("stdout", result.stdout)
    assert_no_command_bytes("stderr", result.stderr)
    out, err = result.stdout.decode(), result.stderr.decode()
    shown = "\\u001b]0;pwned by the model\\u0007"
    assert f"(reasoning) thinking {shown}" in out
    assert "→ calculate" in out and "\\u009b31m" in out and "\\u202etxt.exe\\u202c" in out
    assert "? cancel_reservation" in out
    assert f"agent> Answer: {shown}" in out and "del\\u007f bell\\u0007 cr\\u000dx" in out
    assert f"the server says {shown}" in err
