"""What the main screen opens after its first frame, in one module: the modal screens
(an entry's details, the inspector, the JSON editor, an eval run's results, the customer
picker, a confirmation, a prompt, an approval) and the database's progress bar.

Together they cost a tenth of a second or more to import (Textual's TextArea and tabs,
the eval modules), which the first frame does not wait for: the main screen reaches them
through one door (`screens.main.later`), which a worker thread opens as soon as the
settings are read, so opening a screen does not wait for its module either. None of them
imports the stack (the inspector's both-wires view has its own door: it does).
"""

from __future__ import annotations

from textual.widgets import ProgressBar

from airline_agent.tui.request_log import RequestLog
from airline_agent.tui.screens.approval import ApprovalScreen
from airline_agent.tui.screens.confirm import ConfirmScreen
from airline_agent.tui.screens.customer_picker import CustomerPicker
from airline_agent.tui.screens.details import EntryDetailsScreen
from airline_agent.tui.screens.inspector import InspectorScreen
from airline_agent.tui.screens.json_editor import JsonEditorScreen
from airline_agent.tui.screens.prompt import PromptScreen
from airline_agent.tui.screens.results import ResultsScreen


class Later:
    """The classes the main screen uses after its first frame, by their names."""

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
