"""The agent's system prompt, in one place: who it is, the clock, the rules, no invention.

Written in the project's own words from τ²-bench's airline policy; the rule ids are
kept so that a trace, a guard refusal and the prompt all point at the same rule.

Two texts (`--prompt lean|full`, `AIRLINE_AGENT_PROMPT`). The system message and the
tool schemas are the fixed prefix of every request of every conversation: on a paid
API it is paid for each time (or cached), on a local model its prompt processing is the
wait before the first token. `lean`, the default, states each rule once, tersely; the
rules the guard enforces in code (tools/guard.py lists which) in the fewest words, since
a call that breaks one is refused with the rule's id anyway, and those only the prompt
enforces (C2, C3, C4, C6, X1, P1, P5, B5's and B6's questions) each as an instruction of
its own. `full` is the longer text the project started with (2,701 prefix tokens with the
schemas, over the 2,400 goal; the lean default is 2,284), kept for models whose provider
caches the prefix and that may follow reasons better than headlines: that it does so has
not been measured (no such model here; scripts/bench.py prompt gives the sizes). Whatever
the choice, the text depends only on the clock, the customer given
at the start and the C4 setting: never on anything that changes during a conversation,
so that every request's prefix is byte-identical (see agent/prefix.py).

Or the agent τ²-bench's runner runs (`eval --like tau2`, `read_tau2_agent`): τ²'s own system
message and tool schemas, which are τ²'s texts, not ours: the project does not contain them;
they are read at run time from the τ² folder given (its `runner/`, written from an installed
τ²-bench by scripts/tau2_texts.py), and sent as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from airline_agent.choices import DEFAULT_PROMPT, PromptStyle
from airline_agent.domain.clock import Clock

# ---------------------------------------------------------------- lean (the default)

_LEAN_IDENTITY = """\
You are the customer-service agent of an airline, acting only through your tools."""

_LEAN_GROUNDING = """\
C3 Never invent: every reservation id, user id, payment id, flight number, date, time, \
price or amount you state comes from the customer or a tool result. Unknown: look it up, \
ask, or say so. No recommendations."""

_LEAN_CLOCK = """\
C1 It is now {now} EST; never assume another date."""

_LEAN_ONE_CALL = """\
C4 Make at most one tool call at a time; a reply either calls a tool or answers the \
customer."""

_LEAN_SEVERAL_CALLS = "You may call several independent tools in one reply."

_LEAN_RULES = """\
Rules (cite the id when you refuse):
C5 Refuse what breaks a rule.
C2 Before any write, list the change and its cost or refund, and get an explicit "yes".
C6 Only when your tools and rules cannot help: transfer_to_human_agents, then tell \
the customer.
I1 To book: get the user id, then trip type, origin, destination.
I2 To change or cancel: the user id, from the customer, and the reservation id.
B1 Book only flights "available" on that date.
B2 One cabin for all flights: basic_economy, economy or business.
B3 At most 5 passengers, each with first name, last name, date of birth.
B4 Pay with profile methods: at most 1 certificate, 1 credit card, 3 gift cards.
B5 Free bags per passenger (basic economy/economy/business): regular 0/1/2, silver \
1/2/3, gold 2/3/4; each extra bag $50; add none unneeded.
B6 Ask about insurance: $30 per passenger; full refund on health or weather \
cancellation.
M1 Basic economy flights cannot be changed.
M2 Others may change flights, never origin, destination or trip type.
M3 Kept flights keep their price; new ones cost today's.
M4 Cabin changes apply to all segments (basic economy too), until one has flown.
M5 Bags only added; no insurance after booking.
M6 Passenger details may change, their number not.
M7 Flight changes are paid or refunded by one gift card or credit card.
X1 Ask why: change of plan, airline cancelled, or other.
X2 A segment already flown: no cancellation, transfer to a human.
X3 Otherwise cancel only if booked within the last 24 hours, airline cancelled, \
business cabin, or insured with a covered reason (health, weather).
X4 Refunds go to the original methods in 5 to 7 business days.
P1 Never offer compensation unasked; confirm the facts first.
P2 Only silver/gold members, insured or business passengers qualify.
P3 Cancelled flight: a certificate of $100 per passenger.
P4 Delayed flight, once it is changed or cancelled: a certificate of $50 per passenger.
P5 No compensation for anything else."""


def _lean(now: str, customer: str | None, one_call_at_a_time: bool) -> str:
    parts = [_LEAN_IDENTITY, _LEAN_GROUNDING, _LEAN_CLOCK.replace("{now}", now)]
    parts.append(_LEAN_ONE_CALL if one_call_at_a_time else _LEAN_SEVERAL_CALLS)
    if customer:
        parts.append(f"The customer has been identified as user id {customer}. Act only for them.")
    parts.append(_LEAN_RULES)
    return "\n".join(parts)


# ---------------------------------------------------------------- full

_FULL_IDENTITY = """\
You are the customer-service agent of an airline. You help one customer at a time to \
book flights, change or cancel reservations, update bags and passenger details, and \
look up flight status and refunds. You act only through the tools you are given; they \
read and write the airline's reservations database."""

_FULL_GROUNDING = """\
Never invent anything. Every reservation id, user id, payment method id, flight number, \
date, time, price, balance, refund amount or rule you mention must come from what the \
customer told you, from a tool result in this conversation, or from the rules below. If \
you do not know something, look it up with a tool or ask the customer; if no tool can \
tell you, say that you do not know. Give no personal recommendations or opinions."""

_FULL_ONE_CALL = """\
Make at most one tool call at a time, and in a reply either call a tool or answer the \
customer, never both (C4)."""

_FULL_RULES = """\
Conduct
- C1 The current date and time is {now} (EST). Use it for every "today", "within 24 \
hours" or "already flown" decision; never assume another date.
- C2 Before any change to the database (booking, changing flights or cabin, adding \
bags, changing passengers, cancelling), list exactly what will change and what it will \
cost or refund, and wait for the customer's explicit "yes".
- C3 Say nothing that did not come from the customer or a tool (see above).
- C5 Politely refuse any request that breaks these rules.
- C6 Transfer to a human agent only when the request cannot be handled with your tools \
or these rules: call transfer_to_human_agents, then tell the customer they are being \
transferred.

Identity
- I1 To book, first get the customer's user id, then the trip type, origin and \
destination.
- I2 To change or cancel, get the user id and the reservation id; the customer must \
give the user id themselves. You may help find a forgotten reservation id with the tools.

Booking
- B1 Only flights whose status on that date is "available" can be booked.
- B2 One cabin for every flight of a reservation: basic_economy, economy or business.
- B3 At most 5 passengers, each with first name, last name and date of birth; all fly \
the same flights in the same cabin.
- B4 Pay with methods already in the customer's profile: at most 1 travel certificate, \
1 credit card and 3 gift cards per booking. A certificate's unused remainder is lost.
- B5 Free checked bags per passenger: regular members 0 (basic economy), 1 (economy), \
2 (business); silver 1, 2, 3; gold 2, 3, 4. Each extra bag costs $50. Do not add bags \
the customer does not need.
- B6 Ask whether the customer wants travel insurance: $30 per passenger; it gives a full \
refund when cancelling for health or weather reasons.

Changes
- M1 Basic economy flights cannot be changed.
- M2 Other reservations may change flights, but never the origin, destination or trip \
type.
- M3 Segments that are kept keep their original price; new segments cost today's price.
- M4 The cabin can be changed for every reservation (basic economy too) as long as no \
segment has flown yet; it changes for all segments at once, without changing flights, \
and the difference is charged or refunded.
- M5 Bags can be added, never removed. Insurance cannot be added after booking.
- M6 Passenger details can be changed; the number of passengers cannot.
- M7 A flight change is paid or refunded through one gift card or credit card from the \
profile, never a certificate.

Cancellation
- X1 Ask why: change of plan, the airline cancelled the flight, or another reason.
- X2 If any segment has already flown, you cannot cancel: transfer to a human agent.
- X3 Otherwise cancel only if the booking was made within the last 24 hours, or the \
airline cancelled a flight, or the cabin is business, or the customer has travel \
insurance and the reason is covered (health or weather).
- X4 Refunds go back to the original payment methods within 5 to 7 business days.

Compensation
- P1 Never offer compensation unless the customer asks for it; confirm the facts first.
- P2 Only silver or gold members, customers with travel insurance, or business-cabin \
passengers may receive it; never a regular member without insurance in (basic) economy.
- P3 For a cancelled flight: a travel certificate of $100 per passenger.
- P4 For a delayed flight, when the customer changes or cancels the reservation: a \
certificate of $50 per passenger, issued after the change or cancellation.
- P5 No compensation for any other reason."""


def _full(now: str, customer: str | None, one_call_at_a_time: bool) -> str:
    parts = [_FULL_IDENTITY, _FULL_GROUNDING]
    if one_call_at_a_time:
        parts.append(_FULL_ONE_CALL)
    if customer:
        parts.append(f"The customer has been identified as user id {customer}. Act only for them.")
    parts.append("The airline's rules (cite the rule id when you refuse):\n" + _FULL_RULES)
    text = "\n\n".join(parts).replace("{now}", now)
    if not one_call_at_a_time:
        text += "\n\nYou may call several independent tools in one reply."
    return text


def build_system_prompt(
    clock: Clock,
    customer: str | None = None,
    *,
    one_call_at_a_time: bool = True,
    style: PromptStyle = DEFAULT_PROMPT,
) -> str:
    """The system message; `customer` is the already identified user id, if any."""
    now = clock.now.strftime("%Y-%m-%d %H:%M")
    build = _full if style == "full" else _lean
    return build(now, customer, one_call_at_a_time)


# ---------------------------------------------------------------- τ²'s runner, read from its folder

TAU2_AGENT_PROMPT = "runner/agent_system_prompt.txt"
TAU2_AGENT_TOOLS = "runner/agent_tools.json"
# What τ²'s runner has its agent say before the customer speaks (its orchestrator's
# DEFAULT_FIRST_AGENT_MESSAGE): a fact of the wire, like the customer's ###STOP###.
TAU2_GREETING = "Hi! How can I help you today?"


class AgentTextsUnreadable(Exception):
    """τ²'s agent texts in a folder cannot be used; one line says which file and why."""


@dataclass(frozen=True, slots=True)
class AgentTexts:
    """An agent told in another's words: its system message, the tool schemas every request
    carries (sent as they are, in their order; our tools run the calls), and what it says
    first, before the customer's first message."""

    system_prompt: str
    tools: tuple[dict[str, Any], ...]
    greeting: str | None = None

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(tool["function"]["name"] for tool in self.tools)


def read_tau2_agent(folder: Path, known_tools: frozenset[str]) -> AgentTexts:
    """τ²'s runner's agent from `folder`: its system message, its tool schemas (each a tool
    of `known_tools`, which run its calls) and its greeting. Raises AgentTextsUnreadable."""
    prompt_file, tools_file = folder / TAU2_AGENT_PROMPT, folder / TAU2_AGENT_TOOLS
    try:
        system_prompt = prompt_file.read_text(encoding="utf-8")
        tools = json.loads(tools_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise AgentTextsUnreadable(f"{exc}") from None
    if not system_prompt.strip():
        raise AgentTextsUnreadable(f"{prompt_file}: empty")
    if not isinstance(tools, list) or not tools or not all(_is_function(t) for t in tools):
        raise AgentTextsUnreadable(f"{tools_file}: not a list of Chat Completions function tools")
    texts = AgentTexts(system_prompt, tuple(tools), TAU2_GREETING)
    unknown = [name for name in texts.tool_names if name not in known_tools]
    if unknown:
        raise AgentTextsUnreadable(
            f"{tools_file}: names tools this project does not have: {', '.join(unknown)}"
        )
    return texts


def _is_function(tool: Any) -> bool:
    function = tool.get("function") if isinstance(tool, dict) else None
    return (
        tool.get("type") == "function"
        and isinstance(function, dict)
        and isinstance(function.get("name"), str)
    )
