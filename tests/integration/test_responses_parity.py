"""A scenario plays the same on both wires: offline, played as the TUI plays it (streamed,
the scripted answers generated in each server's shape), `--api responses` gives the same
trace entries, the same database changes and the same replies as `--api chat`.

What may differ is the wire itself, and only where the trace describes it: the request
entries (`api`: a Responses body is instructions and input items, its parameters its
own, its reasoning items sent back) and the prefix's size (Responses' flat tool schemas,
`strict: false` said, count differently). Everything else — who produced what, in which
order, each tool call and its result, each reply, every row a write changed — is equal.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from airline_agent.agent import responses_wire
from airline_agent.agent.events import AgentEvent, AssistantMessage, RequestSent, ToolFinished
from airline_agent.agent.history import problems as history_problems
from airline_agent.scenarios import datasets
from airline_agent.scenarios.library import SHOWCASE, library_dir
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.runner import play_turns, replay_scenario
from airline_agent.stack import open_existing_database, scenario_stack
from airline_agent.tui.trace import TraceBuilder, TraceEntry
from tests.support.events import of_type

SCENARIOS = sorted(path.stem for path in library_dir().glob("*.yaml"))
WIRE_ENTRIES = ("api", "developer")  # the entries that describe the request on its wire
TIMINGS = ("latency_ms", "elapsed_ms")


def played(name: str, api: str) -> list[AgentEvent]:
    """The scenario's events played as the TUI plays it (the history valid at its end)."""
    scenario = load_scenario(library_dir() / f"{name}.yaml")

    async def play() -> list[AgentEvent]:
        copy, _ = datasets.fresh_copy(scenario.dataset, scenario.name)
        stack = scenario_stack(scenario, open_existing_database(copy), stream=True, api=api)
        events: list[AgentEvent] = []
        try:
            async for _, _, turn_events in play_turns(scenario, stack):
                events += turn_events
            if api == "responses":
                assert responses_wire.problems(stack.session.request_body()["input"]) == []
            assert history_problems(stack.session.history) == []
        finally:
            stack.close()
            datasets.discard(copy)
        return events

    return asyncio.run(play())


def trace(events: list[AgentEvent]) -> list[TraceEntry]:
    builder = TraceBuilder()
    return [entry for event in events for entry in builder.feed(event)]


def comparable(entry: TraceEntry) -> tuple:
    """What must be equal on both wires: everything of an entry that does not describe
    the request's wire; of those that do, who produced it and its title."""
    if entry.producer in WIRE_ENTRIES:
        return (entry.producer, entry.title, entry.request)
    # How long a tool took is the machine's, not the wire's; a tool round's empty text is
    # no message item at all on the Responses wire ("" on Chat's, null on the other).
    details = {k: v for k, v in entry.details.items() if k not in TIMINGS}
    if details.get("content") == "":
        details["content"] = None
    # A time of a second or more is written with a thousands comma ("1,204 ms"): a tool
    # run that slow on a busy machine must not make the wires differ.
    meta = re.sub(r"[\d.,]+ ms", "… ms", entry.meta)
    # The rows one write changed come in no fixed order (tools/changes.py reads them from
    # the ORM session's sets), on either wire: compared as a set.
    body = (
        entry.body if entry.producer != "framework" else "\n".join(sorted(entry.body.split("\n")))
    )
    if isinstance(details.get("changes"), list):
        details["changes"] = sorted(details["changes"], key=repr)
    return (
        entry.producer,
        entry.title,
        body,
        meta,
        entry.error,
        entry.warning,
        entry.request,
        entry.call_ids,
        repr(details),
    )


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_scenario_plays_the_same_on_both_wires(name: str) -> None:
    chat = played(name, "chat")
    responses = played(name, "responses")
    assert [comparable(e) for e in trace(responses)] == [comparable(e) for e in trace(chat)]

    # The database changes, row by row, before → after.
    def changes(events: list[AgentEvent]) -> list[tuple]:
        return [
            (
                e.call_id,
                e.name,
                e.result,
                e.error,
                sorted(e.changes, key=lambda c: (c.table, c.key)),
            )
            for e in of_type(events, ToolFinished)
        ]

    assert changes(responses) == changes(chat)

    # The replies (a tool round's empty text is no message item on the Responses wire).
    def replies(events: list[AgentEvent]) -> list[tuple]:
        return [
            (m.content or None, m.tool_calls, m.reasoning, m.finish_reason)
            for m in of_type(events, AssistantMessage)
        ]

    assert replies(responses) == replies(chat)
    assert all(sent.api == "responses" for sent in of_type(responses, RequestSent))
    assert all(sent.api == "chat" for sent in of_type(chat, RequestSent))


def test_the_showcase_on_the_responses_wire_sends_its_reasoning_back() -> None:
    """The one request line that differs, as the trace says it: Chat Completions leaves
    `reasoning_content` out; the Responses wire sends the reasoning item back, before the
    call it led to."""
    chat = played(SHOWCASE, "chat")
    responses = played(SHOWCASE, "responses")
    said = {
        api: next(e.body for e in trace(events) if e.producer == "api" and e.request == 2)
        for api, events in (("chat", chat), ("responses", responses))
    }
    assert "reasoning_content of response #1 not sent back" in said["chat"]
    assert "reasoning item rs_scripted_1 of response #1 sent back (input[1])" in said["responses"]
    assert "Responses API: instructions + 4 input items · 14 tools" in said["responses"]
    second = of_type(responses, RequestSent)[1].body
    assert second is not None
    assert [item.get("type", "message") for item in second["input"]] == [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
    ]


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_every_shipped_scenario_replays_on_either_wire(api: str) -> None:
    """`replay --api …`: each shipped scenario passes on both (their JSON answers)."""
    for path in sorted(library_dir().glob("*.yaml")):
        report = replay_scenario(load_scenario(path), keep_events=False, api=api)
        assert report.status == "passed", (path.stem, report.why())
