"""What the TUI needs before its first frame, read without pydantic.

Building `Settings` imports pydantic and pydantic-settings (about a fifth of a second);
the TUI's first screen only needs to know whether a model is configured (live or
offline) and a few values for its status line. `peek_settings` reads those the way
`Settings` does (flags > environment > `.env` > defaults, the same variable names,
case-insensitive), and the full `Settings` are built in a worker after the first frame
(`PendingSettings.load`, through `config.load_settings`, which also reports bad values).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from airline_agent.choices import DEFAULT_APPROVAL, DEFAULT_DB, DEFAULT_NOW
from airline_agent.late_imports import importing

if TYPE_CHECKING:
    # For the annotation only: pydantic is what the first frame must not wait for.
    from airline_agent.config import Settings

# Each setting's variable, as `config.Settings` reads it (config.variable_name);
# tests/unit/test_settings_peek.py holds the two in step.
NAMES: dict[str, tuple[str, ...]] = {
    "model": ("AIRLINE_AGENT_MODEL",),
    "db": ("AIRLINE_AGENT_DB",),
    "guard": ("AIRLINE_AGENT_GUARD",),
    "now": ("AIRLINE_AGENT_NOW",),
    "approve": ("AIRLINE_AGENT_APPROVE",),
    "base_url": ("OPENAI_BASE_URL",),
    "api_key": ("OPENAI_API_KEY",),
}
DEFAULTS: dict[str, str | None] = {
    "model": None,
    "db": DEFAULT_DB,
    "guard": "true",
    "now": DEFAULT_NOW,
    "approve": DEFAULT_APPROVAL,
    "base_url": None,
    "api_key": None,
}
# pydantic's spellings of a boolean (anything else is an error `load_settings` reports).
FALSE = {"0", "off", "f", "false", "n", "no"}


@dataclass(frozen=True)
class PendingSettings:
    """The flags given, and the values the status line shows until `Settings` exist."""

    flags: dict[str, object] = field(default_factory=dict)
    model: str | None = None
    db: str = DEFAULT_DB
    guard: bool = True
    now: str = DEFAULT_NOW
    approve: str = DEFAULT_APPROVAL
    base_url: str | None = None

    @property
    def model_configured(self) -> bool:
        return bool(self.model)

    def load(self) -> Settings:
        """The full `Settings` (raises `config.SettingsError` for an unusable value)."""
        # Imported here, after the first frame: pydantic is what it must not wait for.
        with importing("airline_agent.config"):
            # Alone: another thread's door may be importing (late_imports.py).
            from airline_agent.config import load_settings

        return load_settings(**self.flags)


def peek_settings(
    environ: Mapping[str, str] | None = None, dotenv: Path | None = None, **flags: object
) -> PendingSettings:
    """The values `load_settings(**flags)` will give for the fields the TUI shows first."""
    env, from_file = _sources(environ, dotenv)
    given = {name: value for name, value in flags.items() if value is not None}
    values = {
        name: given[name] if name in given else _lookup(NAMES[name], env, from_file, name)
        for name in NAMES
    }
    return PendingSettings(
        flags=dict(flags),
        model=_text(values["model"]),
        db=str(values["db"]),
        guard=str(values["guard"]).strip().lower() not in FALSE,
        now=str(values["now"]),
        approve=str(values["approve"]),
        base_url=_text(values["base_url"]),
    )


def peek_credentials(
    environ: Mapping[str, str] | None = None, dotenv: Path | None = None
) -> tuple[str | None, str | None]:
    """The API key and the base URL `Settings()` will read (the environment over `.env`),
    also when other settings are unusable: what a writer given no settings blanks out."""
    env, from_file = _sources(environ, dotenv)
    key, url = (_lookup(NAMES[name], env, from_file, name) for name in ("api_key", "base_url"))
    return _text(key), _text(url)


def _sources(
    environ: Mapping[str, str] | None, dotenv: Path | None
) -> tuple[dict[str, str], dict[str, str | None]]:
    """The environment and `.env`, their names lower-cased (`Settings` ignores case)."""
    environ = os.environ if environ is None else environ
    env = {name.lower(): value for name, value in environ.items()}
    dotenv_path = Path(".env") if dotenv is None else dotenv
    from_file: dict[str, str | None] = {}
    if dotenv_path.is_file():
        # Only with a .env: without one, the first screen does not wait for python-dotenv.
        from dotenv import dotenv_values

        from_file = {name.lower(): value for name, value in dotenv_values(dotenv_path).items()}
    return env, from_file


def _lookup(
    names: tuple[str, ...],
    env: Mapping[str, str],
    from_file: Mapping[str, str | None],
    field_name: str,
) -> object:
    # The environment overrides `.env`, as in `Settings`.
    merged: dict[str, object] = {}
    for source in (from_file, env):
        for name in names:
            value = source.get(name.lower())
            if value is not None:
                merged[name] = value
                break
    for name in names:
        if name in merged:
            return merged[name]
    return DEFAULTS[field_name]


def _text(value: object) -> str | None:
    return None if value is None else str(value)
