"""A command's options and its work (docs/architecture.md, "Start-up is paid at the doors"):
`--help` builds every command's options and loads none of their work; each command's work
is imported once, in its body, with a comment saying why; the MCP server, loaded only by
`mcp`, imports everything at its top."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.support.function_imports import imports_in_functions, without_reason

PACKAGE = Path(__file__).resolve().parents[3] / "airline_agent"
HEAVY = ("openai", "sqlmodel", "sqlalchemy", "pydantic_settings", "textual", "mcp", "uvicorn")


def test_the_app_and_every_commands_options_load_none_of_their_work() -> None:
    code = (
        "import sys\n"
        "from airline_agent.cli import build_app\n"
        "build_app()\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
        "print(sorted(m for m in sys.modules if m.endswith('_work') or m.endswith('.work')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[]", "[]"]


def test_a_command_imports_its_work_once_in_its_body_saying_why() -> None:
    doors: dict[str, list[int]] = {}
    unexplained = []
    for path in sorted([*(PACKAGE / "commands").rglob("*.py"), PACKAGE / "cli.py"]):
        name = str(path.relative_to(PACKAGE))
        numbers = imports_in_functions(path)
        if numbers:
            doors[name] = numbers
        unexplained += [f"{name}:{number}" for number in without_reason(path, numbers)]
    assert unexplained == []
    # One per command (seed and export share data.py); eval --compare reads two results
    # files, imported with the options; chat's recording comes with its work (about 30 ms
    # of chat's start-up: the scenario models).
    assert {name: len(lines) for name, lines in doors.items()} == {
        "cli.py": 1,
        "commands/call.py": 1,
        "commands/chat/command.py": 1,
        "commands/data.py": 2,
        "commands/eval.py": 1,
        "commands/mcp.py": 1,
        "commands/replay.py": 1,
        "commands/serve/command.py": 1,
    }


def test_the_mcp_server_imports_at_the_top_and_nothing_of_the_commands() -> None:
    for path in sorted((PACKAGE / "mcp_server").rglob("*.py")):
        assert imports_in_functions(path) == [], path.name
        modules = {
            node.module
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert not {m for m in modules if m.startswith("airline_agent.commands")}, path.name
