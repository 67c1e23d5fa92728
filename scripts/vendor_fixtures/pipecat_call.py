"""Run a Pipecat 1.14 pipeline (pipecat-ai, from PyPI) with fake STT, LLM and TTS services and
write what Pipecat's own tracing records (its `traced_stt` / `traced_llm` / `traced_tts`
decorators and turn observer), through the OpenTelemetry SDK's own OTLP encoder, as OTLP/JSON
and OTLP protobuf.

The call: the caller's words arrive as a transcription the STT service never marks finalized
(as Deepgram's do) followed by its closing one; the LLM asks for a tool. Run by
`scripts/make_vendor_fixtures.py`; needs `pip install -e '.[fixtures]'`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
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
_PROVIDER = TracerProvider(resource=Resource.create({"service.name": "fixture-bot"}))
_PROVIDER.add_span_processor(SimpleSpanProcessor(_EXPORTER))
trace.set_tracer_provider(_PROVIDER)  # before pipecat is imported: its tracers bind to this

from pipecat.adapters.llm.schemas.function_schema import FunctionSchema  # noqa: E402
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema  # noqa: E402
from pipecat.frames.frames import (  # noqa: E402
    EndFrame,
    Frame,
    FunctionCallFromLLM,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline  # noqa: E402
from pipecat.pipeline.runner import PipelineRunner  # noqa: E402
from pipecat.pipeline.worker import PipelineWorker  # noqa: E402
from pipecat.processors.aggregators.llm_context import LLMContext  # noqa: E402
from pipecat.processors.aggregators.llm_response_universal import (  # noqa: E402
    LLMContextAggregatorPair,
)
from pipecat.services.llm_service import FunctionCallParams, LLMService  # noqa: E402
from pipecat.services.stt_service import STTService  # noqa: E402
from pipecat.services.tts_service import TTSService  # noqa: E402
from pipecat.utils.tracing.service_decorators import traced_llm, traced_stt, traced_tts  # noqa: E402


class FakeSTT(STTService):
    """Passes the transcriptions it is given on, as a streaming STT service pushes them."""

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame, None]:
        yield Frame()

    @traced_stt
    async def _handle_transcription(self, transcript: str, is_final: bool) -> None:
        """Pipecat's decorator installs the span lifecycle on this class's push_frame."""


class FakeLLM(LLMService):
    def __init__(self, script: list[tuple[str, list[tuple[str, str, dict[str, Any]]]]]) -> None:
        super().__init__()
        self._script = list(script)

    async def process_frame(self, frame: Frame, direction: Any) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextFrame):
            await self.push_frame(LLMFullResponseStartFrame())
            await self._process_context(frame.context)
            await self.push_frame(LLMFullResponseEndFrame())
        else:
            await self.push_frame(frame, direction)

    @traced_llm
    async def _process_context(self, context: LLMContext) -> None:
        text, calls = self._script.pop(0) if self._script else ("Goodbye.", [])
        if text:
            await self.push_frame(LLMTextFrame(text))
        if calls:
            await self.run_function_calls(
                [
                    FunctionCallFromLLM(
                        function_name=n, tool_call_id=i, arguments=a, context=context
                    )
                    for n, i, a in calls
                ]
            )


class FakeTTS(TTSService):
    def __init__(self) -> None:
        super().__init__(sample_rate=16000)

    @traced_tts
    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame, None]:
        yield TTSAudioRawFrame(
            audio=b"\0\0" * 160, sample_rate=16000, num_channels=1, context_id=context_id
        )


async def lookup_order(params: FunctionCallParams) -> None:
    await params.result_callback({"status": "shipped", "total": 42})


SCRIPT = [
    ("", [("lookup_order", "call_lookup", {"order_id": "A17"})]),
    ("Your order A17 has shipped.", []),
]


async def _call() -> None:
    llm = FakeLLM(SCRIPT)
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
    pipeline = Pipeline([FakeSTT(), aggregators.user(), llm, FakeTTS(), aggregators.assistant()])
    worker = PipelineWorker(
        pipeline, enable_tracing=True, conversation_id="conv-fixture", idle_timeout_secs=None
    )

    async def caller() -> None:
        await asyncio.sleep(0.3)
        stamp = "2025-12-01T00:00:00Z"
        await worker.queue_frames(
            [
                VADUserStartedSpeakingFrame(),
                UserStartedSpeakingFrame(),
                TranscriptionFrame("Where is order A17?", "caller", stamp, finalized=False),
                TranscriptionFrame("", "caller", stamp, finalized=True),
                UserStoppedSpeakingFrame(),
                VADUserStoppedSpeakingFrame(),
            ]
        )
        await asyncio.sleep(1.5)
        await worker.queue_frame(EndFrame())

    runner = PipelineRunner(handle_sigint=False)
    await asyncio.gather(runner.run(worker), caller())


def generate(out: Path) -> list[Path]:
    asyncio.run(_call())
    _PROVIDER.force_flush()
    request = encode_spans(_EXPORTER.get_finished_spans())
    written = [out / "pipecat_1.14_otlp.json", out / "pipecat_1.14_otlp.pb"]
    written[0].write_text(json.dumps(MessageToDict(request), indent=1) + "\n")
    written[1].write_bytes(request.SerializeToString())
    return written
