"""Run a Pipecat 1.14 speech-to-speech pipeline (pipecat-ai's own `OpenAIRealtimeLLMService`,
from PyPI) against a fake OpenAI Realtime server written here, and write what Pipecat's own
tracing records (`traced_openai_realtime`, `traced_stt`, the turn observer) through the
OpenTelemetry SDK's OTLP encoder, as OTLP/JSON.

The fake server speaks the Realtime protocol's server events (parsed by Pipecat's own event
models): the agent greets, the caller asks about an order (server VAD, then the caller's
transcript), the model calls a tool, Pipecat runs it and sends the result, and the model
answers. Run by `scripts/make_vendor_fixtures.py pipecat-realtime`.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_EXPORTER = InMemorySpanExporter()
_PROVIDER = trace.get_tracer_provider()
if not isinstance(_PROVIDER, TracerProvider):  # the cascaded run may have set it already
    _PROVIDER = TracerProvider(resource=Resource.create({"service.name": "fixture-bot"}))
    trace.set_tracer_provider(_PROVIDER)  # before pipecat is imported: its tracers bind to this
_PROVIDER.add_span_processor(SimpleSpanProcessor(_EXPORTER))

import pipecat.services.openai.realtime.llm as realtime  # noqa: E402
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema  # noqa: E402
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema  # noqa: E402
from pipecat.frames.frames import EndFrame, LLMRunFrame  # noqa: E402
from pipecat.pipeline.pipeline import Pipeline  # noqa: E402
from pipecat.pipeline.runner import PipelineRunner  # noqa: E402
from pipecat.pipeline.worker import PipelineWorker  # noqa: E402
from pipecat.processors.aggregators.llm_context import LLMContext  # noqa: E402
from pipecat.processors.aggregators.llm_response_universal import (  # noqa: E402
    LLMContextAggregatorPair,
)
from pipecat.services.llm_service import FunctionCallParams  # noqa: E402

_AUDIO = base64.b64encode(b"\0\0" * 240).decode()
_USAGE = {"total_tokens": 30, "input_tokens": 20, "output_tokens": 10}


class FakeRealtimeServer:
    """A websocket the service connects to: it answers the client events Pipecat sends with
    the server events the Realtime API sends."""

    def __init__(self) -> None:
        self._inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._responses = 0
        self.answered = asyncio.Event()
        self.emit("session.created", session={"type": "realtime", "id": "sess_1"})

    def emit(self, type_: str, **fields: Any) -> None:
        self._inbox.put_nowait(
            json.dumps({"event_id": f"evt_{next(self._ids)}", "type": type_, **fields})
        )

    def __aiter__(self) -> FakeRealtimeServer:
        return self

    async def __anext__(self) -> str:
        message = await self._inbox.get()
        if message is None:
            raise StopAsyncIteration
        return message

    async def close(self) -> None:
        self._inbox.put_nowait(None)

    async def send(self, data: str) -> None:
        event = json.loads(data)
        if event["type"] == "session.update":
            self.emit("session.updated", session=event["session"])
        elif event["type"] == "response.create":
            self._responses += 1
            if self._responses == 1:
                self._speak("resp_1", "item_greet", "Hello, how can I help?")
            else:
                self._speak("resp_3", "item_answer", "Your order A17 has shipped.")
                self.answered.set()

    async def caller_asks(self) -> None:
        """Server VAD hears the caller, transcribes them and answers with a tool call."""
        self.emit("input_audio_buffer.speech_started", audio_start_ms=1000, item_id="item_user")
        await asyncio.sleep(0.3)
        self.emit("input_audio_buffer.speech_stopped", audio_end_ms=2500, item_id="item_user")
        await asyncio.sleep(0.2)
        user = {
            "id": "item_user",
            "type": "message",
            "role": "user",
            "content": [{"type": "input_audio"}],
        }
        self.emit("conversation.item.added", item=user)
        self.emit(
            "conversation.item.input_audio_transcription.completed",
            item_id="item_user",
            content_index=0,
            transcript="Where is order A17?",
        )
        await asyncio.sleep(0.2)
        call = {
            "id": "item_call",
            "type": "function_call",
            "call_id": "call_lookup",
            "name": "lookup_order",
            "arguments": '{"order_id": "A17"}',
        }
        self.emit("response.created", response={"id": "resp_2", "status": "in_progress"})
        self.emit("conversation.item.added", item={**call, "arguments": ""})
        self.emit(
            "response.function_call_arguments.done",
            response_id="resp_2",
            item_id="item_call",
            output_index=0,
            call_id="call_lookup",
            arguments=call["arguments"],
        )
        done = {"id": "resp_2", "status": "completed", "output": [call], "usage": _USAGE}
        self.emit("response.done", response=done)

    def _speak(self, response_id: str, item_id: str, words: str) -> None:
        self.emit("response.created", response={"id": response_id, "status": "in_progress"})
        item = {"id": item_id, "type": "message", "role": "assistant", "content": []}
        self.emit("conversation.item.added", item=item)
        where = {"response_id": response_id, "item_id": item_id, "output_index": 0}
        self.emit("response.output_audio.delta", content_index=0, delta=_AUDIO, **where)
        self.emit("response.output_audio_transcript.delta", content_index=0, delta=words, **where)
        said = {**item, "content": [{"type": "output_audio", "transcript": words}]}
        done = {"id": response_id, "status": "completed", "output": [said], "usage": _USAGE}
        self.emit("response.done", response=done)


async def lookup_order(params: FunctionCallParams) -> None:
    await params.result_callback({"status": "shipped"})


async def _call() -> None:
    server = FakeRealtimeServer()

    async def connect(uri: str, **_: Any) -> FakeRealtimeServer:
        return server

    realtime.websocket_connect = connect  # the service's own code, this server at the other end
    llm = realtime.OpenAIRealtimeLLMService(api_key="fixture")
    llm.register_function("lookup_order", lookup_order)
    schema = FunctionSchema(
        name="lookup_order",
        description="Look an order up.",
        properties={"order_id": {"type": "string"}},
        required=["order_id"],
    )
    context = LLMContext(
        [{"role": "system", "content": "You are support."}],
        tools=ToolsSchema(standard_tools=[schema]),
    )
    aggregators = LLMContextAggregatorPair(context)
    pipeline = Pipeline([aggregators.user(), llm, aggregators.assistant()])
    worker = PipelineWorker(
        pipeline, enable_tracing=True, conversation_id="conv-realtime", idle_timeout_secs=None
    )

    async def caller() -> None:
        await worker.queue_frame(LLMRunFrame())
        await asyncio.sleep(0.5)
        await server.caller_asks()
        await asyncio.wait_for(server.answered.wait(), timeout=30)
        await asyncio.sleep(0.3)
        await worker.queue_frame(EndFrame())

    runner = PipelineRunner(handle_sigint=False)
    await asyncio.gather(runner.run(worker), caller())


def generate(out: Path) -> list[Path]:
    asyncio.run(_call())
    _PROVIDER.force_flush()
    request = encode_spans(_EXPORTER.get_finished_spans())
    path = out / "pipecat_1.14_realtime_otlp.json"
    path.write_text(json.dumps(MessageToDict(request), indent=1) + "\n")
    return [path]
