"""The documentation site's generated tables (an MkDocs hook, named in mkdocs.yml).

`docs/configuration.md` holds two markers that the site replaces when it is built
(`mkdocs build`, `mkdocs serve`, and `scripts/test`'s strict build):

- `<!-- generated: settings -->`: every environment variable `config.Settings` reads, with
  its values and default taken from the class, and the meaning written below (a field
  without one fails the build, so a new setting cannot go undocumented);
- `<!-- generated: commands -->`: every command, argument and option with its help and
  default, read from the typer app, so the page lists exactly the flags the code has.

Run it alone to print both: `.venv/bin/python scripts/docs_reference.py`.
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path

import typer.main
from pydantic.fields import FieldInfo
from typer.core import TyperArgument, TyperGroup, TyperOption

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from airline_agent.cli import build_app  # noqa: E402  (the checkout's package, above)
from airline_agent.config import Settings, variable_name  # noqa: E402

# What each setting does, in a user's words, and the flags that set it where one does.
# A `description=` on the field in config.py, when one is written, takes precedence.
MEANINGS: dict[str, str] = {
    "model": "The model the agent talks to. Unset: no live model, and the TUI opens on "
    "the scenario library (offline). Flags: `--model` (`chat`, `tui`, `serve`), "
    "`--agent-model` (`eval`).",
    "base_url": "Any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp's "
    "`llama-server`, LM Studio). Unset: OpenAI. Flags: `--base-url`, `--agent-base-url` "
    "(`eval`). A password in it is redacted everywhere.",
    "api_key": "The server's API key; local servers need none. Never printed or written: "
    "see [Security](security.md).",
    "db": "The database: a path, or a PostgreSQL URL ([PostgreSQL](postgres.md)). A "
    "database named here or with `--db` must exist: only `seed` creates one (a typo such "
    "as `prod.bd` never becomes a new database). The default location is built on first "
    "use (`scripts/demo` builds it).",
    "now": "The domain clock: what the policy's rules take as now (C1: booked within 24 hours).",
    "guard": "The policy guard (`on`/`off`): refuses writes the policy forbids and keeps a "
    "conversation to its customer. Flag: `--guard/--no-guard` (`call`, `chat`, `tui`, "
    "`serve`, `mcp`). `eval` ignores it: there the guard is off unless `--guard` is given.",
    "approve": "Write tools: `ask` the customer first, run them (`auto`), or refuse them "
    "(`deny`). Flag: `--approve`.",
    "prompt": "The system prompt: `lean` (each rule once, with its id) or `full` (the "
    "longer text). Flag: `--prompt`.",
    "stream": "Stream replies as they are written. Flag: `--stream/--no-stream` (`chat`).",
    "max_tool_calls": "Tool calls per turn; the calls beyond it get "
    "`TOOL_CALL_LIMIT_EXCEEDED`. Flag: `--max-tool-calls`.",
    "max_requests": "Requests to the model per turn before the turn stops with a limit.",
    "timeout": "Seconds a request may wait for data from the server (for the whole answer "
    "when not streamed, between two pieces when streamed) before the attempt fails and is "
    "retried (3 retries, with backoff). A slow local model may need more.",
    "stall_notice": "Seconds without data during a request before the chat says so "
    "(`… no data for 20 s …; still waiting…`, again every as many seconds) and the TUI's "
    "status line counts them.",
    "temperature": "Sampling temperature, sent only when set. Flag: `--temperature` (`chat`).",
    "max_tokens": "Most tokens per model answer, sent only when set. Flag: `--max-tokens` "
    "(`chat`).",
    "tool_choice": "`auto`, `none`, `required` or a tool's name. Flag: `--tool-choice` (`chat`).",
    "parallel_tool_calls": "Allow several tool calls in one answer; unset: the server's "
    "default. Flag: `--parallel-tool-calls/--no-parallel-tool-calls` (`chat`).",
    "token_budget": "Most tokens (prompt + completion) for the whole conversation; the "
    "turn that reaches it stops with a limit. Flag: `--token-budget` (`chat`).",
    "cost_budget": "Most US dollars for the whole conversation (priced from "
    "`data/prices.toml`). Flag: `--cost-budget` (`chat`).",
    "prompt_progress": "llama.cpp's `llama-server` only: ask for its prompt-reading "
    'progress (`return_progress`), shown by the TUI while a request waits ("prompt 1,024 '
    'of 2,874 tokens read"). Other servers may refuse the field.',
    "recover_text_tool_calls": "Make a tool call that the model wrote as text "
    '(`{"name": …, "arguments": …}`, `tool(…)`) for it, when the tool exists and the '
    'arguments read; the trace and `chat` say "recovered from text". Off, nothing runs '
    "and the grounding check flags the text. Flag: `--recover-text-tool-calls` (`chat`, "
    "`tui`, `eval`).",
}

# Variables read outside `Settings`, by the module named (tests/unit/test_docs_reference.py
# checks that every AIRLINE_AGENT_ name in the package is listed here or is a setting).
OTHER_VARIABLES: list[tuple[str, str, str]] = [
    (
        "AIRLINE_AGENT_TAU2_DIR",
        "`scenarios/datasets.py`",
        "The folder of τ²-bench's airline `db.json` and `tasks.json`, for `replay --tau2`, "
        "`eval` and scenarios of `dataset: tau2` ([Evaluate](eval.md#the-data)). Default: "
        "`../shared/reference/tau2` beside the checkout.",
    ),
    (
        "AIRLINE_AGENT_SLOW",
        "the tests",
        "`1` runs the heavy test profile ([Development](development.md#the-heavy-profile)).",
    ),
    (
        "AIRLINE_AGENT_LLAMA_DIR",
        "the tests",
        "Recorded `llama-server` responses the loop's HTTP tests replay; absent, those tests skip.",
    ),
    (
        "AIRLINE_AGENT_TAU2_SRC",
        "`scripts/benchmarks/tau2_prefix.py`",
        "A τ²-bench checkout, to count the tokens of τ²'s own prompt beside ours.",
    ),
]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _values(info: FieldInfo) -> str:
    annotation = info.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is typing.Literal:
        return " · ".join(f"`{value}`" for value in typing.get_args(annotation))
    names = {bool: "`on` · `off`", int: "a whole number", float: "a number"}
    if annotation in names:
        return names[annotation]
    return "text"


def _default(info: FieldInfo) -> str:
    value = info.default
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "`on`" if value else "`off`"
    return f"`{value}`"


def settings_table() -> str:
    """Every variable `Settings` reads: name, values, default, meaning."""
    rows = ["| variable | values | default | meaning |", "| --- | --- | --- | --- |"]
    unexplained = []
    for name, info in Settings.model_fields.items():
        meaning = info.description or MEANINGS.get(name)
        if meaning is None:
            unexplained.append(name)
            continue
        rows.append(
            f"| `{variable_name(name)}` | {_values(info)} | {_default(info)} | {_cell(meaning)} |"
        )
    if unexplained:
        raise LookupError(
            f"settings without a meaning for docs/configuration.md: {', '.join(unexplained)} "
            "(write one in scripts/docs_reference.py MEANINGS, or a Field description)"
        )
    rows += [
        "",
        "Read outside the settings (no flag, no `.env`):",
        "",
        "| variable | read by | meaning |",
        "| --- | --- | --- |",
    ]
    rows += [f"| `{name}` | {who} | {_cell(meaning)} |" for name, who, meaning in OTHER_VARIABLES]
    return "\n".join(rows)


def _option_spelling(option: TyperOption) -> str:
    spelling = " / ".join(f"`{opt}`" for opt in option.opts)
    if option.secondary_opts:
        spelling += " / " + " / ".join(f"`{opt}`" for opt in option.secondary_opts)
    if not option.is_flag:
        metavar = option.metavar or option.name.upper()
        spelling += f" {metavar}"
    return spelling


def _option_default(option: TyperOption) -> str:
    default = option.default
    if default is None or option.show_default is False or callable(default):
        return ""
    if isinstance(default, bool):
        if not option.secondary_opts:
            return ""  # a plain flag: off unless given
        return f"`{option.opts[0] if default else option.secondary_opts[0]}`"
    if isinstance(default, list | tuple) and not default:
        return ""
    return f"`{default}`"


def examples(epilog: str | None) -> list[str]:
    """The command lines of an `epilog=` ("Examples:" and blank lines left out)."""
    lines = [line.strip() for line in (epilog or "").splitlines()]
    return [line for line in lines if line and line != "Examples:"]


def _examples(epilog: str | None) -> list[str]:
    lines = examples(epilog)
    if not lines:
        return []
    return ["Examples, as `--help` ends:", "", "```bash", *lines, "```", ""]


def _argument(argument: TyperArgument) -> str:
    name = (argument.name or "").upper() + ("…" if argument.nargs == -1 else "")
    return name if argument.required else f"[{name}]"


def commands_reference() -> str:
    """Every command with its arguments and options, as the typer app declares them."""
    group = typer.main.get_command(build_app())
    assert isinstance(group, TyperGroup)
    parts: list[str] = [group.help or "", "", *_examples(group.epilog)]
    for name, command in group.commands.items():
        usage = " ".join(
            [f"airline-agent {name}"]
            + [_argument(p) for p in command.params if isinstance(p, TyperArgument) and p.name]
            + ["[OPTIONS]"]
        )
        parts += [f"### `{name}`", "", command.help or "", "", f"`{usage}`", ""]
        rows = ["| argument or option | meaning | default |", "| --- | --- | --- |"]
        for param in command.params:
            help_text = _cell(getattr(param, "help", None) or "")
            if isinstance(param, TyperArgument) and param.name:
                rows.append(f"| `{param.name.upper()}` | {help_text} | |")
            elif isinstance(param, TyperOption) and param.name != "help":
                rows.append(
                    f"| {_option_spelling(param)} | {help_text} | {_option_default(param)} |"
                )
        parts += [*rows, ""]
        parts += _examples(command.epilog)
    return "\n".join(parts)


GENERATED = {
    "<!-- generated: settings -->": settings_table,
    "<!-- generated: commands -->": commands_reference,
}


def on_page_markdown(markdown: str, **_: object) -> str:
    """MkDocs hook: fill the markers of a page with their tables."""
    for marker, make in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


if __name__ == "__main__":
    print(settings_table())
    print()
    print(commands_reference())
