"""Recording a live session (`airline-agent chat --record FILE --transcript DIR`).

At the start the database file is copied (SQLite's backup API, so a database in WAL mode
is copied whole); the session's events are collected as they come; at the end the
recording is a scenario whose final database expectation is the difference between that
copy and the database as the chat left it, and the transcript is written as JSONL and
Markdown. The same copy says which dataset the recording replays on (`provenance`): when
the database was not a pristine dataset, `warnings` says so and so does the scenario's
description. The API key is never part of the events, but a customer may type it or a
model repeat it: both files are redacted (`airline_agent.redaction`).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from airline_agent.agent.events import AgentEvent, TurnStarted
from airline_agent.domain.sqlite_files import copy_sqlite
from airline_agent.output_files import OutputPermissions
from airline_agent.redaction import Redactor
from airline_agent.scenarios.dbdiff import diff_databases
from airline_agent.scenarios.model import ScenarioSettings
from airline_agent.scenarios.provenance import match_dataset
from airline_agent.scenarios.recorder import record_scenario, replay_refusal, save_scenario
from airline_agent.scenarios.transcript import write_transcript


@dataclass
class LiveRecording:
    """The events of one live session, and the database as it was when it began."""

    database_file: Path | None  # None: not a SQLite file; the final database is not checked
    record: Path | None = None
    transcript: Path | None = None
    customer: str | None = None
    settings: ScenarioSettings = field(default_factory=ScenarioSettings)
    redactor: Redactor | None = None  # None: the settings of the environment
    outputs: OutputPermissions = field(default_factory=OutputPermissions)  # what may be replaced
    events: list[AgentEvent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # for the user, once saved
    errors: list[str] = field(default_factory=list)  # saved, but not as asked (no replay)
    _scratch: Path | None = None
    _start_copy: Path | None = None

    def start(self) -> LiveRecording:
        """Copy the database as it is now, before the first turn."""
        if self.record is not None and self.database_file is not None:
            self._scratch = Path(tempfile.mkdtemp(prefix="airline-agent-record-"))
            self._start_copy = self._scratch / "start.db"
            copy_sqlite(self.database_file, self._start_copy)
        return self

    def observe(self, event: AgentEvent) -> None:
        self.events.append(event)

    def finish(self) -> list[Path]:
        """Write the recording and the transcript; returns the files written."""
        written: list[Path] = []
        try:
            if self.record is not None and not self._has_a_turn():
                # A scenario is at least one turn: there is nothing to replay.
                self.warnings.append(
                    f"nothing to record: the chat ended before its first turn; "
                    f"{self.record} was not written"
                )
            elif self.record is not None:
                written.append(self._save_scenario(self.record))
            if self.transcript is not None:
                name = transcript_name(self.record)
                written.extend(
                    write_transcript(
                        self.events, self.transcript, name, self.redactor, outputs=self.outputs
                    )
                )
        finally:
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
        return written

    def _has_a_turn(self) -> bool:
        return any(isinstance(event, TurnStarted) for event in self.events)

    def _save_scenario(self, path: Path) -> Path:
        changes = None
        if self._start_copy is not None and self.database_file is not None:
            changes = diff_databases(self._start_copy, self.database_file)
        origin = match_dataset(self._start_copy)
        if origin.warning:
            self.warnings.append(origin.warning)
        scenario = record_scenario(
            self.events,
            name=_slug(path.stem),
            description=origin.describe("Recorded with `airline-agent chat --record`."),
            dataset=origin.dataset,
            customer=self.customer,
            settings=self.settings,  # the recorder sets the approvals from the answers
            changes=changes,
        )
        saved = save_scenario(scenario, path, self.redactor, outputs=self.outputs)
        refusal = replay_refusal(saved, scenario)
        if refusal:
            self.errors.append(refusal)
        return saved


def transcript_name(record: Path | None) -> str:
    """The name of a live session's transcript files: the recording's, else `chat`."""
    return _slug(record.stem if record else "chat")


def _slug(text: str) -> str:

    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "recording"
