"""Settings: command-line flags > environment > `.env` > defaults.

Commands build a `Settings` from the environment and `.env`, then apply their flags with
`settings.with_overrides(...)` (only the flags the user actually gave).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from airline_agent.choices import (
    DEFAULT_APPROVAL,
    DEFAULT_DB,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_MAX_TOOL_CALLS,
    DEFAULT_NOW,
    DEFAULT_PROMPT,
    DEFAULT_STALL_NOTICE,
    ApprovalMode,
    PromptStyle,
)


class Settings(BaseSettings):
    """Each field is read from exactly one variable: `AIRLINE_AGENT_<FIELD>`, or the
    `OPENAI_…` name the openai client uses. No unprefixed name (`DB`, `MODEL`) counts."""

    model_config = SettingsConfigDict(env_file=".env", env_prefix="AIRLINE_AGENT_", extra="ignore")

    db: str = DEFAULT_DB
    now: str = DEFAULT_NOW
    guard: bool = True
    model: str | None = None
    base_url: str | None = Field(None, validation_alias="OPENAI_BASE_URL")
    api_key: SecretStr | None = Field(None, validation_alias="OPENAI_API_KEY")
    approve: ApprovalMode = DEFAULT_APPROVAL
    prompt: PromptStyle = DEFAULT_PROMPT
    stream: bool = True
    max_tool_calls: int = Field(DEFAULT_MAX_TOOL_CALLS, ge=1)
    max_requests: int = Field(DEFAULT_MAX_REQUESTS, ge=1)
    timeout: float = Field(60.0, gt=0)  # seconds a request may wait for data (per read)
    stall_notice: float = Field(
        DEFAULT_STALL_NOTICE, gt=0
    )  # seconds without data before the chat says so
    # Request parameters (sent only when set) and per-conversation budgets.
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1)
    tool_choice: str = "auto"  # auto | none | required | a tool's name
    parallel_tool_calls: bool | None = None
    token_budget: int | None = Field(None, ge=1)
    cost_budget: float | None = Field(None, gt=0)
    # llama-server only: ask for `prompt_progress` chunks while it reads the prompt (other
    # servers may refuse an unknown request field, so it is off unless asked for).
    prompt_progress: bool = False
    # Make the tool calls a model wrote as text (shown as the framework's doing).
    recover_text_tool_calls: bool = False

    @field_validator("now")
    @classmethod
    def _an_iso_date_time(cls, value: str) -> str:
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise ValueError("not an ISO date and time, e.g. 2024-05-15T15:00:00") from None
        return value

    def __init__(self, **values: Any) -> None:
        # Fields are given by name in code (`Settings(base_url=…)`); the environment is
        # read under the variable names only.
        super().__init__(**{_input_name(name): value for name, value in values.items()})

    def with_overrides(self, **flags: object) -> Settings:
        """A copy with the given flags applied; `None` means the flag was not given."""
        given = {name: value for name, value in flags.items() if value is not None}
        if not given:
            return self
        # Only what was set (in the environment, `.env`, code or flags) is carried over:
        # which fields were given stays known (`db_named`).
        values = {**self.model_dump(exclude_unset=True), **given}
        return self.model_validate({_input_name(name): value for name, value in values.items()})

    @property
    def model_configured(self) -> bool:
        return bool(self.model)

    @property
    def db_named(self) -> bool:
        """A database was named (`--db`, `AIRLINE_AGENT_DB`, `.env`, or in code). Only the
        default location, when none was, is built on first use: a name given may be a
        typo (`prod.bd`), and a missing one is refused, never made a new sample."""
        return "db" in self.model_fields_set


def _input_name(field_name: str) -> str:
    """The key validation takes for a field: its alias where it has one."""
    info = Settings.model_fields.get(field_name)
    alias = info.validation_alias if info is not None else None
    return alias if isinstance(alias, str) else field_name


def variable_name(field_name: str) -> str:
    """The environment variable that sets a field."""
    alias = Settings.model_fields[field_name].validation_alias
    return alias if isinstance(alias, str) else f"AIRLINE_AGENT_{field_name.upper()}"


class SettingsError(ValueError):
    """A setting from a flag, the environment or `.env` is unusable; one line says which."""


def load_settings(**flags: object) -> Settings:
    """Settings from the environment and `.env`, with the given flags applied."""
    try:
        return Settings().with_overrides(**flags)
    except ValidationError as exc:
        problem = exc.errors()[0]
        field_name = str(problem["loc"][0]) if problem["loc"] else ""
        for name, info in Settings.model_fields.items():
            if field_name in (name, info.validation_alias):
                field_name = name
        if flags.get(field_name) is not None:
            where = "--" + field_name.replace("_", "-")
        elif field_name in Settings.model_fields:
            where = variable_name(field_name)
        else:
            where = field_name or "settings"
        given = problem.get("input")
        shown = f" (got {given!r})" if isinstance(given, str | int | float) else ""
        message = problem["msg"].removeprefix("Value error, ")  # pydantic's, for our checks
        raise SettingsError(f"{where}: {message}{shown}") from None
