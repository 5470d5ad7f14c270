"""Vocabularies defined once and imported where used (issue 21): the progress callback of
a database build, and the project's root folder."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "airline_agent"


def _definitions(pattern: str) -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line in path.read_text().splitlines():
            if re.search(pattern, line):
                found.append(str(path.relative_to(PACKAGE)))
    return found


def test_the_progress_callback_is_defined_once() -> None:
    assert _definitions(r"^Progress\s*=") == ["domain/loading.py"]


def test_the_project_root_is_defined_once() -> None:
    # `.parent` alone is a package finding its own files; climbing further is the root.
    climbs = r"Path\(__file__\)\.resolve\(\)\.(parents\[|parent\.parent)"
    assert _definitions(climbs) == ["project.py"]
