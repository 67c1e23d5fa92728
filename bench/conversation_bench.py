"""Benchmark: `hotato test run --out` plus `hotato conversation verify` on a ~100 MB trace.

Each command runs as its own process, as a user runs it; the figures are whole-process wall
time (start-up and imports included), CPU time (user + system) and peak resident memory
(ru_maxrss of the child), for each command and for the two together ("together" peak is the
larger of the two: they run one after the other). Targets (issue 4): under 3 s of wall time
together and under 600 MB. On a busy machine wall time exceeds CPU time; the load average is
printed so a reader can tell.

    .venv/bin/python bench/conversation_bench.py            # ~100 MB trace
    .venv/bin/python bench/conversation_bench.py --mb 20    # a quicker run

Inputs are generated (deterministically) into bench/out/, which git ignores. Exit 0 when both
commands gave their expected exit codes and the targets hold, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "conversation"
TARGET_SECONDS = 3.0
TARGET_MB = 600.0

TEST_YAML = """\
kind: hotato.conversation-test
version: 1
id: bench-refund
agent: bench-agent
assertions:
  deterministic:
    - id: refund-tool-ran
      kind: tool_call
      name: issue_refund
      args_subset: {order_id: A-1001}
      dimension: outcome
    - id: lookup-then-refund
      kind: sequence
      steps: [{tool: lookup_order}, {tool: issue_refund}]
      dimension: conversation
    - id: refund-fast-enough
      kind: latency
      tool: issue_refund
      max_ms: 5000
      dimension: speech
    - id: no-unknown-tool
      kind: tool_call
      name: drop_database
      absent: true
      dimension: policy
    - id: refund-recorded
      kind: state
      resource: orders
      filters: {order_id: A-1001}
      expect: {refund_status: refunded}
      dimension: outcome
    - id: disclosure
      kind: phrase
      regex: "this call is recorded"
      role: agent
      dimension: policy
  rubric:
    - id: empathetic
      kind: judge_rubric
      criterion: "Did the agent acknowledge the caller's frustration?"
      dimension: conversation
success:
  required: [all_deterministic_assertions_pass]
"""

TOOLS = ("lookup_order", "check_inventory", "get_policy", "issue_refund", "send_email")


def write_trace(path: Path, megabytes: float, seed: int = 7) -> int:
    """A `hotato.voice_trace.v1` trace of about `megabytes` MB; returns the span count."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    meta = {
        "_meta": True,
        "schema": "hotato.voice_trace.v1",
        "call_id": "bench-call",
        "deployment": {"stack": "generic", "agent_id": "bench-agent"},
        "source": {"format": "conversation_bench.py"},
    }
    written, spans, t = 0, 0, 0.0
    with path.open("w", encoding="utf-8") as out:
        line = json.dumps(meta) + "\n"
        out.write(line)
        written += len(line)
        while written < target:
            t += 0.05
            kind = rng.random()
            if kind < 0.5:
                tool = TOOLS[rng.randrange(len(TOOLS))]
                span = {
                    "type": "tool_call",
                    "name": tool,
                    "start_sec": round(t, 3),
                    "end_sec": round(t + 0.2, 3),
                    "latency_ms": rng.randrange(50, 900),
                    "arguments": {"order_id": f"A-{rng.randrange(1000, 9999)}", "note": "x" * 40},
                    "result": {"status": "ok", "items": [rng.randrange(100) for _ in range(6)]},
                }
            else:
                span = {
                    "type": rng.choice(("agent_audio_active", "caller_audio_active")),
                    "start_sec": round(t, 3),
                    "end_sec": round(t + 1.0, 3),
                    "attributes": {"vad_confidence": round(rng.random(), 4)},
                }
            line = json.dumps(span) + "\n"
            out.write(line)
            written += len(line)
            spans += 1
        # The call the test looks for, near the end: found only by reading the whole trace.
        for tool, args in (("lookup_order", {"order_id": "A-1001"}), ("issue_refund", None)):
            t += 0.5
            span = {
                "type": "tool_call",
                "name": tool,
                "start_sec": round(t, 3),
                "end_sec": round(t + 0.4, 3),
                "latency_ms": 400,
                "arguments": args or {"order_id": "A-1001", "amount": 49.99},
                "result": {"status": "ok"},
            }
            out.write(json.dumps(span) + "\n")
            spans += 1
    return spans


def write_inputs(folder: Path, megabytes: float) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "test": folder / "bench-test.yaml",
        "trace": folder / "trace.jsonl",
        "transcript": folder / "transcript.json",
        "state": folder / "state.json",
    }
    files["test"].write_text(TEST_YAML, encoding="utf-8")
    files["transcript"].write_text(
        json.dumps(
            [
                {"role": "agent", "text": "Hi, this call is recorded.", "start": 0, "end": 2},
                {"role": "caller", "text": "Refund order A-1001 please.", "start": 2, "end": 4},
                {"role": "agent", "text": "Done: the refund is issued.", "start": 5, "end": 7},
            ]
        ),
        encoding="utf-8",
    )
    files["state"].write_text(
        json.dumps({"orders": [{"order_id": "A-1001", "refund_status": "refunded"}]}),
        encoding="utf-8",
    )
    marker = folder / ".trace-mb"
    if not (files["trace"].is_file() and marker.is_file() and marker.read_text() == str(megabytes)):
        spans = write_trace(files["trace"], megabytes)
        marker.write_text(str(megabytes))
        print(f"generated {files['trace']} ({spans} spans)")
    return files


@dataclass
class Measured:
    label: str
    code: int
    seconds: float
    cpu_seconds: float
    peak_mb: float
    stderr: str


def measure(label: str, argv: list[str], cwd: Path) -> Measured:
    """Run argv to completion; wall time and the child's own peak RSS (wait4's rusage)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=False
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    # Linux reports ru_maxrss in KiB (macOS in bytes).
    scale = 1024 if sys.platform != "darwin" else 1
    return Measured(
        label,
        proc.returncode,
        seconds,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss * scale / 1_000_000,
        err.decode(errors="replace"),
    )


def breakdown(files: dict[str, Path], artifact: Path) -> None:
    """In this process, phase by phase: where the run's time goes (CPU seconds, user + system)."""
    import resource

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    rows: list[tuple[str, float, float]] = []
    wall, used = time.perf_counter(), cpu()

    def lap(label: str) -> None:
        nonlocal wall, used
        now, spent = time.perf_counter(), cpu()
        rows.append((label, now - wall, spent - used))
        wall, used = now, spent

    from hotato.conversation.calls import CallFiles
    from hotato.conversation.document import run_document
    from hotato.conversation.runner import run_test
    from hotato.conversation.testfile import load_test
    from hotato.engine.evaluate import evaluate
    from hotato.runs.artifact import bind
    from hotato.runs.evidence import sources_of

    lap("imports")
    test = load_test(files["test"])
    lap("load the test file")
    sources = sources_of(str(files["trace"]), str(files["transcript"]), str(files["state"]))
    lap("read the trace, transcript, state")
    for spec in test.deterministic:
        evaluate([spec], sources)
        lap(f"  check {spec.id} ({spec.__struct_config__.tag})")
    run = run_test(test, sources, "bench-agent")
    lap("run_test (every check again, conditions)")
    doc = run_document(run)
    lap("the test-run document")
    if artifact.exists():
        shutil.rmtree(artifact)
    call = CallFiles(str(OUT), str(files["transcript"]), str(files["trace"]), str(files["state"]))
    origin = {"kind": "real"}
    bind(str(artifact), test.id, "bench-agent", "2026-01-01T00:00:00Z", origin, doc, call, None)
    lap("write the artifact (copy + hash)")
    print(f"\n{'phase (in one process)':<46} {'wall s':>8} {'cpu s':>8}")
    for label, w, c in rows:
        print(f"{label:<46} {w:>8.2f} {c:>8.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=100.0, help="trace size in MB (default 100)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="measure N times, keep the best (default 3)"
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="also time each phase of the run in-process"
    )
    args = parser.parse_args(argv)

    files = write_inputs(OUT, args.mb)
    artifact = OUT / "artifact"
    size = files["trace"].stat().st_size / 1_000_000
    print(f"trace: {files['trace']} ({size:.1f} MB)")
    py = sys.executable
    run_argv = [
        py, "-m", "hotato", "test", "run", str(files["test"]),
        "--agent", "bench-agent",
        "--trace", str(files["trace"]),
        "--transcript", str(files["transcript"]),
        "--state", str(files["state"]),
        "--out", str(artifact),
        "--created-at", "2026-01-01T00:00:00Z",
        "--format", "json",
    ]  # fmt: skip
    verify_argv = [py, "-m", "hotato", "conversation", "verify", str(artifact)]

    best: tuple[Measured, Measured] | None = None
    for _ in range(max(1, args.repeat)):
        if artifact.exists():
            shutil.rmtree(artifact)
        ran = measure("test run --out", run_argv, OUT)
        verified = measure("conversation verify", verify_argv, OUT)
        if best is None or ran.seconds + verified.seconds < best[0].seconds + best[1].seconds:
            best = (ran, verified)
    assert best is not None
    ran, verified = best

    print(f"{'command':<22} {'exit':>4} {'wall s':>8} {'cpu s':>8} {'peak RSS MB':>12}")
    for m in (ran, verified):
        print(
            f"{m.label:<22} {m.code:>4} {m.seconds:>8.2f} {m.cpu_seconds:>8.2f} {m.peak_mb:>12.1f}"
        )
    total_s = ran.seconds + verified.seconds
    total_cpu = ran.cpu_seconds + verified.cpu_seconds
    peak = max(ran.peak_mb, verified.peak_mb)
    print(f"{'together':<22} {'':>4} {total_s:>8.2f} {total_cpu:>8.2f} {peak:>12.1f}")
    print(f"load average while measuring: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"targets: under {TARGET_SECONDS:.0f} s together, under {TARGET_MB:.0f} MB")

    if args.breakdown:
        breakdown(files, artifact)

    ok = True
    if ran.code != 0:
        print(f"test run exited {ran.code} (expected 0):\n{ran.stderr}")
        ok = False
    if verified.code != 0:
        print(f"conversation verify exited {verified.code} (expected 0):\n{verified.stderr}")
        ok = False
    if total_s >= TARGET_SECONDS or peak >= TARGET_MB:
        print("TARGET MISSED")
        ok = False
    else:
        print("targets met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
