"""scripts/tau2_texts.py writes τ²'s runner texts where `eval --like tau2` reads them, from
τ²-bench's own code; where τ²-bench is not importable it says so in one line, exit 2.

(That it writes the reference files' texts with τ²-bench itself at a2c0247 was checked by
hand, docs/eval-like-tau2.md: τ² needs Python 3.12 and its own dependencies.) Here a
stand-in `tau2` package with τ²'s names answers the script, so that what the script writes
is checked against what eval reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from airline_agent.evaluation.like_tau2 import Tau2Runner

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "tau2_texts.py"

STAND_IN = {
    "tau2/__init__.py": "",
    "tau2/registry.py": """
class _Tool:
    def __init__(self, name):
        self.openai_schema = {"type": "function", "function": {"name": name, "parameters": {}}}

class _Environment:
    def get_tools(self):
        return [_Tool("get_user_details"), _Tool("calculate")]
    def get_policy(self):
        return "# Policy"
    def get_user_tools(self, include=None):
        raise ValueError("no user tools")

class _Scenario:
    def __init__(self, text):
        self.text = text
    def __str__(self):
        return self.text

class _Task:
    def __init__(self, task_id):
        self.id, self.user_tools = task_id, None
        self.user_scenario = _Scenario(f"Instructions for {task_id}")

class _Registry:
    def get_env_constructor(self, name):
        assert name == "airline"
        return _Environment
    def get_tasks_loader(self, name):
        return lambda split=None: [_Task("0"), _Task("1")]

registry = _Registry()
""",
    "tau2/agent/__init__.py": "",
    "tau2/agent/llm_agent.py": """
class LLMAgent:
    def __init__(self, tools, domain_policy, llm, llm_args=None):
        self.system_prompt = f"<instructions>i</instructions><policy>{domain_policy}</policy>"
""",
    "tau2/user/__init__.py": "",
    "tau2/user/user_simulator.py": """
def get_global_user_sim_guidelines(use_tools=False):
    return "# Guidelines\\n"

class UserSimulator:
    def __init__(self, llm, instructions=None, tools=None, llm_args=None, persona_config=None):
        assert tools is None
        self.system_prompt = f"# Guidelines\\n\\n<scenario>\\n{instructions}\\n</scenario>"
""",
}


def _run(folder: Path, pythonpath: Path | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(folder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_without_tau2_it_says_how_in_one_line(tmp_path) -> None:
    done = _run(tmp_path / "tau2", None)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "τ²-bench is not importable" in line and "uv sync" in line
    assert not (tmp_path / "tau2").exists()


def test_it_writes_what_eval_like_tau2_reads(tmp_path) -> None:
    stand_in = tmp_path / "site"
    for name, text in STAND_IN.items():
        (stand_in / name).parent.mkdir(parents=True, exist_ok=True)
        (stand_in / name).write_text(text)
    folder = tmp_path / "tau2"
    done = _run(folder, stand_in)
    assert done.returncode == 0, done.stderr
    runner = Tau2Runner.read(folder, ("0", "1"), frozenset({"get_user_details", "calculate"}))
    assert runner.agent.system_prompt == "<instructions>i</instructions><policy># Policy</policy>"
    assert runner.agent.tool_names == ("get_user_details", "calculate")
    assert runner.user_prompts["1"].endswith("<scenario>\nInstructions for 1\n</scenario>")
    assert runner.guidelines == "# Guidelines\n"
    written = json.loads((folder / "runner" / "user_system_prompts.json").read_text())
    assert set(written) == {"0", "1"}
