"""The documentation's commands run: every fenced `bash` block that a `<!-- tested -->` line
stands before, in README.md and docs/, is run offline as a new user would run it after
`scripts/demo` (a copy of `data/` with the sample database built, the venv's
`airline-agent` on PATH and as `.venv/bin/airline-agent`, no model, no key), and exits 0.
So a renamed flag, a moved file or a changed default fails here before it misleads a
reader (docs/development.md, "The documentation")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- tested -->"
FENCE = "```"
DEADLINE = 600  # seconds a block may take on a busy machine before it counts as hung


@dataclass(frozen=True)
class Block:
    where: str  # file:line of the block's first command
    text: str


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def marked_blocks(path: Path) -> list[Block]:
    """The `bash` blocks of a page that a marker line stands before; a marker before
    anything else is an error (it would test nothing and look as if it did)."""
    lines = path.read_text().splitlines()
    blocks = []
    for number, line in enumerate(lines):
        if line.strip() != MARKER:
            continue
        following = [n for n in range(number + 1, len(lines)) if lines[n].strip()]
        start = following[0] if following else None
        where = f"{_shown(path)}:{number + 1}"
        if start is None or lines[start].strip() != f"{FENCE}bash":
            raise ValueError(f"{where}: {MARKER} stands before no ```bash block")
        end = next(n for n in range(start + 1, len(lines)) if lines[n].strip() == FENCE)
        blocks.append(Block(f"{_shown(path)}:{start + 2}", "\n".join(lines[start + 1 : end])))
    return blocks


def _all_blocks() -> list[Block]:
    return [block for page in _pages() for block in marked_blocks(page)]


def test_every_marker_stands_before_a_bash_block(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(f"{MARKER}\n\n```bash\nairline-agent --help\n```\n\n{MARKER}\ntext\n")
    with pytest.raises(ValueError, match=r"page.md:7: .* stands before no"):
        marked_blocks(page)
    assert _all_blocks()  # and the real pages' markers all do (else this raises)


def test_the_readme_and_the_job_pages_mark_their_offline_commands() -> None:
    marked = {block.where.split(":")[0] for block in _all_blocks()}
    assert {"README.md", "docs/database.md", "docs/scenarios.md", "docs/debugger.md"} <= marked


@pytest.fixture
def new_users_folder(sample_template: Path, tmp_path: Path) -> Path:
    """A folder as a new user's checkout is after `scripts/demo`: data/ (the scenarios,
    the prices, the sample database built), .venv linked in."""
    folder = tmp_path / "checkout"
    shutil.copytree(ROOT / "data", folder / "data", ignore=shutil.ignore_patterns("airline.db*"))
    shutil.copy(sample_template, folder / "data" / "airline.db")
    (folder / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return folder


def _offline_environment() -> dict[str, str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("OPENAI_", "AIRLINE_AGENT_")) or name == "AIRLINE_AGENT_TAU2_DIR"
    }
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    environment["COLUMNS"] = "100"
    return environment


@pytest.mark.parametrize("block", _all_blocks(), ids=lambda block: block.where)
def test_a_tested_block_runs_offline(block: Block, new_users_folder: Path) -> None:
    ran = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.text],
        cwd=new_users_folder,
        env=_offline_environment(),
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert ran.returncode == 0, (
        f"{block.where}: exit {ran.returncode}\n{block.text}\n"
        f"--- stdout (end)\n{ran.stdout[-2000:]}\n--- stderr (end)\n{ran.stderr[-2000:]}"
    )
