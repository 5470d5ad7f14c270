"""The chat loop's own words and exit statuses, run in this process (commands/chat/repl.py).

The chat's end-to-end tests run `airline-agent chat` as a child process; these call
`run_chat` itself, so that a change to what it prints or returns fails here too (and in
the mutation profile, which cannot see into a child process): the greeting and prompt of
a terminal, the echo of piped lines, `/new`, `/quit` and `/exit`, blank lines, an
unanswered approval, a transcript without a recording, a turn cancelled by Ctrl-C (its
handler called), and exit statuses 0, 1 and 2.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from airline_agent.agent.events import ApprovalRequested, TurnFinished, TurnStarted
from airline_agent.commands.chat import repl
from airline_agent.commands.chat.interrupts import Interrupts
from airline_agent.commands.chat.repl import run_chat
from airline_agent.config import Settings
from tests.support.chat_server import ChatServer

GREETING = "Chatting with gpt-4o-mini. /quit to leave, /new to start over."


class Terminal(io.StringIO):
    """Input that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _settings(server: ChatServer, db: Path, **extra: object) -> Settings:
    return Settings(model="gpt-4o-mini", base_url=server.url, db=str(db), **extra)


async def _chat(settings: Settings, stdin: io.TextIOBase, **extra: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = await run_chat(settings, stdin=stdin, stdout=out, stderr=err, **extra)
    return code, out.getvalue(), err.getvalue()


async def test_piped_lines_are_echoed_and_blank_ones_skipped(chat_server, db) -> None:
    chat_server.stream("Hello there.")
    code, out, err = await _chat(_settings(chat_server, db), io.StringIO("   \nhi\n\n"))
    assert code == 0, err
    assert out.splitlines()[0] == "you> hi"
    assert GREETING not in out and "you> \n" not in out
    assert len(chat_server.requests) == 1


async def test_new_starts_a_new_conversation_and_says_so(chat_server, db) -> None:
    chat_server.stream("First answer.")
    chat_server.stream("Second answer.")
    code, out, err = await _chat(_settings(chat_server, db), io.StringIO("hi\n/new\nagain\n"))
    assert code == 0, err
    lines = out.splitlines()
    assert "(new conversation)" in lines
    assert lines.index("(new conversation)") < lines.index("you> again")
    second = chat_server.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user"]  # nothing of the first
    assert second[-1]["content"] == "again"


async def test_quit_and_exit_end_the_chat_before_the_next_line(chat_server, db) -> None:
    for word in ("/quit", "/exit"):
        chat_server.requests.clear()
        chat_server.stream("Hello.")
        stdin = io.StringIO(f"hi\n{word}\nnever sent\n")
        code, out, err = await _chat(_settings(chat_server, db), stdin)
        assert code == 0, err
        assert "never sent" not in out
        assert len(chat_server.requests) == 1, word


async def test_a_terminal_is_greeted_and_prompted_not_echoed(chat_server, db) -> None:
    chat_server.stream("Hello.")
    code, out, err = await _chat(_settings(chat_server, db), Terminal("hi\n"))
    assert code == 0, err
    assert out.startswith(GREETING + "\nyou> ")
    assert "you> hi" not in out  # the terminal showed what was typed
    assert out.endswith("you> \n")  # the last prompt's line ended at the end of input


async def test_a_terminal_is_told_when_the_chat_uses_the_responses_api(chat_server, db) -> None:
    code, out, err = await _chat(_settings(chat_server, db, api="responses"), Terminal(""))
    assert code == 0, err
    assert out.splitlines()[0] == (
        "Chatting with gpt-4o-mini over the Responses API. /quit to leave, /new to start over."
    )
    assert chat_server.requests == []  # told before anything is sent


async def test_an_unanswered_approval_says_so_and_declines(chat_server, db) -> None:
    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    chat_server.stream("Not done.")
    settings = _settings(chat_server, db, approve="ask", guard=False)
    code, out, err = await _chat(settings, io.StringIO("cancel EHGLP3\n"), as_user="emma_kim_9957")
    assert code == 0, err
    assert "    approve? [y/N] (no answer)" in out.splitlines()
    assert "declined" in chat_server.requests[1]["messages"][-1]["content"]


async def test_a_piped_answer_is_echoed(chat_server, db) -> None:
    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    chat_server.stream("Not done.")
    settings = _settings(chat_server, db, approve="ask", guard=False)
    code, out, err = await _chat(
        settings, io.StringIO("cancel EHGLP3\n  no  \n"), as_user="emma_kim_9957"
    )
    assert code == 0, err
    assert "    approve? [y/N] no" in out.splitlines()  # stripped, as it is read


async def test_a_turn_ending_in_an_error_makes_the_exit_status_1(chat_server, db) -> None:
    chat_server.error(400, "bad request")
    chat_server.stream("Fine now.")
    code, out, _ = await _chat(_settings(chat_server, db), io.StringIO("hi\nagain\n"))
    assert code == 1
    assert "you> again" in out  # the chat went on after the failed turn


async def test_an_unreadable_line_is_skipped_said_and_makes_the_status_1(
    chat_server, db, tmp_path
) -> None:
    chat_server.stream("Hello.")
    piped = tmp_path / "input.txt"
    piped.write_bytes(b"\xff\xfe\nhi\n")
    with piped.open(encoding="utf-8") as stdin:
        code, out, err = await _chat(_settings(chat_server, db), stdin)
    assert code == 1
    assert "error: input line 1 skipped: not valid utf-8 text (byte 1: 0xff)" in err
    assert "you> hi" in out and len(chat_server.requests) == 1


async def test_a_configuration_error_is_status_2_and_a_missing_database_1(
    chat_server, db, tmp_path
) -> None:
    settings = Settings(model="", base_url=chat_server.url, db=str(db))
    code, _, err = await _chat(settings, io.StringIO("hi\n"))
    assert code == 2
    assert err.startswith("error: No model is configured")
    missing = _settings(chat_server, tmp_path / "nowhere.db")
    code, _, err = await _chat(missing, io.StringIO("hi\n"))
    assert code == 1
    assert err.startswith("error: ") and "nowhere.db" in err
    assert chat_server.requests == []


async def test_a_terminals_answer_is_not_echoed_but_a_missing_one_is_said(chat_server, db) -> None:
    for typed in ("y\n", ""):
        chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
        chat_server.stream("Done.")
        settings = _settings(chat_server, db, approve="ask", guard=False)
        stdin = Terminal("cancel EHGLP3\n" + typed)
        code, out, err = await _chat(settings, stdin, as_user="emma_kim_9957")
        assert code == 0, err
        [question] = [line for line in out.splitlines() if "approve? [y/N]" in line]
        if typed:  # the terminal showed the answer as it was typed
            assert not question.startswith("    approve? [y/N] y"), question
        else:
            assert question == "    approve? [y/N] (no answer)"


async def test_the_chat_acts_for_its_customer_and_observers_see_every_event(
    chat_server, db
) -> None:
    chat_server.stream("Hello Emma.")
    seen: list[object] = []
    code, _, err = await _chat(
        _settings(chat_server, db),
        io.StringIO("hi\n"),
        as_user="emma_kim_9957",
        observers=(seen.append,),
    )
    assert code == 0, err
    assert "emma_kim_9957" in chat_server.requests[0]["messages"][0]["content"]
    assert [type(event).__name__ for event in (seen[0], seen[-1])] == [
        "TurnStarted",
        "TurnFinished",
    ]
    assert None not in seen


async def test_a_turn_cancelled_at_its_approval_ends_for_the_observers_as_cancelled(
    chat_server, db, monkeypatch
) -> None:
    """Ctrl-C during a turn (pressed here as the chat's handler of it is called, at the
    approval question: a real SIGINT would reach pytest too): the cancelled loop cannot
    say how the turn ended, so the chat tells its observers, with the turn's number."""
    made: list[Interrupts] = []

    class Recorded(Interrupts):
        def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
            super().__init__(loop)
            made.append(self)

    monkeypatch.setattr(repl, "Interrupts", Recorded)
    seen: list[object] = []

    def observe(event: object) -> None:
        seen.append(event)
        if isinstance(event, ApprovalRequested):
            made[0]._pressed()  # Ctrl-C

    chat_server.stream("Hello.")
    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    settings = _settings(chat_server, db, approve="ask", guard=False)
    code, _, err = await _chat(
        settings,
        io.StringIO("hi\ncancel EHGLP3\n"),
        as_user="emma_kim_9957",
        observers=(observe,),
    )
    assert code == 0, err
    started = [event for event in seen if isinstance(event, TurnStarted)]
    assert [event.turn for event in started] == [1, 2]
    finished = seen[-1]
    assert isinstance(finished, TurnFinished)
    assert (finished.turn, finished.reason) == (2, "cancelled")


async def test_a_recording_is_saved_for_the_customer_with_the_key_blanked(
    chat_server, db, tmp_path
) -> None:
    key = "sk-planted-0123456789abcdefABCDEF"
    chat_server.stream(f"Your key is {key}.")
    record, transcript = tmp_path / "chat.yaml", tmp_path / "chat-transcript"
    settings = _settings(chat_server, db, api_key=key)
    code, out, err = await _chat(
        settings,
        io.StringIO("hi\n"),
        as_user="emma_kim_9957",
        record=record,
        transcript=transcript,
    )
    assert code == 0, err
    assert f"saved {record}" in err
    saved = record.read_text()
    assert "emma_kim_9957" in saved and key not in saved and key not in out
    written = [
        line.removeprefix("saved ") for line in err.splitlines() if line != f"saved {record}"
    ]
    assert written and all(Path(path).exists() for path in written)
    assert all(key not in Path(path).read_text() for path in written)


async def test_a_transcript_alone_is_saved_and_nothing_without_either(
    chat_server, db, tmp_path
) -> None:
    """`--transcript` without `--record` still writes the transcript; with neither, the
    chat saves nothing and says nothing of saving."""
    transcript = tmp_path / "chat-transcript"
    chat_server.stream("Hello.")
    code, _, err = await _chat(
        _settings(chat_server, db), io.StringIO("hi\n"), transcript=transcript
    )
    assert code == 0, err
    written = [
        line.removeprefix("saved ") for line in err.splitlines() if line.startswith("saved ")
    ]
    assert written == [str(transcript / "chat.jsonl"), str(transcript / "chat.md")], err
    assert all(Path(path).is_file() for path in written)
    chat_server.stream("Hello.")
    code, _, err = await _chat(_settings(chat_server, db), io.StringIO("hi\n"))
    assert code == 0, err
    assert "saved" not in err
    assert sorted(str(path) for path in transcript.iterdir()) == written


async def test_a_recording_that_cannot_be_saved_makes_the_status_1(
    chat_server, db, tmp_path
) -> None:
    from airline_agent.output_files import OutputPermissions

    record = tmp_path / "chat.yaml"
    record.write_text("kept\n")
    chat_server.stream("Hello.")
    code, _, err = await _chat(_settings(chat_server, db), io.StringIO("hi\n"), record=record)
    assert code == 1
    assert "error: the recording could not be saved" in err
    assert record.read_text() == "kept\n"  # refused: an existing file is not replaced
    chat_server.stream("Hello.")
    code, _, err = await _chat(
        _settings(chat_server, db),
        io.StringIO("hi\n"),
        record=record,
        outputs=OutputPermissions(overwrite=True),
    )
    assert code == 0, err
    assert record.read_text() != "kept\n"
