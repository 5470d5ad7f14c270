"""Every event of the loop names its kind in `type` (issue 21: the Agents SDK's stream
events carry a discriminator, ours did not): one distinct snake_case name per class, a
class attribute that no comparison, copy or `asdict` sees, and the name the MCP event log
writes and reads."""

from __future__ import annotations

import json
import re
import typing
from dataclasses import asdict, fields

from airline_agent.agent.events import AgentEvent, CustomerBound, ToolFinished, ToolStarted
from airline_agent.mcp_server.event_log import LoggedEvent, event_record, read_record

EVENTS = typing.get_args(AgentEvent)


def test_every_event_names_its_kind_once() -> None:
    names = [event.type for event in EVENTS]
    assert len(set(names)) == len(EVENTS) == 23
    for event in EVENTS:
        assert event.type == re.sub(r"(?<!^)(?=[A-Z])", "_", event.__name__).lower()
        assert "type" not in {f.name for f in fields(event)}  # never a field


def test_the_name_stays_out_of_comparisons_and_asdict() -> None:
    bound = CustomerBound("mia_li_3668", "call_1", "get_user_details")
    assert bound.type == "customer_bound"
    assert "type" not in asdict(bound)
    assert bound == CustomerBound("mia_li_3668", "call_1", "get_user_details")


async def test_the_event_log_writes_and_reads_events_by_their_type() -> None:
    events = [
        ToolStarted("call_1", "get_user_details", {"user_id": "mia_li_3668"}, "{}"),
        ToolFinished("call_1", "get_user_details", {"user_id": "mia_li_3668"}, "{}", None, 1.5),
        CustomerBound("mia_li_3668", "call_1", "get_user_details"),
    ]
    for event in events:
        record = event_record(3, event)
        assert record is not None and record["type"] == event.type
        read = read_record(json.dumps(record))
        assert isinstance(read, LoggedEvent) and type(read.event) is type(event)
