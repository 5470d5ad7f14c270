"""The README and the documentation site hold together (issue 33): the README stays short
and reaches every job's page in one click; every link of the README and of docs/ resolves,
its anchor included, on GitHub and on the built site alike; each command's `--help` ends
with one or two examples; the configuration page's generated tables cover every setting
and every variable the package reads; and the test command builds the site strictly."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
import typer.main
from markdown.extensions.toc import slugify
from typer.core import TyperGroup
from typer.testing import CliRunner

from airline_agent.cli import build_app
from airline_agent.config import Settings, variable_name

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
JOB_PAGES = {
    "showcase.md",
    "live.md",
    "database.md",
    "scenarios.md",
    "eval.md",
    "debugger.md",
    "serve.md",
    "mcp.md",
    "postgres.md",
}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")


def _reference() -> ModuleType:
    """scripts/docs_reference.py, the MkDocs hook that writes the generated tables."""
    spec = importlib.util.spec_from_file_location(
        "docs_reference", ROOT / "scripts/docs_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _prose(path: Path) -> list[str]:
    """A page's lines outside fenced code blocks (a `#` there is a comment, not a heading)."""
    lines, fenced = [], False
    for line in path.read_text().splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _github_slug(heading: str) -> str:
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors a page's headings get both on GitHub and from MkDocs' table of contents:
    a link may use only those, so it works wherever it is read."""
    found = set()
    for line in _prose(path):
        if match := HEADING.match(line):
            heading = match.group(1)
            site = slugify(re.sub(r"[`*]", "", heading), "-")
            if site == _github_slug(heading):
                found.add(site)
    return found


def broken_links(page: Path) -> list[str]:
    broken = []
    for line in _prose(page):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            file, _, anchor = target.partition("#")
            resolved = (page.parent / file).resolve() if file else page
            if not resolved.exists():
                broken.append(f"{page.name}: {target}: no such file")
            elif anchor and anchor not in anchors(resolved):
                broken.append(f"{page.name}: {target}: no heading with that anchor")
    return broken


def test_the_readme_is_at_most_200_lines() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_every_job_page_is_one_click_from_the_readme() -> None:
    linked = {
        Path(target.partition("#")[0]).name
        for line in _prose(ROOT / "README.md")
        for target in LINK.findall(line)
        if target.startswith("docs/")
    }
    assert linked >= JOB_PAGES
    assert all((DOCS / page).is_file() for page in JOB_PAGES)


def test_every_link_of_the_readme_resolves() -> None:
    assert broken_links(ROOT / "README.md") == []


def test_every_link_of_the_documentation_resolves() -> None:
    assert [problem for page in sorted(DOCS.rglob("*.md")) for problem in broken_links(page)] == []


def test_a_broken_link_or_anchor_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## The data\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#the-data) [gone](missing.md) [no anchor](other.md#the-date)\n"
        "```bash\n# [in code](nowhere.md) is not a link\n```\n"
    )
    assert broken_links(page) == [
        "page.md: missing.md: no such file",
        "page.md: other.md#the-date: no heading with that anchor",
    ]


def _commands() -> dict[str, object]:
    group = typer.main.get_command(build_app())
    assert isinstance(group, TyperGroup)
    return {"": group, **group.commands}


@pytest.mark.parametrize("name", list(_commands()), ids=lambda name: name or "airline-agent")
def test_every_help_ends_with_one_or_two_examples(name: str) -> None:
    command = _commands()[name]
    examples = _reference().examples(getattr(command, "epilog", None))
    assert 1 <= len(examples) <= 2
    for example in examples:
        assert re.match(r"([A-Z_]+=\S+ )*airline-agent\b", example), example
    shown = CliRunner().invoke(
        build_app(), [*([name] if name else []), "--help"], env={"COLUMNS": "200"}
    )
    assert shown.exit_code == 0
    tail = shown.output[shown.output.index("Examples:") :]
    assert "Options" not in tail and "Commands" not in tail  # at the end
    for example in examples:
        assert example.split("#")[0].strip() in tail


def test_every_setting_has_its_variable_and_meaning_in_the_configuration_page() -> None:
    table = _reference().settings_table()
    for name in Settings.model_fields:
        assert f"| `{variable_name(name)}` |" in table


def test_a_setting_without_a_meaning_fails_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    reference = _reference()
    monkeypatch.delitem(reference.MEANINGS, "timeout")
    with pytest.raises(LookupError, match="timeout"):
        reference.settings_table()


def test_every_variable_the_package_reads_is_documented() -> None:
    table = _reference().settings_table()
    used = {
        name
        for path in (ROOT / "airline_agent").rglob("*.py")
        for name in re.findall(r"\b(?:AIRLINE_AGENT|OPENAI)_[A-Z0-9_]*[A-Z0-9]\b", path.read_text())
    }
    assert used  # the package does read some
    assert sorted(name for name in used if f"`{name}`" not in table) == []


def test_the_configuration_page_holds_the_generated_tables() -> None:
    page = (DOCS / "configuration.md").read_text()
    assert set(_reference().GENERATED) <= {line.strip() for line in page.splitlines()}
    commands = _reference().commands_reference()
    for name in _commands():
        if name:
            assert f"### `{name}`" in commands


def test_the_test_command_builds_the_site_strictly_before_the_tests() -> None:
    script = (ROOT / "scripts" / "test").read_text()
    build = script.index("mkdocs build --strict")
    assert script.index(".venv/bin/ruff check") < build < script.index("python -m pytest")
