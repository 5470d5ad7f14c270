"""Hand-made agent events (the cancel-EHGLP3 conversation) and a controller that plays them.

Every value is pinned (ids, latencies, durations) so snapshots and assertions are stable.
A grounding warning is never written by hand: each reply is read by the product's own
check (agent/grounding.py) against what the scripted conversation gave so far, as the
loop reads it, and warned about only where that check finds something. The refusal
misstates the booking's date (the record says 2024-05-03): a genuine finding.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator

from airline_agent.agent.conversation import Conversation
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    GroundingWarning,
    PendingWrite,
    ReasoningDelta,
    RequestSent,
    TextDelta,
    ToolCall,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    Usage,
    UsageReported,
)
from airline_agent.agent.grounding import Evidence, ground_reply
from airline_agent.tools.outcome import RowChange
from airline_agent.tui.controller import Controller, ScenarioChoice
from airline_agent.tui.feed import Feed
from airline_agent.tui.status import DatabaseOrigin, Status

SYSTEM = "You are the airline's customer-service agent. Today is 2024-05-15 15:00 EST."
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("get_user_details", "get_reservation_details", "cancel_reservation")
]
CUSTOMER = "emma_kim_9957"
TOOL_NAMES = frozenset(tool["function"]["name"] for tool in TOOLS)
RESERVATION = {
    "reservation_id": "EHGLP3",
    "user_id": "emma_kim_9957",
    "origin": "PHX",
    "destination": "JFK",
    "flight_type": "one_way",
    "cabin": "basic_economy",
    "flights": [
        {"flight_number": "HAT156", "origin": "PHX", "destination": "SEA", "date": "2024-05-17"},
        {"flight_number": "HAT021", "origin": "SEA", "destination": "JFK", "date": "2024-05-17"},
    ],
    "passengers": [
        {"first_name": "Emma", "last_name": "Kim", "dob": "1967-07-04"},
        {"first_name": "Mason", "last_name": "Gonzalez", "dob": "1952-04-21"},
    ],
    "created_at": "2024-05-03T23:12:06",  # the refusal says 2024-05-04: a finding
    "insurance": "no",
    "status": None,
}
REFUSAL = (
    "I can't cancel **EHGLP3**: it is a *basic economy* booking made on 2024-05-04, more "
    "than 24 hours ago, without travel insurance, so policy does not allow a cancellation.\n\n"
    "- You can keep the trip as it is\n- or ask me about changing passengers"
)


class EventCounter:
    def __init__(self) -> None:
        self.request = 0
        self.messages: list[dict] = [{"role": "system", "content": SYSTEM}]
        # What the grounding check accepts as given, fed as the loop feeds it.
        self.evidence = Evidence(rules=[SYSTEM])

    def customer_says(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})
        self.evidence.add(text)

    def tool_answers(self, finished: ToolFinished) -> None:
        content = json.dumps(finished.result)
        self.messages.append({"role": "tool", "tool_call_id": finished.call_id, "content": content})
        self.evidence.add_tool_result(finished.name, content, ok=finished.error is None)

    def grounding(self, reply: str) -> list[AgentEvent]:
        """The warning the loop would give for this reply of the latest request (none
        when the product's check finds nothing)."""
        findings = ground_reply(reply, self.evidence, TOOL_NAMES)
        return [GroundingWarning.of(self.request, reply, findings)] if findings else []

    def request_sent(self, turn: int) -> RequestSent:
        self.request += 1
        return RequestSent(
            turn=turn,
            request=self.request,
            model="scripted",
            messages=list(self.messages),
            tools=TOOLS,
            params={"tool_choice": "auto", "stream": True},
        )


def tool_response(
    counter: EventCounter, turn: int, calls: list[tuple[str, dict]]
) -> list[AgentEvent]:
    sent = counter.request_sent(turn)
    request = counter.request
    tool_calls = tuple(
        ToolCall(f"call_{request}_{i}", name, json.dumps(args))
        for i, (name, args) in enumerate(calls)
    )
    counter.messages.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": c.call_id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in tool_calls
            ],
        }
    )
    reasoning = "The customer wants to cancel; look the booking up first."
    return [
        sent,
        ReasoningDelta(request, reasoning),  # the loop's AssistantMessage repeats it whole
        AssistantMessage(request, None, tool_calls, reasoning, "tool_calls", 412.0),
        UsageReported(request, Usage(1850, 24, 1024, 12), None, "scripted", 412.0, 128000),
    ]


def turn_one(counter: EventCounter) -> list[AgentEvent]:
    counter.customer_says("Please cancel my reservation EHGLP3.")
    events: list[AgentEvent] = [TurnStarted(1, "Please cancel my reservation EHGLP3.")]
    events += tool_response(counter, 1, [("get_reservation_details", {"reservation_id": "EHGLP3"})])
    looked_up = ToolFinished(
        "call_1_0",
        "get_reservation_details",
        {"reservation_id": "EHGLP3"},
        RESERVATION,
        None,
        3.0,
    )
    events += [
        ToolStarted(
            "call_1_0",
            "get_reservation_details",
            {"reservation_id": "EHGLP3"},
            '{"reservation_id": "EHGLP3"}',
        ),
        looked_up,
    ]
    counter.tool_answers(looked_up)
    sent = counter.request_sent(1)
    events += [sent]
    events += [TextDelta(sent.request, chunk) for chunk in _chunks(REFUSAL)]
    events += [
        AssistantMessage(sent.request, REFUSAL, (), None, "stop", 655.0),
        UsageReported(sent.request, Usage(2410, 96, 1792, 0), None, "scripted", 655.0, 128000),
        *counter.grounding(REFUSAL),
        TurnFinished(1, "answered", Usage(4260, 120, 2816, 12), None),
    ]
    counter.messages.append({"role": "assistant", "content": REFUSAL})
    return events


def turn_two(counter: EventCounter, decision: asyncio.Future | None = None) -> list[AgentEvent]:
    """A write that needs approval (then an error result, to show errors standing out)."""
    text = "Then add one checked bag, paid with my gift card."
    counter.customer_says(text)
    events: list[AgentEvent] = [TurnStarted(2, text)]
    args = {
        "reservation_id": "EHGLP3",
        "total_baggages": 1,
        "nonfree_baggages": 1,
        "payment_id": "gift_card_9562694",
    }
    events += tool_response(
        counter,
        2,
        [("update_reservation_baggages", args), ("get_user_details", {"user_id": "nobody"})],
    )
    events.append(
        ApprovalRequested(
            counter.request,
            (
                PendingWrite(
                    f"call_{counter.request}_0",
                    "update_reservation_baggages",
                    args,
                    "EHGLP3: bags 0 → 1 (1 paid, $50 from gift_card_9562694)",
                ),
            ),
            decision,  # type: ignore[arg-type]  # a fresh future is made when played
        )
    )
    bag = ToolFinished(
        f"call_{counter.request}_0",
        "update_reservation_baggages",
        args,
        {"reservation_id": "EHGLP3", "total_baggages": 1},
        None,
        5.0,
        (RowChange("reservations", "EHGLP3", {"total_baggages": 0}, {"total_baggages": 1}),),
    )
    events.append(bag)
    counter.tool_answers(bag)
    sent = counter.request_sent(2)
    nobody = ToolFinished(
        "call_x",
        "get_user_details",
        {"user_id": "nobody"},
        {"error": "NOT_FOUND", "message": "no user nobody"},
        "NOT_FOUND",
        1.0,
    )
    counter.tool_answers(nobody)
    done = "Done: one checked bag is on EHGLP3."
    events += [
        sent,
        nobody,
        AssistantMessage(sent.request, done, (), None, "stop", 300.0),
        UsageReported(sent.request, Usage(2600, 20, 2048, 0), None, "scripted", 300.0, 128000),
        *counter.grounding(done),
        TurnFinished(2, "answered", Usage(4450, 44, 3072, 12), None),
    ]
    return events


PASSENGER_FIX = {
    "reservation_id": "EHGLP3",
    "passengers": [
        {"first_name": "Emma", "last_name": "Kim", "dob": "1967-07-04"},
        {"first_name": "Mason", "last_name": "Gonzales", "dob": "1952-04-21"},
    ],
}


def turn_two_writes(counter: EventCounter) -> list[AgentEvent]:
    """One response with two write calls, both asked about in one approval."""
    text = "Add a checked bag, and my companion's name is Gonzales, with an s."
    counter.customer_says(text)
    events: list[AgentEvent] = [TurnStarted(2, text)]
    bags = {"reservation_id": "EHGLP3", "total_baggages": 1, "nonfree_baggages": 1,
            "payment_id": "gift_card_9562694"}  # fmt: skip
    calls = [
        ("update_reservation_baggages", bags),
        ("update_reservation_passengers", PASSENGER_FIX),
    ]
    events += tool_response(counter, 2, calls)
    request = counter.request
    pending = (
        PendingWrite(f"call_{request}_0", "update_reservation_baggages", bags,
                     "EHGLP3: bags 0 → 1 (1 paid, $50 from gift_card_9562694)"),
        PendingWrite(f"call_{request}_1", "update_reservation_passengers", PASSENGER_FIX,
                     "EHGLP3 passenger 2: last_name Gonzalez → Gonzales"),
    )  # fmt: skip
    events.append(ApprovalRequested(request, pending, None))  # type: ignore[arg-type]
    for write in pending:
        finished = ToolFinished(write.call_id, write.name, write.arguments, {}, None, 4.0)
        counter.tool_answers(finished)
        events.append(finished)
    sent = counter.request_sent(2)
    done = "Both changes are made."
    events += [
        sent,
        AssistantMessage(sent.request, done, (), None, "stop", 300.0),
        UsageReported(sent.request, Usage(2700, 12, 2048, 0), None, "scripted", 300.0, 128000),
        *counter.grounding(done),
        TurnFinished(2, "answered", Usage(4550, 36, 3072, 12), None),
    ]
    return events


def two_writes_controller(**kwargs) -> EventController:
    """Turn one, then a turn whose one response makes two write calls."""
    counter = EventCounter()
    first = turn_one(counter)
    second = turn_two_writes(counter)
    return EventController([(first[0].user_text, first), (second[0].user_text, second)], **kwargs)


def _chunks(text: str, size: int = 24) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class EventFeed(Feed):
    """Plays prepared turns of events; `gate` (if set) holds a turn until released.

    Only where the events come from is made up: the run's bookkeeping (the events kept,
    a cancelled turn recorded, its guard and customer) is the real `Feed`'s, and its
    conversation is a real `Conversation` that counts each request and its usage as the
    loop does. The status line's other values are pinned (the snapshots show them)."""

    def __init__(
        self, status: Status, turns: list[tuple[str, list[AgentEvent]]], mode: str
    ) -> None:
        super().__init__(status, guard=True, clock="2024-05-15T15:00:00", customer=CUSTOMER)
        self.mode = mode  # type: ignore[assignment]
        self.turns = turns
        self.name = "cancel-ehglp3"
        self.position = 0
        self.gate: asyncio.Event | None = None
        self.received: list[str] = []
        self.cancelled = False
        self.approvals: list[ApprovalRequested] = []
        self.talk = Conversation.start(SYSTEM, CUSTOMER)

    @property
    def source(self) -> str:
        return f"scenario: {self.name}"

    @property
    def origin(self) -> DatabaseOrigin:
        return DatabaseOrigin.scenario("sample")  # "fresh sample copy"

    @property
    def approval(self) -> str:
        return "auto"

    @property
    def ready(self) -> bool:
        return True  # nothing to open

    @property
    def conversation(self) -> Conversation:
        return self.talk

    def new_conversation(self) -> None:
        self.talk = Conversation.start(SYSTEM, self._customer)
        super().new_conversation()

    def act_for(self, customer: str | None) -> None:
        self._customer = customer
        self.new_conversation()

    @property
    def scenario_name(self) -> str:
        return self.name

    def next_customer_message(self) -> str | None:
        if self.position >= len(self.turns):
            return None
        return self.turns[self.position][0]

    @property
    def steps_left(self) -> int:
        return len(self.turns) - self.position

    async def turn_events(self, text: str) -> AsyncIterator[AgentEvent]:  # type: ignore[override]
        self.received.append(text)
        events = self.turns[self.position][1] if self.position < len(self.turns) else []
        self.position += 1
        try:
            for event in events:
                if isinstance(event, ApprovalRequested):
                    future = asyncio.get_running_loop().create_future()
                    event = dataclasses.replace(event, decision=future)
                    self.approvals.append(event)
                if self.gate is not None and isinstance(event, AssistantMessage):
                    await self.gate.wait()
                if isinstance(event, RequestSent):
                    self.talk.requests += 1  # as agent/requests.py counts them
                if isinstance(event, UsageReported):
                    self.talk.count_usage(event.usage, event.cost)
                yield event
                if isinstance(event, ApprovalRequested):
                    await event.decision
        except asyncio.CancelledError:
            self.cancelled = True
            raise


class EventController(Controller):
    """A controller whose run plays prepared events (`EventFeed`)."""

    def __init__(self, turns: list[tuple[str, list[AgentEvent]]], *, mode: str = "offline") -> None:
        status = Status()
        self.fake = EventFeed(status, turns, mode)
        super().__init__(status, self.fake)
        self.resets = 0

    # What the fake run saw, for the tests' assertions.
    @property
    def turns(self) -> list[tuple[str, list[AgentEvent]]]:
        return self.fake.turns

    @property
    def position(self) -> int:
        return self.fake.position

    @property
    def received(self) -> list[str]:
        return self.fake.received

    @property
    def cancelled(self) -> bool:
        return self.fake.cancelled

    @property
    def approvals(self) -> list[ApprovalRequested]:
        return self.fake.approvals

    @property
    def gate(self) -> asyncio.Event | None:
        return self.fake.gate

    @gate.setter
    def gate(self, gate: asyncio.Event | None) -> None:
        self.fake.gate = gate

    def scenario_choices(self) -> list[ScenarioChoice]:
        return [
            ScenarioChoice(
                "cancel-ehglp3", "The customer asks to cancel EHGLP3; policy says no.", 1
            ),
            ScenarioChoice("book-with-bags", "A booking with free and paid bags.", 3),
        ]

    async def start_scenario(self, name, progress=None) -> str:
        self.fake.name = name
        self.fake.position = 0
        self.fake.new_conversation()  # a playback of its own, as the real one is
        return f"{name} sets guard on."

    async def restart_scenario(self, progress=None) -> None:
        self.resets += 1
        self.fake.position = 0
        self.fake.new_conversation()
        if progress:
            progress("flights", 1, 2)


def two_turn_controller(**kwargs) -> EventController:
    counter = EventCounter()
    first = turn_one(counter)
    second = turn_two(counter)
    return EventController([(first[0].user_text, first), (second[0].user_text, second)], **kwargs)
