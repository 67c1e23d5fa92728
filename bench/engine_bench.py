"""The engine benchmark: whole `hotato assert run` processes, timed, with their peak RSS.

    .venv/bin/python bench/engine_bench.py            # every scenario
    .venv/bin/python bench/engine_bench.py --only small,redos --runs 9

Scenarios (issue 2's targets on a 2-core machine):

  big-trace   a 1,000,000-span trace (~120 MB), 1,000 mixed assertions, 1,000 turns: < 5 s, < 600 MB
  many-turns  100,000 turns with the same 1,000 assertions (and a 100-span trace): < 5 s
  small       a 100-span call with 10 assertions, start-up included: < 0.12 s (median of runs)
  redos       `(a+)+$` over a 100,000-character turn: well under a second

Every figure is one whole process, `python -m hotato assert run ... --format json`, from exec to
exit, so start-up, loading, grading and rendering all count. Peak RSS is the child's own
`ru_maxrss` from wait4(2); CPU time (user + system) is printed beside wall time because on a
busy machine wall time also counts waiting for a core. Each scenario first runs once uncounted
(page cache, bytecode cache). Inputs are generated once (deterministically) into bench/out/,
which is git-ignored, and reused.

    .venv/bin/python bench/engine_bench.py --by-kind big-trace   # where the time goes
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"
GEN_VERSION = "2"  # bump when the generated inputs change, so caches are rebuilt

TOOLS = [f"tool_{i:02d}" for i in range(50)]
META = {"_meta": True, "schema": "hotato.voice_trace.v1", "call_id": "bench",
        "deployment": {"stack": "bench"}, "source": {"format": "generated"}}


# ---------------------------------------------------------------- inputs


def _span(rng: random.Random, i: int, t: float) -> dict[str, Any]:
    """Half tool calls, a third audio activity, then model tokens, HTTP, keypad, transfers."""
    at = round(t, 3)
    roll = rng.random()
    if roll < 0.50:
        span: dict[str, Any] = {
            "type": "tool_call", "name": TOOLS[rng.randrange(len(TOOLS))],
            "arguments": {"order_id": f"A-{rng.randrange(1000)}", "n": i % 7},
            "start_sec": at, "end_sec": round(t + 0.2, 3), "latency_ms": rng.randrange(20, 900),
        }
        if rng.random() > 0.02:
            span["result"] = {"ok": True, "status": "done"}
        else:
            span["error"] = {"type": "Timeout", "message": "upstream timed out"}
        return span
    if roll < 0.85:
        kind = "caller_audio_active" if roll < 0.675 else "agent_audio_active"
        return {"type": kind, "start_sec": at, "end_sec": round(t + 1.5, 3)}
    if roll < 0.93:
        return {"type": "llm_first_token", "time_sec": at, "latency_ms": rng.randrange(90, 700)}
    if roll < 0.97:
        return {"type": "http_exchange", "method": rng.choice(["GET", "POST"]),
                "url": f"https://api.example/v1/orders/{rng.randrange(1000)}",
                "status_code": rng.choice([200, 200, 201, 500]), "time_sec": at}
    if roll < 0.99:
        return {"type": "dtmf", "digits": str(rng.randrange(10)), "time_sec": at}
    return {"type": "handoff", "to": rng.choice(["billing", "human_supervisor"]), "time_sec": at}


def write_trace(path: Path, spans: int, seed: int) -> None:
    rng = random.Random(seed)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        out.write(json.dumps(META) + "\n")
        t = 0.0
        for i in range(spans - 1):
            t += 0.01
            out.write(json.dumps(_span(rng, i, t), separators=(",", ":")) + "\n")
        out.write(json.dumps({"type": "call_ended", "by": "caller", "reason": "completed",
                              "time_sec": round(t + 1, 3)}) + "\n")
    tmp.replace(path)


AGENT_LINES = [
    "Thanks for calling, this call may be recorded for quality.",
    "Can I have your date of birth to verify your identity?",
    "I have looked up order A-{n}; your refund has been issued.",
    "Your balance is {n} dollars and {n} cents.",
    "Sorry about that, let me check the order status for you.",
    "Is there anything else I can help you with today?",
]
CALLER_LINES = [
    "Hi, my order A-{n} never arrived and I want a refund.",
    "It is the fifth of May, nineteen eighty {n}.",
    "Can you tell me my balance please?",
    "No, that is all, thank you.",
]


def write_transcript(path: Path, turns: int, seed: int) -> None:
    rng = random.Random(seed)
    out = []
    for i in range(turns):
        agent = i % 2 == 1
        line = rng.choice(AGENT_LINES if agent else CALLER_LINES).format(n=rng.randrange(100))
        out.append({"role": "agent" if agent else "caller", "text": line,
                    "start": i * 3.0, "end": i * 3.0 + 2.5})
    path.write_text(json.dumps(out), encoding="utf-8")


def mixed_assertions(n: int, seed: int) -> list[dict[str, Any]]:
    """`n` assertions cycling through every deterministic kind (and `when`, formula, outcome),
    each drawing its own tool, pattern or target so no two checks are the same question."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []

    def tool() -> str:
        return TOOLS[rng.randrange(len(TOOLS))]

    def spec(i: int) -> dict[str, Any]:
        step = i % 22
        if step == 0:
            return {"kind": "tool_call", "name": tool()}
        if step == 1:
            return {"kind": "tool_call", "name": tool(),
                    "args_subset": {"order_id": f"A-{rng.randrange(1000)}"}}
        if step == 2:
            return {"kind": "tool_call", "name": tool(), "count": {"min": 1, "max": 100000}}
        if step == 3:
            return {"kind": "tool_call", "require_order": [tool(), tool(), tool()]}
        if step == 4:
            return {"kind": "tool_call", "never_before": {"tool": tool(), "until": tool()}}
        if step == 5:
            return {"kind": "tool_result", "name": tool(), "result_subset": {"status": "done"}}
        if step == 6:
            return {"kind": "tool_error", "name": tool(), "error_matches": "timed out"}
        if step == 7:
            return {"kind": "http_result", "method": rng.choice(["GET", "POST"]),
                    "url_matches": f"/v1/orders/{rng.randrange(1000)}$", "status": [200, 201]}
        if step == 8:
            return {"kind": "handoff", "to": rng.choice(["billing", "human_supervisor", "x"])}
        if step == 9:
            return {"kind": "dtmf", "digits": str(rng.randrange(100, 999))}
        if step == 10:
            return {"kind": "termination", "by": rng.choice(["caller", "agent"])}
        if step == 11:
            return {"kind": "sequence", "steps": [{"span_type": "caller_audio_active"},
                                                  {"tool": tool()}, {"span_type": "handoff"}]}
        if step == 12:
            return {"kind": "count", "tool": tool(), "count": {"max": 50000}}
        if step == 13:
            return {"kind": "count", "span_type": "dtmf", "count": {"min": 1}}
        if step == 14:
            return {"kind": "latency", "tool": tool(), "max_ms": rng.randrange(500, 1500)}
        if step == 15:
            return {"kind": "phrase", "role": "agent", "regex": rng.choice([
                "refund (has been|was) issued", "this call (is|may be) recorded",
                rf"balance is {rng.randrange(100)} dollars"])}
        if step == 16:
            return {"kind": "phrase", "absent": True,
                    "regex": rng.choice(["guarantee", "lawsuit", r"\bssn\b", "A-1000"])}
        if step == 17:
            return {"kind": "order", "before": "date of birth", "after": "your balance",
                    "role": "agent"}
        if step == 18:
            return {"kind": "count", "phrase": rng.choice(["sorry", "refund", "order A-7"]),
                    "role": "agent", "count": {"max": 100000}}
        if step == 19:
            return {"kind": "outcome", "all_of": [
                {"tool_called": tool()}, {"phrase": "refund has been issued", "role": "agent"}]}
        if step == 20:
            return {"kind": "formula", "expr": f"{items[-1]['id']} and not {items[-2]['id']}"}
        return {"kind": "tool_result", "name": tool(), "result_subset": {"ok": True},
                "when": [items[-3]["id"]]}

    for i in range(n):
        items.append({"id": f"a-{i:04d}", **spec(i)})
    return items


def write_assertions(path: Path, items: list[dict[str, Any]]) -> None:
    import yaml

    doc = {"version": 1, "assertions": items}
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=200), encoding="utf-8")


def _cached(name: str, make: Callable[[Path], None]) -> Path:
    OUT.mkdir(exist_ok=True)
    path = OUT / name
    stamp = OUT / (name + ".v")
    if not (path.exists() and stamp.exists() and stamp.read_text() == GEN_VERSION):
        started = time.perf_counter()
        make(path)
        stamp.write_text(GEN_VERSION)
        print(f"  generated {path.name} ({path.stat().st_size / 1e6:.1f} MB) "
              f"in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return path


def inputs() -> dict[str, Path]:
    return {
        "trace_1m": _cached("trace-1m.jsonl", lambda p: write_trace(p, 1_000_000, 1)),
        "trace_100": _cached("trace-100.jsonl", lambda p: write_trace(p, 100, 2)),
        "turns_1k": _cached("transcript-1k.json", lambda p: write_transcript(p, 1_000, 3)),
        "turns_100k": _cached("transcript-100k.json", lambda p: write_transcript(p, 100_000, 4)),
        "turns_small": _cached("transcript-small.json", lambda p: write_transcript(p, 20, 5)),
        "assert_1000": _cached("assertions-1000.yaml",
                               lambda p: write_assertions(p, mixed_assertions(1000, 6))),
        "assert_10": _cached("assertions-10.yaml",
                             lambda p: write_assertions(p, mixed_assertions(10, 7))),
        "redos_turn": _cached("transcript-redos.json", lambda p: p.write_text(json.dumps(
            [{"role": "caller", "text": "a" * 100_000 + "!"}]))),
        "redos_assert": _cached("assertions-redos.yaml", lambda p: write_assertions(
            p, [{"id": "redos", "kind": "phrase", "regex": "(a+)+$"}])),
    }


# ---------------------------------------------------------------- measuring


# As an installed hotato runs: with its bytecode cached (pip compiles it at install). Some
# environments set PYTHONDONTWRITEBYTECODE, which would recompile every module in every run.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@dataclass
class Run:
    seconds: float
    cpu: float  # the child's user + system time: steadier than wall time on a busy machine
    peak_mb: float
    code: int


def run_once(argv: list[str]) -> Run:
    """One whole process: wall time from spawn to reap, and the child's own peak RSS."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "hotato", *argv], env=CHILD_ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"hotato {' '.join(argv)} exited {proc.returncode}:\n{err}")
    cpu = usage.ru_utime + usage.ru_stime
    return Run(seconds, cpu, usage.ru_maxrss / 1024.0, proc.returncode)


@dataclass
class Scenario:
    name: str
    what: str
    argv: list[str]
    max_s: float
    max_mb: float | None = None
    runs: int = 1


def scenarios(p: dict[str, Path], runs: int) -> list[Scenario]:
    def run_args(assertions: Path, trace: Path | None, transcript: Path | None) -> list[str]:
        argv = ["assert", "run", "--assertions", str(assertions), "--format", "json"]
        if trace is not None:
            argv += ["--trace", str(trace)]
        if transcript is not None:
            argv += ["--transcript", str(transcript)]
        return argv

    return [
        Scenario("big-trace", "1,000,000 spans + 1,000 assertions + 1,000 turns",
                 run_args(p["assert_1000"], p["trace_1m"], p["turns_1k"]), 5.0, 600.0,
                 runs=max(3, runs // 2)),
        Scenario("many-turns", "100,000 turns + 1,000 assertions (100-span trace)",
                 run_args(p["assert_1000"], p["trace_100"], p["turns_100k"]), 5.0,
                 runs=max(3, runs // 2)),
        Scenario("small", "100-span call, 10 assertions, start-up included",
                 run_args(p["assert_10"], p["trace_100"], p["turns_small"]), 0.12, runs=runs),
        Scenario("redos", "(a+)+$ over a 100,000-character turn",
                 run_args(p["redos_assert"], None, p["redos_turn"]), 1.0, runs=runs),
    ]


def _floor() -> float:
    """The start-up no hotato change can remove: the interpreter and the chosen libraries."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import click, yaml, msgspec, re2"], env=CHILD_ENV,
                   check=True)
    return time.perf_counter() - started


def by_kind(paths: dict[str, Path], name: str) -> None:
    """Where the time goes, in-process: loading each input, then grading, summed per kind."""
    from hotato.engine.evaluate import Sources, grade
    from hotato.engine.loader import load_assertions
    from hotato.engine.plan import plan
    from hotato.evidence.trace import load_trace
    from hotato.evidence.transcript import load_transcript
    from hotato.model.results import Result

    sc = next(s for s in scenarios(paths, 1) if s.name == name)
    argv = sc.argv
    opt = {argv[i]: argv[i + 1] for i in range(2, len(argv) - 1) if argv[i].startswith("--")}
    timings: dict[str, float] = {}

    def timed(label: str, fn: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        value = fn()
        timings[label] = timings.get(label, 0.0) + time.perf_counter() - started
        return value

    aset = timed("load assertions", lambda: load_assertions(opt["--assertions"]))
    trace = timed("load trace", lambda: load_trace(opt["--trace"])) if "--trace" in opt else None
    turns = (timed("load transcript", lambda: load_transcript(opt["--transcript"]))
             if "--transcript" in opt else None)
    order = timed("plan", lambda: plan(aset.specs, aset.origins))
    sources = Sources(trace=trace, transcript=turns)
    done: dict[str, Result] = {}
    counts: dict[str, int] = {}
    for spec in order:
        tag = str(spec.__struct_config__.tag)
        counts[tag] = counts.get(tag, 0) + 1
        done[spec.id] = timed(f"grade {tag}", lambda spec=spec: grade(spec, sources, done))
    print(f"{name}: seconds in-process (indexes are built by whichever check asks first)")
    for label, secs in sorted(timings.items(), key=lambda kv: -kv[1]):
        n = counts.get(label.removeprefix("grade "), 0)
        print(f"  {label:<22} {secs:>8.3f}" + (f"  ({n} assertions)" if n else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated scenario names")
    parser.add_argument("--runs", type=int, default=7, help="runs per small scenario (median)")
    parser.add_argument("--by-kind", metavar="SCENARIO",
                        help="instead: time one scenario in-process, per phase and per kind")
    args = parser.parse_args(argv)
    if args.by_kind:
        by_kind(inputs(), args.by_kind)
        return 0
    chosen = set(args.only.split(",")) if args.only else None
    paths = inputs()
    rows = []
    missed = 0
    for sc in scenarios(paths, args.runs):
        if chosen is not None and sc.name not in chosen:
            continue
        run_once(sc.argv)  # warm the page cache and .pyc files; not counted
        done = [run_once(sc.argv) for _ in range(sc.runs)]
        secs = statistics.median(r.seconds for r in done)
        cpu = statistics.median(r.cpu for r in done)
        peak = max(r.peak_mb for r in done)
        ok = secs < sc.max_s and (sc.max_mb is None or peak < sc.max_mb)
        missed += not ok
        rows.append((sc, secs, cpu, peak, len(done), ok))
    print(f"{'scenario':<11} {'what':<52} {'wall s':>8} {'cpu s':>7} {'target':>7} "
          f"{'peak MB':>8} {'target':>7} {'runs':>4}  ok")
    for sc, secs, cpu, peak, n, ok in rows:
        mb = f"< {sc.max_mb:.0f}" if sc.max_mb else "-"
        target = "< " + format(sc.max_s, "g")
        print(f"{sc.name:<11} {sc.what:<52} {secs:>8.3f} {cpu:>7.3f} {target:>7} "
              f"{peak:>8.1f} {mb:>7} {n:>4}  {'yes' if ok else 'MISSED'}")
    if chosen is None or "small" in chosen:
        floor = statistics.median(_floor() for _ in range(args.runs))
        print(f"floor: python importing click, yaml, msgspec and re2 alone takes {floor:.3f} s "
              "(median), before any hotato code")
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), load average {load:.2f}; "
          "whole processes, median wall and CPU time, peak RSS from wait4")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
