"""Prometheus metrics, in a registry of the server's own (two apps in one process never share
counters)."""

from __future__ import annotations

from typing import Any


class Metrics:
    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        r = self.registry
        self.received = Counter(
            "hotato_serve_calls_received", "Calls acknowledged and spooled", ["source"], registry=r
        )
        self.duplicates = Counter(
            "hotato_serve_calls_duplicate",
            "Calls received again (a retry) and not graded again",
            ["source"],
            registry=r,
        )
        self.rejected = Counter(
            "hotato_serve_requests_rejected",
            "Requests answered 4xx or 503, by reason",
            ["reason"],
            registry=r,
        )
        self.ignored = Counter(
            "hotato_serve_messages_ignored",
            "Vendor messages acknowledged that are not a call to grade",
            ["source"],
            registry=r,
        )
        self.graded = Counter("hotato_serve_calls_graded", "Calls graded", registry=r)
        self.refused = Counter(
            "hotato_serve_calls_refused", "Calls refused at grading (a refused row)", registry=r
        )
        self.failing = Counter(
            "hotato_serve_calls_failing", "Graded calls with a failing exit code", registry=r
        )
        self.assertion_failures = Counter(
            "hotato_serve_assertion_failures",
            "Calls failing each assertion",
            ["assertion"],
            registry=r,
        )
        self.lag = Histogram(
            "hotato_serve_grading_lag_seconds",
            "From acknowledgement to results committed",
            buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300),
            registry=r,
        )
        self.pending = Gauge(
            "hotato_serve_calls_pending", "Calls spooled and not yet graded", registry=r
        )
        self.open_traces = Gauge(
            "hotato_serve_otlp_calls_open", "OTLP calls still gathering spans", registry=r
        )
        self.pruned = Counter(
            "hotato_serve_spool_pruned",
            "Graded calls' bodies removed from the spool after --spool-keep",
            registry=r,
        )
        self.alerts = Counter(
            "hotato_serve_alerts", "Alerts sent, by outcome", ["outcome"], registry=r
        )

    def text(self) -> tuple[bytes, str]:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    def value(self, name: str, **labels: Any) -> float:
        got = self.registry.get_sample_value(name, labels or None)
        return got or 0.0
