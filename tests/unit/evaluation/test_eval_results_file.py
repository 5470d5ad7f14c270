"""`read_results`: a results.json it cannot use is said in words (ResultsUnreadable)."""

from __future__ import annotations

import pytest

from airline_agent.evaluation.results import ResultsUnreadable, read_results


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b'{"format": ', "cannot be read"),
        (b"\xff\xfe", "cannot be read"),
        (b"[" * 100_000 + b"]" * 100_000, "cannot be read"),  # json.loads: RecursionError
        (b"[]", "not the results.json of an airline-agent eval run"),
    ],
    ids=["torn", "not utf-8", "nested too deep", "not ours"],
)
def test_an_unusable_results_file_is_said_not_raised(tmp_path, data: bytes, says: str) -> None:
    (tmp_path / "results.json").write_bytes(data)
    with pytest.raises(ResultsUnreadable, match=says):
        read_results(tmp_path)
