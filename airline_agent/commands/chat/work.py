"""What `chat` does before its loop (its options are `command.py`'s): the settings read and
the output files checked, up front (one line and exit 2 when one is unusable: not a
traceback after the whole conversation); then the chat (`repl.run_chat`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer

from airline_agent.choices import APPROVAL_MODES
from airline_agent.commands.chat import recording
from airline_agent.commands.chat.repl import run_chat
from airline_agent.commands.outputs import allowed_or_exit, file_or_exit, folder_or_exit
from airline_agent.commands.settings import settings_or_exit
from airline_agent.output_files import OutputPermissions

NO_MODEL = """\
error: no model is configured.
  Set AIRLINE_AGENT_MODEL (or pass --model), for example:
    export AIRLINE_AGENT_MODEL=gpt-4o-mini OPENAI_API_KEY=sk-...
  or, for a local OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio):
    export AIRLINE_AGENT_MODEL=llama3.1 OPENAI_BASE_URL=http://localhost:11434/v1
  Without a model, `airline-agent tui` replays the scripted scenarios offline."""


def chat(
    *,
    model: str | None,
    base_url: str | None,
    as_user: str | None,
    approve: str | None,
    stream: bool | None,
    api: str | None,
    max_tool_calls: int | None,
    temperature: float | None,
    max_tokens: int | None,
    tool_choice: str | None,
    parallel_tool_calls: bool | None,
    token_budget: int | None,
    cost_budget: float | None,
    prompt: str | None,
    recover_text_tool_calls: bool,
    db: str | None,
    guard: bool | None,
    record: Path | None,
    transcript: Path | None,
    force: bool,
) -> None:
    """Chat with the agent; exits with the chat's status."""
    if approve is not None and approve not in APPROVAL_MODES:
        modes = ", ".join(APPROVAL_MODES[:-1]) + f" or {APPROVAL_MODES[-1]}"
        typer.echo(f"error: --approve must be {modes}, not {approve!r}", err=True)
        raise typer.Exit(2)
    settings = settings_or_exit(
        model=model,
        base_url=base_url,
        approve=approve,
        stream=stream,
        api=api,
        max_tool_calls=max_tool_calls,
        temperature=temperature,
        max_tokens=max_tokens,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls,
        token_budget=token_budget,
        cost_budget=cost_budget,
        prompt=prompt,
        db=db,
        guard=guard,
        recover_text_tool_calls=True if recover_text_tool_calls else None,
    )
    if not settings.model_configured:
        typer.echo(NO_MODEL, err=True)
        raise typer.Exit(2)
    outputs = OutputPermissions.for_run(database=settings.db, overwrite=force)
    if record is not None:
        outputs = file_or_exit(record, "--record", outputs)
    if transcript is not None:
        folder_or_exit(transcript, "--transcript")
        for file in recording.transcript_files_of(transcript, record):
            outputs = allowed_or_exit(file, "--transcript", outputs)
    try:
        status = asyncio.run(
            run_chat(
                settings, as_user=as_user, record=record, transcript=transcript, outputs=outputs
            )
        )
    except KeyboardInterrupt:  # Ctrl-C before the chat took it over (while starting)
        typer.echo("")
        status = 0
    raise typer.Exit(status)
