"""The text form of a timing document (`hotato timing score --format text`)."""

from __future__ import annotations

from typing import Any


def _s(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}s" if isinstance(value, float) else str(value)


def render(doc: dict[str, Any]) -> str:
    rec = doc.get("recording", {})
    lines = [
        f"{rec.get('file')}: {rec.get('duration_sec')} s, {rec.get('sample_rate')} Hz, "
        f"layout {rec.get('layout')}, vad {rec.get('vad')}, rule {rec.get('rule')}"
    ]
    events = doc.get("events", [])
    for ev in events:
        if ev.get("scorable") is False:
            lines.append(f"NOT SCORABLE: {ev.get('not_scorable_reason')}")
            return "\n".join(lines) + "\n"
    lines.append(f"{len(events)} caller onset(s)")
    lines.append("  onset    agent   stopped  to-stop  talk-over  gap")
    for ev in events:
        v, m = ev["verdict"], ev["measurements"]
        lat = ev["signals"]["latency"]
        talking = m.get("agent_talking_at_onset")
        stopped = ("yes" if v["did_yield"] else "no") if talking else "-"
        lines.append(
            f"  {ev['onset_sec']:>6.2f}  {'talking' if talking else 'quiet':<7} {stopped:<8} "
            f"{_s(v['seconds_to_yield']):<8} {_s(v['talk_over_sec']):<10} "
            f"{_s(lat['response_gap_sec'])}"
        )
    call = events[0].get("call") if events else None
    if call:
        f = call["figures"]
        gap, over = f["response_gap_sec"], f["talk_over_sec"]
        lines.append(
            f"whole call: response gap max {_s(gap['max'])} p50 {_s(gap['p50'])} "
            f"p90 {_s(gap['p90'])} ({gap['count']}); talk-over max {_s(over['max'])} "
            f"p90 {_s(over['p90'])}; longest silence {_s(f['longest_silence_sec'])}; "
            f"agent stopped {f['agent_stops']} of {f['onsets_over_agent']} onsets over it"
        )
    return "\n".join(lines) + "\n"
