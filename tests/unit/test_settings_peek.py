"""`peek_settings` (read before the TUI's first frame) agrees with `load_settings`."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from airline_agent.config import Settings, load_settings, variable_name
from airline_agent.settings_peek import NAMES, peek_settings

SHOWN = ("model", "db", "guard", "now", "approve", "base_url")


def test_the_names_are_the_ones_settings_declares() -> None:
    for name, names in NAMES.items():
        assert name in Settings.model_fields
        assert names == (variable_name(name),)


def _agree(monkeypatch: pytest.MonkeyPatch, **flags: object) -> None:
    peeked = peek_settings(**flags)
    settings = load_settings(**flags)
    for name in SHOWN:
        assert getattr(peeked, name) == getattr(settings, name), name
    assert peeked.model_configured == settings.model_configured


# Where a model name can come from: unset, empty, or set, under either name, in the
# environment and in `.env`; every combination of two of them.
PLACES = [
    ("env", "AIRLINE_AGENT_MODEL"),
    ("env", "model"),
    ("env", "MODEL"),
    ("file", "AIRLINE_AGENT_MODEL"),
    ("file", "airline_agent_model"),
    ("file", "MODEL"),
]


@pytest.mark.parametrize(
    ("first", "second"), list(itertools.combinations(PLACES, 2)), ids=lambda p: f"{p[0]}:{p[1]}"
)
@pytest.mark.parametrize("values", [("a", "b"), ("", "b"), ("a", "")])
def test_live_or_offline_is_decided_as_settings_decide_it(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    first: tuple[str, str],
    second: tuple[str, str],
    values: tuple[str, str],
) -> None:
    lines = []
    for (where, name), value in zip((first, second), values, strict=True):
        if where == "env":
            monkeypatch.setenv(name, value)
        else:
            lines.append(f"{name}={value}")
    (tmp_path / ".env").write_text("\n".join(lines) + "\n")
    _agree(monkeypatch)
    _agree(monkeypatch, model="flag")


def test_status_values_follow_flags_environment_dotenv_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _agree(monkeypatch)
    (tmp_path / ".env").write_text(
        "AIRLINE_AGENT_DB=dotenv.db\nAIRLINE_AGENT_GUARD=off\nAIRLINE_AGENT_NOW=2024-05-20T10:00:00\n"
        "OPENAI_BASE_URL=http://127.0.0.1:9/v1\n# a comment\nAIRLINE_AGENT_APPROVE='auto'\n"
    )
    _agree(monkeypatch)
    monkeypatch.setenv("AIRLINE_AGENT_DB", "env.db")
    monkeypatch.setenv("airline_agent_guard", "Yes")
    _agree(monkeypatch)
    _agree(monkeypatch, db="flag.db", approve="deny", guard=False, base_url=None)


def test_peeking_imports_no_pydantic() -> None:
    code = (
        "import sys; from airline_agent.settings_peek import peek_settings; peek_settings(); "
        "print(sorted(m for m in sys.modules if m.startswith('pydantic')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
