"""Issue 19 item 22: an approval in the chat fails closed.

Only an explicit yes approves a write: "y" or "yes", in any case, spaces around it
stripped. Anything else declines: an empty line, "maybe", "yes please", the end of input.
(Ctrl-C at the question cancels the turn and the write with it:
test_cli_chat_ctrl_c.py.) The mutant `text.lower() not in ("n", "no")` passed the whole
suite before these tests; each case checks the database itself, not only the output.
"""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from airline_agent.commands.chat.repl import run_chat
from airline_agent.config import Settings
from tests.support.chat_server import ChatServer

CANCEL = ("cancel_reservation", {"reservation_id": "EHGLP3"})

ANSWERS = {
    "y": True,
    "yes": True,
    "  YES  ": True,
    "Y": True,
    "": False,
    "maybe": False,
    "yes please": False,
    "n": False,
    "ok": False,
    "1": False,
    None: False,  # the input ends before the answer
}


def status(db: Path) -> str | None:
    with sqlite3.connect(db) as connection:
        (value,) = connection.execute(
            "SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'"
        ).fetchone()
    return value


@pytest.mark.parametrize(("answer", "approves"), ANSWERS.items(), ids=[repr(a) for a in ANSWERS])
async def test_only_an_explicit_yes_approves_a_write(
    chat_server: ChatServer, db: Path, answer: str | None, approves: bool
) -> None:
    chat_server.stream(tool_calls=[CANCEL])
    chat_server.stream("Done as you said.")
    lines = "cancel EHGLP3\n" + ("" if answer is None else f"{answer}\n")
    # The guard off: only the answer decides (X3 refuses this cancellation otherwise).
    settings = Settings(
        model="gpt-4o-mini", base_url=chat_server.url, db=str(db), approve="ask", guard=False
    )
    out, err = io.StringIO(), io.StringIO()
    code = await run_chat(
        settings, as_user="emma_kim_9957", stdin=io.StringIO(lines), stdout=out, stderr=err
    )
    shown = out.getvalue()
    assert code == 0, err.getvalue()
    assert "approve? [y/N]" in shown
    [ran] = [line for line in shown.splitlines() if "→ cancel_reservation" in line]
    if approves:
        assert " ok " in ran
        assert status(db) == "cancelled"
    else:
        assert "error PERMISSION_DENIED" in ran
        assert status(db) is None  # still active: nothing was written
        last = chat_server.requests[1]["messages"][-1]
        assert last["role"] == "tool" and "declined" in last["content"]
