"""The chat loop: read a line, run it as a turn, show its events, until the input ends,
`/quit`, or Ctrl-C at the prompt.

With piped input each line is one customer message (echoed as `you> …`), and an
approval question reads its answer from the next line. `/new` starts a new
conversation. The exit status is 1 when any turn ended in an error or any line of input
could not be read, else 0 (a cancelled turn, or one stopped by a limit, is no error).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TextIO

from airline_agent.agent.backends import BackendConfigError
from airline_agent.agent.cancelled import cancelled_turn
from airline_agent.agent.events import AgentEvent, ApprovalRequested, TurnFinished
from airline_agent.agent.loop import AgentSession
from airline_agent.commands.chat import recording
from airline_agent.commands.chat.interrupts import Interrupts
from airline_agent.commands.chat.lines import InputLine, LineReader
from airline_agent.commands.chat.output import Output
from airline_agent.commands.chat.printer import Printer
from airline_agent.config import Settings
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.output_files import OutputPermissions
from airline_agent.redaction import Redactor
from airline_agent.stack import live_stack

Observer = Callable[[AgentEvent], None]
QUIT = ("/quit", "/exit")


async def run_chat(
    settings: Settings,
    *,
    as_user: str | None = None,
    observers: tuple[Observer, ...] = (),
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    record: Path | None = None,
    transcript: Path | None = None,
    outputs: OutputPermissions | None = None,
) -> int:
    """The chat; returns the exit status. `observers` see every event; `record` /
    `transcript`: the conversation saved as a scenario file / as JSONL and Markdown at the end,
    as `outputs` allows (by default: no existing file is replaced)."""
    redactor = Redactor.from_settings(settings)
    out, err = Output(stdout or sys.stdout, redactor), Output(stderr or sys.stderr, redactor)
    try:
        stack = live_stack(settings, customer=as_user)
    except (BackendConfigError, DatabaseUnavailable) as exc:
        err.line(f"error: {exc}")
        return 2 if isinstance(exc, BackendConfigError) else 1
    save: Callable[[], bool] | None = None  # the recording, saved at the end
    if record is not None or transcript is not None:
        live = recording.start_recording(
            settings, stack.database, as_user, record, transcript, redactor, outputs
        )
        observers = (*observers, live.observe)
        save = partial(recording.save_recording, live, err)
    loop = asyncio.get_running_loop()
    stdin = stdin or sys.stdin
    chat = Chat(
        session=stack.session,
        lines=LineReader(stdin, loop).start(),
        interrupts=Interrupts(loop),
        printer=Printer(out, err),
        interactive=stdin.isatty(),
        observers=observers,
    )
    chat.interrupts.install()
    try:
        if chat.interactive:
            wire = " over the Responses API" if settings.api == "responses" else ""
            out.line(f"Chatting with {settings.model}{wire}. /quit to leave, /new to start over.")
        await chat.run()
    finally:
        chat.interrupts.closing()
        await stack.aclose()
        if save is not None and not save():
            chat.failed = True
        chat.interrupts.uninstall()
    return 1 if chat.failed else 0


@dataclass
class Chat:
    """One chat: the session, where its lines come from, and how it is shown."""

    session: AgentSession
    lines: LineReader
    interrupts: Interrupts
    printer: Printer
    interactive: bool
    observers: tuple[Observer, ...] = ()
    failed: bool = False  # a turn ended in an error, or a line could not be read
    turn_events: list[AgentEvent] = field(default_factory=list)

    @property
    def out(self) -> Output:
        return self.printer.out

    async def run(self) -> None:
        while (text := await self._next_message()) is not None:
            if text in QUIT:
                return
            if text == "/new":
                self.session.new_conversation()
                self.out.line("(new conversation)")
                continue
            if not self.interactive:
                self.out.line(f"you> {text}")
            await self._turn(text)

    async def _next_message(self) -> str | None:
        """The customer's next message (a line that is not blank); None: the chat ends."""
        while True:
            if self.interactive:
                self.out.write("you> ")
            line = await self.interrupts.prompt(self.lines.next_line())
            if line is None:
                if self.interactive:
                    self.out.line()  # end the prompt's line (Ctrl-D, Ctrl-C)
                return None
            text = self._text_of(line)
            if text:
                return text

    def _text_of(self, line: InputLine) -> str:
        if line.text is None:
            self.failed = True
            self.printer.err.line(f"error: input line {line.number} skipped: {line.problem}")
            return ""
        return line.text.strip()

    async def _turn(self, text: str) -> None:
        self.turn_events = []
        end = await self.interrupts.turn(self._play(text))
        if end is None:  # cancelled by Ctrl-C: the loop, closed, could not say so itself
            self._observe(cancelled_turn(self.turn_events))
            end = "cancelled"
        self.failed = self.failed or end == "error"

    async def _play(self, text: str) -> str:
        """Run one turn, showing its events; how it ended."""
        end = "cancelled"
        events = self.session.run_turn(text)
        try:
            async for event in events:
                self._observe(event)
                if isinstance(event, ApprovalRequested):
                    await self._approve(event)
                elif isinstance(event, TurnFinished):
                    end = event.reason
        finally:
            await events.aclose()  # the loop settles its history (open calls answered)
        return end

    def _observe(self, event: AgentEvent) -> None:
        self.turn_events.append(event)
        for observe in self.observers:
            observe(event)
        self.printer.show(event)

    async def _approve(self, request: ApprovalRequested) -> None:
        """y/n per write call; with piped input the answer is the next line. Ctrl-C here
        cancels the turn like anywhere else in it: the question is then never answered."""
        answers: dict[str, bool] = {}
        for call in request.calls:
            self.printer.ask(call)
            line = await self.lines.next_line()
            text = "" if line is None else self._text_of(line)
            if not self.interactive or line is None:
                self.out.line(text or "(no answer)")
            answers[call.call_id] = text.lower() in ("y", "yes")
        request.decide(answers)
