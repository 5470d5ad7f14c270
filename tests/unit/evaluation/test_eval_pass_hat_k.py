"""pass^k against brute force: the share of the k-subsets of a task's trials that are all
successes, averaged over tasks, for k up to the fewest counted trials of any task."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from airline_agent.evaluation.pass_hat_k import pass_hat_k, pass_hat_ks


def brute_force(results: list[bool], k: int) -> float:
    subsets = list(combinations(range(len(results)), k))
    return sum(all(results[i] for i in subset) for subset in subsets) / len(subsets)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=9), st.data())
def test_one_task_equals_the_share_of_all_success_subsets(results: list[bool], data) -> None:
    k = data.draw(st.integers(1, len(results)))
    assert pass_hat_k(len(results), sum(results), k) == pytest.approx(brute_force(results, k))


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.text("0123456789", min_size=1, max_size=2),
        st.lists(st.booleans(), max_size=6),
        min_size=1,
        max_size=6,
    ),
    st.integers(1, 8),
)
def test_many_tasks_average_and_stop_at_the_fewest_trials(outcomes, most: int) -> None:
    found = pass_hat_ks(outcomes, most)
    counted = {task: r for task, r in outcomes.items() if r}
    if not counted:
        assert found == {}
        return
    top = min(most, min(len(r) for r in counted.values()))
    assert list(found) == list(range(1, top + 1))
    for k, value in found.items():
        expected = sum(brute_force(r, k) for r in counted.values()) / len(counted)
        assert value == pytest.approx(expected)


def test_k_beyond_the_trials_is_refused() -> None:
    with pytest.raises(ValueError):
        pass_hat_k(2, 1, 3)


@pytest.mark.parametrize(
    ("trials", "successes", "k"), [(2, 1, 3), (2, 3, 1), (2, -1, 1), (2, 1, 0)]
)
def test_an_impossible_question_says_what_was_asked(trials, successes, k) -> None:
    with pytest.raises(
        ValueError, match=rf"^pass\^{k} of {successes} successes in {trials} trials$"
    ):
        pass_hat_k(trials, successes, k)
