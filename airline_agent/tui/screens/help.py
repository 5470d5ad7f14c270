"""f1: every key of the app, in one place."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# airline-agent — keys

| key | does |
| --- | --- |
| `enter` | library: play the highlighted scenario · trace: open the entry |
| `enter` (chat) | in the input: send · on the messages: show / hide the reasoning |
| `space` | one step: the next customer message, request (its response with it) or tool call |
| `>` | play to the end of the turn (a breakpoint still stops it) |
| `b` `w` | break before every request · before any write tool call (on / off) |
| `c` `x` | break on a grounding finding · on an error result (on / off) |
| `e` | held: edit the request's body or the call's arguments (`ctrl+s` checks, accepts) |
| `f` | fork after the highlighted trace entry, the database as it was then |
| `[` `]` | previous / next branch (the status line says "branch 2/3") |
| `a` | auto-play the scenario on / off, at a reading pace (the chat's frame says the speed) |
| `+` `-` | auto-play faster / slower (up to instant) |
| `l` | the scenario library (live: its first entry keeps the live chat) |
| `v` | `tui --results DIR`: the eval run's results (`enter` plays a trial) |
| `esc` | cancel the running turn (the history stays valid) · leave the input |
| `i` | inspector: exact request, raw response (`1` `2` `3` tabs, `[` `]` requests, `c` copies) |
| `u` | switch customer (starts a new conversation) |
| `n` | new conversation |
| `g` | guard on / off |
| `r` | live: the database as built, after saying what is lost · offline: replay anew |
| `s` | save the conversation as a scenario (YAML) |
| `t` | save the conversation as a transcript (JSONL + Markdown) |
| `tab` | move between chat, trace and usage (the chat is one stop) |
| `f2` | the next pane, when one shows at a time (below 120×30, e.g. 80×24; or the tabs) |
| `f3` | zoom the focused pane to the whole screen, and back (`esc` too) |
| `ctrl+p` | command palette: every action by name |
| `f1` | this help |
| `ctrl+q` | quit |

The trace labels each entry by who produced it: **developer** (system prompt and tool
schemas), **customer**, **model** (tool calls, reasoning, reply), **framework** (tool
results, limits, errors) and **api** (the request the framework sent to the model's API).
The details of a model entry name its parts as the wire does (`reasoning_content`). In
the inspector's "who produced what", step **A** is what was in the request sent, step
**B** what came back in its response. The usage pane's cost is unknown, never $0, for a
model without a price in `data/prices.toml` (or a response that reported no usage).
"""


class HelpScreen(ModalScreen[None]):
    # Its styles, parsed when it first opens (not in app.tcss, which the first screen
    # waits for).
    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }

    #help {
        width: 90;
        max-width: 95%;
        height: 85%;
        border: thick $accent;
        background: $surface;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f1,q", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP)
