"""The `chat` command: its options, checked, then the chat (`repl.run_chat`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

NO_MODEL = """\
error: no model is configured.
  Set AIRLINE_AGENT_MODEL (or pass --model), for example:
    export AIRLINE_AGENT_MODEL=gpt-4o-mini OPENAI_API_KEY=sk-...
  or, for a local OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio):
    export AIRLINE_AGENT_MODEL=llama3.1 OPENAI_BASE_URL=http://localhost:11434/v1
  Without a model, `airline-agent tui` replays the scripted scenarios offline."""


def chat_command(
    model: Annotated[
        str | None, typer.Option("--model", help="Model name (AIRLINE_AGENT_MODEL).")
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", help="OpenAI-compatible server URL (OPENAI_BASE_URL)."),
    ] = None,
    as_user: Annotated[
        str | None, typer.Option("--as", help="The customer's user id, already identified.")
    ] = None,
    approve: Annotated[
        str | None,
        typer.Option("--approve", help="Write tools: ask | auto | deny (AIRLINE_AGENT_APPROVE)."),
    ] = None,
    stream: Annotated[
        bool | None, typer.Option("--stream/--no-stream", help="Stream the replies.")
    ] = None,
    max_tool_calls: Annotated[
        int | None, typer.Option("--max-tool-calls", help="Tool calls per turn (default 8).")
    ] = None,
    temperature: Annotated[
        float | None, typer.Option("--temperature", help="Sampling temperature (0–2).")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", help="Most tokens per model answer.")
    ] = None,
    tool_choice: Annotated[
        str | None,
        typer.Option("--tool-choice", help="auto | none | required | a tool's name."),
    ] = None,
    parallel_tool_calls: Annotated[
        bool | None,
        typer.Option(
            "--parallel-tool-calls/--no-parallel-tool-calls",
            help="Allow several tool calls in one answer (default: the server's).",
        ),
    ] = None,
    token_budget: Annotated[
        int | None, typer.Option("--token-budget", help="Most tokens for the conversation.")
    ] = None,
    cost_budget: Annotated[
        float | None, typer.Option("--cost-budget", help="Most US dollars for the conversation.")
    ] = None,
    prompt: Annotated[
        str | None,
        typer.Option(
            "--prompt", help="System prompt: lean (default) or full (AIRLINE_AGENT_PROMPT)."
        ),
    ] = None,
    recover_text_tool_calls: Annotated[
        bool,
        typer.Option(
            "--recover-text-tool-calls",
            help="Make a tool call the model wrote as text, and say so "
            "(AIRLINE_AGENT_RECOVER_TEXT_TOOL_CALLS).",
        ),
    ] = False,
    db: Annotated[str | None, typer.Option("--db", help="Database path or SQLAlchemy URL.")] = None,
    guard: Annotated[
        bool | None,
        typer.Option(
            "--guard/--no-guard",
            help="The policy guard (default: on; AIRLINE_AGENT_GUARD); off: τ²'s lenient "
            "semantics.",
        ),
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option("--record", help="Save the conversation as a scenario file (replayable)."),
    ] = None,
    transcript: Annotated[
        Path | None,
        typer.Option("--transcript", help="Write the conversation as JSONL and Markdown into DIR."),
    ] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace existing --record / --transcript files."),
    ] = False,
) -> None:
    """Chat with the agent line by line (works with piped input).

    Exit status: 0 when every turn was answered (or cancelled, or stopped by a limit);
    1 when any turn ended in an error or a line of input could not be read; 2 for bad
    usage or configuration."""
    import asyncio

    from airline_agent.commands.chat.repl import run_chat
    from airline_agent.commands.outputs import allowed_or_exit, file_or_exit, folder_or_exit
    from airline_agent.commands.settings import settings_or_exit
    from airline_agent.output_files import OutputPolicy

    if approve is not None and approve not in ("ask", "auto", "deny"):
        typer.echo(f"error: --approve must be ask, auto or deny, not {approve!r}", err=True)
        raise typer.Exit(2)
    settings = settings_or_exit(
        model=model,
        base_url=base_url,
        approve=approve,
        stream=stream,
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
    outputs = OutputPolicy.for_run(database=settings.db, overwrite=force)
    if record is not None:
        outputs = file_or_exit(record, "--record", outputs)
    if transcript is not None:
        # Imported only here: the scenario models cost a chat without --transcript 0.1 s.
        from airline_agent.scenarios.live import transcript_name
        from airline_agent.scenarios.transcript import transcript_files

        folder_or_exit(transcript, "--transcript")
        for file in transcript_files(transcript, transcript_name(record)):
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


def register(app: typer.Typer) -> None:
    app.command(
        "chat",
        help="Chat with the agent line by line in any terminal or pipe "
        "(tool calls, usage and cost shown as they happen).",
        epilog="Examples:\n\n"
        "  OPENAI_API_KEY=sk-… airline-agent chat --model gpt-4o-mini --as emma_kim_9957\n\n"
        "  airline-agent chat --model qwen2.5 --base-url http://localhost:11434/v1 "
        "--record mine.yaml    # Ollama; replay mine.yaml later",
    )(chat_command)
