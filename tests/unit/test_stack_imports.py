"""`stack.py` imports the whole agent at its top (sqlmodel, openai, the loop): `--help`
must not import it, nor those libraries (docs/architecture.md, the `stack.py` row)."""

from __future__ import annotations

import subprocess
import sys

HELP = """
import sys
sys.argv = ["airline-agent", "--help"]
import airline_agent.cli as cli
try:
    cli.main()
except SystemExit:
    pass
heavy = ("airline_agent.stack", "airline_agent.agent.loop", "openai", "sqlmodel")
print(sorted(name for name in heavy if name in sys.modules), file=sys.stderr)
"""


def test_help_imports_neither_the_stack_nor_its_libraries() -> None:
    ran = subprocess.run([sys.executable, "-c", HELP], capture_output=True, text=True, check=True)
    assert "Usage" in ran.stdout
    assert ran.stderr.strip().splitlines()[-1] == "[]"


def test_importing_the_stack_brings_the_agent() -> None:
    code = "import sys, airline_agent.stack; print('airline_agent.agent.loop' in sys.modules)"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "True"  # what the test above keeps off the path of --help
