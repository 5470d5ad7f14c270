"""One message of the chat: who said it, the Markdown body, collapsed reasoning, warnings.

Who said it and what, as Markdown, is one widget (`MessageBody`: the speaker's name over
Rich Markdown). Textual's `Markdown` mounts a widget per block (paragraph, list, list
item…); with a few hundred of those on screen, mounting and laying them out made each
frame of a long conversation cost tens to hundreds of milliseconds, and every widget a
message mounts costs a layout more while a scenario plays fast. Only the reply being
streamed is a live `Markdown` (appended through `MarkdownStream`, never re-rendered
whole); when its stream ends the text moves into the message's one-widget body.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from rich.console import Group, RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual.app import ComposeResult, RenderResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Label, Static
from textual.widgets._collapsible import CollapsibleTitle

if TYPE_CHECKING:
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownStream

Speaker = Literal["customer", "agent", "notice", "error"]
TITLES = {"customer": "Customer", "agent": "Agent", "notice": "", "error": "Error"}


class MessageBody(Widget):
    """The speaker's name over the finished Markdown, rendered by Rich as one widget."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"message-body--speaker"}
    DEFAULT_CSS = """
    MessageBody {
        height: auto;
    }
    """

    def __init__(self, title: str, text: str) -> None:
        super().__init__(classes="body")
        self.title = title
        self.text = text
        self._rendered: RenderableType | None = None
        self.display = bool(title or text)
        self.set_class(not text, "-title-only")

    def show(self, text: str, *, title: str | None = None) -> None:
        self.text = text
        if title is not None:
            self.title = title
        self._rendered = None
        self.display = bool(self.title or text)
        self.set_class(not text, "-title-only")
        self.refresh(layout=True)

    def render(self) -> RenderResult:
        # Built on the first paint: the speaker's colour comes from the stylesheet.
        if self._rendered is None:
            parts: list[RenderableType] = []
            if self.title:
                style = self.get_component_rich_style("message-body--speaker", partial=True)
                parts.append(Text(self.title, style=style))
            if self.text:
                parts.append(RichMarkdown(self.text))
            self._rendered = Group(*parts)
        return self._rendered

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._rendered = None  # a new theme: the speaker's colour again


class ChatMessage(Vertical):
    """A message; an agent reply grows by appending streamed Markdown, never re-rendered."""

    def __init__(self, speaker: Speaker, text: str = "", *, title: str | None = None) -> None:
        super().__init__(classes=f"message -{speaker}")
        self.speaker = speaker
        self.text = text
        self._title = TITLES[speaker] if title is None else title
        self.body = MessageBody(self._title, text)
        self._live: Markdown | None = None  # the part being streamed
        self._stream: MarkdownStream | None = None
        self._reasoning_by_request: dict[int, str] = {}  # request -> its reasoning
        self.warnings: list[str] = []

    def compose(self) -> ComposeResult:
        yield self.body

    async def reuse(self, speaker: Speaker, text: str = "", *, title: str | None = None) -> None:
        """Become a new message (the chat recycles its oldest one instead of mounting)."""
        await self.finish_stream()
        extras = [child for child in self.children if child is not self.body]
        if extras:  # reasoning, warnings: rare, so removing them is cheap enough
            await self.remove_children(extras)
        self.set_classes(f"message -{speaker}")
        self.speaker = speaker
        self.text = text
        self._title = TITLES[speaker] if title is None else title
        self._reasoning_by_request = {}
        self.warnings = []
        self.body.show(text, title=self._title)

    async def append(self, fragment: str) -> None:
        """Add streamed text at the end (coalesced by `MarkdownStream` when it arrives fast)."""
        if self._stream is None:
            # Imported on the first streamed reply: Textual's Markdown is slow to import.
            from textual.widgets import Markdown

            if self.text:
                self.text += "\n\n"  # a new paragraph after the text already shown
            self._live = Markdown(classes="live")
            await self.mount(self._live, after=self.body)
            self._stream = Markdown.get_stream(self._live)
        self.text += fragment
        await self._stream.write(fragment)

    async def finish_stream(self) -> None:
        """The stream ended: its text joins the one-widget body, the live Markdown goes."""
        if self._stream is None:
            return
        await self._stream.stop()
        self._stream = None
        self.body.show(self.text)
        if self._live is not None:
            await self._live.remove()
            self._live = None

    async def set_text(self, text: str) -> None:
        """Add a whole reply that was not streamed (a paragraph after any earlier one)."""
        await self.finish_stream()
        self.text += text if not self.text else "\n\n" + text
        self.body.show(self.text)

    async def add_reasoning(self, fragment: str, request: int | None = None) -> None:
        """Reasoning of one request, in its own collapsed block ("reasoning · request #2"):
        a turn's requests each think apart, and their reasoning never runs together."""
        key = request if request is not None else 0
        known = key in self._reasoning_by_request
        self._reasoning_by_request[key] = self._reasoning_by_request.get(key, "") + fragment
        text = self._reasoning_by_request[key]
        if known:
            self.query_one(f"#reasoning-{key}-text", Static).update(text)
            return
        if self._title and not self._reasoning_by_request.keys() - {key}:
            # The name goes above the reasoning, which comes before the reply.
            await self.mount(Label(self._title, classes="speaker"), before=self.body)
            self.body.show(self.body.text, title="")
        title = "reasoning" if request is None else f"reasoning · request #{request}"
        block = Collapsible(
            Static(text, classes="reasoning-text", id=f"reasoning-{key}-text", markup=False),
            title=title,
            collapsed=True,
            classes="reasoning",
        )
        await self.mount(block, before=self.body)
        # Not a stop of `tab` (it walked through every block of every message before it
        # reached the trace): the chat's `enter` shows and hides them, a click toggles one.
        for title_widget in block.query(CollapsibleTitle):
            title_widget.can_focus = False

    @property
    def reasoning_collapsed(self) -> bool:
        """One of its reasoning blocks is collapsed."""
        return any(block.collapsed for block in self.query(Collapsible))

    def show_reasoning(self, shown: bool) -> None:
        """Every reasoning block of the message shown (expanded), or every one collapsed."""
        for block in self.query(Collapsible):
            block.collapsed = not shown

    @property
    def reasoning(self) -> str:
        """All the reasoning shown with this message, request by request."""
        return "\n\n".join(self._reasoning_by_request.values())

    def reasoning_of(self, request: int) -> str:
        return self._reasoning_by_request.get(request, "")

    async def add_warning(self, text: str) -> None:
        self.warnings.append(text)
        await self.mount(Static(f"⚠ {text}", classes="warning", markup=False))
