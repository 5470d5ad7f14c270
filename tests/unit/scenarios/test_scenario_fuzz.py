"""The scenario loader given hostile YAML: valid scenarios mutated (hostile fragments
inserted, slices cut or doubled) and texts built to hurt (deep nesting, alias bombs and
cycles, tags, escapes that are no character, control characters). Whatever the text,
`load_scenario` gives a `Scenario` or raises `ScenarioLoadError` naming the file and, for
text it could read, the line; `summary` (the TUI's quick listing) never raises.

Default: a modest number of examples. AIRLINE_AGENT_SLOW=1 selects a thorough profile.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from airline_agent.scenarios.library import library_dir
from airline_agent.scenarios.loader import ScenarioLoadError, load_scenario
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.yaml_text import summary
from tests.support.profile import SLOW
from tests.unit.scenarios.test_scenario_model import VALID

settings.register_profile(
    "loader-fast",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "loader-slow",
    max_examples=2_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
PROFILE = "loader-slow" if SLOW else "loader-fast"

SOURCES = [
    VALID,
    *(path.read_text(encoding="utf-8") for path in sorted(library_dir().glob("*.yaml"))),
]

FRAGMENTS = [
    "[" * 50_000,
    "{" * 3_000,
    "[" * 65 + "]" * 65,
    "{a: " * 70 + "1" + "}" * 70,
    "&a ",
    "*a",
    "*b",
    "&a [*a, *a]",
    "<<: *a\n",
    "!!binary aGk=",
    "!!set {a}",
    "!!timestamp 2024-05-17",
    "!!python/object/apply:os.system [ls]",
    "!custom ",
    "!!int x",
    "!!float y",
    "!!bool maybe",
    "!!null z",
    '"\\ud83d"',
    '"\\ude00\\ud83d"',
    '"\\UFFFFFFFF"',
    '"\\x"',
    "9" * 5_000,
    "1e99999",
    "0x" + "f" * 5_000,
    "\x00",
    "\x1b[31m",
    "\x7f",
    "\ufeff",
    "\u2028",
    "\t",
    "? ",
    ": ",
    "- ",
    "\n",
    "---\n",
    "...\n",
    "%YAML 1.1\n",
    "%TAG ! tag:x,2024:\n",
    "'",
    '"',
    "#",
    "|",
    ">-",
    "|9",
    "=",
    "~",
    "null",
    "turns: []",
    "turns: " + "- {customer: a, responses: [{content: b}]}\n" * 3,
]


def bomb(levels: int, width: int) -> str:
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * width)}]" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.integers(0, 3))
        if kind == 0:
            piece = draw(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)))
            text = text[:at] + piece + text[at:]
        elif kind == 1:
            text = text[:at] + text[at + draw(st.integers(1, 200)) :]
        elif kind == 2:
            end = at + draw(st.integers(1, 400))
            text = text[:end] + text[at:end] + text[end:]
        else:
            text = text[:at] + draw(st.sampled_from(FRAGMENTS)) + text[at:]
    return text


built_to_hurt = st.one_of(
    st.builds(
        lambda levels, width, rest: bomb(levels, width) + rest,
        st.integers(2, 12),
        st.integers(2, 12),
        st.sampled_from(SOURCES),
    ),
    st.builds(
        lambda n: "name: x\nturns: " + "[" * n, st.sampled_from([63, 64, 65, 999, 1001, 60_000])
    ),
    st.builds(
        lambda n: "name: x\ndatabase:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(n)),
        st.sampled_from([63, 64, 65, 200, 1_100]),
    ),
    st.just("name: cycle\nturns: &t\n- customer: hi\n  responses: *t\n"),
    st.just("name: cycle\ndatabase: &d {users: {u: *d}}\nturns: []\n"),
    st.text(
        alphabet=st.sampled_from([*list("[]{}:-?&*!|>'\"#%@`,\n \t\\"), "a", "1"]), max_size=80
    ),
)


def check(path: Path, text: str) -> None:
    lines = text.count("\n") + 2
    try:
        scenario = load_scenario(path)
    except ScenarioLoadError as error:
        assert error.problems
        assert str(error).startswith(str(path))
        for problem in error.problems:
            assert isinstance(problem.message, str) and problem.message
            assert problem.line is not None, problem  # the text was read: there is a line
            assert 1 <= problem.line <= lines, problem
    else:
        assert isinstance(scenario, Scenario)
    found = summary(path)
    assert found is None or isinstance(found[0], str)


@settings.get_profile(PROFILE)
@given(text=st.one_of(mutated(), built_to_hurt))
def test_any_text_gives_a_scenario_or_the_loaders_own_error_with_a_line(
    tmp_path_factory, text: str
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "scenario.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    check(path, text)
