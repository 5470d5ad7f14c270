"""τ²-bench's own fixed prefix (its agent's system prompt with the airline policy, and
its 14 tool schemas), rebuilt from a local copy of the public repository at bench time.

Nothing of τ²'s text is kept in this project: point `AIRLINE_AGENT_TAU2_SRC` at a
checkout of github.com/sierra-research/tau2-bench and the bench reads it there. Without
it the bench prints the figure issue 12 quotes, labelled "quoted".

τ² itself is not imported (it needs litellm and more): its schema generator
(`tau2.environment.tool.Tool`: pydantic `create_model` over the signature, parameter
descriptions from the Google-style docstring, description = short + blank line + long)
is replayed here over its `data_model.py` (executed with two stub imports) and the
`@is_tool` methods of its `tools.py` (read with `ast`). The replay's docstring reading is
simpler than `docstring_parser`'s, so the figure may differ from τ²'s by a few tokens.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

QUOTED_TOKENS = 4050  # issue 12: "about the same as τ²-bench's own policy and schemas (~4,050)"

_AIRLINE = Path("src/tau2/domains/airline")
_POLICY = Path("data/tau2/domains/airline/policy.md")
_AGENT = Path("src/tau2/agent/llm_agent.py")
_SECTION = re.compile(r"^(Args|Arguments|Returns|Raises|Examples?|Yields):\s*$")


def source_dir() -> Path | None:
    """The local τ² checkout, if one is configured and looks like one."""
    configured = os.environ.get("AIRLINE_AGENT_TAU2_SRC")
    if not configured:
        return None
    root = Path(configured).expanduser()
    needed = (_AIRLINE / "tools.py", _AIRLINE / "data_model.py", _POLICY, _AGENT)
    return root if all((root / part).is_file() for part in needed) else None


def system_prompt(root: Path) -> str:
    """τ²'s LLMAgent system prompt: its instructions and the airline policy."""
    constants = _string_constants(root / _AGENT)
    policy = (root / _POLICY).read_text(encoding="utf-8")
    return constants["SYSTEM_PROMPT"].format(
        agent_instruction=constants["AGENT_INSTRUCTION"], domain_policy=policy
    )


def tool_schemas(root: Path) -> list[dict[str, Any]]:
    """The `openai_schema` of each τ² airline tool, in the order tools.py defines them
    (the order τ²'s toolkit lists them)."""
    from pydantic import Field, create_model

    namespace = _data_model_namespace(root / _AIRLINE / "data_model.py")
    tree = ast.parse((root / _AIRLINE / "tools.py").read_text(encoding="utf-8"))
    schemas = []
    for function in _tool_methods(tree):
        short, long, described = _docstring(ast.get_docstring(function, clean=True) or "")
        params: dict[str, Any] = {}
        arguments = function.args.args[1:]  # after self
        defaults = [None] * (len(arguments) - len(function.args.defaults))
        defaults += list(function.args.defaults)
        for argument, default in zip(arguments, defaults, strict=True):
            annotation = eval(ast.unparse(argument.annotation), namespace)  # τ²'s own types
            value = ... if default is None else ast.literal_eval(default)
            if argument.arg in described:
                value = Field(value, description=described[argument.arg])
            params[argument.arg] = (annotation, value)
        model = create_model("parameters", **params)
        schemas.append(
            {
                "type": "function",
                "function": {
                    "name": function.name,
                    "description": short + "\n\n" + long if long else short,
                    "parameters": model.model_json_schema(),
                },
            }
        )
    return schemas


def _string_constants(path: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Call | ast.Constant):
                value = node.value
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                    value = value.func.value  # """…""".strip()
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found[target.id] = value.value.strip()
    return found


def _data_model_namespace(path: Path) -> dict[str, Any]:
    """τ²'s data_model.py executed with its two project imports stubbed."""
    from pydantic import BaseModel

    stubs = {
        "tau2.domains.airline.utils": {"AIRLINE_DB_PATH": ""},
        "tau2.environment.db": {"DB": type("DB", (BaseModel,), {})},
    }
    saved = {name: sys.modules.get(name) for name in stubs}
    try:
        for name, attributes in stubs.items():
            module = types.ModuleType(name)
            module.__dict__.update(attributes)
            sys.modules[name] = module
        namespace: dict[str, Any] = {"__name__": "tau2_data_model"}
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    namespace.update({name: getattr(typing, name) for name in ("List", "Optional", "Dict")})
    return namespace


def _tool_methods(tree: ast.Module) -> list[ast.FunctionDef]:
    methods = []
    for node in ast.walk(tree):  # breadth first: the class's methods in source order
        if isinstance(node, ast.FunctionDef) and any(
            isinstance(d, ast.Call) and getattr(d.func, "id", "") == "is_tool"
            for d in node.decorator_list
        ):
            methods.append(node)
    return methods


def _docstring(text: str) -> tuple[str, str, dict[str, str]]:
    """(short description, long description, parameter descriptions), Google style."""
    lines = text.splitlines()
    first_section = next((i for i, line in enumerate(lines) if _SECTION.match(line)), len(lines))
    description = "\n".join(lines[:first_section])
    short, _, long = description.partition("\n")
    described: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in lines[first_section:]:
        heading = _SECTION.match(line)
        if heading:
            in_args, current = heading.group(1) in ("Args", "Arguments"), None
            continue
        if not in_args or not line.strip():
            continue
        entry = re.match(r"^\s{1,8}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
        if entry and len(line) - len(line.lstrip()) <= 4:
            current = entry.group(1)
            described[current] = entry.group(2).strip()
        elif current is not None:
            described[current] = (described[current] + "\n" + line.strip()).strip()
    return short.strip(), inspect.cleandoc(long).strip(), described
