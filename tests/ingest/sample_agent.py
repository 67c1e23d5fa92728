"""A small voice agent instrumented with the real OpenTelemetry SDK, exported as OTLP.

The exporter is the tests' own: it encodes finished spans with the OTLP protobuf encoder
(`opentelemetry.exporter.otlp.proto.common`) and writes them as the Collector file exporter
would: OTLP/JSON, one `{"resourceSpans": [...]}` document per export; raw protobuf bytes; and
4-byte length-prefixed protobuf frames.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import SpanKind


class OtlpFileExporter(SpanExporter):
    def __init__(self) -> None:
        self.batches: list[list[ReadableSpan]] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.batches.append(list(spans))
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def write_json_lines(self, path: Path) -> None:
        with path.open("w") as handle:
            for batch in self.batches:
                message = encode_spans(batch)
                handle.write(json.dumps(json_format.MessageToDict(message)) + "\n")

    def write_protobuf(self, path: Path) -> None:
        path.write_bytes(encode_spans([s for b in self.batches for s in b]).SerializeToString())

    def write_framed_protobuf(self, path: Path) -> None:
        with path.open("wb") as handle:
            for batch in self.batches:
                data = encode_spans(batch).SerializeToString()
                handle.write(len(data).to_bytes(4, "big") + data)


def run_sample_call() -> OtlpFileExporter:
    """One call: a lookup that returns, a refund that raises, an SMS with no recorded result,
    a handoff to billing, an HTTP request to the refunds API, and the caller hanging up."""
    exporter = OtlpFileExporter()
    provider = TracerProvider(
        resource=Resource.create(
            {
                "service.name": "sample-voice-agent",
                "vcs.ref.head.revision": "abc123def",
                "hotato.config_hash": "sha256:feedbeef",
            }
        )
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("sample-voice-agent")

    def tool(name: str, call_id: str, arguments: dict[str, object]) -> dict[str, object]:
        return {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.arguments": json.dumps(arguments),
        }

    with tracer.start_as_current_span(
        "invoke_agent support",
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": "conv-123",
            "gen_ai.agent.id": "agent-support-7",
        },
    ):
        with tracer.start_as_current_span("user_speaking"):
            pass
        with tracer.start_as_current_span(
            "execute_tool lookup_order",
            attributes=tool("lookup_order", "call_1", {"order_id": "A17"}),
        ) as span:
            span.set_attribute(
                "gen_ai.tool.call.result", json.dumps({"status": "shipped", "total": 42})
            )
            span.set_attribute("app.tags", ["vip", "repeat"])
        try:
            with tracer.start_as_current_span(
                "execute_tool issue_refund",
                attributes=tool("issue_refund", "call_2", {"order_id": "A17", "amount": 42}),
            ) as span:
                span.set_attribute("error.type", "PaymentDeclined")
                raise RuntimeError("card declined")
        except RuntimeError:
            pass
        sms = tool("send_sms", "call_3", {"to": "+15550100"})
        with tracer.start_as_current_span("execute_tool send_sms", attributes=sms):
            pass
        with tracer.start_as_current_span(
            "POST",
            kind=SpanKind.CLIENT,
            attributes={
                "http.request.method": "POST",
                "url.full": "https://api.example.test/refunds",
                "http.response.status_code": 201,
            },
        ):
            pass
        with tracer.start_as_current_span(
            "agent_handoff", attributes={"handoff.from": "triage", "handoff.to": "billing"}
        ):
            pass
        with tracer.start_as_current_span("agent_speaking"):
            pass
        with tracer.start_as_current_span(
            "call_ended", attributes={"call.ended_reason": "customer-ended-call"}
        ):
            pass
    provider.shutdown()
    return exporter
