"""The engine benchmark: whole `hotato` processes, timed, with their peak RSS, beside the targets.

    .venv/bin/python bench/engine_bench.py             # every scenario, median of 3 (~5 min)
    .venv/bin/python bench/engine_bench.py --quick     # one seed, one run each, no 2M/10k cases
    .venv/bin/python bench/engine_bench.py --only small,redos --runs 9
    .venv/bin/python bench/engine_bench.py --by-kind mix-1m-s1   # where the time goes, per kind

Scenarios (the targets on a 2-core machine):

  mix-1m-sN     1,000,000 spans, 1,000 assertions drawn at random (seed N) from every kind,
                1,000 turns: < 4 s, < 500 MB
  mix-1x-1m     mix-1m-s1 with the trace written in hotato 1.x's shapes (HTTP fields under
                `http.*`, `ok` / `error_message` at the top level, results under `attributes`,
                spaced JSON): the loader folds and the field reader looks further: < 4 s, < 500 MB
  mix-10k       1,000,000 spans, 10,000 assertions (a random mix): < 8 s
  many-turns    100,000 turns, 1,000 assertions leaning on pii, phrase, policy, count, order: < 3 s
  otlp-graded   `assert run --trace` on a 1,000,000-span OTLP/JSON export: < 12 s, < 600 MB
  otlp-ingest   `trace ingest` of that export: < 10 s
  otlp-doc-graded, otlp-doc-ingest, otlp-line-ingest
                the same 1,000,000 spans as ONE OTLP/JSON document (a span per line, so the
                file's first line is not a whole value), and as one document on one line:
                read span by span from the mapped file: < 12 s, < 600 MB (graded), < 10 s
  small         100 spans, 10 mixed assertions, a 1,000-turn transcript, start-up included: < 0.10 s
  redos         `(a+)+$` over a 100,000-character turn: < 1 s

and two scaling checks, each a ratio of two medians: doubling the assertions at 1M spans adds
under 15% to the run; doubling the spans (2M) at most doubles it.

The mixes come from bench/mix.py: every kind about equally often, each assertion drawing its
own tool, pattern or bounds, with hotato 1.x forms (`when:` as a string, `outcome` with nested
`all_of` / `any_of` parts, formulas). After the table, the cost of each kind in-process on the
first mix: a kind that scans its evidence per assertion shows up by name, with its ms per
assertion. (Indexes are built lazily by whichever assertion asks first, and charged to it.)

Every figure is one whole process, `python -m hotato ...`, from exec to exit, so start-up,
loading, grading and rendering all count. Peak memory is the larger of the process's own
`ru_maxrss` from wait4(2) and the sampled sum of its process tree's memory (a big OTLP export
is converted on two cores, its second half in a forked child; see _TreePeak). CPU time (user +
system, children included) is printed beside wall time because on a busy machine wall time
also counts waiting for a core; the load average is printed with the table. Inputs are
generated once (deterministically) into bench/out/, which is git-ignored, and reused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mix import Vocabulary, random_mix, write_mix

OUT = Path(__file__).resolve().parent / "out"
GEN_VERSION = "4"  # bump when the generated inputs change, so caches are rebuilt
SEEDS = (1, 2, 3)

TOOLS = tuple(f"tool_{i:02d}" for i in range(50))
META = {
    "_meta": True,
    "schema": "hotato.voice_trace.v1",
    "call_id": "bench",
    "deployment": {"stack": "bench"},
    "source": {"format": "generated"},
}
VOCAB = Vocabulary(TOOLS)
OTLP_TOOLS = ("lookup_order", "issue_refund", "send_sms", "check_inventory")
OTLP_VOCAB = Vocabulary(
    OTLP_TOOLS,
    urls=("/refunds$", "/v1/", "example\\.test/ref"),
    arg_values=lambda rng: {"order_id": rng.randrange(1_000_000)},
)
TURNS_HEAVY = {"pii": 6.0, "phrase": 6.0, "policy": 3.0, "count": 4.0, "order": 4.0}


# ---------------------------------------------------------------- inputs


def _span(rng: random.Random, i: int, t: float) -> dict[str, Any]:
    """Half tool calls, a third audio activity, then model tokens, HTTP, keypad, transfers."""
    at = round(t, 3)
    roll = rng.random()
    if roll < 0.50:
        span: dict[str, Any] = {
            "type": "tool_call",
            "name": TOOLS[rng.randrange(len(TOOLS))],
            "arguments": {"order_id": f"A-{rng.randrange(1000)}", "n": i % 7},
            "start_sec": at,
            "end_sec": round(t + 0.2, 3),
            "latency_ms": rng.randrange(20, 900),
        }
        fate = rng.random()
        if fate > 0.03:
            span["result"] = {"ok": True, "status": rng.choice(["done", "done", "refunded"])}
        elif fate > 0.02:
            span["result"] = {"ok": False}
        elif fate > 0.01:
            span["status"] = "error"
        else:
            span["error"] = {"type": "Timeout", "message": "upstream timed out"}
        return span
    if roll < 0.85:
        kind = "caller_audio_active" if roll < 0.675 else "agent_audio_active"
        return {"type": kind, "start_sec": at, "end_sec": round(t + 1.5, 3)}
    if roll < 0.93:
        return {"type": "llm_first_token", "time_sec": at, "latency_ms": rng.randrange(90, 700)}
    if roll < 0.97:
        span = {
            "type": "http_exchange",
            "method": rng.choice(["GET", "POST"]),
            "url": f"https://api.example/v1/orders/{rng.randrange(1000)}",
            "status_code": rng.choice([200, 200, 201, 500]),
            "time_sec": at,
        }
        if rng.random() < 0.3:
            span["response"] = {"state": rng.choice(["open", "closed"]), "id": i}
        return span
    if roll < 0.99:
        return {"type": "dtmf", "digits": str(rng.randrange(10)), "time_sec": at}
    if roll < 0.9999:
        return {
            "type": "handoff",
            "to": rng.choice(["billing", "human_supervisor"]),
            "time_sec": at,
        }
    return {"type": "hangup", "by": "agent", "reason": "timeout", "time_sec": at}


def _as_1x(rng: random.Random, span: dict[str, Any]) -> dict[str, Any]:
    """The span as hotato 1.x traces often wrote it: HTTP fields under their OpenTelemetry
    names, a tool's outcome as top-level `ok` / `error_message`, payloads under `attributes`,
    and Python's default JSON spacing. The loader folds what it does not name into
    `attributes`, and the field reader finds each under any of its names."""
    kind = span["type"]
    if kind == "http_exchange":
        for key in ("method", "url", "status_code"):
            if key in span:
                span[f"http.{key}"] = span.pop(key)
    elif kind == "tool_call":
        roll = rng.random()
        if roll < 0.2:
            span["attributes"] = {"result": span.pop("result", None), "source": "1.x"}
        elif roll < 0.3:
            span["ok"] = not span.pop("error", None) and span.get("status") != "error"
        elif roll < 0.32 and "error" in span:
            span["error_message"] = span.pop("error")["message"]
    return span


def write_trace(path: Path, spans: int, seed: int, legacy: bool = False) -> None:
    rng = random.Random(seed)
    tmp = path.with_suffix(".tmp")
    separators = (", ", ": ") if legacy else (",", ":")
    with tmp.open("w", encoding="utf-8") as out:
        out.write(json.dumps(META) + "\n")
        t = 0.0
        for i in range(spans - 1):
            t += 0.01
            span = _span(rng, i, t)
            if legacy:
                span = _as_1x(rng, span)
            out.write(json.dumps(span, separators=separators) + "\n")
        out.write(
            json.dumps(
                {
                    "type": "call_ended",
                    "by": "caller",
                    "reason": "completed",
                    "time_sec": round(t + 1, 3),
                }
            )
            + "\n"
        )
    tmp.replace(path)


AGENT_LINES = [
    "Thanks for calling, this call may be recorded for quality.",
    "Can I have your date of birth to verify your identity?",
    "I have looked up order A-{n}; your refund has been issued.",
    "Your balance is {n} dollars and {n} cents.",
    "Sorry about that, let me check the order status for you.",
    "Is there anything else I can help you with today?",
    "I can read back the number on file: 555-01{n:02d}.",
]
CALLER_LINES = [
    "Hi, my order A-{n} never arrived and I want a refund.",
    "It is the fifth of May, nineteen eighty {n}.",
    "Can you tell me my balance please?",
    "No, that is all, thank you.",
]
# Identifiers, said in one caller turn in a few hundred (a call that leaks one in three turns is
# not a benchmark, it is an incident: its report lists every hit).
PII_LINES = [
    "My card is 4111 1111 1111 1111, expiry twelve {n}.",
    "Call me back at five five five, one two one two, or email jo{n}@example.com.",
    "My social is 123-45-67{n:02d}.",
]


def write_transcript(path: Path, turns: int, seed: int) -> None:
    rng = random.Random(seed)
    out = []
    for i in range(turns):
        agent = i % 2 == 1
        lines = AGENT_LINES if agent else (PII_LINES if rng.random() < 0.005 else CALLER_LINES)
        line = rng.choice(lines).format(n=rng.randrange(100))
        out.append(
            {
                "role": "agent" if agent else "caller",
                "text": line,
                "start": i * 3.0,
                "end": i * 3.0 + 2.5,
            }
        )
    path.write_text(json.dumps(out), encoding="utf-8")


def mix_file(
    n: int, seed: int, vocab: Vocabulary = VOCAB, weights: dict[str, float] | None = None
) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        write_mix(path, random_mix(n, seed, vocab, weights))

    return make


def _cached(name: str, make: Callable[[Path], None]) -> Path:
    OUT.mkdir(exist_ok=True)
    path = OUT / name
    stamp = OUT / (name + ".v")
    version = GEN_VERSION
    if not (path.exists() and stamp.exists() and stamp.read_text() == version):
        started = time.perf_counter()
        make(path)
        stamp.write_text(version)
        print(
            f"  generated {path.name} ({path.stat().st_size / 1e6:.1f} MB) "
            f"in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    return path


def _otlp_export(path: Path) -> None:
    from ingest_bench import write_export

    write_export(path, 1_000_000, 1_000)


def _otlp_document(path: Path, sep: str) -> None:
    from ingest_bench import write_export

    write_export(path, 1_000_000, 1_000_000, sep)


def inputs(quick: bool) -> dict[str, Callable[[], Path]]:
    """Each input, generated (once) when a scenario first asks for it."""
    made: dict[str, Path] = {}

    def lazy(name: str, file: str, make: Callable[[Path], None]) -> None:
        def get() -> Path:
            if name not in made:
                made[name] = _cached(file, make)
            return made[name]

        table[name] = get

    table: dict[str, Callable[[], Path]] = {}
    lazy("trace_1m", "trace-1m.jsonl", lambda p: write_trace(p, 1_000_000, 1))
    lazy("trace_2m", "trace-2m.jsonl", lambda p: write_trace(p, 2_000_000, 11))
    lazy("trace_1x", "trace-1x-1m.jsonl", lambda p: write_trace(p, 1_000_000, 1, legacy=True))
    lazy("trace_100", "trace-100.jsonl", lambda p: write_trace(p, 100, 2))
    lazy("turns_1k", "transcript-1k.json", lambda p: write_transcript(p, 1_000, 3))
    lazy("turns_100k", "transcript-100k.json", lambda p: write_transcript(p, 100_000, 4))
    for seed in SEEDS:
        lazy(f"mix_1000_s{seed}", f"mix-1000-s{seed}.yaml", mix_file(1000, seed))
    lazy("mix_2000_s1", "mix-2000-s1.yaml", mix_file(2000, 1))
    lazy("mix_10000", "mix-10000-s5.yaml", mix_file(10_000, 5))
    lazy("mix_turns", "mix-turns-1000-s6.yaml", mix_file(1000, 6, weights=TURNS_HEAVY))
    lazy("mix_10", "mix-10-s7.yaml", mix_file(10, 7))
    lazy("mix_otlp", "mix-otlp-1000-s8.yaml", mix_file(1000, 8, OTLP_VOCAB))
    lazy("otlp_1m", "otlp-1m.jsonl", _otlp_export)
    lazy("otlp_doc_1m", "otlp-doc-1m.json", lambda p: _otlp_document(p, ",\n"))
    lazy("otlp_line_1m", "otlp-line-1m.json", lambda p: _otlp_document(p, ","))
    lazy(
        "redos_turn",
        "transcript-redos.json",
        lambda p: p.write_text(json.dumps([{"role": "caller", "text": "a" * 100_000 + "!"}])),
    )
    lazy(
        "redos_assert",
        "assertions-redos.yaml",
        lambda p: write_mix(p, [{"id": "redos", "kind": "phrase", "regex": "(a+)+$"}]),
    )
    return table


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
    """One whole process: wall time from spawn to reap, and its peak memory (see _TreePeak)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotato", *argv],
        env=CHILD_ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    tree = _TreePeak(proc.pid)
    tree.start()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    tree.stop()
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"hotato {' '.join(argv)} exited {proc.returncode}:\n{err}")
    cpu = usage.ru_utime + usage.ru_stime  # wait4 counts the process's own children too
    return Run(seconds, cpu, max(usage.ru_maxrss / 1024.0, tree.peak_mb), proc.returncode)


class _TreePeak(threading.Thread):
    """The peak memory of a process and its descendants, sampled every 20 ms.

    `ru_maxrss` from wait4 is the largest single process (hotato converts a big OTLP export's
    second half in a forked child); while both run, what the machine holds is their sum. The
    sum is of PSS while there are two (a page the two share after the fork counts half in
    each), of RSS while there is one."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_mb = 0.0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.02):
            pids = _tree(self.pid)
            held = _rss_mb(pids[0]) if len(pids) == 1 else sum(map(_pss_mb, pids))
            self.peak_mb = max(self.peak_mb, held)

    def stop(self) -> None:
        self._done.set()
        self.join()


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError):  # it ended meanwhile
            todo += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
    return out


def _rss_mb(pid: int) -> float:
    return _field_mb(f"/proc/{pid}/status", "VmRSS:")


def _pss_mb(pid: int) -> float:
    return _field_mb(f"/proc/{pid}/smaps_rollup", "Pss:")


def _field_mb(path: str, name: str) -> float:
    """A `name: N kB` line of a /proc file, in MiB (0 once the process has ended)."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(name):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


@dataclass
class Scenario:
    name: str
    what: str
    argv: Callable[[], list[str]]  # built when the scenario runs: inputs are generated lazily
    max_s: float
    max_mb: float | None = None
    small: bool = False  # many runs, one uncounted first (page cache, .pyc files)


def _grade(
    assertions: str, trace: str | None, transcript: str | None, p: dict[str, Callable[[], Path]]
) -> Callable[[], list[str]]:
    def argv() -> list[str]:
        out = ["assert", "run", "--assertions", str(p[assertions]()), "--format", "json"]
        if trace is not None:
            out += ["--trace", str(p[trace]())]
        if transcript is not None:
            out += ["--transcript", str(p[transcript]())]
        return out

    return argv


def _ingest(trace: str, p: dict[str, Callable[[], Path]]) -> Callable[[], list[str]]:
    def argv() -> list[str]:
        return ["trace", "ingest", str(p[trace]()), "--out", str(OUT / f"{trace}.ingested.jsonl")]

    return argv


def scenarios(p: dict[str, Callable[[], Path]], quick: bool) -> list[Scenario]:
    seeds = SEEDS[:1] if quick else SEEDS
    rows = [
        Scenario(
            f"mix-1m-s{seed}",
            f"1M spans, 1,000 assertions (mix seed {seed}), 1k turns",
            _grade(f"mix_1000_s{seed}", "trace_1m", "turns_1k", p),
            4.0,
            500.0,
        )
        for seed in seeds
    ]
    rows.append(
        Scenario(
            "mix-1x-1m",
            "the same, the trace in hotato 1.x's shapes (aliases, attributes)",
            _grade("mix_1000_s1", "trace_1x", "turns_1k", p),
            4.0,
            500.0,
        )
    )
    if not quick:
        rows.append(
            Scenario(
                "mix-10k",
                "1M spans, 10,000 assertions (random mix), 1k turns",
                _grade("mix_10000", "trace_1m", "turns_1k", p),
                8.0,
            )
        )
    rows += [
        Scenario(
            "many-turns",
            "100k turns, 1,000 assertions (pii/phrase/policy heavy)",
            _grade("mix_turns", "trace_100", "turns_100k", p),
            3.0,
        ),
        Scenario(
            "otlp-graded",
            "assert run on a 1M-span OTLP/JSON export, 1,000 asserts",
            _grade("mix_otlp", "otlp_1m", None, p),
            12.0,
            600.0,
        ),
        Scenario(
            "otlp-ingest",
            "trace ingest of the 1M-span OTLP/JSON export",
            lambda: [
                "trace",
                "ingest",
                str(p["otlp_1m"]()),
                "--out",
                str(OUT / "otlp-1m.ingested.jsonl"),
            ],
            10.0,
        ),
        Scenario(
            "otlp-doc-graded",
            "assert run on ONE 1M-span OTLP/JSON document, 1,000 asserts",
            _grade("mix_otlp", "otlp_doc_1m", None, p),
            12.0,
            600.0,
        ),
        Scenario(
            "otlp-doc-ingest",
            "trace ingest of that one document",
            _ingest("otlp_doc_1m", p),
            10.0,
        ),
        Scenario(
            "otlp-line-ingest",
            "trace ingest of the document on one line",
            _ingest("otlp_line_1m", p),
            10.0,
        ),
        Scenario(
            "small",
            "100 spans, 10 mixed assertions, 1k turns, start-up included",
            _grade("mix_10", "trace_100", "turns_1k", p),
            0.10,
            small=True,
        ),
        Scenario(
            "redos",
            "(a+)+$ over a 100,000-character turn",
            _grade("redos_assert", None, "redos_turn", p),
            1.0,
            small=True,
        ),
    ]
    return rows


@dataclass
class Measured:
    sc: Scenario
    secs: float
    cpu: float
    peak: float
    runs: int

    @property
    def ok(self) -> bool:
        return self.secs < self.sc.max_s and (self.sc.max_mb is None or self.peak < self.sc.max_mb)


def measure(sc: Scenario, runs: int) -> Measured:
    argv = sc.argv()
    if sc.small:
        run_once(argv)  # warm the page cache and .pyc files; not counted
    done = [run_once(argv) for _ in range(runs)]
    return Measured(
        sc,
        statistics.median(r.seconds for r in done),
        statistics.median(r.cpu for r in done),
        max(r.peak_mb for r in done),
        runs,
    )


def _table(rows: list[Measured]) -> None:
    print(
        f"{'scenario':<12} {'what':<56} {'wall s':>7} {'cpu s':>7} {'target':>7} "
        f"{'peak MB':>8} {'target':>7} {'runs':>4}  ok"
    )
    for m in rows:
        mb = f"< {m.sc.max_mb:.0f}" if m.sc.max_mb else "-"
        print(
            f"{m.sc.name:<12} {m.sc.what:<56} {m.secs:>7.3f} {m.cpu:>7.3f} "
            f"{'< ' + format(m.sc.max_s, 'g'):>7} {m.peak:>8.1f} {mb:>7} {m.runs:>4}  "
            f"{'yes' if m.ok else 'MISSED'}",
            flush=True,
        )


def scaling(p: dict[str, Callable[[], Path]], base: Measured, runs: int) -> int:
    """Doubling the assertions (1M spans) adds < 15%; doubling the spans at most doubles."""
    more_asserts = measure(
        Scenario("x", "", _grade("mix_2000_s1", "trace_1m", "turns_1k", p), 0), runs
    )
    more_spans = measure(
        Scenario("x", "", _grade("mix_1000_s1", "trace_2m", "turns_1k", p), 0), runs
    )
    checks = [
        ("2x assertions (2,000) at 1M spans", more_asserts, 1.15),
        ("2x spans (2M) with 1,000 assertions", more_spans, 2.0),
    ]
    missed = 0
    print(f"\nscaling against mix-1m-s1 ({base.secs:.3f} s wall, {base.cpu:.3f} s cpu):")
    for what, m, limit in checks:
        ratio, cpu_ratio = m.secs / base.secs, m.cpu / base.cpu
        ok = ratio < limit
        missed += not ok
        print(
            f"  {what:<38} {m.secs:>7.3f} s  x{ratio:.2f} wall (x{cpu_ratio:.2f} cpu)  "
            f"target < x{limit:g}  peak {m.peak:.0f} MB  {'yes' if ok else 'MISSED'}",
            flush=True,
        )
    return missed


def _floor() -> float:
    """The start-up no hotato change can remove: the interpreter and the chosen libraries."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import click, yaml, msgspec, re2"], env=CHILD_ENV, check=True
    )
    return time.perf_counter() - started


def by_kind(p: dict[str, Callable[[], Path]], name: str, quick: bool) -> None:
    """Where the time goes, in-process: loading each input, then grading, summed per kind."""
    from hotato.engine.evaluate import Sources, grade
    from hotato.engine.loader import load_assertions
    from hotato.engine.plan import plan
    from hotato.engine.sources import open_trace
    from hotato.evidence.transcript import load_transcript
    from hotato.model.results import Result

    sc = next(s for s in scenarios(p, quick) if s.name == name)
    argv = sc.argv()
    opt = {argv[i]: argv[i + 1] for i in range(2, len(argv) - 1) if argv[i].startswith("--")}
    timings: dict[str, float] = {}

    def timed(label: str, fn: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        value = fn()
        timings[label] = timings.get(label, 0.0) + time.perf_counter() - started
        return value

    aset = timed("load assertions", lambda: load_assertions(opt["--assertions"]))
    trace = timed("load trace", lambda: open_trace(opt["--trace"])) if "--trace" in opt else None
    turns = (
        timed("load transcript", lambda: load_transcript(opt["--transcript"]))
        if "--transcript" in opt
        else None
    )
    order = timed("plan", lambda: plan(aset.specs, aset.origins))
    sources = Sources(trace=trace, transcript=turns)
    done: dict[str, Result] = {}
    each: dict[str, list[float]] = {}
    for spec in order:
        tag = str(spec.__struct_config__.tag)
        started = time.perf_counter()
        done[spec.id] = timed(f"grade {tag}", lambda spec=spec: grade(spec, sources, done))
        each.setdefault(tag, []).append(time.perf_counter() - started)
    print(
        f"\ncost per kind, {name} in-process. An index is charged to the first assertion that "
        "asks for it;\nthe median is what one more assertion of the kind costs (a kind that "
        "scans per assertion shows there)"
    )
    print(f"  {'phase or kind':<22} {'seconds':>8} {'asserts':>8} {'ms mean':>8} {'ms median':>9}")
    for label, secs in sorted(timings.items(), key=lambda kv: -kv[1]):
        times = each.get(label.removeprefix("grade "), [])
        n = len(times)
        mean = f"{1000 * secs / n:>8.3f}" if n else ""
        median = f"{1000 * statistics.median(times):>9.3f}" if n else ""
        print(f"  {label:<22} {secs:>8.3f} {n or '':>8} {mean:>8} {median}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated scenario names")
    parser.add_argument("--runs", type=int, default=3, help="runs per big scenario (median)")
    parser.add_argument("--small-runs", type=int, default=9, help="runs per small scenario")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one seed, one run per scenario, no 10k-assertion or scaling runs",
    )
    parser.add_argument(
        "--by-kind",
        metavar="SCENARIO",
        help="instead: time one scenario in-process, per phase and per kind",
    )
    args = parser.parse_args(argv)
    paths = inputs(args.quick)
    if args.by_kind:
        by_kind(paths, args.by_kind, args.quick)
        return 0
    runs = 1 if args.quick else args.runs
    small_runs = 3 if args.quick else args.small_runs
    chosen = set(args.only.split(",")) if args.only else None
    print(
        f"load average {os.getloadavg()[0]:.2f} at the start; mixes use `when:` as a string "
        "(hotato 1.x's form for one id) and as a list",
        flush=True,
    )
    rows: list[Measured] = []
    for sc in scenarios(paths, args.quick):
        if chosen is not None and sc.name not in chosen:
            continue
        rows.append(measure(sc, small_runs if sc.small else runs))
    _table(rows)
    missed = sum(not m.ok for m in rows)
    base = next((m for m in rows if m.sc.name == "mix-1m-s1"), None)
    if base is not None and not args.quick:
        missed += scaling(paths, base, runs)
    if chosen is None or "small" in chosen:
        floor = statistics.median(_floor() for _ in range(small_runs))
        print(
            f"floor: python importing click, yaml, msgspec and re2 alone takes {floor:.3f} s "
            "(median), before any hotato code"
        )
    if base is not None:
        by_kind(paths, "mix-1m-s1", args.quick)
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), load average "
        f"{os.getloadavg()[0]:.2f} at the end; whole processes, median wall and CPU time, "
        "peak memory of the process tree"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
