"""The mutation profile of issue 14 (run it with scripts/mutation; see docs/mutation.md).

The modules come from `[tool.mutmut] only_mutate` in pyproject.toml and the tests from its
`pytest_add_cli_args_test_selection`; mutmut runs each mutant against only the selected
tests that execute the mutated function. Of a module listed in COUNTED_FUNCTIONS only
those functions count. At the end: per module, how many mutants were killed and survived,
the score, and each survivor as the line it changes. Exit status 1 when a module scores
under the goal.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
GOAL = 0.90
# Modules of which only some functions count (path: function names). The payment modules
# (operations/payments.py, booking.py, amendments.py) count whole; of the loop, the
# session's conversation bookkeeping (a new conversation told "nobody" kept the last
# customer: issue 19, item 23).
COUNTED_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "airline_agent/agent/loop.py": ("AgentSession.new_conversation",),
    # Of eval's results, the figures (not summary.md's words): what a run scored, what a
    # comparison of two runs says changed.
    "airline_agent/evaluation/results.py": (
        "_sum_tokens",
        "_sum_cost",
        "results_json",
        "mark",
        "task_outcomes",
        "_rate",
        "compare",
    ),
    # Issue 30: of the MCP server, what decides an approval and whom a session acts for
    # (and which session a request is); of its transports, the HTTP origin and host rules;
    # of serve, the Origin, Host and static-folder checks and the terminal sizes.
    "airline_agent/mcp_server/session.py": (
        "McpSession.call",
        "McpSession._ask",
        "McpSession._called",
        "McpSession._message",
        "McpSession._log_unanswered",
        "McpSession._run",
        "McpSession._answer_unrun",
        "McpSession.end_questions",
        "McpSession.close",
        "Sessions.get",
        "Sessions.take",
        "Sessions.finish",
        "_approval_requested",
        "tool_result",
    ),
    "airline_agent/mcp_server/server.py": (
        "AirlineServer.answer",
        "AirlineServer.session_key",
        "AirlineServer._register_policy_and_prompt",
        "_customer_id",
        "_shown",
    ),
    "airline_agent/mcp_server/transports.py": ("loopback_security",),
    "airline_agent/commands/serve/server.py": (
        "TuiServer._make_app",
        "TuiServer._only_our_own",
        "TuiServer._answers_to",
        "TuiServer._own_origin",
        "TabApp.set_terminal_size",
        "fitted_size",
        "_cells",
        "_authority",
        "_web_origin",
    ),
}
# mutmut's exit codes (mutmut/stats.py), as the verdicts this summary counts.
VERDICTS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests"}
VERDICTS |= {code: "timeout" for code in (36, 24, -24, 152, 255)}
VERDICTS |= {37: "killed", 34: "skipped"}  # 37: caught by the type check


@dataclass
class ModuleScore:
    path: str
    verdicts: Counter[str] = field(default_factory=Counter)
    survivors: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return Path(self.path).stem

    @property
    def checked(self) -> int:
        return sum(n for verdict, n in self.verdicts.items() if verdict != "not checked")

    @property
    def score(self) -> float:
        killed = self.verdicts["killed"] + self.verdicts["timeout"]
        return killed / self.checked if self.checked else 0.0


def profile_modules() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    return list(config["only_mutate"])


def select(modules: list[str], wanted: list[str]) -> list[str]:
    """The modules named by path or by short name (policy, guard, …, payments)."""
    if not wanted:
        return modules
    by_name = {ModuleScore(path).name: path for path in modules}
    chosen = []
    for name in wanted:
        path = by_name.get(name) or (name if name in modules else None)
        if path is None:
            known = ", ".join(sorted(by_name))
            sys.exit(f"scripts/mutation: {name!r} is not in the profile (one of: {known})")
        chosen.append(path)
    return chosen


def mutant_globs(path: str) -> list[str]:
    """mutmut's names for the mutants of a module (functions are `x_NAME`, methods
    `xǁClassǁNAME`)."""
    dotted = path.removesuffix(".py").replace("/", ".")
    functions = COUNTED_FUNCTIONS.get(path)
    if functions is None:
        return [f"{dotted}.*"]
    return [f"{dotted}.{_mangled(function)}__mutmut_*" for function in functions]


def _mangled(function: str) -> str:
    """`name` or `Class.method` as mutmut names its mutants."""
    owner, _, method = function.rpartition(".")
    return f"x\u01c1{owner}\u01c1{method}" if owner else f"x_{function}"


def counts(path: str, mutant: str) -> bool:
    return any(fnmatch.fnmatchcase(mutant, pattern) for pattern in mutant_globs(path))


def to_check(path: str, keep: bool) -> list[str]:
    """The mutants of a module to run: all of them, or with --keep those the last run
    did not check or that survived it, and every mutant of a function changed since
    (mutmut runs every mutant named on its command line again, so naming the whole
    module would check everything again)."""
    if not keep or not _meta_file(path).is_file():
        return mutant_globs(path)
    names, hashes = current_mutants(path)
    earlier, known = exit_codes(path), function_hashes(path)
    if set(names) != set(earlier) or hashes != known:
        # The package changed since mutmut last wrote this module's mutants (or the meta
        # was replaced): remove its mutated copy so that mutmut makes it again and learns
        # the new mutants (it keeps the verdicts of the functions that did not change).
        (MUTANTS / path).unlink(missing_ok=True)
    return [
        mutant
        for mutant in names
        if counts(path, mutant)
        and (
            _function_of(mutant) not in known
            or known[_function_of(mutant)] != hashes.get(_function_of(mutant))
            or VERDICTS.get(earlier.get(mutant), "not checked") not in ("killed", "timeout")
        )
    ]


def current_mutants(path: str) -> tuple[list[str], dict[str, str]]:
    """The module's mutants as mutmut names them now, and the hash of each function (as
    mutmut's meta files keep them), from the package's source as it is."""
    from mutmut.mutation.file_mutation import mutate_file_contents
    from mutmut.utils.format_utils import get_mutant_name

    mutated = mutate_file_contents(path, (ROOT / path).read_text())
    names = [get_mutant_name(Path(path), name) for name in mutated.mutant_names]
    return names, dict(mutated.hash_by_function_name)


def _function_of(mutant: str) -> str:
    """mutmut's name of the function a mutant changes ('x_NAME', 'xǁClassǁNAME')."""
    return mutant.partition("__mutmut_")[0].rpartition(".")[2]


def run_mutmut(modules: list[str], jobs: int, keep: bool) -> float:
    """Run mutmut on the modules; the seconds it took. Its output goes to a log file."""
    if not keep and MUTANTS.exists():
        shutil.rmtree(MUTANTS)
    MUTANTS.mkdir(exist_ok=True)
    reference = ROOT.parent / "shared" / "reference"
    env = dict(os.environ)
    env.setdefault("AIRLINE_AGENT_TAU2_DIR", str(reference / "tau2"))
    env.setdefault("AIRLINE_AGENT_LLAMA_DIR", str(reference / "llama-server"))
    names = [name for path in modules for name in to_check(path, keep)]
    if not names:
        print("scripts/mutation: every mutant already has a verdict and none survived", flush=True)
        return 0.0
    command = [str(ROOT / ".venv/bin/mutmut"), "run", "--max-children", str(jobs), *names]
    log = MUTANTS / "mutmut-run.log"
    print(f"mutmut on {', '.join(modules)} ({jobs} workers); output in {log}", flush=True)
    # Every module of the profile: mutmut drops the verdicts of the others too.
    earlier = {path: exit_codes(path) for path in profile_modules()} if keep else {}
    hashes = {path: function_hashes(path) for path in earlier}
    started = time.monotonic()
    with log.open("w") as output:
        finished = subprocess.run(command, cwd=ROOT, env=env, stdout=output, stderr=output)
    for path, codes in earlier.items():
        restore_verdicts(path, codes, hashes[path])
    if finished.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:]
        sys.exit(f"scripts/mutation: mutmut failed (exit {finished.returncode}):\n{tail}")
    return time.monotonic() - started


def _meta_file(path: str) -> Path:
    """mutmut's record of a module: its mutants' exit codes and its functions' hashes."""
    return MUTANTS / f"{path}.meta"


def _read_meta(path: str) -> dict:
    meta = _meta_file(path)
    return json.loads(meta.read_text()) if meta.is_file() else {}


def exit_codes(path: str) -> dict[str, int | None]:
    return _read_meta(path).get("exit_code_by_key", {})


def function_hashes(path: str) -> dict[str, str]:
    return _read_meta(path).get("hash_by_function_name", {})


def restore_verdicts(path: str, earlier: dict[str, int | None], hashes: dict[str, str]) -> None:
    """Give back the earlier verdicts mutmut dropped without running the mutant again.

    mutmut forgets every verdict when the test selection changes (as it does when a test
    file is added for a survivor), even of the mutants it is not asked to run. A mutant
    killed before is still killed by the larger selection, so --keep keeps it killed:
    use --keep after adding tests, and a run from scratch after removing some. Only the
    verdicts of functions that did not change since (same hash) are given back.
    """
    data = _read_meta(path)
    if not data:
        return
    now = data["exit_code_by_key"]
    unchanged = {
        function
        for function, digest in data.get("hash_by_function_name", {}).items()
        if hashes.get(function) == digest
    }
    for mutant, code in earlier.items():
        if now.get(mutant, 0) is None and code is not None and _function_of(mutant) in unchanged:
            now[mutant] = code
    _meta_file(path).write_text(json.dumps(data))


def score(path: str) -> ModuleScore:
    result = ModuleScore(path)
    for mutant, code in exit_codes(path).items():
        if not counts(path, mutant):
            continue
        verdict = "not checked" if code is None else VERDICTS.get(code, "suspicious")
        result.verdicts[verdict] += 1
        if verdict in ("survived", "no tests", "suspicious"):
            result.survivors.append(mutant)
    return result


# Prints each mutant given on stdin as a diff, in one process: `mutmut show` per mutant
# starts mutmut again each time (seconds each on a loaded machine, for hundreds).
_DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
wanted = json.load(sys.stdin)
print(json.dumps({name: get_diff_for_mutant(name, path=path) for name, path in wanted.items()}))
"""


def changed_lines(scores: list[ModuleScore]) -> dict[str, str]:
    """Each survivor as the lines it changes, '-old || +new'."""
    wanted = {name: s.path for s in scores for name in s.survivors}
    if not wanted:
        return {}
    shown = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "-c", _DIFFS],
        cwd=ROOT,
        input=json.dumps(wanted),
        capture_output=True,
        text=True,
    )
    diffs = json.loads(shown.stdout) if shown.returncode == 0 else {}
    missing = f"(no diff: {shown.stderr.strip()[-200:]})"
    return {name: _changes(diffs[name]) if name in diffs else missing for name in wanted}


def _changes(diff: str) -> str:
    return " || ".join(
        line.strip()
        for line in diff.splitlines()
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    )


def report(scores: list[ModuleScore], seconds: float | None) -> str:
    took = f" in {seconds / 60:.1f} min" if seconds is not None else ""
    lines = [
        f"# Mutation profile{took} (goal {GOAL:.0%})",
        "",
        "| module | mutants | killed | timeout | survived | no tests | score |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in scores:
        v = s.verdicts
        lines.append(
            f"| {s.name} (`{s.path}`) | {s.checked} | {v['killed']} | {v['timeout']} | "
            f"{v['survived']} | {v['no tests']} | {s.score:.1%} |"
        )
    unchecked = {s.name: s.verdicts["not checked"] for s in scores if s.verdicts["not checked"]}
    if unchecked:
        listed = ", ".join(f"{name} {count}" for name, count in unchecked.items())
        lines += ["", f"Not checked (the run stopped early?): {listed}."]
    diffs = changed_lines(scores)
    for s in scores:
        if s.survivors:
            lines += ["", f"## Survivors in {s.name}", ""]
            lines += [f"- `{name}`: `{diffs[name]}`" for name in s.survivors]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("modules", nargs="*", help="short names or paths; default: all")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--keep", action="store_true", help="check only what the last run left unchecked or alive"
    )
    parser.add_argument("--report-only", action="store_true", help="summarise the last run")
    options = parser.parse_args()
    modules = select(profile_modules(), options.modules)
    seconds = None
    if not options.report_only:
        seconds = run_mutmut(modules, options.jobs, options.keep)
    scores = [score(path) for path in modules]
    text = report(scores, seconds)
    MUTANTS.mkdir(exist_ok=True)
    (MUTANTS / "summary.md").write_text(text)
    print(text, end="")
    print(f"(also in {MUTANTS / 'summary.md'})")
    below = [s.name for s in scores if s.score < GOAL]
    if below:
        print(f"under the goal of {GOAL:.0%}: {', '.join(below)}")
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
