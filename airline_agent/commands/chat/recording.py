"""`chat --record FILE --transcript DIR`: the database copied when the chat starts, the
session saved when it ends (see `scenarios.live`), redacted like everything the chat
writes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from airline_agent.commands.chat.output import Output
from airline_agent.config import Settings
from airline_agent.output_files import OutputPermissions
from airline_agent.redaction import Redactor
from airline_agent.scenarios.live import LiveRecording, transcript_name
from airline_agent.scenarios.model import ScenarioSettings
from airline_agent.scenarios.transcript import transcript_files

if TYPE_CHECKING:  # a front end opens databases only through stack.py: the type alone
    from airline_agent.domain.db import Database


def transcript_files_of(transcript: Path, record: Path | None) -> tuple[Path, Path]:
    """The files `--transcript DIR` will write (named after the `--record` file, if any)."""
    return transcript_files(transcript, transcript_name(record))


def start_recording(
    settings: Settings,
    database: Database,
    customer: str | None,
    record: Path | None,
    transcript: Path | None,
    redactor: Redactor,
    outputs: OutputPermissions | None = None,
) -> LiveRecording:
    """Copy the database now. The files are written at the end as `outputs` allows
    (checked by the command before the chat)."""
    return LiveRecording(
        database.path,
        record=record,
        transcript=transcript,
        customer=customer,
        settings=ScenarioSettings(
            guard=settings.guard,
            approval="ask-accept" if settings.approve == "ask" else settings.approve,
            max_tool_calls=settings.max_tool_calls,
            model=settings.model or "scripted",
            now=settings.now,
        ),
        redactor=redactor,
        outputs=outputs or OutputPermissions(),
    ).start()


def save_recording(recording: LiveRecording, err: Output) -> bool:
    """Write the files, saying where (or why not); False when they could not be written,
    or were written but will not replay (too large to be read)."""
    saved = True
    try:
        for path in recording.finish():
            err.line(f"saved {path}")
    except OSError as exc:  # checked at the start; the disk may still fill up
        err.line(f"error: the recording could not be saved: {exc}")
        saved = False
    for warning in recording.warnings:
        err.line(f"warning: {warning}")
    for error in recording.errors:
        err.line(f"error: {error}")
    return saved and not recording.errors
