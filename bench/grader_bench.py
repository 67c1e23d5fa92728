"""Grading many calls against one assertions file with a SQLite state: per-call cost.

    .venv/bin/python bench/grader_bench.py [--calls 200]

Grades the demo call (src/hotato/demo: five assertions, one a state read of a SQLite
`orders` table) N times two ways in one process:

  one-shot   `grade_assertions(...)` per call: the file is read and decoded, the database
             opened and its table reflected, every time (what a loop over the CLI's use case,
             or the 1.x `run_assertions`, costs)
  Grader     one `Grader(file, state=db)`, then `grader.grade(trace=..., transcript=...)` per
             call: decoded once, one connection, the table reflected once

and prints the median per-call wall time of each. Target: the Grader at least 3x cheaper.
Exit 0 when the target holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent / "src" / "hotato" / "demo"
TARGET_RATIO = 3.0


def _time(fn: object, n: int) -> float:
    laps = []
    for _ in range(n):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        laps.append(time.perf_counter() - start)
    return statistics.median(laps)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="calls graded each way")
    args = parser.parse_args(argv)

    from hotato.runs.assertions import grade_assertions
    from hotato.runs.grader import Grader

    files = {
        "assertions": str(DEMO / "assertions.yaml"),
        "trace": str(DEMO / "trace.jsonl"),
        "transcript": str(DEMO / "transcript.json"),
        "state": str(DEMO / "orders.sqlite"),
    }

    def one_shot() -> None:
        result = grade_assertions(
            files["assertions"],
            trace=files["trace"],
            transcript=files["transcript"],
            state=files["state"],
        )
        assert result.exit_code == 1, result.exit_code  # the demo's refund was only claimed

    one_shot()  # imports and first-use costs out of the figures
    before = _time(one_shot, args.calls)
    with Grader(files["assertions"], state=files["state"]) as grader:

        def lived() -> None:
            result = grader.grade(trace=files["trace"], transcript=files["transcript"])
            assert result.exit_code == 1, result.exit_code

        lived()
        after = _time(lived, args.calls)
    ratio = before / after if after else float("inf")
    print(f"{'per call (median of ' + str(args.calls) + ')':<32} {'ms':>8}")
    print(f"{'one-shot grade_assertions':<32} {before * 1000:>8.2f}")
    print(f"{'Grader.grade':<32} {after * 1000:>8.2f}")
    ok = ratio >= TARGET_RATIO
    print(f"ratio {ratio:.1f}x (target >= {TARGET_RATIO:.0f}x): {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
