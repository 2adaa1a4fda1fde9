"""Mutation scores of cardgen's core modules: `python tools/mutation_score.py [PATTERN ...]`.

Runs mutmut (configured in pyproject.toml's [tool.mutmut]: which modules, which tests) and
prints, per module, how many mutants the tests killed. A mutant that times out counts as
killed (the mutation made the code loop). The goal is at least 80 % in each module
(docs/design.md#tests-that-fail-when-the-code-is-wrong); the exit status is 1 below it.
PATTERNs (`'cardgen.layout.expr*'`) test only the mutants they name (mutmut's own patterns)
and print only their modules; `--report` prints the scores of the last runs without running.

Needs mutmut (`pip install mutmut`); it works in a `mutants/` copy of the tree, which it
keeps between runs (delete it to start again).
"""

import fnmatch
import os
import re
import subprocess
import sys
from collections import defaultdict

GOAL = 0.80


def main() -> int:
    report_only = "--report" in sys.argv[1:]
    patterns = [a for a in sys.argv[1:] if a != "--report"]
    if not report_only:
        code = _run(patterns)
        if code:
            return code
    return _report(patterns)


def _run(patterns: list[str]) -> int:
    # (tests/conftest.py: the run of the unmutated code first is held to the tests of these modules)
    env = {**os.environ, "CARDGEN_MUTATION_PATTERNS": " ".join(patterns)}
    run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", "2", *patterns],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False, env=env)
    if run.returncode:
        print(run.stderr[-2000:], file=sys.stderr)
    return run.returncode


def _report(patterns: list[str]) -> int:
    results = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"],
                             capture_output=True, text=True, check=True).stdout
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for line in results.splitlines():
        # a function's mutants: module.x_name__mutmut_N; a method's: module.xǁClassǁname__mutmut_N
        m = re.match(r"\s*([\w.]+?)\.x[_ǁ]\S*__mutmut_\d+: (.+)$", line)
        if m and (not patterns or any(fnmatch.fnmatch(m.group(0).strip().partition(":")[0], p) for p in patterns)):
            counts[m.group(1)][m.group(2).strip()] += 1
    if not counts:
        print("no mutants: is [tool.mutmut] in pyproject.toml?", file=sys.stderr)
        return 1
    worst = 1.0
    print(f"{'module':32} {'mutants':>8} {'killed':>7} {'survived':>9} {'no test':>8} {'score':>6}")
    for module, by in sorted(counts.items()):
        total = sum(n for status, n in by.items() if status != "not checked")
        killed = by["killed"] + by["timeout"]
        score = killed / total if total else 0.0
        worst = min(worst, score)
        print(f"{module:32} {total:8} {killed:7} {by['survived']:9} {by['no tests']:8} {score:6.0%}"
              + (f"  ({by['not checked']} not checked)" if by["not checked"] else ""))
    print(f"goal: at least {GOAL:.0%} in each module; `mutmut results` lists the survivors, "
          "`mutmut show NAME` shows one")
    return 0 if worst >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
