"""`eval --like tau2`: the requests on the wire are those τ²-bench's runner sends (seen on
the wire of `tau2 run` at a2c0247, ../shared/reference/README.md), τ²'s texts read from the
τ² folder's runner/; the call ends as τ²'s orchestrator ends it; the results say so, and
tau2_results.json carries τ²'s own `info` for such a run.

The expected texts are read from the reference folder's runner/ files, the seeds derived
here as τ²'s runner/batch.py derives them, the greeting taken from the reference README."""

from __future__ import annotations

import copy
import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import TAU2_DIR, tau2_files
from tests.support import tau2_oracle
from tests.support.chat_server import ChatServer
from tests.support.eval_roles import OracleAgent, ScriptedCustomer, opening
from tests.support.eval_run import run_eval

GREETING = "Hi! How can I help you today?"  # τ²'s, as the reference README quotes it
RUNNER = TAU2_DIR / "runner"
SCHEMA = TAU2_DIR / "results.schema.json"


def taus_trial_seeds(seed: int, trials: int) -> list[int]:
    """τ²'s runner/batch.py: `random.seed(config.seed)`, then one randint per trial."""
    state = random.getstate()
    try:
        random.seed(seed)
        return [random.randint(0, 1000000) for _ in range(trials)]
    finally:
        random.setstate(state)


@pytest.fixture
def tasks_dir() -> Path:
    db, _ = tau2_files()
    if not (RUNNER / "agent_system_prompt.txt").is_file():
        pytest.skip(f"τ²'s runner texts not found in {RUNNER} (docs/eval.md, The data)")
    return db.parent


@pytest.fixture
def tasks(tasks_dir: Path) -> dict[str, dict]:
    return {task["id"]: task for task in json.loads((tasks_dir / "tasks.json").read_text())}


@pytest.fixture
def agent(tasks_dir: Path) -> Iterator[ChatServer]:
    server = ChatServer(OracleAgent(tasks_dir / "tasks.json"))
    yield server
    server.close()


@pytest.fixture
def customer(tasks_dir: Path) -> Iterator[ChatServer]:
    server = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json"))
    yield server
    server.close()


def test_the_first_requests_are_those_tau2s_runner_sends(
    agent, customer, tasks_dir, tasks, tmp_path
) -> None:
    run = run_eval(
        agent, customer, tmp_path / "run", "--task-ids", "0,7", tasks=tasks_dir, like="tau2"
    )
    assert run.exit_code == 0, run.stderr
    system_prompt = (RUNNER / "agent_system_prompt.txt").read_text(encoding="utf-8")
    tools = json.loads((RUNNER / "agent_tools.json").read_text(encoding="utf-8"))
    user_prompts = json.loads((RUNNER / "user_system_prompts.json").read_text(encoding="utf-8"))
    (seed,) = taus_trial_seeds(300, 1)
    for task_id in ("0", "7"):
        said_first = opening(tasks[task_id])
        first = next(
            body
            for body in agent.requests
            if len(body["messages"]) == 3 and body["messages"][2]["content"] == said_first
        )
        assert first["messages"][0] == {"role": "system", "content": system_prompt}
        assert first["messages"][1] == {"role": "assistant", "content": GREETING}
        assert first["messages"][2] == {"role": "user", "content": said_first}
        assert first["tools"] == tools  # all 14, τ²'s, in τ²'s order
        assert (first["temperature"], first["seed"], first["tool_choice"]) == (0.0, seed, "auto")
        # nothing else: the fields τ²'s runner sends (`tau2 run` at a2c0247, on the wire)
        assert set(first) == {"model", "messages", "tools", "tool_choice", "temperature", "seed"}
        (asked,) = [
            body
            for body in customer.requests
            if body["messages"][0]["content"] == user_prompts[task_id]
            and len(body["messages"]) == 2
        ]
        assert asked["messages"] == [
            {"role": "system", "content": user_prompts[task_id]},
            {"role": "user", "content": GREETING},
        ]
        assert (asked["temperature"], asked["seed"]) == (0.0, seed)
        assert set(asked) == {"model", "messages", "temperature", "seed"}
    system_bytes = json.dumps(system_prompt)[1:-1].encode()
    assert all(system_bytes in raw for raw in agent.raw_requests)  # byte for byte on the wire


def test_every_trial_has_taus_seed_for_its_number(agent, customer, tasks_dir, tmp_path) -> None:
    run = run_eval(
        agent,
        customer,
        tmp_path / "run",
        "--task-ids",
        "1,3",
        "--trials",
        "3",
        "--seed",
        "42",
        tasks=tasks_dir,
        like="tau2",
    )
    assert run.exit_code == 0, run.stderr
    seeds = taus_trial_seeds(42, 3)
    assert {key: t["seed"] for key, t in run.trials().items()} == {
        (task_id, trial): seeds[trial] for task_id in ("1", "3") for trial in range(3)
    }
    assert {body["seed"] for body in agent.requests} == set(seeds)
    assert {body["seed"] for body in customer.requests} == set(seeds)


def test_the_results_say_how_the_run_was_made(agent, customer, tasks_dir, tmp_path) -> None:
    run = run_eval(
        agent, customer, tmp_path / "run", "--task-ids", "1,13", tasks=tasks_dir, like="tau2"
    )
    assert run.exit_code == 0, run.stderr
    results = run.results
    assert results["like"] == "tau2" and results["settings"]["like"] == "tau2"
    assert results["settings"]["tool_results"] == "tau2"
    assert (results["settings"]["seed"], results["settings"]["max_steps"]) == (300, 200)
    assert results["settings"]["max_errors"] == 10
    # τ²'s agent's transfer does not end the call: its customer ends it, by a stop signal
    assert results["terminations"] == {"customer_stop": 2}
    summary = (run.out / "summary.md").read_text()
    assert "`--like tau2`" in summary and '`"date": null`' in summary
    tau2 = run.tau2
    jsonschema.validate(tau2, json.loads(SCHEMA.read_text()))
    info = tau2["info"]
    assert info["agent_info"] == {
        "implementation": "llm_agent",
        "llm": "oracle",
        "llm_args": {"temperature": 0.0},
    }
    assert info["user_info"]["implementation"] == "user_simulator"
    assert info["user_info"]["llm_args"] == {"temperature": 0.0}
    user_prompts = json.loads((RUNNER / "user_system_prompts.json").read_text(encoding="utf-8"))
    guidelines = info["user_info"]["global_simulation_guidelines"]
    assert guidelines.strip() and all(
        p.startswith(guidelines.rstrip()) for p in user_prompts.values()
    )
    assert info["environment_info"]["policy"] == (TAU2_DIR / "policy.md").read_text()
    assert (info["seed"], info["max_steps"], info["max_errors"]) == (300, 200, 10)
    (seed,) = taus_trial_seeds(300, 1)
    for simulation in tau2["simulations"]:
        assert simulation["seed"] == seed
        greeting = simulation["messages"][0]
        assert (greeting["role"], greeting["content"], greeting["turn_idx"]) == (
            "assistant",
            GREETING,
            0,
        )
        assert simulation["messages"][1]["role"] == "user"


def test_search_direct_flight_gives_tau2s_null_dates(agent, customer, tasks_dir, tmp_path) -> None:
    """Task 12's reference searches direct flights twice; the agent reads τ²'s answer, and the
    trial's scenario replays with the same answers (no drift)."""
    run = run_eval(
        agent, customer, tmp_path / "run", "--task-ids", "12", tasks=tasks_dir, like="tau2"
    )
    assert run.exit_code == 0, run.stderr
    answers = [
        json.loads(message["content"])
        for body in agent.requests
        for message in body["messages"]
        if message["role"] == "tool" and message["content"].startswith("[")
    ]
    flights = [flight for answer in answers for flight in answer if isinstance(flight, dict)]
    assert flights and all(flight["date"] is None for flight in flights)
    from typer.testing import CliRunner

    from airline_agent.cli import build_app

    replayed = CliRunner().invoke(build_app(), ["replay", str(run.out / "scenarios"), "--json"])
    report = json.loads(replayed.stdout)
    assert replayed.exit_code == 0 and report["passed"] == 1, report


def test_max_steps_ends_the_call_as_tau2s_orchestrator(tasks_dir, tmp_path) -> None:
    """Task 1's oracle calls two tools. Steps: the customer's message (1), the agent's call
    (2, sent to the tools: not checked), its result (3), the second call (4), its result
    (5): at --max-steps 5 the call ends there, before the agent's next request."""
    agent = ChatServer(OracleAgent(tasks_dir / "tasks.json"))
    chatty = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json", chatty=True))
    try:
        run = run_eval(
            agent,
            chatty,
            tmp_path / "run",
            "--task-ids",
            "1",
            "--max-steps",
            "5",
            tasks=tasks_dir,
            like="tau2",
        )
        asked = len(agent.requests)
    finally:
        agent.close()
        chatty.close()
    assert run.exit_code == 0, run.stderr
    (trial,) = run.results["trials"]
    assert (trial["termination"], trial["reward"], trial["db_match"]) == ("max_steps", 0.0, None)
    assert asked == 2  # the two calls; no request after the last result
    (simulation,) = run.tau2["simulations"]
    assert simulation["termination_reason"] == "max_steps"
    assert [m["role"] for m in simulation["messages"]] == [
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]


def test_too_many_tool_errors_end_the_call(tasks_dir, tmp_path) -> None:
    agent = ChatServer()
    customer = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json"))
    agent.completion(
        tool_calls=[
            ("get_reservation_details", {"reservation_id": "NOSUCH"}),
            ("get_user_details", {"user_id": "nobody_0000"}),
        ]
    )
    try:
        run = run_eval(
            agent,
            customer,
            tmp_path / "run",
            "--task-ids",
            "1",
            "--max-errors",
            "2",
            tasks=tasks_dir,
            like="tau2",
        )
    finally:
        agent.close()
        customer.close()
    assert run.exit_code == 0, run.stderr
    (trial,) = run.results["trials"]
    assert trial["termination"] == "too_many_errors"
    (simulation,) = run.tau2["simulations"]
    assert simulation["termination_reason"] == "too_many_errors"
    assert [m["error"] for m in simulation["messages"] if m["role"] == "tool"] == [True, True]


def test_a_folder_without_taus_texts_says_what_is_missing(
    agent, customer, tasks_dir, tmp_path
) -> None:
    bare = tmp_path / "tau2"
    bare.mkdir()
    for name in ("tasks.json", "db.json"):
        (bare / name).symlink_to(tasks_dir / name)
    run = run_eval(agent, customer, tmp_path / "out", "--task-ids", "1", tasks=bare, like="tau2")
    assert run.exit_code == 2
    (line,) = run.stderr.splitlines()
    assert "runner/agent_system_prompt.txt" in line and "runner/user_system_prompts.json" in line
    assert "scripts/tau2_texts.py" in line and "--like ours" in line
    assert not (tmp_path / "out").exists() and not agent.requests
    # the other setting runs from the same folder
    ours = run_eval(agent, customer, tmp_path / "ours", "--task-ids", "1", tasks=bare)
    assert ours.exit_code == 0, ours.stderr


def test_a_flag_of_the_other_setting_is_refused(agent, customer, tasks_dir, tmp_path) -> None:
    refused = (
        ("tau2", ["--guard"]),
        ("tau2", ["--max-turns", "3"]),
        ("tau2", ["--api", "responses"]),
        ("ours", ["--seed", "3"]),
    )
    for like, extra in refused:
        flag = extra[0]
        run = run_eval(agent, customer, tmp_path / like, *extra, tasks=tasks_dir, like=like)
        assert run.exit_code == 2 and flag in run.stderr, (like, flag, run.stderr)
        assert not (tmp_path / like).exists()


def test_compare_says_when_the_settings_differ(agent, customer, tasks_dir, tmp_path) -> None:
    from typer.testing import CliRunner

    from airline_agent.cli import build_app

    tau2 = run_eval(
        agent, customer, tmp_path / "a", "--task-ids", "1", tasks=tasks_dir, like="tau2"
    )
    ours = run_eval(agent, customer, tmp_path / "b", "--task-ids", "1", tasks=tasks_dir)
    shown = CliRunner().invoke(build_app(), ["eval", "--compare", str(tau2.out), str(ours.out)])
    assert shown.exit_code == 0
    assert "--like tau2 → --like ours" in shown.stdout
    assert "different settings" in shown.stdout
    same = CliRunner().invoke(build_app(), ["eval", "--compare", str(ours.out), str(ours.out)])
    assert "different settings" not in same.stdout
    as_json = CliRunner().invoke(
        build_app(), ["eval", "--compare", str(tau2.out), str(ours.out), "--json"]
    )
    body = json.loads(as_json.stdout)
    assert body["like"] == {"before": "tau2", "after": "ours"} and body["same_setting"] is False


def test_the_runner_texts_are_read_not_shipped(tasks_dir, tmp_path) -> None:
    """Another folder's texts are what is sent: nothing of τ²'s is built in."""
    folder = tmp_path / "tau2"
    shutil.copytree(RUNNER, folder / "runner")
    for name in ("tasks.json", "db.json"):
        (folder / name).symlink_to(tasks_dir / name)
    (folder / "runner" / "agent_system_prompt.txt").write_text("Another agent's words.")
    agent = ChatServer(OracleAgent(tasks_dir / "tasks.json"))
    customer = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json"))
    try:
        run = run_eval(
            agent, customer, tmp_path / "run", "--task-ids", "1", tasks=folder, like="tau2"
        )
    finally:
        agent.close()
        customer.close()
    assert run.exit_code == 0, run.stderr
    assert agent.requests[0]["messages"][0]["content"] == "Another agent's words."


def test_the_agent_reads_taus_tool_messages_byte_for_byte(tasks_dir, tasks, tmp_path) -> None:
    """Task 7 (a change and two cancellations) and task 40 with a passenger renamed "Meï":
    each tool message the agent is sent is the text τ²'s environment writes for the call
    (tests/support/tau2_oracle.py: a reservation's flights as `flight_number, origin,
    destination, date, price`, "Meï" as `Me\\u00ef`), and tau2_results.json holds the same
    texts."""
    folder = tmp_path / "tau2"
    folder.mkdir()
    for name in ("db.json", "runner"):
        (folder / name).symlink_to(tasks_dir / name)
    renamed = copy.deepcopy(tasks["40"])
    renamed["evaluation_criteria"]["actions"][1]["arguments"]["passengers"][1]["first_name"] = "Meï"
    (folder / "tasks.json").write_text(json.dumps([tasks["7"], renamed]), encoding="utf-8")
    agent = ChatServer(OracleAgent(folder / "tasks.json"))
    customer = ChatServer(ScriptedCustomer(folder / "tasks.json"))
    try:
        run = run_eval(agent, customer, tmp_path / "run", tasks=folder, like="tau2")
    finally:
        agent.close()
        customer.close()
    assert run.exit_code == 0, run.stderr
    sent = {  # by the customer's opening (the task) and the call's id
        (body["messages"][2]["content"], message["tool_call_id"]): message["content"]
        for body in agent.requests
        for message in body["messages"]
        if message["role"] == "tool"
    }
    results = json.loads((run.out / "tau2_results.json").read_text(encoding="utf-8"))
    initial = json.loads((tasks_dir / "db.json").read_text(encoding="utf-8"))
    checked = []
    for simulation in results["simulations"]:
        db = copy.deepcopy(initial)
        calls = {}
        opened = next(m["content"] for m in simulation["messages"] if m["role"] == "user")
        for message in simulation["messages"]:
            for call in message.get("tool_calls") or ():
                calls[call["id"]] = call
            if message["role"] == "tool":
                call = calls[message["id"]]
                result = tau2_oracle.apply(db, call["name"], call["arguments"])
                expected = tau2_oracle.tau2_text(call["name"], result)
                assert message["content"] == expected, call["name"]
                assert sent[opened, message["id"]] == expected, call["name"]
                checked.append(call["name"])
    assert sorted(checked) == sorted(
        action["name"]
        for task in (tasks["7"], renamed)
        for action in task["evaluation_criteria"]["actions"]
    )
    assert any("Me\\u00ef" in text and "ï" not in text for text in sent.values())
