"""Whole-call figures: response gaps, talk-over, longest silence (max / p50 / p90)."""

from __future__ import annotations

import math
from typing import Any

from hotato.evidence.audio.events import Scored, Timeline


def spread(values: list[float]) -> dict[str, Any]:
    """count, max, p50, p90 (nearest rank); null figures when there is no value."""
    if not values:
        return {"count": 0, "max": None, "p50": None, "p90": None}
    ordered = sorted(values)

    def rank(q: float) -> float:
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]

    return {
        "count": len(ordered),
        "max": round(ordered[-1], 3),
        "p50": round(rank(0.5), 3),
        "p90": round(rank(0.9), 3),
    }


def _longest_silence(tl: Timeline) -> float:
    """The longest stretch where neither side speaks, between the first and last speech."""
    spans = sorted(tl.caller + tl.agent)
    if not spans:
        return 0.0
    longest, reach = 0, spans[0][1]
    for s, e in spans[1:]:
        if s > reach:
            longest = max(longest, s - reach)
        reach = max(reach, e)
    return longest * tl.hop


def whole_call(tl: Timeline, scored: list[Scored]) -> dict[str, Any]:
    hop = tl.hop
    by_response: dict[int, Scored] = {}
    for ev in scored:  # one gap per agent response: from the caller's last run before it
        if ev.response is not None and ev.caller_end is not None:
            by_response[ev.response] = ev
    gaps = [ev.gap * hop for ev in by_response.values() if ev.gap is not None]
    premature = [ev.premature * hop for ev in by_response.values() if ev.premature not in (None, 0)]
    talking = [ev for ev in scored if ev.talking]
    stop_times = [max(0, ev.stop - ev.onset) * hop for ev in talking if ev.stop is not None]
    return {
        "events": [
            {
                "onset_sec": round(ev.onset * hop, 3),
                "agent_talking": ev.talking,
                "agent_stopped": ev.stop is not None if ev.talking else None,
                "time_to_stop_sec": (
                    round(max(0, ev.stop - ev.onset) * hop, 3) if ev.stop is not None else None
                ),
                "talk_over_sec": round(ev.talk_over * hop, 3),
                "gap_sec": None if ev.gap is None else round(ev.gap * hop, 3),
            }
            for ev in scored
        ],
        "figures": {
            "caller_onsets": len(scored),
            "onsets_over_agent": len(talking),
            "agent_stops": len(stop_times),
            "response_gap_sec": spread(gaps),
            "premature_start_sec": spread(premature),
            "talk_over_sec": spread([ev.talk_over * hop for ev in talking]),
            "stop_time_sec": spread(stop_times),
            "longest_silence_sec": round(_longest_silence(tl), 3),
            "caller_speech_sec": round(sum(e - s for s, e in tl.caller) * hop, 3),
            "agent_speech_sec": round(sum(e - s for s, e in tl.agent) * hop, 3),
        },
    }
