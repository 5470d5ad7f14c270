"""The scenario file format: valid files load, invalid ones say the file, line and problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from airline_agent.scenarios.loader import ScenarioLoadError, load_all, load_scenario

VALID = """\
name: small-one
description: A customer asks about a reservation.
customer: emma_kim_9957
turns:
  - customer: What is in EHGLP3?
    responses:
      - tool_calls:
          - name: get_reservation_details
            arguments: {reservation_id: EHGLP3}
      - content: It is a basic economy trip.
    expect:
      calls:
        - tool: get_reservation_details
          ok: true
          equals: {insurance: no, flights.0.date: 2024-05-17}
database: unchanged
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_valid_file_loads_with_strings_kept_as_strings(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, VALID))
    assert scenario.name == "small-one"
    assert scenario.customer == "emma_kim_9957"
    check = scenario.turns[0].expect.calls[0]
    # YAML 1.1 would read these as False and a date; the format keeps them as text.
    assert check.equals == {"insurance": "no", "flights.0.date": "2024-05-17"}
    assert scenario.database == "unchanged"
    assert scenario.tool_call_count == 1


def test_malformed_arguments_may_be_a_raw_string(tmp_path: Path) -> None:
    text = VALID.replace(
        "arguments: {reservation_id: EHGLP3}", "arguments: '{\"reservation_id\": '"
    )
    scenario = load_scenario(write(tmp_path, text))
    assert scenario.turns[0].responses[0].tool_calls[0].arguments == '{"reservation_id": '


def test_an_unknown_key_is_reported_on_its_line(tmp_path: Path) -> None:
    text = VALID.replace("            arguments:", "            argumnets:")
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(write(tmp_path, text))
    message = str(caught.value)
    assert "s.yaml:9:" in message
    assert "argumnets" in message and "unknown key" in message


def test_a_bad_value_is_reported_on_its_line(tmp_path: Path) -> None:
    text = VALID.replace("ok: true", "error: NOT_AN_ERROR")
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(write(tmp_path, text))
    assert caught.value.problems[0].line == 14
    assert "NOT_AN_ERROR" in caught.value.problems[0].message


def test_a_missing_field_points_at_the_mapping_that_lacks_it(tmp_path: Path) -> None:
    text = VALID.replace("  - customer: What is in EHGLP3?\n", "  - expect_nothing: 1\n")
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(write(tmp_path, text))
    messages = [(p.line, p.message) for p in caught.value.problems]
    assert any(line == 5 and "turns[0].customer" in m for line, m in messages), messages


def test_a_yaml_syntax_error_gives_its_line(tmp_path: Path) -> None:
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(write(tmp_path, "name: x\nturns: [\n  - a\n"))
    assert caught.value.problems[0].line is not None
    assert "not valid YAML" in str(caught.value)


def test_a_duplicate_key_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(write(tmp_path, VALID + "name: again\n"))
    assert "appears twice" in str(caught.value)
    assert caught.value.problems[0].line == 17


def test_a_response_must_say_something(tmp_path: Path) -> None:
    text = VALID.replace("      - content: It is a basic economy trip.", "      - {}")
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(write(tmp_path, text))
    assert "needs `content`, `tool_calls`, or both" in str(caught.value)


def test_a_bad_file_does_not_stop_the_others(tmp_path: Path) -> None:
    write(tmp_path, VALID, "a.yaml")
    write(tmp_path, "name: [unclosed\n", "b.yaml")
    write(tmp_path, VALID.replace("small-one", "small-two"), "c.yaml")
    loaded = load_all([tmp_path])
    kinds = [type(item).__name__ for item in loaded]
    assert kinds == ["Scenario", "ScenarioLoadError", "Scenario"]


def test_two_files_with_one_name_are_an_error(tmp_path: Path) -> None:
    write(tmp_path, VALID, "a.yaml")
    write(tmp_path, VALID, "b.yaml")
    loaded = load_all([tmp_path])
    assert isinstance(loaded[1], ScenarioLoadError)
    assert "already used" in str(loaded[1])


def with_approve(approval: str) -> str:
    """VALID with an approval setting and a scripted answer on its call (line 12)."""
    text = VALID.replace(
        "customer: emma_kim_9957\n", f"customer: emma_kim_9957\nsettings:\n  approval: {approval}\n"
    )
    return text.replace(
        "arguments: {reservation_id: EHGLP3}\n",
        "arguments: {reservation_id: EHGLP3}\n            approve: false\n",
    )


@pytest.mark.parametrize("approval", ["auto", "deny"])
def test_approve_where_no_question_is_asked_is_reported_on_its_line(
    tmp_path: Path, approval: str
) -> None:
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(write(tmp_path, with_approve(approval)))
    [problem] = caught.value.problems
    assert problem.line == 12
    assert problem.message.startswith("turns[0].responses[0].tool_calls[0].approve:")
    assert f"settings.approval: {approval}" in problem.message
    assert "s.yaml:12:" in str(caught.value)


@pytest.mark.parametrize("approval", ["ask-accept", "ask-decline"])
def test_approve_under_an_asking_setting_is_the_calls_answer(tmp_path: Path, approval: str) -> None:
    scenario = load_scenario(write(tmp_path, with_approve(approval)))
    assert scenario.turns[0].responses[0].tool_calls[0].approve is False
    assert load_scenario(write(tmp_path, VALID)).turns[0].responses[0].tool_calls[0].approve is None
