"""Imports written inside a function (the package's doors), read from a module's source:
where they are, and those without a comment saying why (on the line or the one above)."""

from __future__ import annotations

import ast
from pathlib import Path


def imports_in_functions(path: Path) -> list[int]:
    """The line of each import statement inside a function of `path`, in order."""
    tree = ast.parse(path.read_text())
    return sorted(
        node.lineno
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    )


def without_reason(path: Path, numbers: list[int]) -> list[int]:
    """Those of `numbers` (lines of `path`) with no comment on the line or the one above."""
    lines = path.read_text().splitlines()
    return [
        number
        for number in numbers
        if "#" not in lines[number - 1]
        and not (number > 1 and lines[number - 2].strip().startswith("#"))
    ]
