"""OTLP/HTTP from the real OpenTelemetry exporter, and OTLP/JSON as LiveKit and Pipecat export
it: spans gathered per trace, the call closed by its root span or by the idle period."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from tests.serve.bodies import Server, call_rows

pytestmark = pytest.mark.slow
DATA = Path(__file__).parents[1] / "ingest" / "data" / "vendors"


def _export(
    url: str,
    *,
    ran: bool,
    session: str,
    end_root: bool = True,
    attributes: dict[str, str] | None = None,
    order: str = "A17",
) -> None:
    """A call as an agent framework traces it: a root session span holding a tool span and a
    turn, exported in two batches by the real OTLP/HTTP exporter."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "refund-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=url + "/v1/traces")))
    tracer = provider.get_tracer("agent")
    root = tracer.start_span(
        "conversation", attributes={"conversation.id": session, **(attributes or {})}
    )
    from opentelemetry import trace

    ctx = trace.set_span_in_context(root)
    tool = "issue_refund" if ran else "lookup_order"  # the other call only looked it up
    with tracer.start_as_current_span(
        f"execute_tool {tool}",
        context=ctx,
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.arguments": json.dumps({"order_id": order}),
        },
    ):
        pass
    if end_root:
        root.end()
    provider.shutdown()


def test_the_real_exporter_closes_a_call_with_its_root_span(
    tmp_path: Path, assertions: Path
) -> None:
    assertions.write_text(
        "version: 1\nassertions:\n  - {id: refund-tool-ran, kind: tool_call, name: issue_refund}\n"
    )
    srv = Server(tmp_path / "results", assertions, "--workers", "1").start()
    try:
        _export(srv.url, ran=True, session="otel-ok")
        _export(srv.url, ran=False, session="otel-claimed")
        srv.wait_graded(2)
        rows = {r["call_id"]: r for r in call_rows(srv.out)}
        assert rows["otel-ok"]["exit_code"] == 0
        assert rows["otel-claimed"]["exit_code"] == 1
        assert rows["otel-ok"]["agent"] == "refund-agent"
    finally:
        srv.stop()


def test_a_trace_without_its_root_closes_after_the_idle_period(
    tmp_path: Path, assertions: Path
) -> None:
    assertions.write_text(
        "version: 1\nassertions:\n  - {id: refund-tool-ran, kind: tool_call, name: issue_refund}\n"
    )
    srv = Server(tmp_path / "results", assertions, "--workers", "1", "--call-idle", "0.5").start()
    try:
        _export(srv.url, ran=True, session="never-ends", end_root=False)
        srv.wait_graded(1)
        (row,) = call_rows(srv.out)
        assert row["exit_code"] == 0  # named by its trace id: the root never came
        assert len(row["call_id"]) == 32
    finally:
        srv.stop()


@pytest.mark.parametrize("name", ["pipecat_1.14_otlp.json", "livekit_1.8_otlp.json"])
def test_otlp_json_from_pipecat_and_livekit(tmp_path: Path, name: str) -> None:
    assertions = tmp_path / "a.yaml"
    assertions.write_text(
        "version: 1\nassertions:\n  - {id: spoke, kind: count, span_type: tool_call, "
        "count: {min: 0}}\n"
    )
    srv = Server(tmp_path / "results", assertions, "--workers", "1").start()
    try:
        doc = json.loads((DATA / name).read_text())
        answer = httpx.post(srv.url + "/v1/traces", json=doc)
        assert (answer.status_code, answer.json()) == (200, {})
        again = httpx.post(srv.url + "/v1/traces", json=doc)  # an exporter's retry
        assert again.status_code == 200
        srv.wait_graded(1)
        (row,) = call_rows(srv.out)
        assert row["status"] == "graded", row["message"]
    finally:
        srv.stop()


def test_an_otlp_call_carries_its_variables(tmp_path: Path, assertions: Path) -> None:
    """`hotato.var.COLUMN` attributes, and `--var COLUMN=attr:NAME` for an attribute the
    stack already sets (Pipecat's additional_span_attributes land on the conversation span)."""
    assertions.write_text(
        "version: 1\nassertions:\n  - id: refund-tool-ran\n    kind: tool_call\n"
        "    name: issue_refund\n    args_subset: {order_id: '${call.order_id}'}\n"
        "  - {id: shop-known, kind: tool_call, name: '${call.shop}', count: {min: 0}}\n"
    )
    srv = Server(
        tmp_path / "results", assertions, "--workers", "1", "--var", "shop=attr:shop.name"
    ).start()
    try:
        shop = {"shop.name": "acme"}
        _export(
            srv.url, ran=True, session="var-ok", attributes={"hotato.var.order_id": "A17", **shop}
        )
        _export(
            srv.url,
            ran=True,
            session="var-other-order",
            attributes={"hotato.var.order_id": "B22", **shop},
        )
        _export(srv.url, ran=True, session="var-missing")  # no order id: refused, named
        srv.wait_graded(3)
        rows = {r["call_id"]: r for r in call_rows(srv.out)}
    finally:
        srv.stop()
    assert rows["var-ok"]["exit_code"] == 0
    assert dict(rows["var-ok"]["variables"]) == {"order_id": "A17", "shop": "acme"}
    assert rows["var-other-order"]["exit_code"] == 1  # B22 asked, A17 refunded
    assert rows["var-missing"]["status"] == "refused"
    assert "order_id" in rows["var-missing"]["message"]
