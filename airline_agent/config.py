"""Settings: command-line flags > environment > `.env` > defaults.

Commands build a `Settings` from the environment and `.env`, then apply their flags with
`settings.with_overrides(...)` (only the flags the user actually gave).
"""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from airline_agent.domain.clock import DEFAULT_NOW

ApprovalPolicy = Literal["ask", "auto", "deny"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    db: str = Field("data/airline.db", validation_alias=AliasChoices("AIRLINE_AGENT_DB", "db"))
    now: str = Field(DEFAULT_NOW, validation_alias=AliasChoices("AIRLINE_AGENT_NOW", "now"))
    guard: bool = Field(True, validation_alias=AliasChoices("AIRLINE_AGENT_GUARD", "guard"))
    model: str | None = Field(None, validation_alias=AliasChoices("AIRLINE_AGENT_MODEL", "model"))
    base_url: str | None = Field(None, validation_alias=AliasChoices("OPENAI_BASE_URL", "base_url"))
    api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("OPENAI_API_KEY", "api_key")
    )
    approve: ApprovalPolicy = Field(
        "ask", validation_alias=AliasChoices("AIRLINE_AGENT_APPROVE", "approve")
    )
    stream: bool = Field(True, validation_alias=AliasChoices("AIRLINE_AGENT_STREAM", "stream"))
    max_tool_calls: int = Field(
        8, ge=1, validation_alias=AliasChoices("AIRLINE_AGENT_MAX_TOOL_CALLS", "max_tool_calls")
    )
    max_requests: int = Field(
        16, ge=1, validation_alias=AliasChoices("AIRLINE_AGENT_MAX_REQUESTS", "max_requests")
    )
    timeout: float = Field(
        60.0, gt=0, validation_alias=AliasChoices("AIRLINE_AGENT_TIMEOUT", "timeout")
    )

    def with_overrides(self, **flags: object) -> Settings:
        """A copy with the given flags applied; `None` means the flag was not given."""
        given = {name: value for name, value in flags.items() if value is not None}
        if not given:
            return self
        return self.model_validate({**self.model_dump(), **given})

    @property
    def model_configured(self) -> bool:
        return bool(self.model)


class SettingsError(ValueError):
    """A setting from a flag, the environment or `.env` is unusable; one line says which."""


def load_settings(**flags: object) -> Settings:
    """Settings from the environment and `.env`, with the given flags applied."""
    try:
        return Settings().with_overrides(**flags)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "settings"
        given = problem.get("input")
        shown = f" (got {given!r})" if isinstance(given, str | int | float) else ""
        raise SettingsError(f"{where}: {problem['msg']}{shown}") from None
