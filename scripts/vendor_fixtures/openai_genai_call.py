"""Run one tool-using turn of an OpenAI chat agent instrumented by OpenTelemetry's own GenAI
instrumentation (opentelemetry-instrumentation-openai-v2, with opentelemetry-util-genai's
`TelemetryHandler.tool` for the tools the application runs), and write what the real
OpenTelemetry SDK records, through its own OTLP encoder, as OTLP/JSON.

The model is faked at the HTTP layer (httpx.MockTransport answering the OpenAI client's own
requests), so no network and no key: it asks for two tools at once; `lookup_order` answers,
`issue_refund` raises (the payment gateway timed out), and the model then says so. Content
capture is on (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY`), as a team that
grades tool arguments would set it. Run by `scripts/make_vendor_fixtures.py openai-genai`;
needs a virtualenv of its own:

    python -m venv /tmp/fixenv-otel
    /tmp/fixenv-otel/bin/pip install 'opentelemetry-instrumentation-openai-v2==2.4b0' \
        'opentelemetry-util-genai==1.1b0' openai httpx opentelemetry-sdk \
        opentelemetry-exporter-otlp-proto-common
"""

from __future__ import annotations

import json
import os
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"

import httpx
import openai
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.util.genai.handler import TelemetryHandler

_TOOL_CALLS = [
    ("call_lookup", "lookup_order", {"order_id": "A17"}),
    ("call_refund", "issue_refund", {"order_id": "A17", "amount": 40}),
]


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fixture",
        "object": "chat.completion",
        "created": 1764547200,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 24, "total_tokens": 144},
    }


def _model(request: httpx.Request) -> httpx.Response:
    """The fake model: asks for both tools, then answers once their results are in."""
    sent = json.loads(request.content)
    if not any(m.get("role") == "tool" for m in sent["messages"]):
        calls = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in _TOOL_CALLS
        ]
        asked = {"role": "assistant", "content": None, "tool_calls": calls}
        body = _completion(asked, "tool_calls")
    else:
        said = "I found order A17, but the refund could not be issued: the payment timed out."
        body = _completion({"role": "assistant", "content": said}, "stop")
    return httpx.Response(200, json=body)


def _run_tool(name: str, arguments: dict[str, Any]) -> Any:
    if name == "lookup_order":
        return {"order_id": arguments["order_id"], "status": "charged_twice", "total": 40}
    raise TimeoutError("payment gateway timed out")


def generate(out: Path) -> list[Path]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "fixture-openai-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    handler = TelemetryHandler(tracer_provider=provider)
    client = openai.OpenAI(
        api_key="fixture-key",
        base_url="http://model.invalid/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(_model)),
    )
    tools = [
        {
            "type": "function",
            "function": {"name": n, "parameters": {"type": "object", "properties": {}}},
        }
        for _, n, _ in _TOOL_CALLS
    ]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a billing agent."},
        {"role": "user", "content": "I was charged twice for order A17; please refund 40."},
    ]
    asked = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    reply = asked.choices[0].message
    messages.append(reply.model_dump(exclude_none=True))
    for call in reply.tool_calls or []:
        arguments = json.loads(call.function.arguments)
        invocation = handler.tool(call.function.name)
        invocation.tool_call_id = call.id
        invocation.arguments = arguments
        try:
            with invocation:
                result = _run_tool(call.function.name, arguments)
                invocation.tool_result = result
            content = json.dumps(result)
        except TimeoutError as exc:
            content = json.dumps({"error": str(exc)})
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    OpenAIInstrumentor().uninstrument()
    spans = exporter.get_finished_spans()
    doc = MessageToDict(encode_spans(spans))
    release = version("opentelemetry-instrumentation-openai-v2")
    path = out / f"openai_v2_{release}_genai_otlp.json"
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return [path]
