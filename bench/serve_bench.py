"""`hotato serve` under load: concurrent clients posting Vapi end-of-call reports (~23 KB) and,
optionally, OTLP batches from the real opentelemetry-exporter-otlp-proto-http exporter.

Prints calls/s acknowledged, ack p50/p99/max, every call's grading lag (from its
acknowledgement to the commit of the results part holding its row: the part file's time),
the server's memory (its processes' RSS) as calls go by, and the processor time each part
took (the clients, the receiver, the grading processes).

The clients share the machine with the server, so they are kept cheap: HTTP/1.1 keep-alive
over plain asyncio streams (`--httpx` uses httpx's AsyncClient instead, which costs about a
millisecond of processor per request more). Calls are paced on a schedule (`--rate`) and a
call's latency runs from its send to the end of its answer.

    .venv/bin/python bench/serve_bench.py --calls 10000 --clients 32 --rate 200 --otlp 200
    .venv/bin/python bench/serve_bench.py --calls 100000 --rate 200      # memory over 100k calls
    .venv/bin/python bench/serve_bench.py --calls 5000 --clients 16      # flat out
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.serve.bodies import ASSERTIONS, Server, vapi_body

TICK = os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            todo += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
        except OSError:
            continue
    return out


def rss_mib(pid: int) -> float:
    """RSS of the process and all its descendants."""
    total = 0
    for p in _tree(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def cpu_seconds(pid: int) -> float:
    """Processor time (user + system) of one process, its threads included."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def cpu_split(server: int) -> dict[str, float]:
    """The receiver's own processor time, and its descendants' (grading processes)."""
    return {
        "receiver": cpu_seconds(server),
        "grading": sum(cpu_seconds(p) for p in _tree(server)[1:]),
        "clients": cpu_seconds(os.getpid()),
    }


class Conn:
    """One keep-alive HTTP/1.1 connection, as little work per request as a client can do."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        self.writer.write(head + body)
        try:
            raw = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            self.writer = None
            raise
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        data = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            self.writer.close()
            self.writer = None
        return status, headers, data


async def drive(
    url: str,
    bodies: Iterator[tuple[str, bytes]],
    total: int,
    clients: int,
    pid: int,
    rate: float,
    use_httpx: bool,
) -> tuple[list[float], dict[str, float], int, list[tuple[int, float]]]:
    """Post every body; `rate` > 0 paces the calls at that many per second in total.
    Returns the latencies, each call's acknowledgement time (wall clock), the 503 answers and
    the server's RSS at every tenth of the calls."""
    latencies: list[float] = []
    acked: dict[str, float] = {}
    memory: list[tuple[int, float]] = []
    busy = 0
    step = max(1, total // 10)
    start = time.perf_counter()
    sent = 0
    host, port = url.split("//", 1)[1].split(":")

    async def client() -> None:
        nonlocal busy, sent
        conn = Conn(host, int(port))
        http = httpx.AsyncClient(timeout=30) if use_httpx else None
        try:
            for call_id, body in bodies:
                n = sent
                sent += 1
                if rate > 0:
                    await asyncio.sleep(max(0.0, start + n / rate - time.perf_counter()))
                while True:
                    t0 = time.perf_counter()
                    if http is not None:
                        answer = await http.post(url + "/vapi", content=body)
                        status, retry = answer.status_code, answer.headers.get("retry-after")
                    else:
                        status, headers, _ = await conn.post("/vapi", body)
                        retry = headers.get("retry-after")
                    if status == 503:
                        busy += 1
                        await asyncio.sleep(float(retry or "1") / 10)
                        continue
                    if status != 200:
                        raise RuntimeError(f"the server answered {status}")
                    latencies.append(time.perf_counter() - t0)
                    acked[call_id] = time.time()
                    if len(latencies) % step == 0:
                        memory.append((len(latencies), rss_mib(pid)))
                        mib = memory[-1][1]
                        print(f"  {len(latencies):>7} acknowledged, server RSS {mib:.0f} MiB")
                    break
        finally:
            if http is not None:
                await http.aclose()
            if conn.writer is not None:
                conn.writer.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, acked, busy, memory


def otlp_calls(url: str, n: int) -> float:
    """`n` calls, each a root span and four tool spans, exported with the real exporter."""
    import json

    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "bench-agent"}))
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=url + "/v1/traces"), max_export_batch_size=256)
    )
    tracer = provider.get_tracer("bench")
    t0 = time.perf_counter()
    for i in range(n):
        root = tracer.start_span(
            "conversation",
            attributes={"conversation.id": f"otlp-{i}", "hotato.var.order_id": "A17"},
        )
        ctx = trace.set_span_in_context(root)
        for k in range(4):
            with tracer.start_as_current_span(
                "execute_tool issue_refund",
                context=ctx,
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "issue_refund" if k == 0 else "lookup_order",
                    "gen_ai.tool.call.arguments": json.dumps({"order_id": "A17"}),
                },
            ):
                pass
        root.end()
    provider.shutdown()
    return time.perf_counter() - t0


def graded_count(url: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(url + "/metrics", timeout=30).text
    return sum(
        s.value
        for fam in text_string_to_metric_families(text)
        for s in fam.samples
        if s.name in ("hotato_serve_calls_graded_total", "hotato_serve_calls_refused_total")
    )


def commit_times(out: Path) -> dict[str, float]:
    """call id -> when the results part holding its row was committed (the part's time)."""
    import pyarrow.parquet as pq

    when: dict[str, float] = {}
    for part in (out / "calls").glob("part-*.parquet"):
        at = part.stat().st_mtime
        for call_id in pq.read_table(part, columns=["call_id"]).column(0).to_pylist():
            when[call_id] = at
    return when


def pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(len(values) * q))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--otlp", type=int, default=0, help="also export this many OTLP calls")
    ap.add_argument("--rate", type=float, default=0, help="calls/s in total (0: flat out)")
    ap.add_argument("--pad", type=int, default=60, help="turns of padding (60: ~23 KB bodies)")
    ap.add_argument("--httpx", action="store_true", help="clients built on httpx.AsyncClient")
    ap.add_argument("--serve-arg", action="append", default=[], help="a flag for hotato serve")
    args = ap.parse_args()
    print(f"load average at start {os.getloadavg()[0]:.2f} (1 min)")
    with tempfile.TemporaryDirectory(prefix="hotato-serve-bench-") as tmp:
        root = Path(tmp)
        (root / "a.yaml").write_text(ASSERTIONS)
        srv = Server(
            root / "results",
            root / "a.yaml",
            "--workers",
            str(args.workers),
            "--max-pending",
            "20000",
            *args.serve_arg,
        ).start()
        try:
            assert srv.proc is not None
            pid = srv.proc.pid
            size = len(vapi_body("bench-0000000", pad=args.pad))
            bodies = (
                (f"bench-{i:07d}", vapi_body(f"bench-{i:07d}", pad=args.pad, refund_ran=i % 5 != 0))
                for i in range(args.calls)
            )
            kind = "httpx" if args.httpx else "asyncio streams"
            print(
                f"{args.calls} Vapi reports of {size / 1024:.1f} KiB, {args.clients} clients "
                f"({kind}), {args.workers} grading processes"
            )
            print(f"server RSS at start {rss_mib(pid):.0f} MiB")
            cpu0 = cpu_split(pid)
            t0 = time.perf_counter()
            lat, acked, busy, memory = asyncio.run(
                drive(srv.url, bodies, args.calls, args.clients, pid, args.rate, args.httpx)
            )
            took = time.perf_counter() - t0
            load = os.getloadavg()[0]
            lat.sort()
            print(
                f"acknowledged {len(lat)} in {took:.1f} s: {len(lat) / took:.0f} calls/s; "
                f"ack p50 {pct(lat, 0.5) * 1000:.1f} ms, p99 {pct(lat, 0.99) * 1000:.1f} ms, "
                f"max {lat[-1] * 1000:.0f} ms; 503 answers {busy}; load average {load:.2f}"
            )
            expected = args.calls
            if args.otlp:
                spent = otlp_calls(srv.url, args.otlp)
                print(f"exported {args.otlp} OTLP calls (5 spans each) in {spent:.1f} s")
                expected += args.otlp
            while graded_count(srv.url) < expected:
                time.sleep(0.2)
            graded_at = time.perf_counter() - t0
            cpu1 = cpu_split(pid)
            when = commit_times(root / "results")
            lags = sorted(max(0.0, when[c] - at) for c, at in acked.items() if c in when)
            print(
                f"all {expected} graded {graded_at:.1f} s after the first call: "
                f"{expected / graded_at:.0f} calls/s end to end; grading lag of the "
                f"{len(lags)} Vapi calls p50 {pct(lags, 0.5):.2f} s, p99 {pct(lags, 0.99):.2f} s, "
                f"max {lags[-1]:.2f} s"
            )
            spent_cpu = {k: cpu1[k] - cpu0[k] for k in cpu0}
            print(
                "processor time: "
                + ", ".join(
                    f"{k} {v:.1f} s ({v / len(lat) * 1000:.2f} ms a call)"
                    for k, v in spent_cpu.items()
                )
            )
            print(
                "server RSS: "
                + ", ".join(f"{n} calls {m:.0f} MiB" for n, m in memory)
                + f"; at the end {rss_mib(pid):.0f} MiB"
            )
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
