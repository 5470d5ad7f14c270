"""Scripted roles for `airline-agent eval` tests, served by a real loopback Chat
Completions server (`ChatServer(responder=…)`): each reads the conversation the request
carries and answers from the τ² task it recognises, so any number of trials can run at
once on one server. The model name of the request picks the behaviour:

The agent (`OracleAgent`):
- `oracle`: the task's reference actions as tool calls, one per response, at most
  `PER_TURN` in a turn (then it says it is still working and the customer says go on:
  the loop's per-turn limits stay as they are), then one reply that says it is done and
  tells the customer every `communicate_info`;
- `oracle-skips-write`: the same without the task's first write;
- `oracle-omits-info`: the same, and a reply that tells nothing;
- `oracle-text-calls`: writes each call as text (`{"name": …, "arguments": …}`), as a
  small local model does.

Told to (`hold_task=n`), the agent holds its first answer about the n-th task it is asked
about until the server's `release()`, and sets `holding`: a trial certainly in flight (the
Ctrl-C test interrupts it there, whatever the machine's speed).

The customer (`ScriptedCustomer`): its opening (the task's reason for calling, what it
knows and its instructions: one text per task), "Please go on." while the agent is not
done, then `###STOP###`. Told so, it adds a reservation id no one gave it to its opening
(`invents`: how many times, by task id), or never stops (`chatty`, for --max-turns).
"""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path
from typing import Any

from tests.support.chat_server import Reply, completion_body, stream_body

INVENTED_ID = "ZZ9QX7"
PER_TURN = 6  # tool calls of the oracle in one turn (the loop allows 8 by default)
DONE = "Everything you asked for is done."
STILL_WORKING = "I am still working on it."
WRITES = frozenset(
    {
        "book_reservation",
        "cancel_reservation",
        "update_reservation_baggages",
        "update_reservation_flights",
        "update_reservation_passengers",
        "send_certificate",
    }
)


def _words(text: str | None) -> str:
    return " ".join((text or "").split())


def opening(task: dict[str, Any]) -> str:
    """The scripted customer's first message: unique to the task."""
    given = task["user_scenario"]["instructions"]
    parts = (given.get("reason_for_call"), given.get("known_info"), given.get("task_instructions"))
    return " ".join(_words(part) for part in parts if part)


def _reply(body: dict[str, Any], content: str | None = None, calls: list | None = None) -> Reply:
    model = body.get("model") or "test-model"
    if body.get("stream"):
        data = stream_body(content, calls or (), model=model, usage=(300, 20))
        return Reply(200, data, "text/event-stream")
    payload = completion_body(content, calls or (), model=model, usage=(300, 20))
    return Reply(200, json.dumps(payload).encode())


class _Tasks:
    def __init__(self, tasks_json: Path) -> None:
        self.tasks = json.loads(Path(tasks_json).read_text())
        self.requests = 0
        self._lock = threading.Lock()

    def count(self) -> None:
        with self._lock:
            self.requests += 1


class OracleAgent(_Tasks):
    """The agent's model: see the module's docstring."""

    def __init__(self, tasks_json: Path, *, hold_task: int | None = None) -> None:
        super().__init__(tasks_json)
        self._by_opening = {opening(task): task for task in self.tasks}
        self.hold_task = hold_task  # 1-based, in the order the tasks are first asked about
        self.holding = threading.Event()  # that task's first answer is held
        self._asked_about: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        reply = self._answer(body)
        if self._held(body):
            self.holding.set()
            return dataclasses.replace(reply, held=True)
        return reply

    def _held(self, body: dict[str, Any]) -> bool:
        """Whether this is the first request about the task to hold."""
        first = next(m["content"] for m in body["messages"] if m["role"] == "user")
        with self._lock:
            if first in self._asked_about:
                return False
            self._asked_about.append(first)
            return self.hold_task is not None and len(self._asked_about) == self.hold_task

    def _answer(self, body: dict[str, Any]) -> Reply:
        self.count()
        messages = body["messages"]
        first = next(m["content"] for m in messages if m["role"] == "user")
        task = self._by_opening.get(_words(first).replace(f" My reservation is {INVENTED_ID}.", ""))
        if task is None:
            return _reply(body, "I could not find your task.")
        mode = body.get("model", "oracle")
        actions = list(task["evaluation_criteria"]["actions"])
        if mode == "oracle-skips-write":
            writes = [i for i, a in enumerate(actions) if a["name"] in WRITES]
            if writes:
                actions.pop(writes[0])
        done = sum(1 for m in messages if m["role"] == "tool")
        last_customer = max(i for i, m in enumerate(messages) if m["role"] == "user")
        this_turn = sum(1 for m in messages[last_customer:] if m["role"] == "tool")
        if done < len(actions) and this_turn >= PER_TURN:
            return _reply(body, STILL_WORKING)
        if done < len(actions):
            action = actions[done]
            if mode == "oracle-text-calls":
                written = json.dumps({"name": action["name"], "arguments": action["arguments"]})
                return _reply(body, written)
            return _reply(body, None, [(action["name"], action["arguments"], f"call_{done}")])
        info = task["evaluation_criteria"].get("communicate_info") or []
        if mode == "oracle-omits-info" or not info:
            return _reply(body, f"{DONE} Anything else?")
        return _reply(body, f"{DONE} " + "; ".join(info) + ".")


class ScriptedCustomer(_Tasks):
    """The simulated customer's model: see the module's docstring."""

    def __init__(
        self,
        tasks_json: Path,
        *,
        invents: dict[str, int] | None = None,
        chatty: bool = False,
    ) -> None:
        super().__init__(tasks_json)
        self.invents = dict(invents or {})
        self.chatty = chatty

    def __call__(self, body: dict[str, Any]) -> Reply:
        self.count()
        messages = body["messages"]
        task = self._task(_words(messages[0]["content"]))
        spoken = [m for m in messages if m["role"] == "assistant"]
        spoken_to = [m for m in messages if m["role"] == "user"]  # the agent's messages
        if not spoken:
            text = opening(task)
            with self._lock:
                invent = self.invents.get(task["id"], 0) > 0
                if invent:
                    self.invents[task["id"]] -= 1
            if invent:
                text += f" My reservation is {INVENTED_ID}."
            return _reply(body, text)
        if self.chatty or DONE not in spoken_to[-1]["content"]:
            return _reply(body, "Please go on.")
        return _reply(body, "Thank you, that is all. ###STOP###")

    def _task(self, system_prompt: str) -> dict[str, Any]:
        """The task whose instructions the prompt holds (the longest, where one task's
        instructions are part of another's)."""
        found = [
            (len(opening(task)), task)
            for task in self.tasks
            if all(
                _words(part) in system_prompt
                for part in task["user_scenario"]["instructions"].values()
                if isinstance(part, str) and part.strip() and part != "airline"
            )
        ]
        return max(found, key=lambda item: item[0])[1]
