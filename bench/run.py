"""Run every benchmark in bench/ (`*_bench.py`) and print their figures: what `make bench` calls.

    .venv/bin/python bench/run.py                 # all of them, one after another
    .venv/bin/python bench/run.py engine ingest   # only bench/engine_bench.py and ingest_bench.py
    .venv/bin/python bench/run.py --quick         # smaller inputs, one run each (a few minutes)

Each benchmark runs as its own process and prints its own table (figures against its targets);
this prints a closing line per benchmark with its exit code (0: ran and met its targets).
Benchmarks run one at a time: two at once on a small machine would time each other.
Exit 0 when every benchmark exited 0.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# What --quick passes each benchmark: one seed and one run, or smaller inputs.
QUICK = {
    "engine": ["--quick"],
    "conversation": ["--mb", "20"],
    "ingest": ["--spans", "100000"],
    "state": ["--queries", "1000"],
}


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--quick"]
    scripts = sorted(HERE.glob("*_bench.py"))
    if argv:
        wanted = {a.removesuffix(".py").removesuffix("_bench") for a in argv}
        unknown = wanted - {s.name.removesuffix("_bench.py") for s in scripts}
        if unknown:
            print(f"no such benchmark: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        scripts = [s for s in scripts if s.name.removesuffix("_bench.py") in wanted]
    summary = []
    for script in scripts:
        print(f"\n=== {script.name} " + "=" * max(0, 70 - len(script.name)), flush=True)
        started = time.perf_counter()
        extra = QUICK.get(script.name.removesuffix("_bench.py"), []) if quick else []
        code = subprocess.run([sys.executable, str(script), *extra], cwd=HERE.parent).returncode
        summary.append((script.name, code, time.perf_counter() - started))
    print("\n=== summary " + "=" * 66)
    for name, code, seconds in summary:
        verdict = "targets met" if code == 0 else f"exit {code}: a target missed or a run failed"
        print(f"  {name:<28} {verdict:<45} ({seconds:.0f} s)")
    print(f"  load average now {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPU(s)")
    return 0 if all(code == 0 for _, code, _ in summary) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
