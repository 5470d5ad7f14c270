"""The `chat` command's options; what it does is `work.py`'s (then `repl.run_chat`),
loaded only when it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


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
    api: Annotated[
        str | None,
        typer.Option(
            "--api",
            help="chat (Chat Completions, the default) or responses (the Responses API, "
            "/v1/responses) (AIRLINE_AGENT_API).",
        ),
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
    # The door: the settings, the loop, the backend and the database load only when the
    # chat starts.
    from airline_agent.commands.chat import work as chat_work

    chat_work.chat(
        model=model,
        base_url=base_url,
        as_user=as_user,
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
        recover_text_tool_calls=recover_text_tool_calls,
        db=db,
        guard=guard,
        record=record,
        transcript=transcript,
        force=force,
    )


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
