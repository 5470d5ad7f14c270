"""`airline-agent eval` end to end: the real command against loopback Chat Completions
servers for both roles (tests/support/eval_roles.py), on τ²'s 50 airline tasks.

The oracle agent (each task's reference actions, then every `communicate_info`) scores 1
with the guard off; mutants fail exactly where they should, with the reason named; a
customer that invents an id is flagged and left out of pass^k; results.json,
tau2_results.json (against τ²'s own schema) and summary.md are written, and every
trial's scenario replays and passes. The 50-task oracle run is behind AIRLINE_AGENT_SLOW=1;
the default run takes a subset that covers every write tool, multi-turn trials, tasks
with and without `communicate_info`, and a task with no action.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from tests.conftest import TAU2_DIR, tau2_files
from tests.support.chat_server import ChatServer
from tests.support.eval_roles import INVENTED_ID, OracleAgent, ScriptedCustomer
from tests.support.eval_run import run_eval
from tests.support.profile import SLOW

# book (14, 23), cancel (7, 14, 39), flights (7, 44), bags (12), passengers (40), transfer
# (13), calculate (12), communicate_info (3, 7, 14, 23), no action (0), more calls than a
# turn allows (39, 44).
SUBSET = ("0", "3", "7", "12", "13", "14", "23", "39", "40", "44")
SCHEMA = TAU2_DIR / "results.schema.json"


@pytest.fixture
def tasks_dir() -> Path:
    db, _ = tau2_files()
    return db.parent


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


def _replay_all(folder: Path) -> dict:
    from airline_agent.cli import build_app

    result = CliRunner().invoke(build_app(), ["replay", str(folder), "--json"])
    return json.loads(result.stdout) | {"exit_code": result.exit_code}


def test_the_oracle_scores_1_on_every_task(agent, customer, tasks_dir, tmp_path) -> None:
    chosen = [] if SLOW else ["--task-ids", ",".join(SUBSET)]
    run = run_eval(
        agent, customer, tmp_path / "run", *chosen, "--concurrency", "4", tasks=tasks_dir
    )
    assert run.exit_code == 0, run.stderr
    results = run.results
    expected = 50 if SLOW else len(SUBSET)
    assert (results["tasks"], results["trials_run"], results["counted_trials"]) == (expected,) * 3
    assert results["pass_hat_k"] == {"1": 1.0} and results["average_reward"] == 1.0
    assert all(
        t["reward"] == 1.0 and t["db_match"] and t["db_diff"] == [] for t in results["trials"]
    )
    # task 13's reference transfers the customer to a human: that ends the call
    assert results["terminations"] == {"customer_stop": expected - 1, "agent_transfer": 1}
    assert results["complete"] and results["complete"] is True
    multi_turn = run.trials()[("44", 0)]
    assert multi_turn["turns"] == 4  # 19 calls, six a turn
    # τ²'s own results format, validated against the schema generated from τ²'s models
    tau2 = run.tau2
    jsonschema.validate(tau2, json.loads(SCHEMA.read_text()))
    assert [s["reward_info"]["reward"] for s in tau2["simulations"]] == [1.0] * expected
    assert {s["termination_reason"] for s in tau2["simulations"]} == {"user_stop"}
    summary = (run.out / "summary.md").read_text()
    assert "| 1 | 1.000 | 1.000 |" in summary and "## Failed trials" not in summary
    # every trial is a scenario that replays offline and passes
    replayed = _replay_all(run.out / "scenarios")
    assert replayed["exit_code"] == 0, [s for s in replayed["scenarios"] if s["status"] != "passed"]
    assert replayed["passed"] == expected


def test_a_mutant_that_skips_a_write_scores_0_and_names_record_and_field(
    agent, customer, tasks_dir, tmp_path
) -> None:
    run = run_eval(
        agent,
        customer,
        tmp_path / "run",
        "--task-ids",
        "14,12,3",
        tasks=tasks_dir,
        agent_model="oracle-skips-write",
    )
    assert run.exit_code == 0, run.stderr
    trials = run.trials()
    cancel, bags, read_only = trials[("14", 0)], trials[("12", 0)], trials[("3", 0)]
    assert cancel["reward"] == 0.0 and cancel["db_match"] is False
    assert {
        "record": "reservations/K1NW8N",
        "field": "status",
        "reference": "cancelled",
        "actual": None,
    } in cancel["db_diff"]
    assert cancel["communicate"]["missing"] == []  # it still said the figures: DB fails alone
    assert bags["reward"] == 0.0
    assert any(
        d["record"] == "reservations/YAX4DR" and d["field"] == "total_baggages"
        for d in bags["db_diff"]
    )
    assert read_only["reward"] == 1.0  # no write to skip
    summary = (run.out / "summary.md").read_text()
    assert '`reservations/K1NW8N.status`: reference `"cancelled"`, actual `null`' in summary


def test_a_mutant_that_omits_the_information_fails_communicate_only(
    agent, customer, tasks_dir, tmp_path
) -> None:
    run = run_eval(
        agent,
        customer,
        tmp_path / "run",
        "--task-ids",
        "7,14,1",
        tasks=tasks_dir,
        agent_model="oracle-omits-info",
    )
    trials = run.trials()
    for task_id, missing in (("7", ["1628"]), ("14", ["327", "1000", "1786"])):
        trial = trials[(task_id, 0)]
        assert trial["db_match"] is True and trial["db_diff"] == []
        assert trial["communicate"] == {"expected": missing, "missing": missing}
        assert trial["reward"] == 0.0
    assert trials[("1", 0)]["reward"] == 1.0  # nothing to tell
    checks = {s["task_id"]: s["reward_info"] for s in run.tau2["simulations"]}
    assert checks["7"]["reward_breakdown"] == {"DB": 1.0, "COMMUNICATE": 0.0}
    assert checks["7"]["communicate_checks"][0]["met"] is False


def test_a_customer_that_invents_an_id_is_flagged_and_left_out_of_pass_k(
    agent, tasks_dir, tmp_path
) -> None:
    inventing = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json", invents={"1": 2}))
    try:
        run = run_eval(
            agent,
            inventing,
            tmp_path / "run",
            "--task-ids",
            "1,3",
            "--trials",
            "2",
            tasks=tasks_dir,
        )
    finally:
        inventing.close()
    results = run.results
    assert results["customer_errors"] == 2 and results["counted_trials"] == 2
    flagged = [t for t in results["trials"] if t["customer_error"]]
    assert {t["task_id"] for t in flagged} == {"1"}
    finding = next(f for f in flagged[0]["findings"] if f["who"] == "customer")
    assert (finding["kind"], finding["value"]) == ("reservation_id", INVENTED_ID)
    assert "the customer invented reservation id" in finding["why"]
    # task 1 has no counted trial: pass^k is task 3's alone (both of its trials passed)
    assert results["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    sims = [s for s in run.tau2["simulations"] if s["task_id"] == "1"]
    assert all(s["hallucination_check"]["hallucination_found"] for s in sims)


def test_rerun_customer_errors_runs_the_trial_again(agent, tasks_dir, tmp_path) -> None:
    once = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json", invents={"1": 1}))
    try:
        run = run_eval(
            agent,
            once,
            tmp_path / "run",
            "--task-ids",
            "1",
            "--rerun-customer-errors",
            "1",
            tasks=tasks_dir,
        )
    finally:
        once.close()
    (trial,) = run.results["trials"]
    assert (trial["customer_error"], trial["attempt"], trial["reward"]) == (False, 2, 1.0)


def test_the_guard_on_refuses_what_the_policy_forbids(agent, customer, tasks_dir, tmp_path) -> None:
    """Task 39's reference cancels an insured reservation with no covered reason (X3); the
    guard refuses it, so the trial differs from the reference. The refused write is kept
    out of τ²'s replayable trajectory (raw_data), so τ²'s replay changes what ours did."""
    run = run_eval(
        agent, customer, tmp_path / "run", "--task-ids", "39,1", "--guard", tasks=tasks_dir
    )
    trials = run.trials()
    assert trials[("1", 0)]["reward"] == 1.0
    refused = trials[("39", 0)]
    assert refused["reward"] == 0.0
    assert {
        "record": "reservations/MSJ4OA",
        "field": "status",
        "reference": "cancelled",
        "actual": None,
    } in refused["db_diff"]
    sim = next(s for s in run.tau2["simulations"] if s["task_id"] == "39")
    aside = [
        call
        for message in sim["messages"]
        if message["role"] == "assistant" and message.get("raw_data")
        for call in message["raw_data"]["airline_agent"]["not_replayed"]["calls"]
    ]
    assert ("cancel_reservation", {"reservation_id": "MSJ4OA"}, "POLICY_VIOLATION") in [
        (c["name"], c["arguments"], c["error"]) for c in aside
    ]
    answered = {m["id"] for m in sim["messages"] if m["role"] == "tool"}
    called = {
        c["id"] for m in sim["messages"] if m["role"] == "assistant" for c in m["tool_calls"] or ()
    }
    assert answered == called and not {c["id"] for c in aside} & answered
    assert run.results["settings"]["guard"] is True


def test_a_text_tool_call_counts_only_with_recovery(agent, customer, tasks_dir, tmp_path) -> None:
    strict = run_eval(
        agent,
        customer,
        tmp_path / "strict",
        "--task-ids",
        "1",
        "--max-turns",
        "2",
        tasks=tasks_dir,
        agent_model="oracle-text-calls",
    )
    (trial,) = strict.results["trials"]
    assert trial["reward"] == 0.0 and trial["termination"] == "max_turns"
    assert any(f["kind"] == "tool_call_as_text" for f in trial["findings"])
    recovered = run_eval(
        agent,
        customer,
        tmp_path / "recovered",
        "--task-ids",
        "1",
        "--recover-text-tool-calls",
        tasks=tasks_dir,
        agent_model="oracle-text-calls",
    )
    results = recovered.results
    (trial,) = results["trials"]
    assert trial["reward"] == 1.0 and trial["recovered_tool_calls"] == 2
    assert results["pass_hat_k"] == {"1": 1.0} and results["pass_hat_k_strict"] == {"1": 0.0}
    assert "pass^1  1.000 (strict 0.000)" in recovered.stdout
    (sim,) = recovered.tau2["simulations"]
    said = [m for m in sim["messages"] if (m.get("raw_data") or {}).get("airline_agent")]
    assert [m["raw_data"]["airline_agent"]["recovered_from_text"][:9] for m in said] == [
        '{"name": '
    ] * 2


def test_max_turns_ends_the_trial_as_taus_max_steps(agent, tasks_dir, tmp_path) -> None:
    chatty = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json", chatty=True))
    try:
        run = run_eval(
            agent,
            chatty,
            tmp_path / "run",
            "--task-ids",
            "1",
            "--max-turns",
            "3",
            tasks=tasks_dir,
        )
    finally:
        chatty.close()
    (trial,) = run.results["trials"]
    assert (trial["termination"], trial["turns"], trial["reward"]) == ("max_turns", 3, 0.0)
    (sim,) = run.tau2["simulations"]
    assert sim["termination_reason"] == "max_steps"


def test_an_unreachable_server_is_an_infrastructure_error(customer, tasks_dir, tmp_path) -> None:
    gone = ChatServer()
    url = gone.url
    gone.close()
    run = run_eval(url, customer, tmp_path / "run", "--task-ids", "1", tasks=tasks_dir)
    assert run.exit_code == 1
    results = run.results
    (trial,) = results["trials"]
    assert trial["infra_error"] and trial["termination"] == "infrastructure_error"
    assert "Could not connect" in trial["error"]
    assert results["infra_errors"] == 1 and results["counted_trials"] == 0
    assert results["pass_hat_k"] == {} and results["average_reward"] is None
    (sim,) = run.tau2["simulations"]
    assert sim["termination_reason"] == "infrastructure_error"


def test_an_unreachable_customer_is_an_infrastructure_error(agent, tasks_dir, tmp_path) -> None:
    gone = ChatServer()
    url = gone.url
    gone.close()
    run = run_eval(agent, url, tmp_path / "run", "--task-ids", "1", tasks=tasks_dir)
    (trial,) = run.results["trials"]
    assert trial["infra_error"] and "simulated customer" in trial["error"]
    assert run.exit_code == 1


def test_concurrency_gives_the_same_results(agent, customer, tasks_dir, tmp_path) -> None:
    chosen = ("--task-ids", "1,7,23,39", "--trials", "2")
    one = run_eval(agent, customer, tmp_path / "one", *chosen, tasks=tasks_dir)
    four = run_eval(
        agent, customer, tmp_path / "four", *chosen, "--concurrency", "4", tasks=tasks_dir
    )

    def timeless(results: dict) -> dict:
        results = dict(results, settings={**results["settings"], "concurrency": None})
        results["trials"] = [
            {k: v for k, v in t.items() if k not in ("started_at", "ended_at", "duration_s")}
            for t in results["trials"]
        ]
        return results

    assert timeless(one.results) == timeless(four.results)
    for name in sorted(p.name for p in (one.out / "scenarios").iterdir()):
        assert (one.out / "scenarios" / name).read_text() == (
            four.out / "scenarios" / name
        ).read_text()


def test_resume_skips_finished_trials(agent, customer, tasks_dir, tmp_path) -> None:
    out = tmp_path / "run"
    first = run_eval(agent, customer, out, "--task-ids", "1,3", tasks=tasks_dir)
    assert first.exit_code == 0
    before = {k: t["started_at"] for k, t in first.trials().items()}
    again = run_eval(agent, customer, out, "--task-ids", "1,3", tasks=tasks_dir)
    assert again.exit_code == 2 and "--resume" in again.stderr  # never over a run unasked
    served = agent.responder.requests
    resumed = run_eval(agent, customer, out, "--task-ids", "1,3,4", "--resume", tasks=tasks_dir)
    assert resumed.exit_code == 0
    trials = resumed.trials()
    assert {k: trials[k]["started_at"] for k in before} == before
    assert set(trials) == {("1", 0), ("3", 0), ("4", 0)}
    assert agent.responder.requests - served == 7  # task 4 alone: six calls and a reply
    other = run_eval(
        agent, customer, out, "--task-ids", "1", "--resume", "--guard", tasks=tasks_dir
    )
    assert other.exit_code == 2 and "guard" in other.stderr


def test_compare_lists_the_tasks_whose_outcome_changed(agent, customer, tasks_dir, tmp_path):
    from airline_agent.cli import build_app

    good = run_eval(agent, customer, tmp_path / "a", "--task-ids", "1,7", tasks=tasks_dir)
    worse = run_eval(
        agent,
        customer,
        tmp_path / "b",
        "--task-ids",
        "1,7",
        tasks=tasks_dir,
        agent_model="oracle-skips-write",
    )
    result = CliRunner().invoke(build_app(), ["eval", "--compare", str(good.out), str(worse.out)])
    assert result.exit_code == 0
    assert "   7      1/1      0/1" in result.stdout and "1 task(s) changed" in result.stdout
    assert "   1 " not in result.stdout


def test_a_missing_or_malformed_task_folder_writes_nothing(agent, customer, tmp_path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "tasks.json").write_text("[{")
    (bad / "db.json").write_text("{}")
    for folder in (tmp_path / "nowhere", bad):
        run = run_eval(agent, customer, tmp_path / "out", tasks=folder)
        assert run.exit_code == 2 and run.stderr.startswith("eval: ")
        assert "Traceback" not in run.stderr
        assert not (tmp_path / "out").exists()
