"""The grounding check on a corpus of honest and invented replies: recall and precision.

Goal (issue 12 §2): recall ≥ 90 % on the inventions, precision ≥ 95 % on honest replies.
Measured on tests/unit/agent/grounding_corpus.py (78 honest replies; 73 invented replies making
96 inventions): recall 95/96 = 99.0 % (the miss: an hour equal to the clock's), 78/78
honest replies raise nothing (100 %), and 95/95 findings are real inventions (100 %).
Issue 19 item 21 added the claims of every other write (cabin, payment, insurance or a
passenger with a booking) and of what no tool may do (a bag, insurance or a passenger
removed, a basic-economy flight or the route changed, a refund elsewhere, a fee waived, a
discount, a seat, an email, a profile change, a meal, a hold): 22 honest look-alikes and
25 inventions. The check before it caught 36 of the corpus's 59 claimed actions (recall
72/96 = 75.0 %, 78/78 honest clean, 72/72 findings real); before issue 12 (values only,
the system prompt as evidence) it caught 16 of the 71 inventions then in the corpus, and
of the real reply only HAT002.
The corpus was written together with the check, so these figures flatter it: they show
that each kind is caught and that the look-alike honest phrasings are not, not how often
a real model's inventions take one of these shapes.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from airline_agent.agent.grounding import Evidence, Finding, ground_reply
from airline_agent.agent.prompt import build_system_prompt
from airline_agent.domain.clock import Clock
from airline_agent.tools.toolbox import tool_names
from tests.unit.agent.grounding_corpus import HONEST, INVENTED, REAL_REPLY, Case

TOOL_NAMES = frozenset(tool_names())  # the registry's, as the loop passes them


def evidence_of(case: Case) -> Evidence:
    """The evidence the reply had, in conversation order, as the loop builds it."""
    evidence = Evidence(rules=[build_system_prompt(Clock.at())])
    for message in case.customer:
        evidence.add(message)
    for result in case.tools:
        evidence.add_tool_result(result.name, result.content, ok=result.ok)
    return evidence


def findings_of(case: Case) -> tuple[Finding, ...]:
    return ground_reply(case.reply, evidence_of(case), TOOL_NAMES)


def matches(finding: Finding, kind: str, value: str) -> bool:
    return finding.kind == kind and (
        value.lower() in finding.value.lower() or finding.value.lower() in value.lower()
    )


@dataclass
class Score:
    inventions: int = 0
    caught: int = 0
    findings: int = 0
    true_findings: int = 0
    honest: int = 0
    honest_clean: int = 0

    @property
    def recall(self) -> float:
        return self.caught / self.inventions

    @property
    def precision(self) -> float:
        return self.true_findings / self.findings

    @property
    def honest_precision(self) -> float:
        return self.honest_clean / self.honest


def score(cases: tuple[Case, ...]) -> Score:
    result = Score()
    for case in cases:
        found = findings_of(case)
        result.findings += len(found)
        result.true_findings += sum(
            any(matches(f, kind, value) for kind, value in case.invented) for f in found
        )
        result.inventions += len(case.invented)
        result.caught += sum(any(matches(f, k, v) for f in found) for k, v in case.invented)
        if not case.invented:
            result.honest += 1
            result.honest_clean += not found
    return result


def test_the_corpus_figures_reach_the_goal() -> None:
    figures = score(HONEST + INVENTED)
    assert figures.honest == len(HONEST) and figures.inventions >= 60
    assert figures.recall >= 0.90, f"recall {figures.recall:.1%}"
    assert figures.honest_precision >= 0.95, f"honest replies clean {figures.honest_precision:.1%}"
    assert figures.precision >= 0.95, f"precision of findings {figures.precision:.1%}"


def test_the_real_models_reply_is_flagged_for_each_invention() -> None:
    found = findings_of(REAL_REPLY)
    for kind, value in REAL_REPLY.invented:
        assert any(matches(f, kind, value) for f in found), (kind, value, found)
    assert [f.kind for f in found].count("claimed_action") == 5
    amount = next(f for f in found if f.value == "$100")
    assert "P3" in amount.why  # the rule the figure belongs to, named


@pytest.mark.parametrize("case", HONEST, ids=[c.name for c in HONEST])
def test_an_honest_reply_raises_nothing(case: Case) -> None:
    assert findings_of(case) == ()


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            case,
            id=case.name,
            marks=[pytest.mark.xfail(strict=True, reason=case.known_miss)]
            if case.known_miss
            else [],
        )
        for case in INVENTED
    ],
)
def test_each_invention_of_a_reply_is_flagged(case: Case) -> None:
    found = findings_of(case)
    missed = [(k, v) for k, v in case.invented if not any(matches(f, k, v) for f in found)]
    assert not missed, f"missed {missed}; found {found}"
