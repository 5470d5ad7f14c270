"""The shape of the package, checked: the stack is built in one module and no layer imports
upward. Module and function sizes are not limited: a module holds one concept, however long
that concept needs (a limit split classes into mixins and forwarding modules)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "airline_agent"
LAYERS = ("domain", "tools", "agent")  # each may import only itself and those before it
BELOW_THE_LAYERS = ("airline_agent.config", "airline_agent.choices", "airline_agent.project")

# Constructing the parts of a running agent: only stack.py does it (and each part's own
# layer, for its internals).
STACK_PARTS = re.compile(
    r"\b(Toolbox|AgentSession|OpenAIBackend|ScriptedBackend)\(|OpenAIBackend\.from_settings|"
    r"\bClock\.at\("
)


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _layer(path: Path) -> str | None:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 and parts[0] in LAYERS else None


def test_the_stack_is_built_only_in_stack_py() -> None:
    offenders = []
    for path in _modules():
        if path.name == "stack.py" or _layer(path) is not None:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if STACK_PARTS.search(line.split("#")[0]):
                offenders.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert offenders == []


def test_no_layer_imports_upward() -> None:
    upward = []
    for path in _modules():
        layer = _layer(path)
        if layer is None:
            continue
        allowed = {f"airline_agent.{name}" for name in LAYERS[: LAYERS.index(layer) + 1]}
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                module = node.module
            elif isinstance(node, ast.Import):
                module = node.names[0].name
            else:
                continue
            inside = any(module == a or module.startswith(a + ".") for a in allowed)
            # The settings are read by name (and for types) in every layer, and so are
            # their choices and defaults, and where the project's files are.
            if module.startswith("airline_agent") and not inside and module not in BELOW_THE_LAYERS:
                upward.append(f"{path.relative_to(PACKAGE)}: imports {module}")
    assert upward == []
