"""Approvals and the customer a session binds, through the official `mcp` client connected
to the server in this process (the SDK's in-memory transport), in both protocol eras: the
handshake (2025-11-25: `elicitation/create` while the call waits) and 2026-07-28 (the
question returned, answered by calling again).

The rule (MCP elicitation: actions accept, decline, cancel; content shaped by the
requested schema): only `accept` with `confirm: true` is a yes. Any other answer a client
can give (a decline or cancel with the box ticked, an accept without it, the box as text
or a number, another key, no content, an answer of another kind, an error, no answer) is
a no, and a no is final: nothing is written, and its answer cannot be played again as a
yes. The same over stdio and HTTP subprocesses: tests/integration/test_mcp_server.py."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST

from airline_agent.agent.events import ApprovalRequested, AssistantMessage
from airline_agent.config import Settings
from airline_agent.mcp_server.approval import ANSWER_KEY, question
from airline_agent.mcp_server.event_log import event_record
from airline_agent.mcp_server.run import Server
from airline_agent.mcp_server.session import McpSession
from tests.support.world import make_world_db

EMMA = "emma_kim_9957"
NOAH = "noah_lee_1001"
BAGS = {
    "reservation_id": "EHGLP3",
    "total_baggages": 1,
    "nonfree_baggages": 0,
    "payment_id": "credit_card_5832574",
}
MODES = ["legacy", "auto"]  # 2025-11-25 (handshake); 2026-07-28


@pytest.fixture(scope="module")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mcp-approvals") / "world.db"
    make_world_db(path).close()
    return path


@pytest.fixture
def world(world_template: Path, tmp_path: Path) -> Path:
    db = tmp_path / "world.db"
    shutil.copy(world_template, db)
    return db


@dataclass
class Served:
    server: Server
    events: Path
    asked: list[str] = field(default_factory=list)

    def logged(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.events.read_text().splitlines()]


@asynccontextmanager
async def serving(
    world: Path,
    *,
    customer: str | None = EMMA,
    fallback: Literal["auto", "deny"] = "deny",
    shared: bool = False,
) -> AsyncIterator[Served]:
    events = world.parent / "events.jsonl"
    server = Server.open(
        Settings(db=str(world)),
        customer=customer,
        fallback=fallback,
        shared=shared,
        record=None,
        events=events,
        transport="stdio",
    )
    try:
        yield Served(server, events)
    finally:
        server.sessions.end_all()
        if server.events is not None:
            server.events.close()
        server.database.close()


def answering(served: Served, answer: types.ElicitResult | Exception) -> Any:
    async def callback(context: Any, params: Any) -> types.ElicitResult:
        served.asked.append(params.message)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return callback


def payload(result: types.CallToolResult) -> Any:
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


async def bags(client: Client) -> int:
    found = await client.call_tool("get_reservation_details", {"reservation_id": "EHGLP3"})
    return int(payload(found)["total_baggages"])


YES = types.ElicitResult(action="accept", content={"confirm": True})


def _no(action: str, content: dict[str, Any] | None) -> types.ElicitResult:
    return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]


NOT_A_YES = {
    "decline, box ticked": _no("decline", {"confirm": True}),
    "cancel, box ticked": _no("cancel", {"confirm": True}),
    "decline": _no("decline", None),
    "cancel": _no("cancel", None),
    "accept, box not ticked": _no("accept", {"confirm": False}),
    "accept, no content": _no("accept", None),
    "accept, empty content": _no("accept", {}),
    "accept, 'true'": _no("accept", {"confirm": "true"}),
    "accept, 'True'": _no("accept", {"confirm": "True"}),
    "accept, 'yes'": _no("accept", {"confirm": "yes"}),
    "accept, 1": _no("accept", {"confirm": 1}),
    "accept, 1.0": _no("accept", {"confirm": 1.0}),
    "accept, ['true']": _no("accept", {"confirm": ["true"]}),
    "accept, null": _no("accept", {"confirm": None}),
    "accept, another key": _no("accept", {"Confirm": True}),
    "accept, another field": _no("accept", {"approved": True}),
}


@pytest.mark.parametrize("mode", MODES)
async def test_an_accept_with_the_box_ticked_writes(world: Path, mode: str) -> None:
    async with serving(world) as served:
        callback = answering(served, YES)
        async with Client(served.server.mcp, mode=mode, elicitation_callback=callback) as c:
            changed = await c.call_tool("update_reservation_baggages", BAGS)
            after = await bags(c)
    assert not changed.is_error, payload(changed)
    assert after == 1
    assert len(served.asked) == 1
    assert served.asked[0].startswith("The agent asks to run update_reservation_baggages for")
    approval = next(line for line in served.logged() if line["type"] == "approval")
    assert approval["approved"] is True


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", NOT_A_YES.values(), ids=NOT_A_YES.keys())
async def test_any_other_answer_is_a_no_and_writes_nothing(
    world: Path, mode: str, answer: types.ElicitResult
) -> None:
    async with serving(world) as served:
        callback = answering(served, answer)
        async with Client(served.server.mcp, mode=mode, elicitation_callback=callback) as client:
            refused = await client.call_tool("update_reservation_baggages", BAGS)
            after = await bags(client)
    assert len(served.asked) == 1
    assert refused.is_error
    assert payload(refused) == {
        "error": "PERMISSION_DENIED",
        "message": "The customer declined this change; nothing was written. Ask the "
        "customer what they would like to do instead.",
    }
    assert after == 0
    logged = served.logged()
    assert [line["approved"] for line in logged if line["type"] == "approval"] == [False]
    assert not any(line["type"] == "tool_started" and line["call_id"] == "mcp-1" for line in logged)


async def test_a_client_whose_answer_fails_is_a_no(world: Path) -> None:
    """Handshake era: the client answers the question with an error."""
    async with serving(world) as served:
        callback = answering(served, RuntimeError("the user closed the dialog"))
        async with Client(
            served.server.mcp, mode="legacy", elicitation_callback=callback
        ) as client:
            refused = await client.call_tool("update_reservation_baggages", BAGS)
            after = await bags(client)
    assert payload(refused)["error"] == "PERMISSION_DENIED"
    assert after == 0


def asking(served: Served) -> Client:
    """A 2026-07-28 client that can be asked (its questions are answered by hand)."""
    return Client(served.server.mcp, mode="auto", elicitation_callback=answering(served, YES))


async def _first_round(client: Client) -> types.InputRequiredResult:
    """2026-07-28: the write's first call, driven by hand: the question comes back."""
    first = await client.session.call_tool(
        "update_reservation_baggages", BAGS, allow_input_required=True
    )
    assert isinstance(first, types.InputRequiredResult)
    assert list(first.input_requests or {}) == [ANSWER_KEY]
    return first


async def _answer(
    client: Client, state: str | None, responses: dict[str, Any] | None
) -> types.CallToolResult | types.InputRequiredResult | types.Result:
    return await client.session.call_tool(
        "update_reservation_baggages",
        BAGS,
        input_responses=responses,
        request_state=state,
        allow_input_required=True,
    )


@pytest.mark.parametrize(
    "responses",
    [
        {ANSWER_KEY: types.ListRootsResult(roots=[])},
        {
            ANSWER_KEY: types.CreateMessageResult(
                role="assistant", content=types.TextContent(type="text", text="yes"), model="m"
            )
        },
        {"another question": YES},
        {},
        None,
    ],
    ids=["roots", "a sampled 'yes'", "another key", "no responses", "nothing"],
)
async def test_at_2026_07_28_an_answer_of_another_kind_is_a_no(
    world: Path, responses: dict[str, Any] | None
) -> None:
    async with serving(world) as served, asking(served) as client:
        first = await _first_round(client)
        refused = await _answer(client, first.request_state, responses)
        after = await bags(client)
    assert isinstance(refused, types.CallToolResult)
    assert payload(refused)["error"] == "PERMISSION_DENIED"
    assert after == 0


async def test_at_2026_07_28_a_no_is_final(world: Path) -> None:
    decline = _no("decline", None)
    async with serving(world) as served, asking(served) as client:
        first = await _first_round(client)
        refused = await _answer(client, first.request_state, {ANSWER_KEY: decline})
        # The same question's state again, now with a yes: it answers nothing any more.
        again = await _answer(client, first.request_state, {ANSWER_KEY: YES})
        after = await bags(client)
    assert payload(refused)["error"] == "PERMISSION_DENIED"  # type: ignore[arg-type]
    assert isinstance(again, types.InputRequiredResult)  # a new question, no write
    assert after == 0


async def test_at_2026_07_28_a_yes_is_used_once(world: Path) -> None:
    async with serving(world) as served, asking(served) as client:
        first = await _first_round(client)
        changed = await _answer(client, first.request_state, {ANSWER_KEY: YES})
        replayed = await _answer(client, first.request_state, {ANSWER_KEY: YES})
    assert isinstance(changed, types.CallToolResult) and not changed.is_error
    assert isinstance(replayed, types.InputRequiredResult)  # asked again: no second write
    calls = [line for line in served.logged() if line["type"] == "tool_call"]
    assert [line["call_id"] for line in calls] == ["mcp-1", "mcp-2"]


async def test_at_2026_07_28_a_state_the_server_never_gave_answers_nothing(world: Path) -> None:
    async with serving(world) as served, asking(served) as client:
        await _first_round(client)
        try:
            forged = await _answer(client, "approval-1", {ANSWER_KEY: YES})
        except MCPError:
            forged = None  # the SDK refuses state it did not seal
        after = await bags(client)
    assert forged is None or isinstance(forged, types.InputRequiredResult)
    assert after == 0


async def test_at_2026_07_28_an_unanswered_question_ends_its_call_unrun_with_the_session(
    world: Path,
) -> None:
    async with serving(world) as served, asking(served) as client:
        await _first_round(client)
    lines = served.logged()
    kinds = [line["type"] for line in lines if line.get("call_id") == "mcp-1"]
    assert kinds == ["tool_call", "tool_finished"]
    ended = next(line for line in lines if line["type"] == "tool_finished")
    assert ended["error"] == "INTERNAL_ERROR"
    assert (
        ended["result"]["message"] == "This call was not run: the turn was interrupted before it."
    )
    assert lines[-1]["type"] == "session_closed"


# -- a client that cannot be asked ---------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_that_cannot_be_asked_gets_the_deny_result(world: Path, mode: str) -> None:
    async with serving(world) as served, Client(served.server.mcp, mode=mode) as client:
        refused = await client.call_tool("update_reservation_baggages", BAGS)
        after = await bags(client)
    assert payload(refused)["error"] == "PERMISSION_DENIED"
    assert "switched off" in payload(refused)["message"]
    assert after == 0
    assert not any(line["type"] == "approval" for line in served.logged())


async def test_with_approve_auto_a_client_that_cannot_be_asked_writes(world: Path) -> None:
    async with serving(world, fallback="auto") as served, Client(served.server.mcp) as client:
        changed = await client.call_tool("update_reservation_baggages", BAGS)
        after = await bags(client)
    assert not changed.is_error and after == 1
    assert [line["type"] for line in served.logged() if line.get("call_id") == "mcp-1"] == [
        "tool_call",
        "tool_started",
        "tool_finished",
    ]


async def test_a_write_with_arguments_that_are_no_object_is_refused_unrun(world: Path) -> None:
    async with serving(world, fallback="auto") as served:
        refused = await served.server.mcp.answer(None, "update_reservation_baggages", "{bad")
    assert refused.is_error  # type: ignore[union-attr]
    assert payload(refused)["error"] == "INVALID_ARGUMENTS"  # type: ignore[arg-type]
    kinds = [line["type"] for line in served.logged() if line.get("call_id") == "mcp-1"]
    assert kinds == ["tool_call", "tool_finished"]


# -- the customer a session acts for --------------------------------------------------------


async def test_the_first_successful_lookup_binds_the_session_and_the_guard_keeps_it(
    world: Path,
) -> None:
    async with serving(world, customer=None) as served, Client(served.server.mcp) as client:
        before = await client.call_tool("get_reservation_details", {"reservation_id": "ECON01"})
        unknown = await client.call_tool("get_user_details", {"user_id": "nobody_0000"})
        bound = await client.call_tool("get_user_details", {"user_id": EMMA})
        other = await client.call_tool("get_user_details", {"user_id": NOAH})
        again = await client.call_tool("get_user_details", {"user_id": EMMA})
    assert not before.is_error  # unbound: a reservation id may come first
    assert unknown.is_error and payload(unknown)["error"] == "NOT_FOUND"  # binds nobody
    failed = [line for line in served.logged() if line.get("call_id") == "mcp-2"]
    assert failed[-1]["type"] == "tool_finished" and failed[-1]["error"] == "NOT_FOUND"
    assert payload(bound)["user_id"] == EMMA
    assert payload(other)["error"] == "PERMISSION_DENIED"
    assert not again.is_error
    bindings = [line for line in served.logged() if line["type"] == "customer_bound"]
    assert bindings == [
        {
            "session": 1,
            "type": "customer_bound",
            "customer": EMMA,
            "call_id": "mcp-3",
            "tool": "get_user_details",
        }
    ]
    (session,) = [s for _, s in served.server.sessions.items()] or [None]
    assert session is None  # ended with the server (its events are the log's)


async def test_a_session_bound_from_the_start_acts_only_for_that_customer(world: Path) -> None:
    async with serving(world, customer=NOAH) as served, Client(served.server.mcp) as client:
        own = await client.call_tool("get_user_details", {"user_id": NOAH})
        other = await client.call_tool("get_user_details", {"user_id": EMMA})
    assert payload(own)["user_id"] == NOAH
    assert payload(other)["error"] == "PERMISSION_DENIED"
    assert not any(line["type"] == "customer_bound" for line in served.logged())


async def test_a_write_before_any_lookup_is_refused(world: Path) -> None:
    async with serving(world, customer=None) as served:
        callback = answering(served, YES)
        async with Client(
            served.server.mcp, mode="legacy", elicitation_callback=callback
        ) as client:
            refused = await client.call_tool("update_reservation_baggages", BAGS)
            after = await bags(client)
    assert payload(refused)["error"] == "PERMISSION_DENIED"
    assert after == 0
    # Asked for nobody yet (then refused by the guard, as the preview says).
    assert served.asked[0].startswith("The agent asks to run update_reservation_baggages.\n\n")


async def test_a_session_counts_its_calls_and_writes(world: Path) -> None:
    async with (
        serving(world, fallback="auto", shared=True) as served,
        Client(served.server.mcp) as client,
    ):
        await client.call_tool("get_user_details", {"user_id": EMMA})
        await client.call_tool("update_reservation_baggages", BAGS)
        await client.call_tool("calculate", {"expression": "1 + 1"})
        ((_, session),) = served.server.sessions.items()
        assert (session.calls, session.own_writes, session.others_wrote) == (3, 1, False)
        assert served.server.sessions.writes.total == 1
        assert session.customer == EMMA
    assert session.closed


async def test_a_call_for_an_ended_session_is_refused(world: Path) -> None:
    from airline_agent.mcp_server.session import SessionEnded

    async with serving(world) as served:
        sessions = served.server.sessions
        session = sessions.get("key")
        assert sessions.take("key") is session
        sessions.finish(session)
        with pytest.raises(SessionEnded):
            sessions.get("key")
        with pytest.raises(MCPError, match="this MCP session has ended"):
            await session.call("calculate", {"expression": "1"}, None)


# -- what a session logs (--events) and records (--record), field by field -------------------

PREVIEW = (
    "update_reservation_baggages would change 1 record(s):\n"
    "- reservation EHGLP3: total_baggages 0 → 1"
)


def _session(served: Served) -> McpSession:
    ((_, session),) = served.server.sessions.items()
    return session


def _of_the_session(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line["type"] not in ("session_opened", "session_closed")]


def _as_logged(events: list[Any]) -> list[dict[str, Any]]:
    """Events as the log writes them (a line of JSON each)."""
    return [json.loads(json.dumps(event_record(1, event), default=str)) for event in events]


@pytest.mark.parametrize("mode", MODES)
async def test_an_approved_write_is_logged_and_recorded_field_by_field(
    world: Path, mode: str
) -> None:
    async with serving(world) as served:
        callback = answering(served, YES)
        async with Client(served.server.mcp, mode=mode, elicitation_callback=callback) as c:
            changed = await c.call_tool("update_reservation_baggages", BAGS)
            session = _session(served)
            recorded = list(session.events)
    assert served.asked == [question("update_reservation_baggages", EMMA, PREVIEW)]
    text = json.dumps(BAGS)
    call, approved, started, finished = _of_the_session(served.logged())
    assert call == {
        "session": 1,
        "type": "tool_call",
        "request": 1,
        "call_id": "mcp-1",
        "name": "update_reservation_baggages",
        "arguments": text,
    }
    assert approved == {
        "session": 1,
        "type": "approval",
        "request": 1,
        "call_id": "mcp-1",
        "name": "update_reservation_baggages",
        "preview": PREVIEW,
        "approved": True,
    }
    assert started == {
        "session": 1,
        "type": "tool_started",
        "call_id": "mcp-1",
        "name": "update_reservation_baggages",
        "arguments": BAGS,
        "raw_arguments": text,
    }
    assert finished["result"] == payload(changed) == changed.structured_content
    assert (finished["name"], finished["arguments"], finished["error"]) == (
        "update_reservation_baggages",
        BAGS,
        None,
    )
    assert isinstance(finished["elapsed_ms"], float)
    assert [(c["table"], c["key"]) for c in finished["changes"]] == [("reservation", "EHGLP3")]
    # The record holds what the log holds, and the call as the model's response.
    assert _as_logged(recorded) == [call, approved, started, finished]
    message, asking = recorded[0], recorded[1]
    assert isinstance(message, AssistantMessage) and isinstance(asking, ApprovalRequested)
    assert (message.content, message.reasoning, message.finish_reason, message.latency_ms) == (
        None,
        None,
        "tool_calls",
        0.0,
    )
    assert asking.calls[0].arguments == BAGS
    assert session.calls == session.own_writes == 1


@pytest.mark.parametrize("answer", [_no("decline", None), RuntimeError("no")], ids=["no", "error"])
async def test_a_refused_write_is_logged_and_recorded_with_its_arguments(
    world: Path, answer: types.ElicitResult | Exception
) -> None:
    async with serving(world) as served:
        callback = answering(served, answer)
        async with Client(served.server.mcp, mode="legacy", elicitation_callback=callback) as c:
            refused = await c.call_tool("update_reservation_baggages", BAGS)
            recorded = list(_session(served).events)
    call, approval, finished = _of_the_session(served.logged())
    assert approval["approved"] is False and approval["preview"] == PREVIEW
    assert finished == {
        "session": 1,
        "type": "tool_finished",
        "call_id": "mcp-1",
        "name": "update_reservation_baggages",
        "arguments": BAGS,
        "result": payload(refused),
        "error": "PERMISSION_DENIED",
        "elapsed_ms": 0.0,
        "changes": [],
        "producer": "framework",
    }
    assert refused.structured_content == payload(refused)
    assert _as_logged(recorded) == [call, approval, finished]


async def test_a_write_a_client_cannot_be_asked_about_is_logged_with_its_arguments(
    world: Path,
) -> None:
    async with serving(world) as served, Client(served.server.mcp) as client:
        refused = await client.call_tool("update_reservation_baggages", BAGS)
    call, finished = _of_the_session(served.logged())
    assert call["arguments"] == json.dumps(BAGS) and call["request"] == 1
    assert finished["arguments"] == BAGS and finished["error"] == "PERMISSION_DENIED"
    assert finished["result"] == payload(refused) == refused.structured_content


async def test_a_read_is_logged_with_its_text_and_a_result_that_is_no_object_has_no_structure(
    world: Path,
) -> None:
    async with serving(world) as served, Client(served.server.mcp) as client:
        found = await client.call_tool("get_user_details", {"user_id": EMMA})
        summed = await client.call_tool("calculate", {"expression": "1 + 1"})
        recorded = list(_session(served).events)
    assert found.structured_content == payload(found) and not found.is_error
    assert summed.structured_content is None and summed.content[0].text == "2.0"  # type: ignore[union-attr]
    lines = _of_the_session(served.logged())
    assert [(line["type"], line.get("request")) for line in lines] == [
        ("tool_call", 1),
        ("tool_started", None),
        ("tool_finished", None),
        ("tool_call", 2),
        ("tool_started", None),
        ("tool_finished", None),
    ]
    assert lines[0]["arguments"] == json.dumps({"user_id": EMMA})
    assert lines[3] == {
        "session": 1,
        "type": "tool_call",
        "request": 2,
        "call_id": "mcp-2",
        "name": "calculate",
        "arguments": json.dumps({"expression": "1 + 1"}),
    }
    assert lines[5]["result"] == 2.0 and lines[5]["name"] == "calculate"
    assert _as_logged(recorded) == lines


async def test_arguments_that_are_no_object_are_refused_with_the_call_as_sent(
    world: Path,
) -> None:
    async with serving(world, fallback="auto") as served:
        refused = await served.server.mcp.answer(None, "calculate", "{é")
    assert isinstance(refused, types.CallToolResult) and refused.is_error
    text = refused.content[0].text  # type: ignore[union-attr]
    assert "é" in text and "\\u00e9" not in text  # the model's own text, not escaped
    assert refused.structured_content == json.loads(text)
    call, finished = _of_the_session(served.logged())
    assert (call["name"], call["arguments"]) == ("calculate", "{é")
    assert finished["name"] == "calculate" and finished["arguments"] is None
    assert finished["error"] == "INVALID_ARGUMENTS" and finished["elapsed_ms"] == 0.0


async def test_a_question_never_answered_ends_its_call_in_the_log_field_by_field(
    world: Path,
) -> None:
    async with serving(world) as served, asking(served) as client:
        await _first_round(client)
    (call, finished) = _of_the_session(served.logged())
    assert call["request"] == 1 and call["arguments"] == json.dumps(BAGS)
    assert finished == {
        "session": 1,
        "type": "tool_finished",
        "call_id": "mcp-1",
        "name": "update_reservation_baggages",
        "arguments": None,
        "result": {
            "error": "INTERNAL_ERROR",
            "message": "This call was not run: the turn was interrupted before it.",
        },
        "error": "INTERNAL_ERROR",
        "elapsed_ms": 0.0,
        "changes": [],
        "producer": "framework",
    }


async def test_a_question_left_when_its_client_goes_away_ends_its_call_in_the_log(
    world: Path,
) -> None:
    """Handshake era: the client goes while its user is being asked."""
    asked = anyio.Event()

    async def never(context: Any, params: Any) -> types.ElicitResult:
        asked.set()
        await anyio.sleep_forever()
        raise AssertionError("not reached")

    async with serving(world) as served:
        async with anyio.create_task_group() as group:

            async def use() -> None:
                async with Client(
                    served.server.mcp, mode="legacy", elicitation_callback=never
                ) as c:
                    await c.call_tool("update_reservation_baggages", BAGS)

            group.start_soon(use)
            await asked.wait()
            group.cancel_scope.cancel()
        with anyio.fail_after(30):
            while len(_of_the_session(served.logged())) < 2:
                await anyio.sleep(0.01)
    call, finished = _of_the_session(served.logged())[:2]
    assert call["type"] == "tool_call" and finished["type"] == "tool_finished"
    assert finished["call_id"] == "mcp-1" and finished["name"] == "update_reservation_baggages"
    assert finished["error"] in ("INTERNAL_ERROR", "PERMISSION_DENIED")


async def test_at_2026_07_28_two_open_questions_each_answer_their_own_call(world: Path) -> None:
    more = {**BAGS, "total_baggages": 2}
    async with serving(world) as served, asking(served) as client:
        first = await _first_round(client)
        second = await client.session.call_tool(
            "update_reservation_baggages", more, allow_input_required=True
        )
        assert isinstance(second, types.InputRequiredResult)
        one = await _answer(client, first.request_state, {ANSWER_KEY: YES})
        after_one = await bags(client)
        two = await client.session.call_tool(
            "update_reservation_baggages",
            more,
            input_responses={ANSWER_KEY: YES},
            request_state=second.request_state,
            allow_input_required=True,
        )
        after_two = await bags(client)
    assert isinstance(one, types.CallToolResult) and isinstance(two, types.CallToolResult)
    assert (after_one, after_two) == (1, 2)
    started = [
        line["call_id"]
        for line in served.logged()
        if line["type"] == "tool_started" and line["name"] == "update_reservation_baggages"
    ]
    assert started == ["mcp-1", "mcp-2"]
    approvals = [line for line in served.logged() if line["type"] == "approval"]
    assert [(line["call_id"], line["request"]) for line in approvals] == [
        ("mcp-1", 1),
        ("mcp-2", 2),
    ]
    assert "total_baggages 0 → 1" in approvals[0]["preview"]


async def test_two_writes_are_counted_as_two(world: Path) -> None:
    async with (
        serving(world, fallback="auto", shared=True) as served,
        Client(served.server.mcp) as client,
    ):
        await client.call_tool("update_reservation_baggages", BAGS)
        await client.call_tool("update_reservation_baggages", {**BAGS, "total_baggages": 2})
        session = _session(served)
        assert (session.own_writes, served.server.sessions.writes.total) == (2, 2)


# -- sessions by key, and the server's refusals ---------------------------------------------


async def test_a_session_ended_is_refused_in_words_and_its_folder_removed(world: Path) -> None:
    from airline_agent.mcp_server.session import SessionEnded

    async with serving(world) as served:
        sessions = served.server.sessions
        assert sessions.take("never opened") is None
        session = sessions.get("key")
        assert isinstance(session.last_used, float) and session.last_used > 0
        folder = session.scratch
        assert folder is not None and folder.is_dir()
        assert sessions.take("key") is session
        sessions.finish(session)
        assert not folder.exists()
        with pytest.raises(SessionEnded) as ended:
            sessions.get("key")
        assert str(ended.value) == "this MCP session has ended; start a new one"
        with pytest.raises(MCPError) as refused:
            await session.call("calculate", {"expression": "1"}, None)
        assert refused.value.message == "this MCP session has ended"


async def test_a_shared_database_outlives_a_session(world: Path) -> None:
    async with serving(world, shared=True) as served:
        sessions = served.server.sessions
        first = sessions.get("one")
        sessions.finish(sessions.take("one") or first)
        second = sessions.get("two")
        found = await second.call("get_reservation_details", {"reservation_id": "EHGLP3"}, None)
    assert not found.is_error  # type: ignore[union-attr]


class _Request:
    """A request's context as the SDK gives it: over HTTP with the transport's session
    header (None: without it), or a request of no HTTP at all (`http=False`)."""

    def __init__(self, session: str | None, *, http: bool = True) -> None:
        headers = {} if session is None else {"mcp-session-id": session}
        self.request = type("HttpRequest", (), {"headers": headers})() if http else object()


async def test_over_http_a_call_belongs_to_its_transport_session(world: Path) -> None:
    from airline_agent.mcp_server.server import NO_SESSION

    async with serving(world, customer=None) as served:
        served.server.mcp.transport = "http"
        request: Any = _Request("abc")
        found = await served.server.mcp.answer(request, "calculate", {"expression": "2 + 2"})
        assert [key for key, _ in served.server.sessions.items()] == ["abc"]
        for nobody in (None, _Request(None), _Request("abc", http=False)):
            with pytest.raises(MCPError) as refused:
                await served.server.mcp.answer(nobody, "calculate", {"expression": "1"})  # type: ignore[arg-type]
            assert (refused.value.code, refused.value.message) == (INVALID_REQUEST, NO_SESSION)
    assert found.content[0].text == "4.0"  # type: ignore[union-attr]


async def test_a_session_that_cannot_be_opened_is_an_internal_error_result(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with serving(world) as served:
        sessions = served.server.sessions

        def fail() -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(sessions, "_open", fail)
        refused = await served.server.mcp.answer(None, "calculate", {"expression": "1"})
    assert isinstance(refused, types.CallToolResult) and refused.is_error
    expected = {
        "error": "INTERNAL_ERROR",
        "message": "this session could not be opened. The tool failed unexpectedly "
        "(OSError: [Errno 28] No space left on device); nothing was changed.",
    }
    assert payload(refused) == refused.structured_content == expected


# -- the prompt ------------------------------------------------------------------------------


async def test_the_prompt_names_a_known_customer_as_the_database_has_the_id(world: Path) -> None:
    async with serving(world, customer=None) as served, Client(served.server.mcp) as client:
        named = await client.get_prompt("airline_agent", {"customer": f" {EMMA} "})
        nobody = await client.get_prompt("airline_agent", {})
        policy = await client.read_resource("airline://policy")
    text = named.messages[0].content.text  # type: ignore[union-attr]
    assert EMMA in text and f" {EMMA} " not in text
    assert "2024-05-15" in text  # the server's clock
    assert EMMA not in nobody.messages[0].content.text  # type: ignore[union-attr]
    assert "2024-05-15" in policy.contents[0].text  # type: ignore[union-attr]


async def test_the_prompt_of_a_server_bound_from_the_start_names_its_customer(world: Path) -> None:
    async with serving(world, customer=NOAH) as served, Client(served.server.mcp) as client:
        prompt = await client.get_prompt("airline_agent", {})
    assert NOAH in prompt.messages[0].content.text  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("nobody_0000", '"nobody_0000"'),
        ("x" * 40, f'"{"x" * 40}"'),
        ("x" * 41, f'"{"x" * 40}\\u2026"'),
        ("\x1b]0;x\x07", '"\\u001b]0;x\\u0007"'),
    ],
    ids=["unknown", "40 characters", "41 characters", "escapes"],
)
async def test_a_prompt_for_no_customer_is_refused_saying_what_was_given(
    world: Path, given: str, said: str
) -> None:
    async with serving(world) as served, Client(served.server.mcp) as client:
        with pytest.raises(MCPError) as refused:
            await client.get_prompt("airline_agent", {"customer": given})
    assert refused.value.code == INVALID_PARAMS
    assert refused.value.message == f"customer: {said} is no customer's user id"


async def test_a_prompt_in_a_style_of_no_kind_is_refused(world: Path) -> None:
    async with serving(world) as served, Client(served.server.mcp) as client:
        with pytest.raises(MCPError) as refused:
            await client.get_prompt("airline_agent", {"style": "terse"})
        full = await client.get_prompt("airline_agent", {"style": "full"})
        lean = await client.get_prompt("airline_agent", {"style": ""})
    assert refused.value.code == INVALID_PARAMS
    assert refused.value.message == 'style: "terse" is not one of: lean, full'
    assert len(full.messages[0].content.text) > len(lean.messages[0].content.text)  # type: ignore[union-attr]
