"""One spelling per flag across the commands (issue 31): `--as` for the customer acted
for, `-o/--out` for where a command writes, `--guard/--no-guard` for the policy guard; the
old spellings are refused with one line that names the new one (exit 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from airline_agent.cli import app

RUNNER = CliRunner()


def _options() -> list[tuple[str, Any]]:
    """(command, option) for every visible option of every command."""
    root = typer.main.get_command(app)
    found = []
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden:
                found.append((name, param))
    return found


def test_each_idea_has_one_spelling_in_every_command() -> None:
    guards, outs, customers = set(), set(), set()
    for command, option in _options():
        spellings = (*option.opts, *option.secondary_opts)
        if any("guard" in spelling for spelling in spellings):
            assert (option.opts, option.secondary_opts) == (["--guard"], ["--no-guard"]), command
            guards.add(command)
        if any(spelling in ("-o", "--out", "--output") for spelling in spellings):
            assert option.opts == ["-o", "--out"], command
            outs.add(command)
        if any(spelling in ("--as", "--customer", "--user") for spelling in spellings):
            assert option.opts == ["--as"], command
            customers.add(command)
    assert guards == {"call", "chat", "eval", "mcp", "serve", "tui"}
    assert outs == {"eval", "export"}
    assert customers == {"call", "chat", "mcp", "tui"}


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["tui", "--customer", "emma_kim_9957"], "--customer is now --as"),
        (["export", "--output", "db.json"], "--output is now --out"),
    ],
)
def test_an_old_spelling_is_refused_naming_the_new_one(argv: list[str], said: str) -> None:
    result = RUNNER.invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.strip() == f"error: {said}"


def test_tui_takes_the_customer_and_the_guard_as_every_command_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import airline_agent.commands.tui as command

    opened: list[dict[str, object]] = []
    monkeypatch.setattr(command, "run_tui", lambda **flags: opened.append(flags) or 0)
    for argv, customer, guard in [
        (["tui", "--as", "emma_kim_9957", "--guard"], "emma_kim_9957", True),
        (["tui", "--no-guard"], None, False),
        (["tui", "--scenario", "x"], None, None),  # not given: the settings decide
    ]:
        opened.clear()
        result = RUNNER.invoke(app, argv)
        assert result.exit_code == 0, result.output
        assert (opened[0]["customer"], opened[0]["guard"]) == (customer, guard), argv


def test_export_writes_where_o_or_out_says(tmp_path: Path, world_template: Path) -> None:
    for flag in ("-o", "--out"):
        target = tmp_path / f"db{flag}.json"
        result = RUNNER.invoke(app, ["export", "--db", str(world_template), flag, str(target)])
        assert result.exit_code == 0, result.output
        assert '"reservations"' in target.read_text(encoding="utf-8")
