"""The start-up part: what a command costs from exec to exit, beside a bare interpreter
importing the libraries that command cannot do without, in the same run (issue 21).

- `--help`: typer builds the app and prints the commands (baseline: a bare typer app of
  eight commands without options printing its help, rich formatting included);
- `call get_user_details`: one read on the sample database, printed as JSON (baseline:
  `import typer, sqlmodel, pydantic_settings`);
- `chat` with empty input: the whole chat stack built (settings, database, toolbox, the
  `openai` client, the loop), nothing sent, then the end of input (baseline: the same
  imports and `openai`). The tokenizer a session counts its prefixes with (tiktoken's
  cl100k, with the dev or bench extra) loads at the first request, so it is not in this
  figure; loaded with the session, it took chat from 1.42× to 1.55× (2026-12-07).

The figure is CPU time (user + system, from the child's own rusage), not wall time: on a
shared machine the wall clock says more about the neighbours than about the start. The
ratio is what our own code adds over the libraries; the targets hold it under 1.5×.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import Row, timing

ROOT = Path(__file__).resolve().parents[2]
TARGET = 1.5  # CPU of the command over that of its libraries (or a bare typer app)
NOWHERE = "http://127.0.0.1:9/v1"  # never reached: an empty chat sends nothing
BARE_TYPER = """
import typer
app = typer.Typer(add_completion=False)
for name in ("seed", "export", "call", "chat", "replay", "eval", "tui", "serve"):
    app.command(name, help=f"The {name} command.")(lambda: None)
app()
"""


def _cpu_ms(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """User + system CPU of one run of `argv` (its exit status must be 0)."""
    child = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
    )
    assert child.stderr is not None
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stderr.close()
    if child.returncode != 0:
        raise RuntimeError(f"{argv[2:]} exited {child.returncode}: {errors.decode()[-500:]}")
    return (usage.ru_utime + usage.ru_stime) * 1000


def _environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AIRLINE_AGENT_"))}
    env["PYTHONPATH"] = str(ROOT)  # this checkout's package, whatever is installed
    return env | extra


def _pair(command: list[str], baseline: list[str], env: dict[str, str], cwd: Path, runs: int):
    """Ours and the baseline's CPU, interleaved so that both see the same machine."""
    ours: list[float] = []
    bare: list[float] = []
    for _ in range(runs):
        ours.append(_cpu_ms([sys.executable, "-m", "airline_agent", *command], env, cwd))
        bare.append(_cpu_ms([sys.executable, *baseline], env, cwd))
    return timing(ours), timing(bare)


def run(quick: bool) -> list[Row]:
    sys.path.insert(0, str(ROOT))
    from airline_agent.domain.provisioning import build_database

    runs = 3 if quick else 9
    folder = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    try:
        db = folder / "airline.db"
        build_database(db).close()
        env = _environment()
        chat_env = _environment(AIRLINE_AGENT_MODEL="gpt-4o-mini", OPENAI_BASE_URL=NOWHERE)
        lookup = '{"user_id": "emma_kim_9957"}'
        libraries = "typer, sqlmodel, pydantic_settings"
        cases = [
            ("--help", ["--help"], ("bare typer app --help", ["-c", BARE_TYPER, "--help"]), env),
            (
                "call get_user_details on the sample",
                ["call", "get_user_details", lookup, "--db", str(db)],
                (f"import {libraries}", ["-c", f"import {libraries}"]),
                env,
            ),
            (
                "chat, empty input (stack built, nothing sent)",
                ["chat", "--db", str(db)],
                (f"import {libraries}, openai", ["-c", f"import {libraries}, openai"]),
                chat_env,
            ),
        ]
        rows = []
        for name, command, (baseline_name, baseline), environment in cases:
            ours, bare = _pair(command, baseline, environment, folder, runs)
            rows.append(
                Row(
                    "startup",
                    f"{name} (CPU ms)",
                    ours,
                    baseline_name,
                    bare,
                    target=f"≤ {TARGET}×",
                    met=ours.median_ms <= TARGET * bare.median_ms,
                )
            )
        return rows
    finally:
        shutil.rmtree(folder, ignore_errors=True)
