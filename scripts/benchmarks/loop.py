"""The loop part: our loop's own overhead per model request, beside the OpenAI Agents SDK.

One scripted conversation — look up the customer, look up the reservation, answer — so
three model requests and two tool calls per run, with trivial tools of identical
schemas on both sides (tool time is not what is measured here).

- instant backend: our loop with the scripted backend, against the SDK's Runner with a
  `Model` that answers instantly from the same script (pure loop cost per request).
- loopback HTTP: our loop with `OpenAIBackend`, against the SDK's
  `OpenAIChatCompletionsModel`, both through `openai.AsyncOpenAI` to the tests' loopback
  server serving the same replies; the bare client making the same three requests is
  measured too, and "overhead" is each side's time per request minus the bare client's.

Targets (issue 31): our loop's own cost per request with the instant backend at most
0.25× the SDK's; over loopback HTTP, our overhead per request at most 0.25× the SDK's.
Both stand for what a user could notice: the loop's work stays small beside the SDK's,
and nothing it adds shows beside a model's reply (100 ms to a minute).

The instant backend's two sides run in alternating blocks (ours, the SDK, ours…), each
block after a run of its own to warm up: a block runs warm in its own caches, and a
change in the shared machine's load (other processes come and go) falls on both sides
instead of on one. Both sides first run `WARMUP` conversations unmeasured: the first
compiles the grounding check's patterns, and the interpreter specialises a code path
only after it has run a few times.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Row, Timing, timing

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # for tests.support.chat_server (the loopback server)

PART = "loop"
REQUESTS_PER_RUN = 3
WARMUP = 10  # conversations run unmeasured by each side before the first block
INSTANT_TARGET = 0.25  # our cost per request with the instant backend, × the SDK's
HTTP_TARGET = 0.25  # our overhead per request over the bare client, × the SDK's
USER = {"user_id": "emma_kim_9957", "membership": "gold", "reservations": ["EHGLP3"]}
RESERVATION = {"reservation_id": "EHGLP3", "origin": "PHX", "destination": "JFK"}
INSTRUCTIONS = "You are an airline agent."  # the same short prompt on every side
ANSWER = "Reservation EHGLP3 goes from PHX to JFK."
RESULTS = {"get_user_details": json.dumps(USER), "get_reservation_details": json.dumps(RESERVATION)}
SCRIPT = [  # (tool name, arguments) per request; None: the final answer
    ("get_user_details", {"user_id": "emma_kim_9957"}),
    ("get_reservation_details", {"reservation_id": "EHGLP3"}),
    None,
]
SCHEMAS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} (benchmark stub).",
            "parameters": {
                "type": "object",
                "properties": {key: {"type": "string"}},
                "required": [key],
                "additionalProperties": False,
            },
        },
    }
    for name, key in (
        ("get_user_details", "user_id"),
        ("get_reservation_details", "reservation_id"),
    )
]


class StubToolbox:
    """The Toolbox interface with two instant read tools, in memory."""

    # Its calls never wait, so the loop calls them on the event loop: as the SDK's side
    # runs its tools (async functions) there. A real Toolbox's calls take a worker thread.
    calls_block = False

    def __init__(self) -> None:
        from airline_agent.domain.clock import Clock

        self.database = None
        self.clock = Clock.at()
        self.guard = True

    def schemas(self) -> list[dict[str, Any]]:
        return SCHEMAS

    def names(self) -> list[str]:
        return [s["function"]["name"] for s in SCHEMAS]

    def is_write(self, name: str) -> bool:
        return False

    def preview(self, name: str, arguments: dict, conversation: Any) -> str:
        return ""

    def call(self, name: str, arguments: Any, conversation: Any):
        from airline_agent.tools.outcome import ToolOutcome

        return ToolOutcome(name, arguments, RESULTS[name], None, 0.0)


# -- ours -------------------------------------------------------------------------------


def _scripted_responses():
    from airline_agent.agent.backends import ScriptedResponse, ScriptedToolCall

    return [
        ScriptedResponse(tool_calls=(ScriptedToolCall(step[0], step[1]),))
        if step
        else ScriptedResponse(ANSWER)
        for step in SCRIPT
    ]


async def _ours_once(session: Any) -> None:
    from airline_agent.agent.events import AssistantMessage

    session.new_conversation()
    said = [
        event.content
        async for event in session.run_turn("I am emma_kim_9957; what is EHGLP3?")
        if isinstance(event, AssistantMessage)
    ]
    # The whole conversation ran, as the SDK's side checks its final output.
    assert said[-1:] == [ANSWER], said


# -- the SDK ----------------------------------------------------------------------------


def _sdk_tools() -> list[Any]:
    from agents import FunctionTool

    def make(name: str, schema: dict) -> Any:
        async def invoke(_context: Any, _arguments: str) -> str:
            return RESULTS[name]

        return FunctionTool(
            name=name,
            description=schema["description"],
            params_json_schema=schema["parameters"],
            on_invoke_tool=invoke,
        )

    return [make(s["function"]["name"], s["function"]) for s in SCHEMAS]


def _instant_sdk_model() -> Any:
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class InstantModel(Model):
        """Answers from SCRIPT by position in the conversation, instantly."""

        async def get_response(self, system_instructions, input, *args, **kwargs):
            step = sum(1 for item in input if _kind(item) == "function_call_output")
            script = SCRIPT[step]
            if script:
                output = [
                    ResponseFunctionToolCall(
                        arguments=json.dumps(script[1]),
                        call_id=f"call_{step}",
                        name=script[0],
                        type="function_call",
                        id=f"fc_{step}",
                        status="completed",
                    )
                ]
            else:
                output = [
                    ResponseOutputMessage(
                        id="msg",
                        content=[
                            ResponseOutputText(annotations=[], text=ANSWER, type="output_text")
                        ],
                        role="assistant",
                        status="completed",
                        type="message",
                    )
                ]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args, **kwargs):  # pragma: no cover - not used
            raise NotImplementedError

    return InstantModel()


def _kind(item: Any) -> str | None:
    return item.get("type") if isinstance(item, dict) else getattr(item, "type", None)


async def _sdk_once(agent: Any) -> None:
    from agents import Runner

    result = await Runner.run(agent, "I am emma_kim_9957; what is EHGLP3?", max_turns=10)
    assert result.final_output == ANSWER, result.final_output


# -- the loopback server ----------------------------------------------------------------


def _queue_conversation(server: Any) -> None:
    for step in SCRIPT:
        if step:
            server.completion(tool_calls=[(step[0], step[1])], usage=(500, 20))
        else:
            server.completion(ANSWER, usage=(600, 12))


async def _bare_once(client: Any) -> None:
    """The same three requests with the bare client and hand-built history."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": "I am emma_kim_9957; what is EHGLP3?"},
    ]
    for _ in SCRIPT:
        completion = await client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=SCHEMAS
        )
        message = completion.choices[0].message
        if not message.tool_calls:
            return
        call = message.tool_calls[0]
        messages.append(message.model_dump(exclude_none=True))
        messages.append(
            {"role": "tool", "tool_call_id": call.id, "content": RESULTS[call.function.name]}
        )


# -- measuring --------------------------------------------------------------------------


async def _measure(once: Any, runs: int, *, before: Any = None, warmup: int = 3) -> list[float]:
    """Per-request ms of each of `runs` conversations of REQUESTS_PER_RUN requests."""
    samples = []
    for index in range(warmup + runs):
        if before is not None:
            before()
        start = time.perf_counter()
        await once()
        elapsed = (time.perf_counter() - start) * 1000 / REQUESTS_PER_RUN
        if index >= warmup:
            samples.append(elapsed)
    return samples


async def _in_blocks(
    contenders: dict[str, tuple[Any, Any]], runs: int, *, blocks: int
) -> dict[str, list[float]]:
    """Per-request ms of each contender (`once`, `before`): `runs` in all, in `blocks`
    blocks taking turns, each block after one unmeasured run."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for once, before in contenders.values():
        for _ in range(WARMUP):
            if before is not None:
                before()
            await once()
    for block in range(blocks):
        size = runs // blocks + (1 if block < runs % blocks else 0)
        for name, (once, before) in contenders.items():
            timed = await _measure(once, size, before=before, warmup=1)
            samples[name] += timed
    return samples


async def _interleaved(
    contenders: dict[str, Any], runs: int, *, before: Any, warmup: int = 3
) -> dict[str, list[float]]:
    """Per-request ms of each contender, taking turns run by run (paired samples)."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for index in range(warmup + runs):
        for name, once in contenders.items():
            before()
            start = time.perf_counter()
            await once()
            if index >= warmup:
                samples[name].append((time.perf_counter() - start) * 1000 / REQUESTS_PER_RUN)
    return samples


async def _run(quick: bool) -> list[Row]:
    import openai

    from airline_agent.agent.backends import ScriptedBackend
    from airline_agent.agent.loop import AgentSession, LoopOptions
    from airline_agent.agent.openai_backends import OpenAIBackend

    runs = 30 if quick else 200
    rows: list[Row] = []
    try:
        import agents  # noqa: F401

        have_sdk = True
        from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, set_tracing_disabled

        set_tracing_disabled(True)
    except ImportError as exc:
        have_sdk = False
        sdk_missing = f"agents not importable ({exc}); SDK baseline skipped"

    # Instant backend.
    backend = ScriptedBackend(model="gpt-4o-mini")
    session = AgentSession(
        backend, StubToolbox(), LoopOptions(stream=False), system_prompt=INSTRUCTIONS
    )
    responses = _scripted_responses()
    instant: dict[str, tuple[Any, Any]] = {
        "ours": (lambda: _ours_once(session), lambda: backend.load(responses))
    }
    if have_sdk:
        agent = Agent(
            name="airline",
            instructions=INSTRUCTIONS,
            tools=_sdk_tools(),
            model=_instant_sdk_model(),
        )
        instant["sdk"] = (lambda: _sdk_once(agent), None)
    measured = await _in_blocks(instant, runs, blocks=max(3, runs // 20))
    ours = timing(measured["ours"])
    if have_sdk:
        rows.append(
            _row("per request, instant backend", ours, timing(measured["sdk"]), INSTANT_TARGET)
        )
    else:
        rows.append(Row(PART, "per request, instant backend", ours, target=sdk_missing))

    # Loopback HTTP: the bare client, ours and the SDK take turns, run by run.
    from tests.support.chat_server import ChatServer

    with ChatServer() as server:
        client = openai.AsyncOpenAI(api_key="bench", base_url=server.url, max_retries=0)
        backend = OpenAIBackend(model="gpt-4o-mini", client=client)
        session = AgentSession(
            backend, StubToolbox(), LoopOptions(stream=False), system_prompt=INSTRUCTIONS
        )
        contenders: dict[str, Any] = {
            "bare": lambda: _bare_once(client),
            "ours": lambda: _ours_once(session),
        }
        if have_sdk:
            model = OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client)
            agent = Agent(
                name="airline",
                instructions=INSTRUCTIONS,
                tools=_sdk_tools(),
                model=model,
                model_settings=ModelSettings(),
            )
            contenders["sdk"] = lambda: _sdk_once(agent)
        samples = await _interleaved(contenders, runs, before=lambda: _queue_conversation(server))
        await client.close()
    ours_http, bare = timing(samples["ours"]), timing(samples["bare"])
    overhead = [o - b for o, b in zip(samples["ours"], samples["bare"], strict=True)]
    if have_sdk:
        sdk_http = timing(samples["sdk"])
        sdk_overhead = [s - b for s, b in zip(samples["sdk"], samples["bare"], strict=True)]
        rows.append(
            Row(PART, "per request, loopback HTTP (wall)", ours_http, "Agents SDK", sdk_http)
        )
        rows.append(Row(PART, "per request, bare openai client (reference)", bare))
        rows.append(
            _row(
                "overhead per request over bare client, HTTP",
                timing(overhead),
                timing(sdk_overhead),
                HTTP_TARGET,
            )
        )
    else:
        rows.append(Row(PART, "per request, loopback HTTP (wall)", ours_http, target=sdk_missing))
    return rows


def _row(name: str, ours: Timing, sdk: Timing, target: float) -> Row:
    row = Row(PART, name, ours, "Agents SDK", sdk, target=f"≤ {target:g}× SDK")
    return Row(**{**row.__dict__, "met": row.ratio is not None and row.ratio <= target})


def run(quick: bool) -> list[Row]:
    return asyncio.run(_run(quick))
