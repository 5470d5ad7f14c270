"""What the main screen opens after its first frame, in one module: the modal screens
(an entry's details, the inspector, the JSON editor, an eval run's results, the customer
picker, a confirmation, a prompt, an approval), the database's progress bar, and what
shows a feed's events — the code that matches on the agent's events: a feed's turn
(tui/turns.py), auto-play's pauses (tui/pacing.py), when each event goes on screen
(tui/scheduler.py), what it adds to the chat and usage panes (tui/shown.py) and to the
trace (tui/trace.py), the wait for a live response (tui/waiting.py), a watched log's lines
(tui/watched_lines.py).

Together they cost a tenth of a second or more to import (Textual's TextArea and tabs,
the eval modules), which the first frame does not wait for: the main screen reaches them
through one door (`screens.main.later`), which a worker thread opens as soon as the
settings are read, so opening a screen does not wait for its module either. None of them
imports the stack (the inspector's both-wires view has its own door: it does).
"""

from __future__ import annotations

from textual.widgets import ProgressBar

from airline_agent.tui import pacing, turns
from airline_agent.tui.request_log import RequestLog
from airline_agent.tui.scheduler import EventScheduler
from airline_agent.tui.screens.approval import ApprovalScreen
from airline_agent.tui.screens.confirm import ConfirmScreen
from airline_agent.tui.screens.customer_picker import CustomerPicker
from airline_agent.tui.screens.details import EntryDetailsScreen
from airline_agent.tui.screens.inspector import InspectorScreen
from airline_agent.tui.screens.json_editor import JsonEditorScreen
from airline_agent.tui.screens.prompt import PromptScreen
from airline_agent.tui.screens.results import ResultsScreen
from airline_agent.tui.shown import show_in_chat, show_in_usage
from airline_agent.tui.trace import TraceBuilder
from airline_agent.tui.waiting import ResponseWait
from airline_agent.tui.watched_lines import take


class Later:
    """The classes and functions the main screen uses after its first frame, by their
    names. Read through the class (`later()` returns it), never an instance: a function
    here is the function itself, and mypy checks every call against its signature."""

    ApprovalScreen = ApprovalScreen
    ConfirmScreen = ConfirmScreen
    CustomerPicker = CustomerPicker
    EntryDetailsScreen = EntryDetailsScreen
    InspectorScreen = InspectorScreen
    JsonEditorScreen = JsonEditorScreen
    ProgressBar = ProgressBar
    PromptScreen = PromptScreen
    RequestLog = RequestLog
    ResultsScreen = ResultsScreen
    # What shows a feed's events.
    EventScheduler = EventScheduler
    ResponseWait = ResponseWait
    TraceBuilder = TraceBuilder
    run_turn = turns.run_turn
    last_cancelled = turns.last_cancelled
    approval_asked = turns.approval_asked
    hold = turns.hold
    editable = turns.editable
    held_request = turns.held_request
    held_edit = turns.held_edit
    go_on_edited = turns.go_on_edited
    event_pause = pacing.event_pause
    turn_pause = pacing.turn_pause
    show_in_chat = show_in_chat
    show_in_usage = show_in_usage
    take_watched = take
