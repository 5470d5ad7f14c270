"""The main screen's keys: a short word each for the footer, and what it does for the
command palette (the tooltip).

Every key but esc is a priority binding: Textual runs it as soon as the app reads the
key. A key that is not one travels through the focused widget and each of its parents
first, a message queue each, and while a scenario plays fast a frame of tens of
milliseconds is painted between two of those hops (the key's effect showed a frame or two
late). A key that a text field takes (a character, while the chat input has focus) is
the field's: Textual leaves it out of the screen's bindings then, priority or not.
"""

from __future__ import annotations

from dataclasses import replace

from textual.binding import Binding, BindingType

# Short words in the footer (it fits 80 columns); the tooltip says what the key does,
# for the command palette. Keys not shown stay in help (f1) and the palette.
_KEYS: list[Binding] = [
    Binding("space", "step", "Step", tooltip="Play the scenario's next turn"),
    Binding("a", "autoplay", "Auto", tooltip="Auto-play the scenario on or off"),
    # esc: the status line says "esc cancels" while a turn runs.
    Binding("escape", "cancel_turn", "Cancel", show=False, tooltip="Cancel the running turn"),
    Binding("l", "library", "Library", tooltip="Open the scenario library"),
    Binding("i", "inspect", "Inspect", tooltip="The exact request and raw response"),
    # f2: the tab bar says it, when it shows (one pane at a time).
    Binding("f2", "next_pane", "Pane", show=False, tooltip="Show the next pane"),
    Binding("f3", "zoom", "Zoom", tooltip="Zoom the focused pane to the screen, or back"),
    Binding("u", "switch_customer", "Customer", show=False, tooltip="Act for another customer"),
    Binding("n", "new_conversation", "New", show=False, tooltip="Start a new conversation"),
    Binding("g", "toggle_guard", "Guard", show=False, tooltip="Turn the policy guard on/off"),
    Binding(
        "r",
        "reset_database",
        "Reset",
        show=False,
        tooltip="Live: the database as built · offline: play the scenario again",
    ),
    Binding(
        "s", "save_scenario", "Save", show=False, tooltip="Save the conversation as a scenario"
    ),
    Binding(
        "t",
        "save_transcript",
        "Transcript",
        show=False,
        tooltip="Save the conversation as a transcript (JSONL + Markdown)",
    ),
    Binding("plus,equals_sign", "faster", "Faster", show=False, tooltip="Auto-play faster"),
    Binding("minus", "slower", "Slower", show=False, tooltip="Auto-play slower"),
]
# esc stays an ordinary binding: a widget that has focus may want it first.
MAIN_KEYS: list[BindingType] = [
    binding if binding.key == "escape" else replace(binding, priority=True) for binding in _KEYS
]
# Live, these do nothing: not offered (MainScreen.check_action).
OFFLINE_ONLY_ACTIONS = frozenset({"step", "autoplay", "faster", "slower"})
