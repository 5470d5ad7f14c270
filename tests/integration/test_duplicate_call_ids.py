"""Issue 19 item 1: an approval belongs to one call, whatever id the model gave it.

Two write calls of one reply under the same `tool_call_id` (or under blank ones) were
answered "n" then "y" at `--approve ask`: the answers were kept by id, so the second
overwrote the first, both writes ran and the history held two tool messages under one id.
The loop now gives every call of a reply an id of its own before anything is asked or
run (a blank or repeated id is replaced, and the call says so); these tests go through
the real `openai` client against the loopback server, and check the database itself.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from airline_agent.agent.events import ApprovalRequested, AssistantMessage, ToolFinished
from airline_agent.agent.history import problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli
from tests.support.events import of_type, run_turn
from tests.support.loopback import loopback_backend

pytestmark = pytest.mark.usefixtures("closing_loopback_backends")

EMMA = "emma_kim_9957"
DECLINED, APPROVED = "EHGLP3", "66EEUA"  # two of Emma's reservations, both active

# (first id, second id) as the model sends them; None: no id at all.
ID_PAIRS = {
    "same id": ("call_abc", "call_abc"),
    "blank ids": ("", ""),
    "spaces": ("  ", "  "),
    "no ids": (None, None),
    "a blank beside the id the framework would pick": ("call_1_1", ""),
}


def status(db: Path, reservation: str) -> str | None:
    with sqlite3.connect(db) as connection:
        (value,) = connection.execute(
            "SELECT status FROM reservation WHERE reservation_id = ?", (reservation,)
        ).fetchone()
    return value


def two_cancels(server: ChatServer, ids: tuple[str | None, str | None], *, stream: bool) -> None:
    """One reply with two cancellations under `ids`, then the model's answer."""
    calls = []
    for reservation, call_id in zip((DECLINED, APPROVED), ids, strict=True):
        spec: tuple = ("cancel_reservation", {"reservation_id": reservation})
        calls.append(spec if call_id is None else (*spec, call_id))
    if stream:
        server.stream(tool_calls=calls)
        server.stream("One cancelled, one kept.")
    else:
        server.completion(tool_calls=calls)
        server.completion("One cancelled, one kept.")
    if None in ids:  # the server helper numbers calls without an id: take the id away
        _drop_ids(server)


def _drop_ids(server: ChatServer) -> None:
    import json

    reply = server._queue[0]
    if reply.content_type == "text/event-stream":
        lines = []
        for line in reply.body.decode().split("\n"):
            if line.startswith("data: {"):
                chunk = json.loads(line[6:])
                for choice in chunk.get("choices", []):
                    for call in choice.get("delta", {}).get("tool_calls") or []:
                        call.pop("id", None)
                line = "data: " + json.dumps(chunk)
            lines.append(line)
        reply.body = "\n".join(lines).encode()
    else:
        body = json.loads(reply.body)
        for call in body["choices"][0]["message"]["tool_calls"]:
            del call["id"]
        reply.body = json.dumps(body).encode()


@pytest.fixture
def toolbox(db: Path):
    from airline_agent.domain.clock import Clock
    from airline_agent.domain.provisioning import ensure_database
    from airline_agent.tools.toolbox import Toolbox

    database = ensure_database(db)
    # The guard off: only the customer's answers decide here (X3 refuses both otherwise).
    yield Toolbox(database, clock=Clock.at(), guard=False)
    database.close()


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
@pytest.mark.parametrize("ids", ID_PAIRS.values(), ids=ID_PAIRS.keys())
async def test_each_call_is_asked_about_and_answered_under_an_id_of_its_own(
    chat_server, toolbox, db, ids, stream
):
    two_cancels(chat_server, ids, stream=stream)
    backend = loopback_backend(chat_server.url)
    session = AgentSession(
        backend, toolbox, LoopOptions(approval="ask", stream=stream), customer=EMMA
    )

    def first_no_second_yes(request: ApprovalRequested) -> dict[str, bool]:
        first, second = request.calls
        return {first.call_id: False, second.call_id: True}

    events = await run_turn(session, "cancel both", approve=first_no_second_yes)

    [asked] = of_type(events, ApprovalRequested)
    asked_ids = [call.call_id for call in asked.calls]
    assert len(set(asked_ids)) == 2 and all(i.strip() for i in asked_ids)
    assert [call.arguments["reservation_id"] for call in asked.calls] == [DECLINED, APPROVED]
    finished = of_type(events, ToolFinished)
    assert [(e.call_id, e.error) for e in finished] == [
        (asked_ids[0], "PERMISSION_DENIED"),
        (asked_ids[1], None),
    ]
    # What the framework replaced is said on the call, with what the model sent.
    [message] = of_type(events, AssistantMessage)[:1]
    assert [c.call_id for c in message.tool_calls] == asked_ids
    for call, sent in zip(message.tool_calls, ids, strict=True):
        kept = sent is not None and sent.strip() and call.call_id == sent
        assert call.sent_id == (None if kept else (sent or ""))
    assert sum(c.sent_id is not None for c in message.tool_calls) >= 1
    # The database: the declined write did not happen, the approved one did.
    assert status(db, DECLINED) is None
    assert status(db, APPROVED) == "cancelled"
    # The history sent next: one tool message per call id, each answering one call.
    second = chat_server.requests[1]["messages"]
    assert problems(second) == []
    answered = Counter(m["tool_call_id"] for m in second if m["role"] == "tool")
    assert sorted(answered) == sorted(asked_ids) and set(answered.values()) == {1}
    assert problems(session.history) == []


@pytest.mark.parametrize("ids", [("dup", "dup"), ("", "")], ids=["same id", "blank ids"])
def test_the_chat_asks_each_call_and_a_no_stays_a_no(chat_server, db, ids, tmp_path):
    two_cancels(chat_server, ids, stream=True)
    recording = tmp_path / "two-cancels.yaml"
    result = invoke_cli(
        *("chat", "--db", str(db), "--approve", "ask", "--as", EMMA, "--no-guard"),
        *("--record", str(recording)),
        stdin="cancel both\nn\ny\n",
        server=chat_server,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("approve? [y/N]") == 2
    lines = [line for line in out.splitlines() if "→ cancel_reservation" in line]
    assert len(lines) == 2
    assert DECLINED in lines[0] and "error PERMISSION_DENIED" in lines[0]
    assert APPROVED in lines[1] and " ok " in lines[1]
    assert "the framework" in out  # the replaced id is said, not hidden
    assert status(db, DECLINED) is None
    assert status(db, APPROVED) == "cancelled"
    second = chat_server.requests[1]["messages"]
    assert problems(second) == []
    ids_sent = [m["tool_call_id"] for m in second if m["role"] == "tool"]
    assert len(ids_sent) == len(set(ids_sent)) == 2
    assert "Traceback" not in result.stderr
    # The recording keeps the ids as the model sent them and replays as it happened: the
    # same calls replaced, the same answers, the same database.
    from airline_agent.scenarios.loader import load_scenario
    from airline_agent.scenarios.runner import replay_scenario

    scenario = load_scenario(recording)
    [response, _] = scenario.turns[0].responses
    assert [call.id for call in response.tool_calls] == [i or "" for i in ids]
    report = replay_scenario(scenario)
    assert report.status == "passed", report.why()
    assert [e.error for e in report.events if isinstance(e, ToolFinished)] == [
        "PERMISSION_DENIED",
        None,
    ]
    assert [c.key for c in report.changes] == [APPROVED]
