"""Plain `airline-agent` (and `tui` without options) opens the TUI without typer."""

from __future__ import annotations

import subprocess
import sys

import pytest

from airline_agent import cli


@pytest.mark.parametrize("argv", [[], ["tui"]])
def test_no_options_open_the_tui_directly(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    import airline_agent.tui.launch as launch

    opened: list[dict[str, object]] = []
    monkeypatch.setattr(launch, "run_tui", lambda **flags: opened.append(flags) or 0)
    monkeypatch.setattr(sys, "argv", ["airline-agent", *argv])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 0
    assert opened == [{}]  # every setting from the environment, `.env` and defaults


def test_options_go_through_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    # Imported before `run_tui` is replaced: imported after, the command module would keep
    # the stand-in for good (what monkeypatch restores is what it found), and every later
    # `tui` test in this worker would open nothing and exit 0.
    import airline_agent.commands.tui as command
    import airline_agent.tui.launch as launch

    opened: list[dict[str, object]] = []
    monkeypatch.setattr(launch, "run_tui", lambda **flags: opened.append(flags) or 0)
    monkeypatch.setattr(command, "run_tui", launch.run_tui)
    monkeypatch.setattr(sys, "argv", ["airline-agent", "tui", "--no-guard"])
    with pytest.raises(SystemExit):
        cli.main()
    assert opened and opened[0]["guard"] is False


def test_importing_the_entry_point_imports_no_typer() -> None:
    code = "import sys, airline_agent.cli; print('typer' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
