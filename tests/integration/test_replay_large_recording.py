"""Issue 19 item 15: the recorder writes what the replayer reads.

A recording over 2 MiB (a long session, a big reply) was written, then refused by
`replay` ("larger than 2 MiB, the limit for a scenario file"). The limit is now 16 MiB
(scenarios/yaml_text.py: reading takes about 40 MB of memory per MiB), and a recording
that would still be over it is saved whole, with an error at record time that says
`replay` will refuse it, and exit status 1.

The 3 MiB of the default run are the reply's reasoning: the reply's own text is checked for
invented facts (agent/claims.py: 14 s of CPU per pass over 3 MiB, measured, once when
chatting and once when replaying), reasoning is not. AIRLINE_AGENT_SLOW=1 also records a
3 MiB reply.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from airline_agent.commands.chat.repl import run_chat
from airline_agent.config import Settings
from airline_agent.scenarios import yaml_text
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.runner import replay_scenario
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli
from tests.support.profile import SLOW

MIB = 1024 * 1024


def big_reply(size: int) -> str:
    line = "Flight HAT156 leaves PHX at 06:00 and reaches SEA at 09:00 on 2024-05-17.\n"
    return line * (size // len(line) + 1)


@pytest.mark.parametrize("big", ["reasoning", "reply"] if SLOW else ["reasoning"])
def test_a_recording_over_2_mib_replays(
    chat_server: ChatServer, db: Path, tmp_path: Path, big: str
) -> None:
    if big == "reply":
        chat_server.completion(big_reply(3 * MIB))
    else:
        chat_server.completion("Here is everything.", reasoning=big_reply(3 * MIB))
    recording = tmp_path / "big.yaml"
    result = invoke_cli(
        *("chat", "--db", str(db), "--no-stream", "--record", str(recording)),
        stdin="tell me everything\n",
        server=chat_server,
    )
    assert result.returncode == 0, result.stderr
    assert recording.stat().st_size > 3 * MIB
    report = replay_scenario(load_scenario(recording), keep_events=False)
    assert report.status == "passed", report.why()


async def test_a_recording_over_the_limit_is_saved_whole_and_said_so(
    chat_server: ChatServer, db: Path, tmp_path: Path, monkeypatch
):
    monkeypatch.setattr(yaml_text, "MAX_FILE_BYTES", 64 * 1024)  # a limit a test can pass
    reply = big_reply(100 * 1024)
    chat_server.completion(reply)
    recording = tmp_path / "over.yaml"
    settings = Settings(model="gpt-4o-mini", base_url=chat_server.url, db=str(db), stream=False)
    err = io.StringIO()
    status = await run_chat(
        settings, stdin=io.StringIO("hi\n"), stdout=io.StringIO(), stderr=err, record=recording
    )
    said = err.getvalue()
    assert status == 1, said
    assert f"saved {recording}" in said
    assert "error:" in said and "64 KiB" in said and "replay" in said
    assert reply.splitlines()[-1] in recording.read_text()  # whole, to its last line
