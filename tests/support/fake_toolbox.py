"""A small in-memory toolbox with the real Toolbox's interface (tools/toolbox.py, API.md).

Four tools of the real schemas' shape — two reads, `calculate`, one write — over a
dict, so loop tests need no database. `writes` records every write that really ran.
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any

from airline_agent.domain.clock import Clock
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import RowChange, ToolOutcome, error_result

EHGLP3 = {
    "reservation_id": "EHGLP3",
    "user_id": "emma_kim_9957",
    "origin": "PHX",
    "destination": "JFK",
    "flight_type": "one_way",
    "cabin": "basic_economy",
    "flights": [
        {
            "flight_number": "HAT156",
            "date": "2024-05-17",
            "origin": "PHX",
            "destination": "SEA",
            "price": 63,
        },
        {
            "flight_number": "HAT021",
            "date": "2024-05-17",
            "origin": "SEA",
            "destination": "JFK",
            "price": 72,
        },
    ],
    "passengers": [{"first_name": "Emma", "last_name": "Kim", "dob": "1967-01-12"}],
    "payment_history": [{"payment_id": "credit_card_5832574", "amount": 135}],
    "created_at": "2024-05-15T10:00:00",
    "total_baggages": 0,
    "nonfree_baggages": 0,
    "insurance": "no",
    "status": None,
}

EMMA = {
    "user_id": "emma_kim_9957",
    "name": {"first_name": "Emma", "last_name": "Kim"},
    "membership": "gold",
    "payment_methods": {
        "credit_card_5832574": {"source": "credit_card", "brand": "visa", "last_four": "5241"},
        "gift_card_9562694": {"source": "gift_card", "amount": 103.0},
    },
    "reservations": ["EHGLP3"],
}


def _function(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


SCHEMAS = [
    _function(
        "get_user_details",
        "Get a customer's profile by user id.",
        {"user_id": {"type": "string", "description": "Such as 'emma_kim_9957'."}},
        ["user_id"],
    ),
    _function(
        "get_reservation_details",
        "Get the details of a reservation by its id.",
        {"reservation_id": {"type": "string", "description": "Such as 'EHGLP3'."}},
        ["reservation_id"],
    ),
    _function(
        "calculate",
        "Calculate an arithmetic expression.",
        {"expression": {"type": "string"}},
        ["expression"],
    ),
    _function(
        "cancel_reservation",
        "Cancel a whole reservation.",
        {"reservation_id": {"type": "string"}},
        ["reservation_id"],
    ),
]
WRITES = {"cancel_reservation"}


class FakeToolbox:
    calls_block = True  # as the real Toolbox: its calls run in a worker thread

    def __init__(self, *, clock: Clock | None = None, guard: bool = True) -> None:
        self.database = None
        self.clock = clock or Clock.at()
        self.guard = guard
        self.reservations = {"EHGLP3": copy.deepcopy(EHGLP3)}
        self.users = {"emma_kim_9957": copy.deepcopy(EMMA)}
        self.calls: list[tuple[str, Any]] = []  # every call, as received
        self.writes: list[tuple[str, dict]] = []  # writes that really ran

    def schemas(self) -> list[dict]:
        return SCHEMAS

    def names(self) -> list[str]:
        return [s["function"]["name"] for s in SCHEMAS]

    def is_write(self, name: str) -> bool:
        return name in WRITES

    def preview(self, name: str, arguments: dict, conversation: ToolConversation) -> str:
        if name == "cancel_reservation":
            return f"Cancel reservation {arguments.get('reservation_id')} and refund it."
        return f"{name}({json.dumps(arguments)})"

    def call(
        self, name: str, arguments: str | dict | None, conversation: ToolConversation
    ) -> ToolOutcome:
        started = time.perf_counter()
        self.calls.append((name, arguments))
        parsed: dict | None
        if isinstance(arguments, str):
            try:
                parsed = json.loads(arguments) if arguments else {}
            except ValueError:
                parsed = None
        else:
            parsed = arguments or {}

        def done(result: Any, error: str | None = None, changes=(), bound=None) -> ToolOutcome:
            elapsed = (time.perf_counter() - started) * 1000
            return ToolOutcome(name, parsed, result, error, elapsed, tuple(changes), bound)

        if name not in self.names():
            return done(error_result("UNKNOWN_TOOL", f"No tool named {name!r}."), "UNKNOWN_TOOL")
        if not isinstance(parsed, dict):
            return done(error_result("INVALID_ARGUMENTS", "Not JSON."), "INVALID_ARGUMENTS")
        try:
            if name == "get_user_details":
                user = self.users.get(parsed["user_id"])
                if user is None:
                    return done(error_result("NOT_FOUND", "User not found"), "NOT_FOUND")
                if conversation.customer is None and conversation.customer_gave(user["user_id"]):
                    conversation.bind(user["user_id"])
                    return done(copy.deepcopy(user), bound=user["user_id"])
                return done(copy.deepcopy(user))
            if name == "calculate":
                return done(str(round(eval(parsed["expression"], {"__builtins__": {}}), 2)))
            reservation = self.reservations.get(parsed["reservation_id"])
        except KeyError as missing:
            message = f"Missing argument {missing}."
            return done(error_result("INVALID_ARGUMENTS", message), "INVALID_ARGUMENTS")
        if reservation is None:
            return done(error_result("NOT_FOUND", "Reservation not found"), "NOT_FOUND")
        if name == "get_reservation_details":
            return done(copy.deepcopy(reservation))
        before = copy.deepcopy(reservation)
        reservation["status"] = "cancelled"
        self.writes.append((name, parsed))
        change = RowChange("reservation", reservation["reservation_id"], before, reservation)
        return done(copy.deepcopy(reservation), changes=[change])
