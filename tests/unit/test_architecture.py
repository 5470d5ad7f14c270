"""The shape of the package, checked (docs/architecture.md): the stack is built in one
module; every module belongs to a layer and imports only from its own layer or those below;
no import circle; imports at the top of a module, but for the few doors that keep `--help`
and the TUI's first screen quick, each saying so; few `Any`.

Every import counts, wherever it is written (at the top, inside a function, under
`TYPE_CHECKING`): a circle hidden in a function or behind `TYPE_CHECKING` is still two
modules that each need the other to be understood. Module and function sizes are not
limited: a module holds one concept, however long that concept needs."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

from tests.support.function_imports import imports_in_functions, without_reason

PACKAGE = Path(__file__).resolve().parents[2] / "airline_agent"
# Lowest first: a module may import from its own layer and the layers before it. Every
# module of the package is in exactly one (a name is a package or a module of the root, or
# a module of a package: a module is in the layer of the longest name that holds it).
LAYERS: tuple[tuple[str, ...], ...] = (
    # below everything: plain values, and the lock the late imports take turns on
    ("choices", "project", "terminal_text", "config", "late_imports"),
    ("domain",),  # the airline: tables, rules, operations; no LLM, no UI
    ("tools",),  # the 14 tools over the domain, the guard
    ("redaction", "output_files", "settings_peek"),  # what every front end shares
    ("agent",),  # the loop, its wire, its events
    ("scenarios.model", "scenarios.datasets"),  # a scenario's shape, the databases it names
    ("stack",),  # the one assembly of database, tools, backend and session
    ("scenarios",),  # scenario files, replay, recordings
    ("evaluation",),  # eval on τ²'s tasks
    ("mcp_server",),  # the tools over MCP
    ("tui",),  # the Textual app
    ("commands",),  # each command of the command line
    ("cli", "__main__"),  # the command line's door
)
# Imports inside a function: only at the doors (a command's body, a screen's contents, a
# library only one rare path needs), each with a comment on its line or the line above.
MAX_IMPORTS_IN_FUNCTIONS = 30
MAX_ANY = 150

# Constructing the parts of a running agent: only stack.py does it (and each part's own
# layer, for its internals).
STACK_PARTS = re.compile(
    r"\b(Toolbox|AgentSession|OpenAIBackend|ResponsesBackend|ScriptedBackend)\(|"
    r"(OpenAIBackend|ResponsesBackend)\.from_settings|\bbackend_for\(|\bClock\.at\("
)


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _builds_its_own_parts(path: Path) -> bool:
    """domain, tools and agent construct their own parts (a clock, a toolbox, a backend)."""
    parts = path.relative_to(PACKAGE).parts
    return len(parts) > 1 and parts[0] in ("domain", "tools", "agent")


def test_the_stack_is_built_only_in_stack_py() -> None:
    offenders = []
    for path in _modules():
        if path.name == "stack.py" or _builds_its_own_parts(path):
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if STACK_PARTS.search(line.split("#")[0]):
                offenders.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert offenders == []


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(("airline_agent", *parts)).removesuffix(".__init__")


def _layer_of(module: str) -> int | None:
    """The layer of the longest name in LAYERS that is `module` or a package holding it."""
    inside = module.removeprefix("airline_agent.") if module.count(".") else None
    if inside is None:
        return None
    holders = [
        (len(name), position)
        for position, names in enumerate(LAYERS)
        for name in names
        if inside == name or inside.startswith(f"{name}.")
    ]
    return max(holders)[1] if holders else None


def test_a_module_is_in_the_layer_of_the_longest_name_holding_it() -> None:
    model, scenarios = (
        _layer_of("airline_agent.scenarios.model"),
        _layer_of("airline_agent.scenarios.runner"),
    )
    assert (
        model is not None
        and scenarios is not None
        and model < _layer_of("airline_agent.stack") < scenarios
    )
    assert _layer_of("airline_agent.scenarios.modelling") == scenarios  # a name, not a prefix
    assert _layer_of("airline_agent") is None


def test_every_name_in_the_layers_is_a_module_or_package() -> None:
    names = [name for layer in LAYERS for name in layer]
    assert len(names) == len(set(names))
    missing = [
        name
        for name in names
        if not (PACKAGE / name.replace(".", "/")).is_dir()
        and not (PACKAGE / f"{name.replace('.', '/')}.py").is_file()
    ]
    assert missing == []


def _imported(tree: ast.AST, known: set[str]) -> Iterator[tuple[ast.stmt, str]]:
    """Each module of the package an import statement names (`from a.b import c` names
    `a.b`, and `a.b.c` when that is a module)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node, node.module
            for alias in node.names:
                if f"{node.module}.{alias.name}" in known:
                    yield node, f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name


def _graph() -> dict[str, set[str]]:
    paths = {_name(path): path for path in _modules()}
    known = set(paths)
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        targets = {
            target
            for _node, target in _imported(ast.parse(path.read_text()), known)
            if target in known and target != module
        }
        graph[module] = targets
    return graph


def test_every_module_is_in_a_layer() -> None:
    assert [module for module in _graph() if _layer_of(module) is None] in ([], ["airline_agent"])


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = []
    for module, targets in sorted(_graph().items()):
        own = _layer_of(module)
        for target in sorted(targets):
            theirs = _layer_of(target)
            if own is not None and theirs is not None and theirs > own:
                upward.append(f"{module} imports {target}")
    assert upward == []


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative: the package is deep enough to matter for recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_circles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles() -> None:
    assert _circles(_graph()) == []


def _imports_in_functions() -> list[tuple[Path, int]]:
    return [(path, number) for path in _modules() for number in imports_in_functions(path)]


def test_few_imports_inside_functions_each_saying_why() -> None:
    inside = _imports_in_functions()
    unexplained = [
        f"{path.relative_to(PACKAGE)}:{line}: {path.read_text().splitlines()[line - 1].strip()}"
        for path in _modules()
        for line in without_reason(path, [number for where, number in inside if where == path])
    ]
    assert unexplained == []
    assert len(inside) <= MAX_IMPORTS_IN_FUNCTIONS, sorted(
        f"{path.relative_to(PACKAGE)}:{line}" for path, line in inside
    )


def _any_count(path: Path) -> int:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    names = [token for token in tokens if token.type == tokenize.NAME and token.string == "Any"]
    imports = len(re.findall(r"^from typing import .*\bAny\b", path.read_text(), re.M))
    return len(names) - imports


def test_few_any() -> None:
    counts = {str(path.relative_to(PACKAGE)): _any_count(path) for path in _modules()}
    total = sum(counts.values())
    most = sorted(counts.items(), key=lambda item: -item[1])[:10]
    assert total <= MAX_ANY, most
