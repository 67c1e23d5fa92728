"""Which channel carries whom, per recording source. One table: a new source is one row."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    caller: int
    agent: int
    source: str


LAYOUTS: dict[str, Layout] = {
    "caller-left": Layout(0, 1, "caller on the left (first) channel, agent on the right"),
    "agent-left": Layout(1, 0, "agent on the left (first) channel, caller on the right"),
    "vapi": Layout(0, 1, "Vapi stereo recording: customer left, assistant right"),
    "retell": Layout(0, 1, "Retell multi-channel recording: user left, agent right"),
    "twilio": Layout(
        0, 1, "Twilio dual-channel: first channel the parent leg (the inbound caller)"
    ),
    "livekit": Layout(1, 0, "LiveKit dual-channel egress: agent left, participant right"),
    "pipecat": Layout(0, 1, "Pipecat AudioBufferProcessor: user left, bot right"),
}

NAMES: tuple[str, ...] = tuple(LAYOUTS)
