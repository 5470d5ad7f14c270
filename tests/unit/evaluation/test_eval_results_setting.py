"""How a run's trials were run (`--like`) is said wherever its results are shown: the
results view's headline, summary.md, and a comparison of two runs made otherwise. A
results.json from before `--like` was a run of our own agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from airline_agent.evaluation.results import (
    FORMAT,
    results_json,
    setting_difference,
    summary_markdown,
)
from airline_agent.tui.eval_results import read_eval_results

TAU2_SETTINGS = {
    "like": "tau2",
    "agent_model": "m",
    "user_model": "c",
    "seed": 300,
    "max_steps": 200,
    "max_errors": 10,
    "temperature": 0.0,
}
OURS_SETTINGS = {"like": "ours", "agent_model": "m", "user_model": "c", "guard": False}


def _results(settings: dict[str, Any]) -> dict[str, Any]:
    return results_json((), 1, [], settings=settings, complete=True)


def _write(folder: Path, results: dict[str, Any]) -> Path:
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(results))
    return folder


@pytest.mark.parametrize(
    ("settings", "said"),
    [(TAU2_SETTINGS, "--like tau2"), (OURS_SETTINGS, "--like ours")],
    ids=["tau2", "ours"],
)
def test_results_json_and_summary_say_the_setting(settings, said) -> None:
    results = _results(settings)
    assert results["like"] == settings["like"]
    assert f"(`{said}`)" in summary_markdown(results)


def test_the_results_view_headline_says_the_setting(tmp_path) -> None:
    shown = read_eval_results(_write(tmp_path / "run", _results(TAU2_SETTINGS)))
    assert shown.like == "tau2"
    assert shown.headline.startswith("--like tau2: as τ²-bench's runner runs it, seed 300 · ")


def test_a_run_from_before_like_was_ours(tmp_path) -> None:
    old = {k: v for k, v in _results(OURS_SETTINGS).items() if k != "like"}
    old["settings"] = {k: v for k, v in old["settings"].items() if k != "like"}
    assert old["format"] == FORMAT
    shown = read_eval_results(_write(tmp_path / "run", old))
    assert shown.like == "ours" and shown.headline.startswith("--like ours")
    assert setting_difference(old, _results(OURS_SETTINGS)) is None
    differ = setting_difference(old, _results(TAU2_SETTINGS))
    assert differ is not None and "--like ours" in differ and "--like tau2" in differ
