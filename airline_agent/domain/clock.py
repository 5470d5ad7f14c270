"""The domain clock (policy C1): injected, never read from the wall clock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from airline_agent.choices import DEFAULT_NOW


@dataclass(frozen=True)
class Clock:
    now: datetime

    @classmethod
    def at(cls, iso: str = DEFAULT_NOW) -> Clock:
        return cls(datetime.fromisoformat(iso))

    def iso(self) -> str:
        """`YYYY-MM-DDTHH:MM:SS`, the format of `created_at`."""
        return self.now.strftime("%Y-%m-%dT%H:%M:%S")

    def today(self) -> str:
        return self.now.strftime("%Y-%m-%d")
