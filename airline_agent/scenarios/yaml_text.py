"""Scenario YAML as data plus its node tree (for line numbers), without pydantic.

The TUI lists the library from this alone (name, description, turns) before the models
are imported; `loader.load_scenario` validates.

A scenario file may come from anywhere, so reading one is bounded (docs/scenarios.md states
these limits): its size, how deep lists and mappings nest, how many aliases it uses and
how much they expand (a few hundred bytes of nested aliases stand for billions of values),
and its number of turns. The node tree is checked before any data is built from it;
going over a limit is a `YamlLimitError`, with the line where it happened.
"""

from __future__ import annotations

import gc
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

from airline_agent.terminal_text import SURROGATE

# A long recorded session (1,000 turns of flight searches) is about 8 MiB; reading a file
# takes about 40 MB of memory per MiB (measured: 2 / 8 / 16 MiB → 108 / 337 / 638 MB
# peak), so a file at the limit costs some 650 MB, never more.
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64  # levels of lists and mappings; a scenario needs about 12
MAX_ALIASES = 100  # uses of `*name` (and `<<: *name`)
MAX_ALIAS_VALUES = 10_000  # values those uses add when expanded
MAX_TURNS = 10_000
# Plain YAML values only (what JSON has); no binary, sets, timestamps or custom tags.
ALLOWED_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "seq", "map", "merge")
)


def size_text(size: int) -> str:
    """A size as the limits are written: `16 MiB`, `64 KiB`, `3.2 MiB`."""
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"


class YamlLimitError(yaml.MarkedYAMLError):
    """A file over one of the limits above, or holding what a scenario never holds."""

    def __init__(self, problem: str, mark: yaml.Mark | None) -> None:
        super().__init__(problem=problem, problem_mark=mark)


def _scenario_resolvers(loader: type[yaml.SafeLoader | yaml.CSafeLoader]) -> None:
    """Only `true`/`false` (any case style) are booleans, and there are no timestamps.

    YAML 1.1 reads `insurance: no` as False and `date: 2024-05-17` as a date object; in
    this domain both are strings, as in the τ² data.
    """
    loader.yaml_implicit_resolvers = {
        first: [
            (tag, regexp)
            for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")
        ]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )


class _ConstructorErrorsWithLines:
    """A value YAML accepts but Python cannot make (an int of 5,000 digits, `!!int x`)
    becomes a YAML error on that value's line, like every other problem of the file."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
        try:
            return super().construct_object(node, deep)  # type: ignore[misc]
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, ArithmeticError, LookupError, AttributeError) as exc:
            reason = str(exc).split(";")[0]  # Python's advice after it is not for the reader
            raise yaml.constructor.ConstructorError(
                None, None, f"this value cannot be read ({reason})", node.start_mark
            ) from None


class ScenarioYamlLoader(_ConstructorErrorsWithLines, yaml.SafeLoader):
    """The pure-Python reader: the reference, and what reports syntax errors.

    Its composer is recursive: nesting is refused past MAX_DEPTH before Python's stack
    runs out (libyaml has its own limit, at 1,000 levels).
    """

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise YamlLimitError(_TOO_DEEP, self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_TOO_DEEP = f"lists and mappings nested more than {MAX_DEPTH} levels deep (the limit)"

_scenario_resolvers(ScenarioYamlLoader)

# libyaml parses about 6× faster (the TUI reads the whole library before its first full
# screen). Its nodes carry the same line marks and go through the same Python resolvers
# and constructors, so the data is identical; only its error wording differs, so a file
# it rejects is read again by the pure reader for the message.
FastScenarioYamlLoader: type[yaml.CSafeLoader] | None = None
if getattr(yaml, "__with_libyaml__", False):

    class _FastScenarioYamlLoader(_ConstructorErrorsWithLines, yaml.CSafeLoader):
        """libyaml's parser with the scenario resolvers."""

    _scenario_resolvers(_FastScenarioYamlLoader)
    FastScenarioYamlLoader = _FastScenarioYamlLoader


def parse_yaml(text: str) -> tuple[object, yaml.Node | None]:
    """The data and its node tree (for line numbers), within the limits above."""
    if FastScenarioYamlLoader is None:
        return _parse_with(ScenarioYamlLoader, text)
    try:
        return _parse_with(FastScenarioYamlLoader, text)
    except YamlLimitError:
        raise
    except yaml.YAMLError as fast_error:
        # The pure reader words syntax errors as the tests and docs know them. What it
        # accepts and libyaml refuses (an escaped half of a surrogate pair, `\UFFFFFFFF`)
        # stays refused, in libyaml's words.
        try:
            _parse_with(ScenarioYamlLoader, text)
        except yaml.YAMLError:
            raise
        raise fast_error from None


def _parse_with(
    loader_class: type[yaml.SafeLoader | yaml.CSafeLoader], text: str
) -> tuple[object, yaml.Node | None]:
    loader = loader_class(text)
    try:
        with _collector_paused():
            node = _compose(loader)
            if node is None:
                return None, None
            check_limits(node)
            return loader.construct_document(node), node
    finally:
        loader.dispose()


def _compose(loader: yaml.SafeLoader | yaml.CSafeLoader) -> yaml.Node | None:
    try:
        return loader.get_single_node()
    except (ValueError, ArithmeticError) as exc:  # the pure scanner's `chr()` of an escape
        mark = loader.get_mark() if hasattr(loader, "get_mark") else None
        raise YamlLimitError(f"an escape that is no character ({exc})", mark) from None


@contextmanager
def _collector_paused() -> Iterator[None]:
    """PyYAML makes millions of small objects and no cycles: Python's cycle collector,
    running over and over while they pile up, made a large file 10x slower to read."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def check_limits(root: yaml.Node) -> None:
    """Refuse, with the line, a tree over the limits of depth, aliases and turns, holding
    a tag or a text no scenario holds, or a cycle (an alias inside its own anchor)."""
    if _has_aliases(root):
        _measure_aliases(root)
    _check_turns(root)


def _has_aliases(root: yaml.Node) -> bool:
    """The walk of every file: depth, tags and texts; True when a node is reached twice
    (an alias: a node of the tree shared), for `_measure_aliases` to weigh.

    The TUI's first screen waits for it over every file of the library (some 6,000
    nodes): a node that passes, the usual one, costs no call (`_check_node` words what
    fails)."""
    seen: set[int] = set()
    pending: list[tuple[yaml.Node, int]] = [(root, 1)]
    while pending:
        node, depth = pending.pop()
        key = id(node)
        if key in seen:
            return True
        seen.add(key)
        if depth > MAX_DEPTH:
            raise YamlLimitError(_TOO_DEEP, node.start_mark)
        if isinstance(node, yaml.ScalarNode):
            if node.tag not in ALLOWED_TAGS or SURROGATE.search(node.value):
                _check_node(node)
            continue
        if node.tag not in ALLOWED_TAGS:
            _check_node(node)
        below = depth + 1
        if isinstance(node, yaml.MappingNode):
            for name, value in node.value:
                pending += ((name, below), (value, below))
        elif isinstance(node, yaml.SequenceNode):
            pending += [(item, below) for item in node.value]
    return False


def _measure_aliases(root: yaml.Node) -> None:
    """Count the aliases and the values they add, check the depth they reach, find cycles.

    Iterative, visiting each node once: a node reached again is an alias, which adds as
    many values as its subtree holds (memoised, so a bomb is cheap to measure). An alias
    has no line of its own in the tree: its key's line is used, or that of its list.
    """
    sizes: dict[int, int] = {}  # node -> values in its subtree, aliases expanded
    heights: dict[int, int] = {}  # node -> levels in its subtree
    open_nodes: set[int] = set()  # on the path from the root: reaching one is a cycle
    aliases = alias_values = 0
    pending: list[tuple[yaml.Node, int, yaml.Mark, bool]] = [(root, 1, root.start_mark, False)]
    while pending:
        node, depth, where, done = pending.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            below = [child for child, _ in _children(node)]
            sizes[key] = 1 + sum(sizes[id(child)] for child in below)
            heights[key] = 1 + max((heights[id(child)] for child in below), default=0)
            continue
        if key in open_nodes:
            raise YamlLimitError("an alias refers to the value that contains it", where)
        if key in sizes:
            aliases += 1
            alias_values += sizes[key]
            if aliases > MAX_ALIASES:
                raise YamlLimitError(f"more than {MAX_ALIASES} aliases (the limit)", where)
            if alias_values > MAX_ALIAS_VALUES:
                raise YamlLimitError(
                    f"aliases that expand to more than {MAX_ALIAS_VALUES:,} values (the limit)",
                    where,
                )
            if depth + heights[key] - 1 > MAX_DEPTH:
                raise YamlLimitError(_TOO_DEEP, where)
            continue
        open_nodes.add(key)
        pending.append((node, depth, where, True))
        children = _children(node)
        pending.extend((child, depth + 1, mark, False) for child, mark in reversed(children))


def _children(node: yaml.Node) -> list[tuple[yaml.Node, yaml.Mark]]:
    """A node's children, each with the mark to report it at (see `check_limits`)."""
    if isinstance(node, yaml.MappingNode):
        children: list[tuple[yaml.Node, yaml.Mark]] = []
        for key, value in node.value:
            children += [(key, key.start_mark), (value, key.start_mark)]
        return children
    if isinstance(node, yaml.SequenceNode):
        return [(item, node.start_mark) for item in node.value]
    return []


def _check_node(node: yaml.Node) -> None:
    if node.tag not in ALLOWED_TAGS:
        raise YamlLimitError(
            f"the tag {node.tag.replace('tag:yaml.org,2002:', '!!')} is not allowed: "
            "a scenario holds plain values only "
            "(text, numbers, true/false, null, lists, mappings)",
            node.start_mark,
        )
    if isinstance(node, yaml.ScalarNode) and SURROGATE.search(node.value):
        raise YamlLimitError(
            "a text holds half of a UTF-16 surrogate pair (\\ud800 to \\udfff), "
            "which is no character",
            node.start_mark,
        )


def _check_turns(root: yaml.Node) -> None:
    if not isinstance(root, yaml.MappingNode):
        return
    for key, value in root.value:
        turns = value.value if isinstance(value, yaml.SequenceNode) else ()
        if isinstance(key, yaml.ScalarNode) and key.value == "turns" and len(turns) > MAX_TURNS:
            raise YamlLimitError(
                f"{len(value.value):,} turns; a scenario may have at most "
                f"{MAX_TURNS:,} (the limit)",
                key.start_mark,
            )


def scenario_paths_in(directory: Path) -> list[Path]:
    """A directory's `*.yaml` / `*.yml` files, sorted by name (as `loader.scenario_paths`)."""
    return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml"))


def summary(path: Path) -> tuple[str, str, int] | None:
    """Name, description and number of turns as the file states them; None if unreadable.

    Only the node tree is built, and only `name` and `description` become data: the turns
    are counted, not constructed (half the time, for a library listed at start-up).
    None too for a file over the limits: the loader then says why.
    """
    try:
        found = path.stat()
        # Not a regular file (a FIFO would block the read forever) or too big: the
        # loader says which.
        if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_FILE_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    loader = (FastScenarioYamlLoader or ScenarioYamlLoader)(text)
    try:
        with _collector_paused():
            node = _compose(loader)
            if not isinstance(node, yaml.MappingNode):
                return None
            check_limits(node)
            fields: dict[str, object] = {}
            turns = 0
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode):
                    continue
                if key.value in ("name", "description"):
                    fields[key.value] = loader.construct_object(value, deep=True)
                elif key.value == "turns" and isinstance(value, yaml.SequenceNode):
                    turns = len(value.value)
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    name, description = fields.get("name"), fields.get("description")
    if not isinstance(name, str) or not isinstance(description, str | None):
        return None
    return name, description or "", turns
