"""The said-beside-done timeline: time order, lanes, and a long call cut without losing a cited
row."""

from __future__ import annotations

from hotato.model.evidence import Span, Trace, Transcript, Turn
from hotato.report.timeline import MAX_ROWS, Cite, build


def _trace(n: int) -> Trace:
    spans = [
        Span(type="tool_call", name=f"t{i}", start_sec=float(i), end_sec=i + 0.5, index=i)
        for i in range(n)
    ]
    spans.append(Span(type="agent_audio_active", start_sec=0.0, end_sec=1.0, index=n))
    spans.append(Span(type="call_ended", index=n + 1))  # untimed: last
    return Trace(meta={}, spans=spans)


def test_rows_interleave_in_time_order_untimed_last() -> None:
    turns = Transcript([Turn(0, "agent", "hello", 0.5, 0.9), Turn(1, "caller", "hi", 1.0, 1.2)])
    line = build(_trace(2), turns, {}, "p-")
    assert [(r.ref, r.lane) for r in line.rows] == [
        ("s_0", "done"),
        ("t_0", "said"),
        ("t_1", "said"),
        ("s_1", "done"),
        ("s_3", "done"),  # call_ended, untimed; the audio-activity span s_2 is left out
    ]
    assert line.rows[-1].time is None and line.duration == 1.5
    assert line.rows[0].anchor == "p-s_0" and line.rows[0].left == "0.00"


def test_a_long_call_keeps_its_first_rows_and_every_cited_row() -> None:
    cited = {"s_999": [Cite("p-check-0", "late", "FAIL")]}
    line = build(_trace(1000), None, cited, "p-")
    refs = [r.ref for r in line.rows]
    assert len(refs) == MAX_ROWS + 1 and refs[-1] == "s_999"
    assert line.rows[-1].cites[0].status == "FAIL"
    assert line.hidden == 1001 - MAX_ROWS - 1
