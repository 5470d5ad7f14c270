"""Which wire a request goes on, and what the loop reads of a body on either.

A request goes on Chat Completions (`messages`; agent/requests.py builds it) or on the
Responses API (`instructions` and `input`; agent/responses_wire.py), as the backend says
(`--api`). The loop keeps one history, in Chat Completions' form, whichever it is: the
events carry it (`RequestSent.messages`), and a body edited at the debugger becomes it
again (`history_of`). A body says its wire by its shape: `input` and no `messages` is a
Responses body.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from airline_agent.agent import responses_wire
from airline_agent.agent.model_reply import HistoryEntry
from airline_agent.choices import Api


def api_of(body: Mapping[str, object]) -> Api:
    return "responses" if "input" in body and "messages" not in body else "chat"


def backend_api(backend: object) -> Api:
    """The wire a backend speaks (one that does not say speaks Chat Completions)."""
    api = getattr(backend, "api", "chat")
    return "responses" if api == "responses" else "chat"


@dataclass(frozen=True, slots=True)
class SentParts:
    """What `RequestSent` carries of a body: the history and the tool schemas in Chat
    Completions' form (every front end reads them so), the body's parameters, and on the
    Responses wire the body itself, exactly as sent."""

    messages: list[HistoryEntry]
    tools: list[dict[str, Any]]
    params: dict[str, Any]
    body: dict[str, Any] | None  # None: Chat Completions (its body is the parts above)


def sent_parts(body: dict[str, Any], history: Sequence[HistoryEntry]) -> SentParts:
    """The parts of `body`, about to be sent; `history`: the conversation's, which the body
    was made from (or, edited, was adopted from)."""
    if api_of(body) == "chat":
        params = {k: v for k, v in body.items() if k not in ("model", "messages", "tools")}
        return SentParts(body["messages"], body.get("tools", []), params, None)
    tools = [responses_wire.chat_tool(tool) for tool in body.get("tools") or ()]
    return SentParts(list(history), tools, responses_wire.body_params(body), body)


def history_of(body: Mapping[str, object]) -> list[HistoryEntry]:
    """The history a body holds (an edited one becomes the conversation's): a body the
    debugger took (agent/edits.py), whose messages are a valid history."""
    if api_of(body) == "chat":
        return list(cast("list[HistoryEntry]", body["messages"]))
    return responses_wire.history_of(body)
