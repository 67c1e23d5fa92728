"""Benchmark: ingest a 1,000,000-span OTLP/JSON export; report time and peak memory.

Writes the export on the fly into a temporary folder (Collector file-exporter shape: one
`{"resourceSpans": [...]}` document per line, 1,000 spans per line), then runs the real CLI,
`python -m hotato trace ingest`, in a child process and reads its peak resident memory from
getrusage(RUSAGE_CHILDREN). A second child measures `load_any_trace` (the in-memory path that
`assert run --trace` uses).

    .venv/bin/python bench/ingest_bench.py [--spans N] [--per-line N] [--keep]
    .venv/bin/python bench/ingest_bench.py --vapi 2000   # serve-sized Vapi reports instead

`--vapi N` reads N Vapi end-of-call reports (~23 KB, built as `hotato serve`'s benchmark
builds them, validated by the vapi-server-sdk's model) with `load_call`, the call `hotato
serve`'s grader makes, and prints the processor time per report (the best of 5 rounds).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

T0 = 1_717_000_000_000_000_000
TOOLS = ("lookup_order", "issue_refund", "send_sms", "check_inventory")


def _kv(key: str, value: dict[str, object]) -> str:
    return json.dumps({"key": key, "value": value}, separators=(",", ":"))


_HTTP = ",".join(
    (
        _kv("http.request.method", {"stringValue": "POST"}),
        _kv("url.full", {"stringValue": "https://api.example.test/refunds"}),
        _kv("http.response.status_code", {"intValue": "201"}),
    )
)
# Per tool: the attributes before and after the per-span call id and arguments.
_TOOL = {
    tool: (
        ",".join(
            (
                _kv("gen_ai.operation.name", {"stringValue": "execute_tool"}),
                _kv("gen_ai.tool.name", {"stringValue": tool}),
            )
        )
        + ',{"key":"gen_ai.tool.call.id","value":{"stringValue":"call_',
        '"}},{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"{\\"order_id\\": ',
        '}"}},' + _kv("gen_ai.tool.call.result", {"stringValue": '{"ok": true}'}),
    )
    for tool in TOOLS
}


def _span(i: int) -> str:
    start = T0 + i * 1_000_000
    kind = i % 10
    if kind == 9:
        name, attrs = "user_speaking", ""
    elif kind == 8:
        name, attrs = "POST", _HTTP
    else:
        tool = TOOLS[i % len(TOOLS)]
        name = "execute_tool " + tool
        a, b, c = _TOOL[tool]
        attrs = f"{a}{i}{b}{i}{c}"
    return (
        f'{{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"{i:016x}",'
        f'"name":"{name}","kind":1,"startTimeUnixNano":"{start}",'
        f'"endTimeUnixNano":"{start + 250_000}","attributes":[{attrs}],"status":{{}}}}'
    )


_SLICE = 10_000


def write_export(path: Path, spans: int, per_line: int, sep: str = ",") -> None:
    """`per_line` spans per export document, one document per line; `sep` between spans
    (",\n" spreads each document over lines, as a pretty-printed export is)."""
    head = (
        '{"resourceSpans":[{"resource":{"attributes":['
        + _kv("service.name", {"stringValue": "bench-agent"})
        + ']},"scopeSpans":[{"scope":{"name":"bench"},"spans":['
    )
    with path.open("w") as handle:
        for first in range(0, spans, per_line):
            last = min(first + per_line, spans)
            # Each export batch is written newest-first, so the ingest really has to sort.
            # in slices, so writing one huge document costs the generator no memory (a child's
            # peak RSS as wait4 reports it starts from its parent's)
            handle.write(head)
            for top in range(last - 1, first - 1, -_SLICE):
                low = max(top - _SLICE, first - 1)
                handle.write(sep if top != last - 1 else "")
                handle.write(sep.join(_span(i) for i in range(top, low, -1)))
            handle.write("]}]}]}\n")


def run_child(argv: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds, peak RSS (KiB) and stdout of one child process.

    ru_maxrss of RUSAGE_CHILDREN is the largest of all waited-for children, so the ingest child
    runs first; the CPU figure is this child's alone (the difference of the running totals).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"child failed ({proc.returncode}): {proc.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, cpu, after.ru_maxrss, proc.stdout


_LOAD = """
import sys, time
from hotato.evidence.ingest import load_any_trace
t = time.perf_counter()
trace = load_any_trace(sys.argv[1])
print(len(trace.spans), round(time.perf_counter() - t, 2))
"""


def vapi(calls: int, pad: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.serve.bodies import vapi_body

    from hotato.evidence.ingest import load_call

    tmp = Path(tempfile.mkdtemp(prefix="hotato-ingest-bench-"))
    try:
        paths = []
        for i in range(calls):
            path = tmp / f"{i}.trace.json"
            path.write_bytes(vapi_body(f"bench-{i:07d}", pad=pad, refund_ran=i % 5 != 0))
            paths.append(path)
        size = paths[0].stat().st_size
        best = float("inf")
        for _ in range(5):
            started = time.process_time()
            spans = sum(len(load_call(p).trace.spans) for p in paths)
            best = min(best, time.process_time() - started)
        print(
            f"vapi load_call: {calls:,} reports of {size / 1024:.1f} KiB ({spans // calls} spans "
            f"each): {best / calls * 1000:.3f} ms CPU per report (best of 5)"
        )
    finally:
        for p in tmp.iterdir():
            p.unlink()
        os.rmdir(tmp)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPU(s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=1_000_000)
    parser.add_argument("--per-line", type=int, default=1_000)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument(
        "--load",
        action="store_true",
        help="also time load_any_trace (every span, in the native trace's store)",
    )
    parser.add_argument(
        "--vapi", type=int, metavar="N", help="time load_call on N Vapi end-of-call reports"
    )
    parser.add_argument("--pad", type=int, default=60, help="--vapi: turns of padding (~23 KB)")
    args = parser.parse_args()
    if args.vapi:
        vapi(args.vapi, args.pad)
        return
    tmp = Path(tempfile.mkdtemp(prefix="hotato-ingest-bench-"))
    try:
        src, out = tmp / "export.otlp.jsonl", tmp / "voice_trace.jsonl"
        started = time.perf_counter()
        write_export(src, args.spans, args.per_line)
        gen = time.perf_counter() - started
        print(
            f"input: {args.spans:,} OTLP spans, {src.stat().st_size / 1e6:,.1f} MB, "
            f"{args.spans // args.per_line:,} lines (generated in {gen:.1f} s)"
        )

        elapsed, cpu, peak_kib, _ = run_child(
            [sys.executable, "-m", "hotato", "trace", "ingest", str(src), "--out", str(out)]
        )
        written = sum(1 for _ in out.open("rb")) - 1
        print(
            f"trace ingest: {elapsed:.1f} s wall, {cpu:.1f} s CPU, "
            f"{args.spans / elapsed:,.0f} spans/s (wall), peak RSS {peak_kib / 1024:,.0f} MiB, "
            f"wrote {written:,} spans ({out.stat().st_size / 1e6:,.1f} MB)"
        )

        if args.load:
            elapsed, cpu, peak_kib, stdout = run_child([sys.executable, "-c", _LOAD, str(src)])
            count, inner = stdout.split()
            print(
                f"load_any_trace: {elapsed:.1f} s wall ({inner} s inside), {cpu:.1f} s CPU, "
                f"{int(count):,} spans in memory, peak RSS {peak_kib / 1024:,.0f} MiB"
            )
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            for p in tmp.iterdir():
                p.unlink()
            os.rmdir(tmp)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPU(s)")


if __name__ == "__main__":
    main()
