"""Each front end shows every finding with why it is unsupported: the chat line, the trace."""

from __future__ import annotations

import io

from airline_agent.agent.events import GroundingWarning
from airline_agent.agent.grounding import TEXT_TOOL_CALL_WHY, Finding
from airline_agent.commands.chat.output import Output
from airline_agent.commands.chat.printer import Printer
from airline_agent.redaction import Redactor
from airline_agent.tui.trace import TraceBuilder

WARNING = GroundingWarning.of(
    3,
    "I looked up HAT002.",
    (
        Finding("I looked up", "claimed_action", "claims a look-up, but no tool was called"),
        Finding("HAT002", "flight_number", "no tool result or customer message gave this"),
    ),
)


def test_the_warning_keeps_the_values_for_existing_consumers() -> None:
    assert WARNING.unsupported == ("I looked up", "HAT002")


def test_chat_prints_one_line_naming_each_finding_and_why() -> None:
    out = io.StringIO()
    Printer(Output(out, Redactor()), Output(io.StringIO(), Redactor())).show(WARNING)
    assert out.getvalue() == (
        "  ! grounding: I looked up (claims a look-up, but no tool was called); "
        "HAT002 (no tool result or customer message gave this)\n"
    )


def test_the_trace_entry_carries_the_findings() -> None:
    text_call = GroundingWarning.of(
        4, '{"name": "x"}', (Finding('{"name": "x"}', "tool_call_as_text", TEXT_TOOL_CALL_WHY),)
    )
    (entry,) = TraceBuilder().feed(text_call)
    assert entry.body == '{"name": "x"} (the model wrote a tool call as text; nothing was run)'
    assert entry.details["findings"] == [
        {"value": '{"name": "x"}', "kind": "tool_call_as_text", "why": TEXT_TOOL_CALL_WHY}
    ]
