"""While a live response is awaited: the seconds waited, and how much of the prompt the
server has read when it says (llama-server's `prompt_progress`, as `PromptProgress`); and
when a response that had begun stalls (`ResponseStalled`), the seconds without data.

Between a request and its first piece nothing moves on screen; on a local model reading
a long prompt that is many seconds. `ResponseWait` keeps what the status line should say
then and says it on every `tick` (the screen ticks it once a second).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    PromptProgress,
    ReasoningDelta,
    RequestSent,
    ResponseStalled,
    TextDelta,
    ToolCallDelta,
    TurnFinished,
)
from airline_agent.tui.status import AT_WORK

if TYPE_CHECKING:
    from airline_agent.tui.feed import ShownEvent


class ResponseWait:
    def __init__(
        self, show: Callable[[str], None], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.show = show
        self.clock = clock
        self.request: int | None = None  # the request awaited; None: nothing awaited
        self.since = 0.0
        self.progress: PromptProgress | None = None
        self.stalled: ResponseStalled | None = None  # the answer had begun, then stopped

    def observe(self, event: ShownEvent) -> None:
        match event:
            case RequestSent(request=request):
                self.request, self.since, self.progress = request, self.clock(), None
                self.stalled = None
            case ResponseStalled(received=received) as stalled if received:
                self.request, self.since = stalled.request, self.clock() - stalled.silent_s
                self.stalled = stalled
                self.tick()
            case PromptProgress() as progress if progress.request == self.request:
                self.progress = progress
                self.tick()
            case TextDelta() | ReasoningDelta() | ToolCallDelta() | AssistantMessage():
                self.stop(AT_WORK)
            case ErrorOccurred() | TurnFinished():
                self.stop(AT_WORK)

    def stop(self, activity: str = "") -> None:
        if self.request is not None:
            self.request, self.stalled = None, None
            self.show(activity)

    def describe(self) -> str:
        """'waiting 4 s for response #2 · prompt 1,024 of 2,874 tokens read (512 cached)'."""
        seconds = int(self.clock() - self.since)
        if self.stalled is not None:
            return f"response #{self.request} stalled: no data for {seconds} s · esc cancels"
        text = f"waiting {seconds} s for response #{self.request}"
        progress = self.progress
        if progress is not None:
            cached = f" ({progress.cached:,} cached)" if progress.cached else ""
            text += f" · prompt {progress.processed:,} of {progress.total:,} tokens read{cached}"
        return text + " · esc cancels"

    def tick(self) -> None:
        if self.request is not None:
            self.show(self.describe())
