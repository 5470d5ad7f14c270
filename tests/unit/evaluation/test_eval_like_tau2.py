"""The pieces of `eval --like tau2`: τ²'s count of steps and errors, and reading τ²'s runner
texts from a folder (what is missing, said in one line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from airline_agent.evaluation.like_tau2 import RunnerTextsMissing, StepCount, Tau2Runner

TOOLS = frozenset({"get_user_details", "calculate"})


def _tool(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def _folder(tmp_path: Path, *, tools: list | None = None, prompts: dict | None = None) -> Path:
    runner = tmp_path / "runner"
    runner.mkdir()
    (runner / "agent_system_prompt.txt").write_text("<instructions>…</instructions>")
    (runner / "agent_tools.json").write_text(json.dumps(tools or [_tool("calculate")]))
    (runner / "user_system_prompts.json").write_text(
        json.dumps(prompts if prompts is not None else {"0": "guide\n<scenario>\nx\n</scenario>"})
    )
    return tmp_path


def test_a_step_that_sends_calls_to_the_tools_is_not_checked() -> None:
    count = StepCount(max_steps=2, max_errors=10)
    assert count.step() is None
    assert count.step(to_tools=True) is None  # the 2nd step: the tools answer first
    assert count.step() == "max_steps"


def test_too_many_errors_wins_over_the_last_step() -> None:
    count = StepCount(max_steps=2, max_errors=2)
    assert count.step() is None
    assert count.step(errors=2) == "too_many_errors"


def test_the_runner_texts_are_read_with_the_guidelines_off_the_prompts(tmp_path) -> None:
    runner = Tau2Runner.read(_folder(tmp_path), ("0",), TOOLS)
    assert runner.agent.system_prompt == "<instructions>…</instructions>"
    assert runner.agent.tool_names == ("calculate",)
    assert runner.user_prompts["0"].startswith("guide")
    assert runner.guidelines == "guide\n"
    assert runner.policy == runner.agent.system_prompt  # no policy.md: the whole message


def test_missing_runner_files_are_named_with_how_to_get_them(tmp_path) -> None:
    with pytest.raises(RunnerTextsMissing) as caught:
        Tau2Runner.read(tmp_path, ("0",), TOOLS)
    message = str(caught.value)
    assert "\n" not in message
    for name in ("agent_system_prompt.txt", "agent_tools.json", "user_system_prompts.json"):
        assert f"runner/{name}" in message
    assert "scripts/tau2_texts.py" in message


@pytest.mark.parametrize(
    ("tools", "prompts", "said"),
    [
        ([_tool("fly_to_the_moon")], None, "fly_to_the_moon"),
        ([{"name": "calculate"}], None, "not a list of Chat Completions function tools"),
        (None, {"1": "x"}, "no customer for task 0"),
    ],
)
def test_unusable_runner_texts_say_why(tmp_path, tools, prompts, said) -> None:
    with pytest.raises(RunnerTextsMissing, match=said):
        Tau2Runner.read(_folder(tmp_path, tools=tools, prompts=prompts), ("0",), TOOLS)
