"""The showcase plays the articles' round, offline: a tool-call response with empty content,
`tool_calls`, a `reasoning_content` that is shown and not sent back, usage with reasoning
and cached tokens, and a final reply with `finish_reason: "stop"` — replayed (JSON
responses) and played as the TUI does (streamed)."""

from __future__ import annotations

from openai.types.chat import ChatCompletion, ChatCompletionChunk

from airline_agent.agent.events import (
    AgentEvent,
    AssistantMessage,
    ReasoningDelta,
    RequestSent,
    UsageReported,
)
from airline_agent.scenarios import datasets
from airline_agent.scenarios.library import SHOWCASE, library_dir
from airline_agent.scenarios.loader import load_library, load_scenario
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.runner import replay_scenario
from airline_agent.scenarios.script import ScenarioScript
from airline_agent.stack import open_existing_database, scenario_stack, scripted_backend
from tests.support.events import of_type


def showcase() -> Scenario:
    return load_scenario(library_dir() / f"{SHOWCASE}.yaml")


async def _played_streamed(scenario: Scenario) -> list[AgentEvent]:
    """As the TUI plays a scenario: streamed, on a fresh copy of its dataset."""
    copy, _ = datasets.fresh_copy(scenario.dataset, scenario.name)
    stack = scenario_stack(scenario, open_existing_database(copy), stream=True)
    events: list[AgentEvent] = []
    try:
        script = ScenarioScript(scenario, scripted_backend(stack))
        for turn in scenario.turns:
            script.load(turn)
            async for event in stack.session.run_turn(turn.customer):
                script.answer(event)
                events.append(event)
    finally:
        stack.close()
        datasets.discard(copy)
    return events


def _check_the_round(events: list[AgentEvent]) -> None:
    sent = of_type(events, RequestSent)
    answers = of_type(events, AssistantMessage)
    usages = [u.usage for u in of_type(events, UsageReported)]
    assert len(sent) == len(answers) == 3
    tool_round, final, second_turn = answers
    # STEP B, the tool-call round: no words, one call, reasoning.
    assert tool_round.content == ""
    assert [c.name for c in tool_round.tool_calls] == ["get_reservation_details"]
    assert tool_round.finish_reason == "tool_calls"
    assert tool_round.reasoning and "get_reservation_details" in tool_round.reasoning
    first = usages[0]
    assert first is not None and first.reasoning_tokens > 0 and first.cached_tokens > 0
    assert first.completion_tokens > first.reasoning_tokens  # reasoning is part of the output
    # STEP D: the next request echoes the calls and answers them, without the reasoning.
    echoed = sent[1].messages[2]
    assert echoed["role"] == "assistant" and echoed["tool_calls"][0]["id"] == "call_ehglp3_1"
    assert "reasoning_content" not in echoed
    assert sent[1].messages[3]["role"] == "tool"
    assert sent[1].messages[3]["tool_call_id"] == "call_ehglp3_1"
    # The final reply, and the next turn: still no reasoning sent back.
    assert final.finish_reason == "stop" and final.tool_calls == () and final.reasoning
    assert second_turn.finish_reason == "stop" and second_turn.reasoning
    assert all("reasoning_content" not in m for r in sent for m in r.messages)
    assert all(u is not None and u.cached_tokens > 0 and u.reasoning_tokens > 0 for u in usages)
    assert all(m.scripted and m.raw is not None and m.raw.generated for m in answers)


def test_the_showcase_replays_the_articles_round():
    report = replay_scenario(showcase())
    assert report.status == "passed", report.why()
    _check_the_round(report.events)
    tool_round = of_type(report.events, AssistantMessage)[0]
    assert tool_round.raw is not None and tool_round.raw.completion is not None
    body = ChatCompletion.model_validate(tool_round.raw.completion)
    assert body.choices[0].message.content == ""
    assert body.choices[0].message.tool_calls[0].function.arguments == (
        '{"reservation_id": "EHGLP3"}'
    )
    assert tool_round.raw.completion["choices"][0]["message"]["reasoning_content"]
    assert body.usage is not None
    assert body.usage.completion_tokens_details.reasoning_tokens == 100
    assert body.usage.prompt_tokens_details.cached_tokens == 2560


async def test_the_showcase_streamed_shows_the_reasoning_and_keeps_its_chunks():
    events = await _played_streamed(showcase())
    _check_the_round(events)
    assert {d.request for d in of_type(events, ReasoningDelta)} == {1, 2, 3}
    tool_round = of_type(events, AssistantMessage)[0]
    assert tool_round.raw is not None and tool_round.raw.kind == "stream"
    chunks = [ChatCompletionChunk.model_validate(c) for c in tool_round.raw.chunks]
    assert chunks[-1].usage is not None and chunks[-1].usage.prompt_tokens == 2874
    assert tool_round.raw.assembled["choices"][0]["message"]["content"] == ""


def test_the_library_fills_the_cached_and_reasoning_columns():
    scenarios = [s for s in load_library(library_dir()) if isinstance(s, Scenario)]
    usages = {s.name: [r.usage for t in s.turns for r in t.responses if r.usage] for s in scenarios}
    cached = [name for name, used in usages.items() if any(u.cached_tokens for u in used)]
    reasoned = [name for name, used in usages.items() if any(u.reasoning_tokens for u in used)]
    # A conversation's later requests start with the earlier ones: the prompt cache serves them.
    assert len(cached) >= 15
    assert SHOWCASE in reasoned
