"""The showcase's first turn as scenario data: Emma Kim asks what is on EHGLP3, the
scripted model looks it up and answers. Shared by the replay tests; read it, never
change it (build a new dict from it: `{**LOOKUP_TURN, "expect": …}`)."""

from __future__ import annotations

from typing import Any

LOOKUP_TURN: dict[str, Any] = {
    "customer": "What is in my reservation EHGLP3?",
    "responses": [
        {
            "tool_calls": [
                {"name": "get_reservation_details", "arguments": {"reservation_id": "EHGLP3"}}
            ]
        },
        {"content": "EHGLP3 is a basic economy trip from PHX to JFK."},
    ],
}
