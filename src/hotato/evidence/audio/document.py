"""The timing document: hotato 1.x's event names and null meanings, one event per caller
onset, the whole call under the first event's `call` (where `--timing` readers find it)."""

from __future__ import annotations

from typing import Any

from hotato.evidence.audio.echo import Echo
from hotato.evidence.audio.events import Scored, Timeline

SCHEMA = "hotato.timing.v1"


def _sec(frames: int | None, hop: float) -> float | None:
    return None if frames is None else round(frames * hop, 3)


def event(ev: Scored, tl: Timeline, echo: Echo, requested: float | None) -> dict[str, Any]:
    hop = tl.hop
    did = ev.stop is not None
    tty = _sec(max(0, ev.stop - ev.onset), hop) if ev.stop is not None else None
    talk_over = round(ev.talk_over * hop, 3)
    onset = round(requested if requested is not None else ev.onset * hop, 3)
    signals: dict[str, Any] = {
        "barge_in": {"did_yield": did, "time_to_yield_sec": tty, "talk_over_sec": talk_over},
        "latency": {
            "response_gap_sec": _sec(ev.gap, hop),
            "premature_start_sec": _sec(ev.premature, hop),
        },
        "echo": echo_block(echo, hop),
    }
    if did:
        signals["resume"] = {
            "resumed": ev.resume is not None,
            "resume_gap_sec": (
                _sec(ev.resume - ev.stop, hop)
                if ev.resume is not None and ev.stop is not None
                else None
            ),
        }
    notes = (
        ""
        if ev.talking
        else "agent was not speaking at caller onset; did_yield is not meaningful here"
    )
    return {
        "event_id": f"onset-{ev.onset * hop:.2f}",
        "onset_sec": onset,
        "verdict": {"did_yield": did, "seconds_to_yield": tty, "talk_over_sec": talk_over},
        "measurements": {
            "caller_onset_sec": onset,
            "detected_caller_onset_sec": None if requested is not None else onset,
            "onset_requested_sec": requested,
            "agent_talking_at_onset": ev.talking,
            "agent_stop_sec": _sec(ev.stop, hop),
            "agent_response_onset_sec": _sec(ev.response, hop),
            "caller_turn_end_sec": _sec(ev.caller_end, hop),
            "hop_sec": hop,
            "notes": notes,
        },
        "signals": signals,
    }


def echo_block(echo: Echo, hop: float) -> dict[str, Any]:
    return {
        "echo_suspected": echo.suspected,
        "lag_sec": round(echo.lag_frames * hop, 3) if echo.suspected else None,
        "return_loss_db": round(-echo.gain_db, 1) if echo.suspected else None,
        "peak_sharpness": round(echo.sharpness, 1),
        "masked": echo.suspected,
    }


def unscorable_event(reason: str) -> dict[str, Any]:
    """The one event of a recording that cannot be scored: every figure null."""
    return {
        "event_id": "recording",
        "onset_sec": None,
        "scorable": False,
        "not_scorable_reason": reason,
        "verdict": {"did_yield": None, "seconds_to_yield": None, "talk_over_sec": None},
        "measurements": {"caller_onset_sec": None, "agent_talking_at_onset": None},
        "signals": {
            "barge_in": {"did_yield": None, "time_to_yield_sec": None, "talk_over_sec": None},
            "latency": {"response_gap_sec": None, "premature_start_sec": None},
        },
    }


def envelope(
    recording: dict[str, Any], events: list[dict[str, Any]], not_scorable: str | None
) -> dict[str, Any]:
    summary: dict[str, Any] = {"events": len(events)}
    if not_scorable is not None:
        summary["not_scorable"] = len(events)
    return {
        "schema": SCHEMA,
        "tool": "hotato",
        "schema_version": "1",
        "mode": "timing",
        "recording": recording,
        "summary": summary,
        "events": events,
    }
