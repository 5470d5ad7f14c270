"""The trace's words and figures, without a screen: rows before → after, approvals answered,
STEP A order, the prefix and reasoning notes, one number format, scripted latencies."""

from __future__ import annotations

import asyncio

from airline_agent.agent.events import (
    ApprovalDecision,
    ApprovalRequested,
    AssistantMessage,
    ErrorOccurred,
    PendingWrite,
    RequestSent,
    ToolCall,
    ToolFinished,
    TurnStarted,
)
from airline_agent.agent.prefix import PrefixInfo
from airline_agent.tools.outcome import RowChange
from airline_agent.tui.formatting import latency, tokens
from airline_agent.tui.trace import TraceBuilder, describe_change

SYSTEM = {"role": "system", "content": "You are the airline's agent."}
TOOLS = [{"type": "function", "function": {"name": "cancel_reservation"}}]


def _sent(request: int, messages: list[dict], unchanged: bool | None) -> RequestSent:
    prefix = PrefixInfo(2309, True, unchanged, "digest")
    return RequestSent(1, request, "m", [SYSTEM, *messages], TOOLS, {}, prefix)


def test_a_cancelled_reservation_reads_active_to_cancelled() -> None:
    # The table as the product writes it, "reservation" (this test used "reservations",
    # which nothing writes: the real trace said "status (none) → cancelled").
    change = RowChange("reservation", "EHGLP3", {"status": None}, {"status": "cancelled"})
    assert describe_change(change) == "reservation EHGLP3: status active → cancelled"


def test_an_inserted_payment_says_its_amount() -> None:
    # Issue 19 item 19: "payment GWL0HE/1: inserted", and not a word of the $523.
    row = {"reservation_id": "GWL0HE", "position": 1, "payment_id": "gift_card_1", "amount": -523}
    refund = RowChange("payment", "GWL0HE/1", None, row)
    assert describe_change(refund) == (
        "payment GWL0HE/1: inserted, refund $523 to gift_card_1 (reservation GWL0HE)"
    )


def test_the_first_request_says_what_api_means_and_the_details_use_the_wire_names() -> None:
    # Issue 19 item 19: the `api` label, and the details' "reasoning" for the wire's
    # `reasoning_content`, were explained nowhere near where they appear.
    builder = TraceBuilder()
    first = builder.feed(_sent(1, [{"role": "user", "content": "hi"}], None))[-1]
    assert first.producer == "api"
    assert "the request the framework sent to the model's API" in first.body
    second = builder.feed(_sent(2, [{"role": "user", "content": "hi"}], True))[-1]
    assert "the request the framework sent" not in second.body  # said once, not each time
    answer = AssistantMessage(1, None, (ToolCall("c1", "x", "{}"),), "think", "tool_calls", 5.0)
    [model] = builder.feed(answer)
    assert model.details["reasoning_content"] == "think" and "reasoning" not in model.details


def test_a_field_that_appears_or_goes_is_named_plainly() -> None:
    change = RowChange("users", "u1", {"a": 1, "gone": "x"}, {"a": 1, "born": None})
    assert describe_change(change) == "users u1: gone x → (removed); born (new) → (none)"
    assert describe_change(RowChange("t", "k", None, {"a": 1})) == "t k: inserted"
    assert describe_change(RowChange("t", "k", {"a": 1}, None)) == "t k: deleted"


def test_every_token_count_has_one_format_and_a_scripted_reply_no_latency() -> None:
    assert [tokens(n) for n in (7_890, 10_000, 1_234_567)] == ["7,890", "10,000", "1,234,567"]
    assert latency(251.4, scripted=True) == "scripted"
    assert latency(251.6) == "252 ms"


def test_the_developer_entry_comes_before_the_first_customer_message() -> None:
    builder = TraceBuilder()
    assert builder.feed(TurnStarted(1, "Cancel EHGLP3")) == []  # held: STEP A first
    entries = builder.feed(_sent(1, [{"role": "user", "content": "Cancel EHGLP3"}], None))
    assert [e.producer for e in entries] == ["developer", "customer", "api"]
    assert "prefix 2,309 tokens (cl100k)" in entries[0].body
    assert [e.producer for e in builder.feed(TurnStarted(2, "And now?"))] == ["customer"]


def test_a_customer_message_is_never_lost_when_no_request_follows() -> None:
    builder = TraceBuilder()
    builder.feed(TurnStarted(1, "hello"))
    entries = builder.feed(ErrorOccurred("auth", "The API key was refused."))
    assert [e.title for e in entries] == ["turn 1 · customer message", "error · auth"]


def test_the_next_request_says_the_reasoning_was_left_out_and_the_prefix_unchanged() -> None:
    builder = TraceBuilder()
    builder.feed(_sent(1, [], None))
    call = ToolCall("call_1", "cancel_reservation", '{"reservation_id": "EHGLP3"}')
    [model] = builder.feed(AssistantMessage(1, "", (call,), "think", "tool_calls", 0.0, None, True))
    assert "· id call_1" in model.body and model.meta == "tool_calls · scripted"
    assert model.call_ids == ("call_1",)
    echoed = {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1"}]}
    [request] = builder.feed(_sent(2, [echoed], True))
    assert "unchanged since request #1" in request.body
    assert "reasoning_content of response #1 not sent back" in request.body
    [third] = builder.feed(_sent(3, [echoed], False))
    assert "CHANGED" in third.body and "not sent back" not in third.body


def test_a_tool_result_carries_its_call_id_and_a_rounded_time() -> None:
    finished = ToolFinished("call_1", "get_user_details", {"u": 1}, {"ok": 1}, None, 3.14159)
    [entry] = TraceBuilder().feed(finished)
    assert "role: tool · tool_call_id call_1" in entry.body
    assert entry.call_ids == ("call_1",) and entry.details["elapsed_ms"] == 3.1


async def test_an_approval_entry_says_what_was_approved_and_declined() -> None:
    builder = TraceBuilder()
    decision: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
    calls = (PendingWrite("c1", "cancel_reservation", {}, ""), PendingWrite("c2", "book", {}, ""))
    [asked] = builder.feed(ApprovalRequested(1, calls, decision))
    assert asked.title == "approval asked · 2 write calls" and asked.call_ids == ("c1", "c2")
    decision.set_result(ApprovalDecision({"c1": True, "c2": False}))
    answer, tool = builder.feed(ToolFinished("c1", "cancel_reservation", {}, {}, None, 1.0))
    assert answer.title == "approval · approved cancel_reservation · declined book"
    assert answer.producer == "customer" and tool.title == "tool cancel_reservation"


def test_the_wait_for_a_response_shows_seconds_and_the_prompt_read() -> None:
    from airline_agent.agent.events import PromptProgress, TextDelta
    from airline_agent.tui.waiting import AT_WORK, ResponseWait

    shown: list[str] = []
    now = [100.0]
    wait = ResponseWait(shown.append, clock=lambda: now[0])
    wait.observe(_sent(2, [], None))
    now[0] = 104.6
    wait.tick()
    assert shown[-1] == "waiting 4 s for response #2 · esc cancels"
    wait.observe(PromptProgress(2, 1024, 2874, 512))
    assert shown[-1] == (
        "waiting 4 s for response #2 · prompt 1,024 of 2,874 tokens read (512 cached) · esc cancels"
    )
    wait.observe(TextDelta(2, "Hello"))
    assert shown[-1] == AT_WORK
    wait.tick()
    assert shown[-1] == AT_WORK  # nothing awaited: the tick says nothing


def test_a_stalled_response_is_said_on_the_status_line_until_data_comes() -> None:
    """Issue 19 item 12: the stall the loop reports, counted on as the seconds go by."""
    from airline_agent.agent.events import ResponseStalled, TextDelta
    from airline_agent.tui.waiting import AT_WORK, ResponseWait

    shown: list[str] = []
    now = [100.0]
    wait = ResponseWait(shown.append, clock=lambda: now[0])
    wait.observe(_sent(2, [], None))
    wait.observe(TextDelta(2, "Your"))
    assert shown[-1] == AT_WORK
    now[0] = 120.0
    wait.observe(ResponseStalled(2, 20.0, 1))
    assert shown[-1] == "response #2 stalled: no data for 20 s · esc cancels"
    now[0] = 121.5
    wait.tick()
    assert shown[-1] == "response #2 stalled: no data for 21 s · esc cancels"
    wait.observe(TextDelta(2, " reservation"))
    assert shown[-1] == AT_WORK


def test_llama_servers_prompt_progress_becomes_a_piece_and_no_first_token() -> None:
    from airline_agent.agent.streaming import PromptProgressPiece, StreamAssembler

    assembler = StreamAssembler()
    chunk = {
        "id": "c",
        "model": "m",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}],
        "prompt_progress": {"total": 36, "cache": 4, "processed": 20, "time_ms": 57},
    }
    assert assembler.feed(chunk) == [PromptProgressPiece(20, 36, 4)]
    assert assembler.feed({"choices": [], "prompt_progress": {"total": 0}}) == []
