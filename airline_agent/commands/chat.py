"""`airline-agent chat`: a line-by-line conversation with the agent, in any terminal or pipe.

The customer types a line; the agent's reply streams back, with one compact line per
tool call (name, arguments, ok / error code, ms) and a usage line per turn. With piped
input each line is one customer message, and an approval question reads its answer
from the next line. `/quit` (or end of input, or Ctrl-C at the prompt) ends the chat;
Ctrl-C while the agent works cancels just that turn (the conversation goes on, its
history valid); `/new` starts a new conversation. openai, sqlmodel and the loop are
imported inside the command.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

if TYPE_CHECKING:
    from airline_agent.agent.events import AgentEvent
    from airline_agent.config import Settings

NO_MODEL = """\
error: no model is configured.
  Set AIRLINE_AGENT_MODEL (or pass --model), for example:
    export AIRLINE_AGENT_MODEL=gpt-4o-mini OPENAI_API_KEY=sk-...
  or, for a local OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio):
    export AIRLINE_AGENT_MODEL=llama3.1 OPENAI_BASE_URL=http://localhost:11434/v1
  Without a model, `airline-agent tui` replays the scripted scenarios offline."""

Observer = Callable[["AgentEvent"], None]


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
    db: Annotated[str | None, typer.Option("--db", help="Database path or SQLAlchemy URL.")] = None,
    no_guard: Annotated[
        bool, typer.Option("--no-guard", help="Skip the policy guard (τ² lenient semantics).")
    ] = False,
    record: Annotated[
        Path | None,
        typer.Option("--record", help="Save the session as a scenario file (replayable)."),
    ] = None,
    transcript: Annotated[
        Path | None,
        typer.Option("--transcript", help="Write the session as JSONL and Markdown into DIR."),
    ] = None,
) -> None:
    """Chat with the agent line by line (works with piped input)."""
    from airline_agent.commands.settings import settings_or_exit

    if approve is not None and approve not in ("ask", "auto", "deny"):
        _fail(f"--approve must be ask, auto or deny, not {approve!r}", 2)
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
        guard=False if no_guard else None,
    )
    if not settings.model_configured:
        typer.echo(NO_MODEL, err=True)
        raise typer.Exit(2)
    from airline_agent.commands.outputs import file_or_exit, folder_or_exit

    if record is not None:
        file_or_exit(record, "--record")
    if transcript is not None:
        folder_or_exit(transcript, "--transcript")
    try:
        status = asyncio.run(
            run_chat(settings, as_user=as_user, record=record, transcript=transcript)
        )
    except KeyboardInterrupt:
        typer.echo("")
        status = 0
    raise typer.Exit(status)


def _fail(message: str, status: int) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(status)


async def run_chat(
    settings: Settings,
    *,
    as_user: str | None = None,
    observers: tuple[Observer, ...] = (),
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    record: Path | None = None,
    transcript: Path | None = None,
) -> int:
    """The chat loop; returns the exit status. `observers` see every event (recording).

    `record` / `transcript`: save the session as a scenario file / as JSONL and Markdown
    when it ends (see `scenarios.live`)."""
    from airline_agent.agent.backends import BackendConfigError
    from airline_agent.domain.errors import DatabaseUnavailable
    from airline_agent.stack import live_stack

    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    try:
        stack = live_stack(settings, customer=as_user)
    except BackendConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2
    except DatabaseUnavailable as exc:
        typer.echo(f"error: {exc}", err=True)
        return 1
    session, database = stack.session, stack.database
    recording = None
    if record is not None or transcript is not None:
        recording = _start_recording(settings, database, as_user, record, transcript)
        observers = (*observers, recording.observe)
    interactive = stdin.isatty()
    ctrl_c = _CtrlC(asyncio.get_running_loop())
    printer = _Printer(out, stdin, echo_input=not interactive, ctrl_c=ctrl_c)
    status = 0
    previous_handler = ctrl_c.install()
    try:
        if interactive:
            out.write(f"Chatting with {settings.model}. /quit to leave, /new to start over.\n")
        while True:
            line = _read_line(stdin, out, "you> " if interactive else "")
            if line is None:
                break
            text = line.strip()
            if not text:
                continue
            if text in ("/quit", "/exit"):
                break
            if text == "/new":
                session.new_conversation()
                out.write("(new conversation)\n")
                continue
            if not interactive:
                out.write(f"you> {text}\n")
            reason = await _run_turn(session, text, printer, observers, ctrl_c)
            if reason == "cancelled":
                printer.end_stream()
                out.write("  (turn cancelled; the conversation goes on)\n")
            status = 1 if reason == "error" else 0
    finally:
        ctrl_c.uninstall(previous_handler)
        await stack.aclose()
        if recording is not None:
            try:
                for path in recording.finish():
                    typer.echo(f"saved {path}", err=True)
            except OSError as exc:  # checked at the start; the disk may still fill up
                typer.echo(f"error: the recording could not be saved: {exc}", err=True)
                status = 1
            for warning in recording.warnings:
                typer.echo(f"warning: {warning}", err=True)
    return status


class _TurnInterrupted(Exception):
    """Ctrl-C while an approval question waited for its answer."""


class _CtrlC:
    """Ctrl-C: at a prompt it ends the chat, as Python's own handler would; while the
    agent works it cancels just the turn (as esc in the TUI)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.turn: asyncio.Task[str] | None = None
        self.reading = False  # a blocking read of the customer's answer is under way
        self.cancelled = False  # the running turn was cancelled by Ctrl-C

    def install(self) -> Any:
        if threading.current_thread() is not threading.main_thread():
            return None  # signals reach the main thread only (chat run from a test)
        return signal.signal(signal.SIGINT, self)

    def uninstall(self, previous: Any) -> None:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)

    def __call__(self, signum: int, frame: object) -> None:
        turn = self.turn
        if turn is None or turn.done() or self.reading:
            raise KeyboardInterrupt  # stops the blocking read at once
        self.cancelled = True
        self.loop.call_soon_threadsafe(turn.cancel)


async def _run_turn(
    session: Any, text: str, printer: _Printer, observers: tuple[Observer, ...], ctrl_c: _CtrlC
) -> str:
    """One turn, shown as it happens; its end reason ("cancelled" after Ctrl-C)."""

    async def play() -> str:
        reason = "answered"
        events = session.run_turn(text)
        try:
            async for event in events:
                for observe in observers:
                    observe(event)
                reason = printer.show(event) or reason
        except _TurnInterrupted:
            return "cancelled"
        finally:
            await events.aclose()  # the loop settles its history (open calls answered)
        return reason

    ctrl_c.turn = task = asyncio.ensure_future(play())
    try:
        return await task
    except asyncio.CancelledError:
        if not ctrl_c.cancelled:
            raise  # not ours: the chat itself is being stopped
        return "cancelled"
    finally:
        ctrl_c.turn, ctrl_c.cancelled = None, False


def _start_recording(
    settings: Settings,
    database: Any,
    as_user: str | None,
    record: Path | None,
    transcript: Path | None,
) -> Any:
    """Snapshot the database now; the recording is written when the chat ends."""
    from airline_agent.scenarios.live import LiveRecording, sqlite_file
    from airline_agent.scenarios.model import ScenarioSettings

    key = settings.api_key.get_secret_value() if settings.api_key else None
    return LiveRecording(
        sqlite_file(database.engine.url),
        record=record,
        transcript=transcript,
        customer=as_user,
        settings=ScenarioSettings(
            guard=settings.guard,
            approval="ask-accept" if settings.approve == "ask" else settings.approve,
            max_tool_calls=settings.max_tool_calls,
            model=settings.model or "scripted",
            now=settings.now,
        ),
        secrets=[key] if key else [],
    ).start()


def _read_line(stdin: TextIO, out: TextIO, prompt: str) -> str | None:
    """One line of input, or None at end of input (Ctrl-D)."""
    if prompt:
        out.write(prompt)
        out.flush()
    try:
        line = stdin.readline()
    except EOFError:
        return None
    if not line:
        if prompt:
            out.write("\n")
        return None
    return line


class _Printer:
    """Renders events as compact lines; returns a turn's end reason when it finishes."""

    def __init__(
        self, out: TextIO, stdin: TextIO, *, echo_input: bool, ctrl_c: _CtrlC | None = None
    ) -> None:
        self.out, self.stdin, self.echo_input = out, stdin, echo_input
        self.ctrl_c = ctrl_c
        self.streaming = False  # inside an "agent> " line being streamed
        self.usage_known = True
        self.requests = 0
        self.last_limit: str | None = None
        self.prefix: Any = None  # the turn's last PrefixInfo (agent/prefix.py)
        self.prefix_changed = False  # some request of the turn sent another prefix

    def write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def end_stream(self) -> None:
        if self.streaming:
            self.write("\n")
            self.streaming = False

    def show(self, event: AgentEvent) -> str | None:
        from airline_agent.agent import events as ev
        from airline_agent.agent.usage import describe_cost, describe_usage

        match event:
            case ev.TurnStarted():
                self.usage_known, self.requests, self.last_limit = True, 0, None
                self.prefix, self.prefix_changed = None, False
            case ev.RequestSent(prefix=prefix) if prefix is not None:
                self.prefix = prefix
                self.prefix_changed = self.prefix_changed or prefix.unchanged is False
            case ev.TextDelta(text=text):
                if not self.streaming:
                    self.write("agent> ")
                    self.streaming = True
                self.write(text)
            case ev.AssistantMessage() as message:
                if message.reasoning:
                    self.end_stream()
                    self.write(f"  (reasoning) {_one_line(message.reasoning, 160)}\n")
                if message.content and not self.streaming:
                    self.write(f"agent> {message.content}\n")
                self.end_stream()
            case ev.UsageReported(usage=usage):
                self.requests += 1
                self.usage_known = self.usage_known and usage is not None
            case ev.ToolFinished() as done:
                self.end_stream()
                verdict = "ok" if done.error is None else f"error {done.error}"
                arguments = json.dumps(done.arguments, ensure_ascii=False)
                self.write(
                    f"  → {done.name} {_one_line(arguments, 100)} {verdict} "
                    f"{done.elapsed_ms:.0f} ms\n"
                )
            case ev.ApprovalRequested() as request:
                self.end_stream()
                request.decide(self.ask(request))
            case ev.LimitReached(message=message, kind=kind):
                self.end_stream()
                self.last_limit = message
                self.write(f"  ! {kind} limit: {message}\n")
            case ev.GroundingWarning() as warning:
                self.end_stream()
                self.write(f"  ! grounding: {warning.describe()}\n")
            case ev.RetryScheduled(attempt=attempt, delay_s=delay, reason=reason):
                self.end_stream()
                self.write(f"  … retry {attempt} in {delay:.1f} s: {reason}\n")
            case ev.ErrorOccurred(message=message, hint=hint):
                self.end_stream()
                self.out.flush()
                typer.echo(f"error: {message}", err=True)
                if hint:
                    typer.echo(f"  hint: {hint}", err=True)
            case ev.TurnFinished(reason=reason, usage=usage, cost=cost):
                self.end_stream()
                if reason in ("tool_call_limit", "request_limit", "budget") and self.last_limit:
                    self.write(f"agent> {self.last_limit}\n")
                if self.requests:
                    tokens = describe_usage(usage if self.usage_known else None)
                    plural = "s" if self.requests != 1 else ""
                    self.write(
                        f"  [{tokens}, {self.requests} request{plural}, {describe_cost(cost)}"
                        f"{self._prefix_note()}]\n"
                    )
                return reason
        return None

    def _prefix_note(self) -> str:
        """', prefix 2,284 tokens (cl100k) unchanged': whether prompt caches can hit."""
        if self.prefix is None:
            return ""
        state = "CHANGED" if self.prefix_changed else "unchanged"
        if self.prefix.unchanged is None and self.requests == 1:
            state = "first request"
        return f", prefix {self.prefix.size.label} {state}"

    def ask(self, request: Any) -> dict[str, bool]:
        """y/n per write call; with piped input the answer is the next line."""
        answers: dict[str, bool] = {}
        for call in request.calls:
            arguments = _one_line(json.dumps(call.arguments, ensure_ascii=False), 100)
            self.write(f"  ? {call.name} {arguments}\n    {call.preview}\n    approve? [y/N] ")
            line = self._read_answer()
            answer = line.strip().lower() in ("y", "yes")
            if self.echo_input or not line:
                self.write(f"{line.strip() or '(no answer)'}\n")
            answers[call.call_id] = answer
        return answers

    def _read_answer(self) -> str:
        """The customer's answer; Ctrl-C here cancels the turn (nothing is written)."""
        if self.ctrl_c is not None:
            self.ctrl_c.reading = True
        try:
            return self.stdin.readline()
        except KeyboardInterrupt:
            self.write("\n")
            raise _TurnInterrupted from None
        finally:
            if self.ctrl_c is not None:
                self.ctrl_c.reading = False


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def register(app: typer.Typer) -> None:
    app.command(
        "chat",
        help="Chat with the agent line by line in any terminal or pipe "
        "(tool calls, usage and cost shown as they happen).",
    )(chat_command)
