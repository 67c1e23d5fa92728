"""Run a LiveKit Agents session (livekit-agents, from PyPI) with a fake LLM and write what
LiveKit itself records: its OpenTelemetry spans (OTLP/JSON and OTLP protobuf, through the
OpenTelemetry SDK's own encoder) and `make_session_report(session).to_dict()`.

Two sessions. A text session (`session.run`): the caller asks about an order (a tool that
returns a dict, which LiveKit stores as its Python repr), asks for a refund, the support agent
transfers to billing (a tool returning a new Agent: LiveKit's `update_agent`), billing's refund
tool raises `ToolError`, and the session
closes. A voice session: fake audio in and out, a fake streaming STT (an interim, then a
final transcript) and a fake TTS, so LiveKit records `user_turn`, `tts_request` and
`agent_speaking` as it does on a call. Run by `scripts/make_vendor_fixtures.py`; needs
`pip install -e '.[fixtures]'`.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from livekit import rtc
from livekit.agents import (
    Agent,
    AgentSession,
    RunContext,
    ToolError,
    function_tool,
    llm,
    stt,
    tts,
)
from livekit.agents.llm import ChatChunk, ChoiceDelta, FunctionToolCall
from livekit.agents.telemetry import set_tracer_provider
from livekit.agents.testing import fake_job_context
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS
from livekit.agents.voice import io
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


# --- a voice session ----------------------------------------------------------------------

RATE = 16000


class FakeSTTStream(stt.RecognizeStream):
    """After a few frames of caller audio: speech starts, an interim, the final, speech ends."""

    def __init__(self, *, owner: stt.STT, conn_options: Any, script: list[str]) -> None:
        super().__init__(stt=owner, conn_options=conn_options, sample_rate=RATE)
        self._script = script

    async def _run(self) -> None:
        frames = 0
        async for item in self._input_ch:
            if isinstance(item, self._FlushSentinel):
                continue
            frames += 1
            if frames == 5 and self._script:
                text = self._script.pop(0)
                kind = stt.SpeechEventType
                interim = [stt.SpeechData(language="en", text=text.split()[0])]
                final = [stt.SpeechData(language="en", text=text)]
                for event in (
                    stt.SpeechEvent(type=kind.START_OF_SPEECH),
                    stt.SpeechEvent(type=kind.INTERIM_TRANSCRIPT, alternatives=interim),
                    stt.SpeechEvent(type=kind.FINAL_TRANSCRIPT, alternatives=final),
                    stt.SpeechEvent(type=kind.END_OF_SPEECH),
                ):
                    self._event_ch.send_nowait(event)


class FakeSTT(stt.STT):
    def __init__(self, script: list[str]) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=True, interim_results=True))
        self._script = list(script)

    async def _recognize_impl(
        self, buffer: Any, *, language: Any = None, conn_options: Any = DEFAULT_API_CONNECT_OPTIONS
    ) -> Any:
        raise NotImplementedError

    def stream(
        self, *, language: Any = None, conn_options: Any = DEFAULT_API_CONNECT_OPTIONS
    ) -> stt.RecognizeStream:
        return FakeSTTStream(owner=self, conn_options=conn_options, script=self._script)


class FakeChunked(tts.ChunkedStream):
    async def _run(self, output_emitter: Any) -> None:
        output_emitter.initialize(
            request_id="fake", sample_rate=RATE, num_channels=1, mime_type="audio/pcm"
        )
        output_emitter.push(b"\0\0" * (RATE // 5))
        output_emitter.flush()


class FakeTTS(tts.TTS):
    def __init__(self) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=False), sample_rate=RATE, num_channels=1
        )

    def synthesize(
        self, text: str, *, conn_options: Any = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return FakeChunked(tts=self, input_text=text, conn_options=conn_options)


class Microphone(io.AudioInput):
    def __init__(self) -> None:
        super().__init__(label="fake-microphone")

    async def __anext__(self) -> rtc.AudioFrame:
        await asyncio.sleep(0.02)
        samples = RATE // 50
        return rtc.AudioFrame(b"\0\0" * samples, RATE, 1, samples)


class Speaker(io.AudioOutput):
    """Plays instantly: playback starts with the first frame and finishes after a flush."""

    def __init__(self) -> None:
        capabilities = io.AudioOutputCapabilities(pause=False)
        super().__init__(label="fake-speaker", capabilities=capabilities, sample_rate=RATE)
        self._pushed = 0.0

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        if self._pushed == 0.0:
            self.on_playback_started(created_at=time.time())
        self._pushed += frame.duration

    def flush(self) -> None:
        super().flush()
        played, self._pushed = self._pushed, 0.0
        asyncio.get_running_loop().call_later(
            0.05, lambda: self.on_playback_finished(playback_position=played, interrupted=False)
        )

    def clear_buffer(self) -> None:
        pass


async def _voice_call() -> None:
    replies: list[Reply] = [
        ("", [("lookup_order", '{"order_id": "A17"}', "call_lookup")]),
        ("Your order A17 has shipped.", []),
    ]
    session = AgentSession(
        llm=FakeLLM(replies), stt=FakeSTT(["Where is order A17?"]), tts=FakeTTS()
    )
    session.input.audio = Microphone()
    session.output.audio = Speaker()
    await session.start(Support())
    await asyncio.sleep(3)
    await session.aclose()


def _write(exporter: InMemorySpanExporter, json_path: Path, pb_path: Path | None) -> list[Path]:
    from google.protobuf.json_format import MessageToDict

    request = encode_spans(exporter.get_finished_spans())
    json_path.write_text(json.dumps(MessageToDict(request), indent=1) + "\n")
    if pb_path is None:
        return [json_path]
    pb_path.write_bytes(request.SerializeToString())
    return [json_path, pb_path]


def generate(out: Path) -> list[Path]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "fixture-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    set_tracer_provider(provider)
    report = asyncio.run(_call(exporter))
    provider.force_flush()
    written = _write(exporter, out / "livekit_1.8_otlp.json", out / "livekit_1.8_otlp.pb")
    path = out / "livekit_1.8_session_report.json"
    path.write_text(json.dumps(report, indent=1, default=str) + "\n")
    written.append(path)
    exporter.clear()
    asyncio.run(_voice_call())
    provider.force_flush()
    return [*written, *_write(exporter, out / "livekit_1.8_voice_otlp.json", None)]
