"""Run a LiveKit Agents session (livekit-agents, from PyPI) with a fake LLM and write what
LiveKit itself records: its OpenTelemetry spans (OTLP/JSON and OTLP protobuf, through the
OpenTelemetry SDK's own encoder) and `make_session_report(session).to_dict()`.

The call: the caller asks about an order (a tool that returns a dict, which LiveKit stores as
its Python repr), asks for a refund, the support agent transfers to billing (a tool returning a
new Agent: LiveKit's `update_agent`), billing's refund tool raises `ToolError`, and the session
closes. Run by `scripts/make_vendor_fixtures.py`; needs `pip install -e '.[fixtures]'`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from livekit.agents import Agent, AgentSession, RunContext, ToolError, function_tool, llm
from livekit.agents.llm import ChatChunk, ChoiceDelta, FunctionToolCall
from livekit.agents.telemetry import set_tracer_provider
from livekit.agents.testing import fake_job_context
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

Reply = tuple[str, list[tuple[str, str, str]]]


class FakeStream(llm.LLMStream):
    """Streams one scripted reply: text, or tool calls."""

    def __init__(self, model: llm.LLM, reply: Reply, **kw: Any) -> None:
        super().__init__(model, **kw)
        self._reply = reply

    async def _run(self) -> None:
        text, calls = self._reply
        if text:
            delta = ChoiceDelta(role="assistant", content=text)
            self._event_ch.send_nowait(ChatChunk(id="fake", delta=delta))
        if calls:
            tool_calls = [FunctionToolCall(name=n, arguments=a, call_id=i) for n, a, i in calls]
            delta = ChoiceDelta(role="assistant", tool_calls=tool_calls)
            self._event_ch.send_nowait(ChatChunk(id="fake", delta=delta))


class FakeLLM(llm.LLM):
    def __init__(self, replies: list[Reply]) -> None:
        super().__init__()
        self._replies = list(replies)

    def chat(
        self,
        *,
        chat_ctx: Any,
        tools: Any = None,
        conn_options: Any = DEFAULT_API_CONNECT_OPTIONS,
        **_: Any,
    ) -> llm.LLMStream:
        reply = self._replies.pop(0) if self._replies else ("Goodbye.", [])
        return FakeStream(
            self, reply, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options
        )


class Billing(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="You are billing.")

    @function_tool
    async def issue_refund(self, order_id: str, amount: int) -> dict[str, Any]:
        """Refund an order."""
        raise ToolError("card declined")


class Support(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="You are support.")

    @function_tool
    async def lookup_order(self, order_id: str) -> dict[str, Any]:
        """Look an order up."""
        return {"status": "shipped", "total": 42}

    @function_tool
    async def transfer_to_billing(self, ctx: RunContext) -> tuple[Agent, str]:
        """Hand the caller to billing."""
        return Billing(), "Transferring you to billing."


SCRIPT: list[Reply] = [
    ("", [("lookup_order", '{"order_id": "A17"}', "call_lookup")]),
    ("Your order A17 has shipped.", []),
    ("", [("transfer_to_billing", "{}", "call_transfer")]),
    ("Let me transfer you.", []),
    ("", [("issue_refund", '{"order_id": "A17", "amount": 42}', "call_refund")]),
    ("Sorry, the refund failed.", []),
]
SAID = ["Where is order A17?", "I want a refund.", "Refund forty two dollars please."]


async def _call(exporter: InMemorySpanExporter) -> dict[str, Any]:
    with fake_job_context(job_id="AJ_fixture") as ctx:
        async with AgentSession(llm=FakeLLM(SCRIPT)) as session:
            await session.start(Support())
            for text in SAID:
                await session.run(user_input=text)
        return ctx.make_session_report(session).to_dict()


def generate(out: Path) -> list[Path]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "fixture-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    set_tracer_provider(provider)
    report = asyncio.run(_call(exporter))
    provider.force_flush()
    spans = exporter.get_finished_spans()
    request = encode_spans(spans)
    from google.protobuf.json_format import MessageToDict

    written = [
        out / "livekit_1.8_otlp.json",
        out / "livekit_1.8_otlp.pb",
        out / "livekit_1.8_session_report.json",
    ]
    written[0].write_text(json.dumps(MessageToDict(request), indent=1) + "\n")
    written[1].write_bytes(request.SerializeToString())
    written[2].write_text(json.dumps(report, indent=1, default=str) + "\n")
    return written
