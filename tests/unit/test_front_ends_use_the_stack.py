"""The front ends (the commands and the TUI) open and build databases through
`airline_agent/stack.py` only (issue 21: `commands/data.py` opened them itself, and the
TUI's reset built them through `domain.provisioning`), so how a database is opened — refused when
missing, built only at the default location, checked — is decided in one place."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "airline_agent"
FRONT_ENDS = (PACKAGE / "commands", PACKAGE / "tui")
OPENERS = {"airline_agent.domain.db", "airline_agent.domain.provisioning"}
# Names of those modules that open nothing: how to name a database to a user.
NAMING = {"describe"}


def _runtime_imports(tree: ast.AST) -> list[ast.ImportFrom]:
    """`from … import …` statements outside `if TYPE_CHECKING:` blocks."""
    found: list[ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            pending.extend(node.orelse)
            continue
        if isinstance(node, ast.ImportFrom):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def test_no_front_end_opens_or_builds_a_database_itself() -> None:
    offenders = []
    for path in sorted(p for front_end in FRONT_ENDS for p in front_end.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in _runtime_imports(tree):
            if node.module in OPENERS and {alias.name for alias in node.names} - NAMING:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.module}")
    assert offenders == []
