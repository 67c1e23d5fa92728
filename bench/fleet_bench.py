"""Fleet grading at night scale: end-to-end time, per-call overhead, Dask, summaries, memory.

    .venv/bin/python bench/fleet_bench.py [--calls 10000] [--rows 10000000]

1. N demo-sized calls (each its own trace and transcript files, 10 assertions, one a state read
   of the demo's SQLite orders table through ${call.order_id}) graded by `fleet grade` on the
   local process pool (the machine's cores), end to end: manifest, grading, Parquet writes.
   Target: 10,000 calls under 60 s. The per-call overhead is the CPU time per call of
   `fleet grade --workers 1` (N/5 calls, manifest to Parquet) minus the Grader's own CPU time
   per call: CPU time, unlike wall time, holds on a machine others load.
2. The same calls on a two-worker Dask LocalCluster (warmed by a 100-call run first, as a
   long-lived cluster is). Target: within 1.3x of the local pool.
3. `fleet summary` over a results folder of R synthetic rows (10 parts). Target: 10M under 2 s.
4. Memory: the driver's peak RSS for N/5 and N calls at the same batch size. Target: the larger
   fleet needs less than 1.5x the smaller's (bounded by the batch, not the fleet).

Two focused modes, each alone:

    .venv/bin/python bench/fleet_bench.py --driver-rows 1000000 [--batch-size 500]
        the driver's peak RSS over a manifest of a million tiny calls, graded (manifest
        check, grading on the local pool, compaction) and then resumed. Target: < 300 MiB.
    .venv/bin/python bench/fleet_bench.py --calls 10000 --dask-rounds 3 [--batch-size 50]
        Dask against the local pool in turns on the same calls. Target: <= 1.3x.

Exit 0 when every target holds, 1 otherwise. Figures depend on the machine's load: the load
average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent / "src" / "hotato" / "demo"
ASSERTIONS = """\
version: 1
assertions:
  - {id: claimed, kind: phrase, regex: "refund .*(sent|issued)", role: agent}
  - id: looked-up
    kind: tool_call
    name: lookup_order
    args_subset: {order_id: "${call.order_id}"}
  - {id: refund-ran, kind: tool_call, name: issue_refund}
  - {id: refund-ok, kind: tool_result, name: issue_refund, result_subset: {status: refunded}}
  - id: recorded
    kind: state
    resource: orders
    filters: {order_id: "${call.order_id}"}
    expect: {refund_status: refunded}
  - {id: no-card, kind: pii, detectors: [card_luhn, ssn]}
  - {id: lookup-fast, kind: latency, tool: lookup_order, max_ms: 2000}
  - {id: ended, kind: termination}
  - {id: apology-first, kind: order, before: sorry, after: refund, role: agent}
  - {id: few-lookups, kind: count, tool: lookup_order, count: {max: 3}}
"""


def make_calls(root: Path, n: int) -> Path:
    trace = (DEMO / "trace.jsonl").read_bytes()
    transcript = (DEMO / "transcript.json").read_bytes()
    lines = []
    for i in range(n):
        folder = root / "calls" / f"{i // 1000:03d}" / f"c{i:06d}"
        folder.mkdir(parents=True)
        (folder / "trace.jsonl").write_bytes(trace)
        (folder / "transcript.json").write_bytes(transcript)
        rel = folder.relative_to(root)
        lines.append(
            json.dumps(
                {
                    "call_id": f"c{i:06d}",
                    "trace": f"{rel}/trace.jsonl",
                    "transcript": f"{rel}/transcript.json",
                    "agent": f"v{i % 3}",
                    "started_at": f"2026-11-{1 + i % 28:02d}T03:00:00Z",
                    "order_id": "A-3090" if i % 2 else "A-3091",
                }
            )
        )
    manifest = root / f"calls-{n}.jsonl"
    manifest.write_text("\n".join(lines) + "\n")
    (root / "assertions.yaml").write_text(ASSERTIONS)
    return manifest


def grade_cli(root: Path, manifest: Path, out: Path, *extra: str) -> tuple[float, int, float]:
    """Wall seconds, the driver's peak RSS (KiB) and its CPU seconds (a pool's workers are
    the fork server's children, not counted here) of one `fleet grade` process."""
    argv = [
        sys.executable,
        "-c",
        (
            "import resource, sys\n"
            "from hotato.cli.main import main\n"
            "try:\n    main(sys.argv[1:])\n"
            "except SystemExit:\n"
            "    me = resource.getrusage(resource.RUSAGE_SELF)\n"
            "    kids = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "    cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime\n"
            "    print('RSS', me.ru_maxrss, cpu, file=sys.stderr)\n"
            "    raise\n"
        ),
        "fleet",
        "grade",
        str(manifest),
        "--assertions",
        str(root / "assertions.yaml"),
        "--state",
        str(DEMO / "orders.sqlite"),
        "--out",
        str(out),
        "--quiet",
        *extra,
    ]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"fleet grade failed ({done.returncode}): {done.stderr}")
    _, rss, cpu = next(x.split() for x in done.stderr.splitlines() if x.startswith("RSS"))
    return wall, int(rss), float(cpu)


def grader_per_call(root: Path, calls: int = 300) -> float:
    from hotato.fleet.variables import Binder
    from hotato.fleet.worker import Job, decode_job
    from hotato.runs.grader import Grader

    text = (root / "assertions.yaml").read_text()
    aset = decode_job(Job("", "assertions", "assertions.yaml", text))
    grader = Grader(aset, state=str(DEMO / "orders.sqlite"))
    binder = Binder(aset, ["order_id"])
    trace, transcript = str(DEMO / "trace.jsonl"), str(DEMO / "transcript.json")
    start = time.process_time()
    for i in range(calls):
        bound = binder.bind({"order_id": "A-3090" if i % 2 else "A-3091"})
        grader.grade(trace=trace, transcript=transcript, assertions=bound)
    return (time.process_time() - start) / calls


def fleet_per_call(root: Path, manifest: Path) -> float:
    """CPU seconds per call of `fleet grade --workers 1` in this process: manifest, digests,
    variables, grading and the Parquet writes (a pool's workers' CPU is not this process's
    to count)."""
    from hotato.fleet.grade import FleetRequest, grade_fleet

    calls = sum(1 for _ in manifest.open())
    start = time.process_time()
    grade_fleet(
        FleetRequest(
            calls=str(manifest),
            out=str(root / "out-inprocess"),
            assertions=str(root / "assertions.yaml"),
            state=str(DEMO / "orders.sqlite"),
            workers=1,
        )
    )
    return (time.process_time() - start) / calls


def dask_cluster(root: Path, manifest: Path) -> float:
    import dask
    from distributed import LocalCluster

    # The workers' statistical profiler samples the running task's stack every 10 ms: about
    # 0.4 ms of CPU per call here, for a dashboard a fleet run does not need (docs/scale.md).
    dask.config.set({"distributed.worker.profile.enabled": False})

    with LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None, processes=True
    ) as cluster:
        # A cluster outlives one night: its workers have imported hotato and opened their
        # grader before the timed run, as the local pool's start-up is timed with it.
        warm = make_calls(root / "warm", 100)
        grade_cli(
            root / "warm", warm, root / "warm" / "out", "--scheduler", cluster.scheduler_address
        )
        wall, _, _ = grade_cli(
            root, manifest, root / "out-dask", "--scheduler", cluster.scheduler_address
        )
    return wall


def dask_against_local(root: Path, calls: int, batch_size: int, rounds: int) -> bool:
    """The local pool and a warm two-worker Dask LocalCluster grading the same calls, taken in
    turns (local, Dask, local, Dask, ...) so both see the same load; the median ratio.
    Target: <= 1.3x at 10,000 calls."""
    import statistics

    import dask
    from distributed import LocalCluster

    dask.config.set({"distributed.worker.profile.enabled": False})
    manifest = make_calls(root, calls)
    extra = ("--batch-size", str(batch_size))
    ratios = []
    with LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None, processes=True
    ) as cluster:
        address = cluster.scheduler_address
        warm = make_calls(root / "warm", 100)
        grade_cli(root / "warm", warm, root / "warm" / "out", "--scheduler", address)
        for n in range(rounds):
            local, _, _ = grade_cli(root, manifest, root / f"local-{n}", *extra)
            remote, _, _ = grade_cli(
                root, manifest, root / f"dask-{n}", "--scheduler", address, *extra
            )
            ratios.append(remote / local)
            print(
                f"round {n + 1}: local pool {local:.1f} s, Dask {remote:.1f} s, "
                f"{remote / local:.2f}x (load average {os.getloadavg()[0]:.1f})"
            )
    ratio = statistics.median(ratios)
    print(
        f"Dask LocalCluster (2 workers) against the local pool, {calls:,} calls, batch "
        f"{batch_size}: {ratio:.2f}x (median of {rounds})   [target: <= 1.3x]"
    )
    return ratio <= 1.3


def synthetic_results(root: Path, rows: int, parts: int = 10) -> Path:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from hotato.fleet.store import RunMeta, result_schema

    out = root / "big"
    (out / "results").mkdir(parents=True)
    (out / "calls").mkdir()
    (out / "fleet.json").write_text(
        json.dumps(
            {
                "run_id": "bench",
                "assertions": "a",
                "assertions_digest": "d",
                "calls": "c",
                "total": rows // 10,
            }
        )
    )
    del RunMeta
    per = rows // parts
    idx = pa.array(range(per), pa.int64())
    statuses = pa.array(["PASS", "FAIL", "INCONCLUSIVE", "PASS", "PASS"] * (per // 5 + 1))[:per]
    for p in range(parts):
        call = pc.binary_join_element_wise(f"p{p}-", pc.cast(pc.divide(idx, 10), pa.string()), "")
        assertion = pc.binary_join_element_wise(
            "a", pc.cast(pc.remainder(idx, 10), pa.string()), ""
        )
        n = len(idx)
        table = pa.table(
            {
                "run_id": pa.array(["bench"] * n),
                "call_id": call,
                "input_digest": call,
                "assertion_id": assertion,
                "kind": pa.array(["tool_call"] * n),
                "dimension": pa.array(["outcome"] * n),
                "deterministic": pa.array([True] * n),
                "status": statuses,
                "reason": pa.array(["r"] * n),
                "skipped": pa.array([False] * n),
                "observed": pa.nulls(n, pa.string()),
                "evidence": pa.nulls(n, pa.list_(pa.string())),
                "agent": pc.binary_join_element_wise(
                    "v", pc.cast(pc.remainder(idx, 3), pa.string()), ""
                ),
                "started_at": pa.nulls(n, pa.timestamp("us", tz="UTC")),
                "variables": pa.nulls(n, pa.map_(pa.string(), pa.string())),
            },
            schema=result_schema(),
        )
        pq.write_table(table, out / "results" / f"part-{p:04d}.parquet", compression="zstd")
    return out


TINY_ASSERTIONS = """\
version: 1
assertions:
  - {id: thanked, kind: phrase, regex: "thanks?,? ${call.first_name}", role: agent}
"""


def tiny_calls(root: Path, n: int) -> Path:
    """A manifest of `n` tiny calls: one shared two-turn transcript, a first name each, three
    agents over 28 days. Written as it streams: the bench holds no list of the rows."""
    root.mkdir(parents=True, exist_ok=True)
    transcript = root / "transcript.json"
    transcript.write_text(
        json.dumps(
            [
                {"role": "caller", "text": "hi, it's Sam", "start": 0.0, "end": 1.0},
                {"role": "agent", "text": "thanks, Sam", "start": 1.2, "end": 2.0},
            ]
        )
    )
    (root / "assertions.yaml").write_text(TINY_ASSERTIONS)
    manifest = root / f"tiny-{n}.jsonl"
    with manifest.open("w") as handle:
        for i in range(n):
            row = {
                "call_id": f"t{i:07d}",
                "transcript": "transcript.json",
                "agent": f"v{i % 3}",
                "started_at": f"2026-11-{1 + i % 28:02d}T03:00:00Z",
                "first_name": "Sam" if i % 10 else "Kim",
            }
            handle.write(json.dumps(row) + "\n")
    return manifest


def driver_memory(root: Path, rows: int, batch_size: int) -> bool:
    """The driver's peak RSS over a whole `fleet grade` of `rows` tiny calls (manifest check,
    grading on the local pool, compaction), then over the same command again (every call
    already done: the resume path reads the index of `rows` calls and hands every row to a
    worker, which re-digests its inputs). Target: under 300 MiB at 1,000,000 rows."""
    manifest = tiny_calls(root, rows)
    out = root / "out"
    extra = ("--batch-size", str(batch_size))
    wall, rss, _ = grade_cli(root, manifest, out, *extra)
    files = sum(1 for _ in out.rglob("*.parquet"))
    print(
        f"driver peak RSS, {rows:,} tiny calls graded (batch {batch_size}): {rss / 1024:.0f} MiB "
        f"in {wall:.0f} s, {files} Parquet files after compaction   [target: < 300 MiB]"
    )
    again, resumed, _ = grade_cli(root, manifest, out, *extra)
    print(
        f"driver peak RSS, the same {rows:,} calls resumed (all done): {resumed / 1024:.0f} MiB "
        f"in {again:.0f} s   [target: < 300 MiB]"
    )
    return max(rss, resumed) < 300 * 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument(
        "--driver-rows",
        type=int,
        default=0,
        help="only measure the driver's memory over a manifest of this many tiny calls "
        "(1000000 for the figure in docs/scale.md)",
    )
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument(
        "--dask-rounds",
        type=int,
        default=0,
        help="only compare Dask with the local pool on --calls calls, this many rounds in turns",
    )
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    root = Path(tempfile.mkdtemp(prefix="hotato-fleet-bench-"))
    if args.driver_rows or args.dask_rounds:
        try:
            print(f"load average {os.getloadavg()[0]:.2f} on {cores} CPU(s)")
            if args.driver_rows:
                ok = driver_memory(root, args.driver_rows, args.batch_size)
            else:
                ok = dask_against_local(root, args.calls, args.batch_size, args.dask_rounds)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        print("targets met" if ok else "a target was missed")
        return 0 if ok else 1
    ok = True
    try:
        manifest = make_calls(root, args.calls)
        small = make_calls(root / "small", args.calls // 5)
        per_call = grader_per_call(root)
        in_process = fleet_per_call(root / "small", small)
        overhead = in_process - per_call
        wall, rss, _ = grade_cli(root, manifest, root / "out-local")
        print(f"load average {os.getloadavg()[0]:.2f} on {cores} CPU(s)")
        print(f"Grader alone: {per_call * 1000:.2f} ms CPU per call (10 assertions, SQLite state)")
        print(
            f"fleet grade in one process: {in_process * 1000:.2f} ms CPU per call; overhead "
            f"beyond grading {overhead * 1000:.2f} ms   [target: < 3 ms]"
        )
        print(
            f"local pool ({cores} workers): {args.calls} calls in {wall:.1f} s "
            f"({args.calls / wall:.0f} calls/s)   [target: < 60 s for 10,000]"
        )
        ok &= wall < 60 * args.calls / 10_000 and overhead < 0.003
        dask_wall = dask_cluster(root, manifest)
        ratio = dask_wall / wall
        print(
            f"Dask LocalCluster (2 workers): {dask_wall:.1f} s, {ratio:.2f}x the local pool"
            "   [target: <= 1.3x]"
        )
        ok &= ratio <= 1.3
        _, small_rss, _ = grade_cli(root / "small", small, root / "small" / "out")
        print(
            f"driver peak RSS: {small_rss / 1024:.0f} MiB for {args.calls // 5} calls, "
            f"{rss / 1024:.0f} MiB for {args.calls}   [target: < 1.5x]"
        )
        ok &= rss < 1.5 * small_rss
        big = synthetic_results(root, args.rows)
        from hotato.fleet.summary import summarize

        laps = []
        for _ in range(3):
            start = time.perf_counter()
            summarize(str(big))
            laps.append(time.perf_counter() - start)
        best = sorted(laps)[1]
        print(
            f"fleet summary over {args.rows:,} rows: {best:.2f} s (median of 3)"
            "   [target: < 2 s for 10M]"
        )
        ok &= best < 2.0 * args.rows / 10_000_000
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("targets met" if ok else "a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
