#!/usr/bin/env python
"""Write τ²-bench's runner texts into a τ² folder, for `airline-agent eval --like tau2`.

`eval --like tau2` sends what τ²-bench's runner (`tau2 run`) sends: τ²'s system message and
tool schemas to the agent, τ²'s system message to the simulated customer. Those texts are
τ²'s, made by its code, and this project does not ship them: this script has τ²'s own code
make them, and writes them where `eval --tasks FOLDER` reads them:

    FOLDER/runner/agent_system_prompt.txt    the agent's system message (instructions + policy)
    FOLDER/runner/agent_tools.json           the 14 tool schemas, in τ²'s order
    FOLDER/runner/user_system_prompts.json   task id -> the customer's system message
    FOLDER/runner/user_simulation_guidelines.md   τ²'s global guidelines (for results' info)

Run it with the Python where τ²-bench is installed (it imports `tau2`; not this project),
e.g. `uv run python …` in a checkout of τ²-bench (docs/eval-like-tau2.md):

    python scripts/tau2_texts.py FOLDER            # the runner texts
    python scripts/tau2_texts.py FOLDER --data     # and τ²'s airline data files beside them
                                                   # (db.json, tasks.json, policy.md, …)

Existing files are replaced (each written beside its target and renamed into place).
Exit status: 0 written; 2 τ²-bench not importable here, or FOLDER unusable.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

DOMAIN = "airline"
DATA_FILES = ("db.json", "tasks.json", "split_tasks.json", "policy.md")
INSTALL = "git clone https://github.com/sierra-research/tau2-bench, then `uv sync` in it"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def runner_texts() -> dict[str, str]:
    """The files of runner/, made by τ²'s own code as `tau2 run` makes them (its
    runner/build.py: build_agent with the registered `llm_agent`, build_user with the
    registered `user_simulator` and the task's user tools, if any)."""
    from tau2.agent.llm_agent import LLMAgent
    from tau2.registry import registry
    from tau2.user.user_simulator import UserSimulator, get_global_user_sim_guidelines

    environment = registry.get_env_constructor(DOMAIN)()
    tools = environment.get_tools()
    agent = LLMAgent(tools=tools, domain_policy=environment.get_policy(), llm="unused")
    prompts: dict[str, str] = {}
    for task in registry.get_tasks_loader(DOMAIN)(None):  # every task, whatever the split
        try:
            user_tools = environment.get_user_tools(include=task.user_tools) or None
        except Exception:  # as τ²'s build_user: a domain without user tools
            user_tools = None
        user = UserSimulator(llm="unused", instructions=str(task.user_scenario), tools=user_tools)
        prompts[str(task.id)] = user.system_prompt
    return {
        "agent_system_prompt.txt": agent.system_prompt,
        "agent_tools.json": _json([tool.openai_schema for tool in tools]),
        "user_system_prompts.json": _json(prompts),
        "user_simulation_guidelines.md": get_global_user_sim_guidelines(),
    }


def copy_data(folder: Path) -> list[str]:
    """τ²'s airline data files (and its LICENSE) into `folder`; the names copied."""
    from tau2.utils import DATA_DIR

    source = Path(DATA_DIR) / "tau2" / "domains" / DOMAIN
    copied = []
    for name in DATA_FILES:
        if (source / name).is_file():
            partial = folder / f".{name}.{os.getpid()}"
            shutil.copyfile(source / name, partial)
            os.replace(partial, folder / name)
            copied.append(name)
    licence = Path(DATA_DIR).parent / "LICENSE"
    if licence.is_file():
        shutil.copyfile(licence, folder / "LICENSE")
        copied.append("LICENSE")
    return copied


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the τ² folder `eval --tasks` is given")
    parser.add_argument("--data", action="store_true", help="copy τ²'s airline data files too")
    args = parser.parse_args()
    folder: Path = args.folder
    if folder.exists() and not folder.is_dir():
        print(f"tau2_texts: {folder}: not a folder", file=sys.stderr)
        return 2
    try:
        import tau2  # noqa: F401 - only to say plainly when it is not here
    except ImportError as exc:
        print(
            f"tau2_texts: τ²-bench is not importable by {sys.executable} ({exc}); run this "
            f"with the Python where it is installed ({INSTALL})",
            file=sys.stderr,
        )
        return 2
    texts = runner_texts()
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        _write(folder / "runner" / name, text)
    written = [f"runner/{name}" for name in texts]
    if args.data:
        written += copy_data(folder)
    print(f"wrote {', '.join(written)} in {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
