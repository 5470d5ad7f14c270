"""The line at the top: what is running, for whom, on which data, under which rules."""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.reactive import reactive
from textual.widgets import Static


@dataclass(frozen=True)
class SessionStatus:
    source: str  # "model: gpt-4o-mini @ api.openai.com" or "scenario: cancel EHGLP3"
    customer: str | None
    database: str
    guard: bool
    approval: str
    clock: str
    busy: str = ""  # "", "thinking…", "seeding database…"

    def with_(self, **changes: object) -> SessionStatus:
        return replace(self, **changes)


class StatusBar(Static):
    status: reactive[SessionStatus | None] = reactive(None)

    def render(self) -> str:
        status = self.status
        if status is None:
            return "starting…"
        guard = "[b green]guard on[/]" if status.guard else "[b red]guard OFF[/]"
        parts = [
            f"[b]{status.source}[/b]",
            f"customer [b]{status.customer or 'not identified'}[/b]",
            f"db {status.database}",
            guard,
            f"approval {status.approval}",
            f"clock {status.clock}",
        ]
        if status.busy:
            parts.append(f"[b yellow]{status.busy}[/]")
        return " │ ".join(parts)
