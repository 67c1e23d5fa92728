"""Run a Pipecat 1.14 pipeline (pipecat-ai, from PyPI) with fake STT, LLM and TTS services and
write what Pipecat's own tracing records (its `traced_stt` / `traced_llm` / `traced_tts`
decorators and turn observer), through the OpenTelemetry SDK's own OTLP encoder, as OTLP/JSON
and OTLP protobuf.

The call: the caller's words arrive as a transcription the STT service never marks finalized
(as Deepgram's do), so Pipecat closes the segment when the user stops speaking (`is_final`
false, `stt.incomplete`); the LLM asks for two tools at once, one answers and one raises; Pipecat
settles both and runs the LLM again with their results, and the call ends once that answer has
been spoken. Run by
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

    def __init__(self) -> None:
        super().__init__(ttfs_p99_latency=0.05)

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame, None]:
        yield Frame()

    @traced_stt
    async def _handle_transcription(self, transcript: str, is_final: bool) -> None:
        """Pipecat's decorator installs the span lifecycle on this class's push_frame."""


class FakeLLM(LLMService):
    def __init__(self, script: list[tuple[str, list[tuple[str, str, dict[str, Any]]]]]) -> None:
        super().__init__()
        self._script = list(script)
        self.answered = asyncio.Event()  # set once the last scripted reply has been produced

    async def process_frame(self, frame: Frame, direction: Any) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextFrame):
            await self.push_frame(LLMFullResponseStartFrame())
            await self._process_context(frame.context)
            await self.push_frame(LLMFullResponseEndFrame())
            if not self._script:
                self.answered.set()
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


async def send_sms(params: FunctionCallParams) -> None:
    raise ConnectionError("SMS gateway unreachable")


SCRIPT = [
    (
        "",
        [
            ("lookup_order", "call_lookup", {"order_id": "A17"}),
            ("send_sms", "call_sms", {"to": "+15550100", "body": "A17 shipped"}),
        ],
    ),
    ("Your order A17 has shipped. I could not send the text message.", []),
]


async def _call() -> None:
    llm = FakeLLM(SCRIPT)
    llm.register_function("lookup_order", lookup_order)
    llm.register_function("send_sms", send_sms)
    schemas = [
        FunctionSchema(
            name="lookup_order",
            description="Look an order up.",
            properties={"order_id": {"type": "string"}},
            required=["order_id"],
        ),
        FunctionSchema(
            name="send_sms",
            description="Text the caller.",
            properties={"to": {"type": "string"}, "body": {"type": "string"}},
            required=["to", "body"],
        ),
    ]
    context = LLMContext(
        [{"role": "system", "content": "You are support."}],
        tools=ToolsSchema(standard_tools=schemas),
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
                UserStoppedSpeakingFrame(),
                VADUserStoppedSpeakingFrame(),
            ]
        )
        # the tools' results, the second LLM run and its speech come before the call ends
        await asyncio.wait_for(llm.answered.wait(), timeout=30)
        await asyncio.sleep(0.3)
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
