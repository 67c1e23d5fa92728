"""`hotato serve` under load: concurrent clients posting Vapi end-of-call reports (~20 KB) and,
optionally, OTLP batches from the real opentelemetry-exporter-otlp-proto-http exporter.

Prints calls/s acknowledged, p50/p99 acknowledgement, grading lag (every call's, from the
server's own histogram), and the server's memory (its processes' RSS) as calls go by.

    .venv/bin/python bench/serve_bench.py --calls 5000 --clients 16
    .venv/bin/python bench/serve_bench.py --calls 20000 --rate 200   # the issue's target rate
    .venv/bin/python bench/serve_bench.py --calls 2000 --otlp 200
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.serve.bodies import ASSERTIONS, Server, vapi_body


def rss_mib(pid: int) -> float:
    """RSS of the process and all its descendants."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            todo += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
        except OSError:
            continue
    return total / 1024


async def drive(
    url: str, bodies: list[bytes], clients: int, pid: int, rate: float
) -> tuple[list[float], int]:
    """Post every body; `rate` > 0 paces the calls at that many per second in total."""
    latencies: list[float] = []
    busy = 0
    queue: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()
    for n, b in enumerate(bodies):
        queue.put_nowait((n, b))
    step = max(1, len(bodies) // 10)
    start = time.perf_counter()

    async def client() -> None:
        nonlocal busy
        async with httpx.AsyncClient(timeout=30) as http:
            while not queue.empty():
                n, body = queue.get_nowait()
                if rate > 0:
                    await asyncio.sleep(max(0.0, start + n / rate - time.perf_counter()))
                while True:
                    t0 = time.perf_counter()
                    answer = await http.post(url + "/vapi", content=body)
                    if answer.status_code == 503:
                        busy += 1
                        await asyncio.sleep(float(answer.headers.get("retry-after", "1")) / 10)
                        continue
                    answer.raise_for_status()
                    latencies.append(time.perf_counter() - t0)
                    if len(latencies) % step == 0:
                        print(
                            f"  {len(latencies):>7} acknowledged, server RSS {rss_mib(pid):.0f} MiB"
                        )
                    break

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, busy


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
        root = tracer.start_span("conversation", attributes={"conversation.id": f"otlp-{i}"})
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


def lag_figures(url: str) -> tuple[float, float, float]:
    """(calls graded or refused, the largest lag bucket bound holding all, mean lag)."""
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(url + "/metrics").text
    buckets: list[tuple[float, float]] = []
    count = total = done = 0.0
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name == "hotato_serve_grading_lag_seconds_bucket":
                buckets.append((float(s.labels["le"]), s.value))
            elif s.name == "hotato_serve_grading_lag_seconds_count":
                count = s.value
            elif s.name == "hotato_serve_grading_lag_seconds_sum":
                total = s.value
            elif s.name in ("hotato_serve_calls_graded_total", "hotato_serve_calls_refused_total"):
                done += s.value
    within = min((le for le, v in buckets if v >= count), default=float("inf"))
    return done, within, (total / count if count else 0.0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--otlp", type=int, default=0, help="also export this many OTLP calls")
    ap.add_argument("--rate", type=float, default=0, help="calls/s in total (0: flat out)")
    ap.add_argument("--pad", type=int, default=60, help="turns of padding (60: ~24 KB bodies)")
    args = ap.parse_args()
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
        ).start()
        try:
            assert srv.proc is not None
            pid = srv.proc.pid
            bodies = [
                vapi_body(f"bench-{i:07d}", pad=args.pad, refund_ran=i % 5 != 0)
                for i in range(args.calls)
            ]
            print(
                f"{args.calls} Vapi reports of {len(bodies[0]) / 1024:.1f} KiB, "
                f"{args.clients} clients, {args.workers} grading processes"
            )
            print(f"server RSS at start {rss_mib(pid):.0f} MiB")
            t0 = time.perf_counter()
            lat, busy = asyncio.run(drive(srv.url, bodies, args.clients, pid, args.rate))
            took = time.perf_counter() - t0
            lat.sort()
            print(
                f"acknowledged {len(lat)} in {took:.1f} s: {len(lat) / took:.0f} calls/s; "
                f"ack p50 {lat[len(lat) // 2] * 1000:.1f} ms, "
                f"p99 {lat[int(len(lat) * 0.99)] * 1000:.1f} ms; 503 answers {busy}"
            )
            expected = args.calls
            if args.otlp:
                spent = otlp_calls(srv.url, args.otlp)
                print(f"exported {args.otlp} OTLP calls (5 spans each) in {spent:.1f} s")
                expected += args.otlp
            while True:
                done, within, mean = lag_figures(srv.url)
                if done >= expected:
                    break
                time.sleep(0.5)
            graded_at = time.perf_counter() - t0
            print(
                f"all {int(done)} graded {graded_at:.1f} s after the first call: "
                f"{done / graded_at:.0f} calls/s end to end; lag mean {mean:.2f} s, "
                f"every call within {within:g} s"
            )
            print(f"server RSS at end {rss_mib(pid):.0f} MiB")
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
