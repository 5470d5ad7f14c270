"""What goes into a transcript's text: the Markdown a person reads (with `cat`, too) shows
a model's or a tool's control codes as visible escapes (issue 19 item 2), and the JSONL
stays valid JSON with the same values."""

from __future__ import annotations

import json
import re

from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    RequestSent,
    ToolCall,
    ToolFinished,
    TurnStarted,
)
from airline_agent.redaction import Redactor
from airline_agent.scenarios.transcript import to_jsonl, to_markdown

HOSTILE = "\x1b]0;title\x07 \x1b]52;c;b3duZWQ=\x07 \x1b[2J \x9b31m \u202etxt.exe\u202c \x7f\r"
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SHOWN = "\\u001b]0;title\\u0007 \\u001b]52;c;b3duZWQ=\\u0007 \\u001b[2J \\u009b31m"


def hostile_events() -> list:
    call = ToolCall("call_1", "get_user_details", json.dumps({"user_id": HOSTILE}))
    return [
        TurnStarted(1, f"customer {HOSTILE}"),
        RequestSent(1, 1, "m", [{"role": "user", "content": HOSTILE}], [], {}),
        AssistantMessage(1, None, (call,), f"reasoning {HOSTILE}", "tool_calls", 1.0),
        ToolFinished(
            "call_1", "get_user_details", {"user_id": HOSTILE}, {"note": HOSTILE}, None, 1.0
        ),
        AssistantMessage(1, f"reply {HOSTILE}", (), None, "stop", 1.0),
        ErrorOccurred("server", f"error {HOSTILE}"),
    ]


def test_the_markdown_transcript_shows_control_codes_as_escapes() -> None:
    markdown = to_markdown(hostile_events(), "hostile", Redactor())
    assert CONTROLS.findall(markdown) == []
    for where in ("**Customer:** customer ", "> reasoning ", "**Agent:** reply ", "): error "):
        assert where + SHOWN in markdown, where
    assert "\\u202etxt.exe\\u202c \\u007f\\u000d" in markdown


def test_the_jsonl_transcript_escapes_them_and_keeps_their_values() -> None:
    jsonl = to_jsonl(hostile_events(), Redactor())
    assert CONTROLS.findall(jsonl) == []
    [record] = [json.loads(line) for line in jsonl.splitlines()]
    assert record["body"]["messages"][0]["content"] == HOSTILE
    assert record["tool_results"][0]["content"] == json.dumps({"note": HOSTILE}, ensure_ascii=False)
    assert record["response"]["choices"][0]["message"]["content"] == f"reply {HOSTILE}"
