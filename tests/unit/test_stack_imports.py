"""`stack.py` imports the whole agent at its top (sqlmodel, the loop): `--help` must not
import it, nor those libraries (docs/architecture.md, the `stack.py` row). `openai` is
loaded only by a stack that talks to a model: `call` runs a tool without it."""

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


def test_the_stack_and_the_loop_load_no_openai_until_a_model_is_talked_to() -> None:
    code = (
        "import sys, airline_agent.stack, airline_agent.agent.loop\n"
        "print('openai' in sys.modules)\n"
        "from airline_agent.config import Settings\n"
        "from airline_agent.stack import eval_backends\n"
        "s = Settings(model='m', base_url='http://127.0.0.1:9/v1')\n"
        "eval_backends(s, s)\n"
        "print('openai' in sys.modules)"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.split() == ["False", "True"]
