"""`read_results`: a results.json it cannot use is said in words (ResultsUnreadable)."""

from __future__ import annotations

import json

import pytest

from airline_agent.evaluation.results import FORMAT, ResultsUnreadable, read_results

_TRIAL = {"task_id": "1", "reward": 1.0, "infra_error": False, "customer_error": False}


def _ours(fields: dict) -> bytes:
    return json.dumps({"format": FORMAT} | fields).encode()


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b'{"format": ', "cannot be read"),
        (b"\xff\xfe", "cannot be read"),
        (b"[" * 100_000 + b"]" * 100_000, "cannot be read"),  # json.loads: RecursionError
        (b"[]", "not the results.json of an airline-agent eval run"),
        (_ours({"trials": None}), "its trials are not those"),
        (_ours({"trials": [{"task_id": ["x"], "reward": 1.0}]}), "its trials are not those"),
        (_ours({"trials": [_TRIAL | {"reward": "1"}]}), "its trials are not those"),
        (_ours({"trials": [_TRIAL | {"infra_error": None}]}), "its trials are not those"),
        (_ours({"trials": [_TRIAL, "x"]}), "its trials are not those"),
    ],
    ids=[
        "torn",
        "not utf-8",
        "nested too deep",
        "not ours",
        "no trials",
        "an id not text",
        "a reward not a number",
        "a flag not true or false",
        "a trial not an object",
    ],
)
def test_an_unusable_results_file_is_said_not_raised(tmp_path, data: bytes, says: str) -> None:
    (tmp_path / "results.json").write_bytes(data)
    with pytest.raises(ResultsUnreadable, match=says):
        read_results(tmp_path)


def test_a_results_file_of_a_run_is_read(tmp_path) -> None:
    (tmp_path / "results.json").write_bytes(_ours({"trials": [_TRIAL, _TRIAL | {"reward": 0}]}))
    assert read_results(tmp_path)["trials"][1]["reward"] == 0
    assert read_results(tmp_path / "results.json")["format"] == FORMAT
