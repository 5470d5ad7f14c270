"""An eval run's results (`tui --results DIR`, then `v`): one row per task, one column per
trial, each cell its reward or why it is left out of pass^k; under the table, the
highlighted trial's reason. Enter plays that trial's scenario in the three panes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from airline_agent.terminal_text import escape_controls
from airline_agent.tui.eval_results import EvalResults, TrialOutcome
from airline_agent.tui.screens.picker import modal_list_keys
from airline_agent.tui.unusable_results import ResultsUnusable

NOT_RUN = "–"
MARK_STYLES = {"1": "bold green", "0": "bold red", "infra": "yellow", "customer": "magenta"}


class ResultsScreen(ModalScreen[Path | None]):
    """Dismisses with the chosen trial's scenario file, or None (closed)."""

    # Its styles, parsed when it first opens (not in app.tcss, which the first screen
    # waits for).
    DEFAULT_CSS = """
    ResultsScreen {
        align: center middle;
    }

    /* An eval run's results: the table takes what the headline and the reason leave. */
    #results {
        width: 100;
        max-width: 95%;
        height: 85%;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }

    #results-title {
        text-style: bold;
        width: 1fr;
    }

    #results-headline {
        width: 1fr;
        color: $text-muted;
        margin-bottom: 1;
    }

    #results-table {
        height: 1fr;
    }

    #results-reason {
        width: 1fr;
        height: auto;
        max-height: 10;
        margin-top: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = modal_list_keys(
        ("down", "cursor_down"),
        ("up", "cursor_up"),
        ("left", "cursor_left"),
        ("right", "cursor_right"),
        ("home", "scroll_home"),
        ("end", "scroll_end"),
        ("ctrl+home", "scroll_top"),
        ("ctrl+end", "scroll_bottom"),
        ("pagedown", "page_down"),
        ("pageup", "page_up"),
    )

    def __init__(self, load: Callable[[], EvalResults]) -> None:
        super().__init__()
        self._load = load  # reads results.json: in a thread
        self.results: EvalResults | None = None  # what the table shows, once read

    def compose(self) -> ComposeResult:
        with Vertical(id="results"):
            yield Label(
                "Eval results — enter plays the highlighted trial, esc closes", id="results-title"
            )
            yield Static("Reading the run's results.json…", id="results-headline", markup=False)
            yield DataTable(id="results-table", cursor_type="cell")
            yield Static("", id="results-reason", markup=False)

    @property
    def table(self) -> DataTable:
        return self.query_one(DataTable)

    def on_mount(self) -> None:
        self.table.focus()
        self._read()

    @work(thread=True, exclusive=True)
    def _read(self) -> None:
        try:
            results = self._load()
        except ResultsUnusable as unusable:
            self.app.call_from_thread(self._show_problem, str(unusable))
            return
        self.app.call_from_thread(self._show, results)

    def _show_problem(self, problem: str) -> None:
        if self.is_attached:
            self.query_one("#results-headline", Static).update(
                Text(escape_controls(problem), style="bold red")
            )

    def _show(self, results: EvalResults) -> None:
        if not self.is_attached:  # closed before the run was read
            return
        self.results = results
        headline = escape_controls(f"{results.folder}: {results.headline}")
        self.query_one("#results-headline", Static).update(headline)
        table = self.table
        table.clear(columns=True)
        for trial in results.trial_numbers:
            table.add_column(f"trial {trial}", key=str(trial))
        for task_id in results.task_ids:
            cells = [_cell(results.outcome(task_id, n)) for n in results.trial_numbers]
            table.add_row(*cells, key=task_id, label=Text(escape_controls(f"task {task_id}")))
        # The first failure is what one opens a results view for.
        first_failure = next(
            (
                Coordinate(row, column)
                for row, task_id in enumerate(results.task_ids)
                for column, n in enumerate(results.trial_numbers)
                if (outcome := results.outcome(task_id, n)) is not None and not outcome.passed
            ),
            Coordinate(0, 0),
        )
        table.move_cursor(row=first_failure.row, column=first_failure.column)
        self._show_reason(first_failure)

    def highlighted(self) -> TrialOutcome | None:
        """The trial under the table's cursor (None: not read yet, or never run)."""
        results = self.results
        if results is None or not results.task_ids:
            return None
        coordinate = self.table.cursor_coordinate
        task_id = results.task_ids[coordinate.row]
        return results.outcome(task_id, results.trial_numbers[coordinate.column])

    @on(DataTable.CellHighlighted)
    def _highlight(self, event: DataTable.CellHighlighted) -> None:
        self._show_reason(event.coordinate)

    def _show_reason(self, coordinate: Coordinate) -> None:
        results = self.results
        if results is None or not results.task_ids:
            return
        task_id = results.task_ids[coordinate.row]
        trial = results.trial_numbers[coordinate.column]
        outcome = results.outcome(task_id, trial)
        # results.json's text (ids, the customer's words) shows its control codes as escapes.
        reason = Text()
        reason.append(escape_controls(f"task {task_id}, trial {trial}: "), style="bold")
        if outcome is None:
            reason.append("not run (the run was interrupted, or is still going)")
        else:
            reason.append(outcome.mark, style=MARK_STYLES.get(outcome.mark, "bold"))
            reason.append(escape_controls(f" — {outcome.reason}"))
            for finding in outcome.findings:
                reason.append("\n• " + escape_controls(finding), style="dim")
            if outcome.scenario is None:
                reason.append("\nNo scenario: the agent never had a turn.", style="dim")
        self.query_one("#results-reason", Static).update(reason)

    def action_move(self, action: str) -> None:
        getattr(self.table, f"action_{action}")()

    def action_choose(self) -> None:
        outcome = self.highlighted()
        if outcome is None:
            return
        if outcome.scenario is None:
            self.notify("That trial has no scenario to play: the agent never had a turn.")
            return
        self.dismiss(outcome.scenario)

    @on(DataTable.CellSelected)
    def _clicked(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self.action_choose()


def _cell(outcome: TrialOutcome | None) -> Text:
    if outcome is None:
        return Text(NOT_RUN, style="dim", justify="center")
    return Text(outcome.mark, style=MARK_STYLES.get(outcome.mark, "bold"), justify="center")
