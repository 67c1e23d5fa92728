"""Scoring every caller onset of a call from the two speech tracks.

The yield rule (docs/timing.md): the agent yielded to a caller onset when, while it was
talking at the onset, it went quiet within `search_sec`, stayed quiet for `stop_quiet_sec`
(sustained: a pause between its own sentences is shorter) and the caller held the floor
within `proximity_sec` of that moment. A stop followed by the same sentence resumed later
is still a stop: the agent gave up its turn."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from hotato.evidence.audio.rule import Rule
from hotato.evidence.audio.tracks import Runs


@dataclass(frozen=True)
class Scored:
    onset: int
    talking: bool
    stop: int | None  # frame the agent went quiet, when it yielded
    resume: int | None  # frame the agent spoke again after the stop
    talk_over: int  # frames both spoke, onset to stop (or to the end of the search)
    response: int | None  # the agent's next run start after the onset
    caller_end: int | None  # the caller's last speech before that start
    premature: int | None  # frames the agent's start led the caller's end
    gap: int | None  # frames from the caller's end to the agent's start


class Timeline:
    """Both channels' runs on the 10 ms frame grid, with the lookups the rule needs."""

    def __init__(self, caller: Runs, agent: Runs, n: int, hop: float, rule: Rule) -> None:
        self.caller, self.agent, self.n, self.hop, self.rule = caller, agent, n, hop, rule
        self._agent_starts = [s for s, _ in agent]
        self._caller_starts = [s for s, _ in caller]
        self._agent_ends = [e for _, e in agent]
        self._caller_ends = [e for _, e in caller]

    def frames(self, sec: float) -> int:
        return max(1, round(sec / self.hop))

    def onsets(self) -> list[int]:
        return list(self._caller_starts)

    def _agent_active_in(self, lo: int, hi: int) -> bool:
        i = bisect.bisect_left(self._agent_starts, hi)
        return any(e > lo for s, e in self.agent[max(0, i - 2) : i] if s < hi)

    def _caller_active_in(self, lo: int, hi: int) -> bool:
        i = bisect.bisect_left(self._caller_starts, hi)
        return any(e > lo for s, e in self.caller[max(0, i - 2) : i] if s < hi)

    def _overlap(self, lo: int, hi: int) -> int:
        """Frames in [lo, hi) where both speak."""
        total = 0
        k = bisect.bisect_right(self._caller_ends, lo)
        while k < len(self.caller) and self.caller[k][0] < hi:
            a, b = max(self.caller[k][0], lo), min(self.caller[k][1], hi)
            j = bisect.bisect_right(self._agent_ends, a)
            while j < len(self.agent) and self.agent[j][0] < b:
                total += max(0, min(self.agent[j][1], b) - max(self.agent[j][0], a))
                j += 1
            k += 1
        return total

    def _quiet_gaps(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """The agent's quiet runs starting in [lo, hi): (start, end), end = next speech."""
        gaps = []
        k = bisect.bisect_left(self._agent_ends, lo)
        while k < len(self.agent) and self._agent_ends[k] < hi:
            nxt = self.agent[k + 1][0] if k + 1 < len(self.agent) else self.n
            gaps.append((self._agent_ends[k], nxt))
            k += 1
        return gaps

    def score(self, onset: int) -> Scored:
        r, n = self.rule, self.n
        talking = self._agent_active_in(onset - self.frames(r.lookback_sec), onset + 1)
        search_end = min(n, onset + self.frames(r.search_sec))
        stop = resume = None
        if talking:
            quiet, near = self.frames(r.stop_quiet_sec), self.frames(r.proximity_sec)
            for start, end in self._quiet_gaps(onset - self.frames(r.lookback_sec), search_end):
                if end - start < quiet:
                    continue
                if self._caller_active_in(start - near, start + near):
                    stop, resume = start, (end if end < n else None)
                    break
        talk_over = self._overlap(onset, stop if stop is not None else search_end)
        j = bisect.bisect_right(self._agent_starts, onset)
        response = self._agent_starts[j] if j < len(self._agent_starts) else None
        caller_end = premature = gap = None
        if response is not None:
            k = bisect.bisect_left(self._caller_starts, response) - 1
            if k >= 0 and self.caller[k][0] >= onset:
                caller_end = self.caller[k][1]
                lead = caller_end - response
                if lead > round(r.premature_tolerance_sec / self.hop):
                    premature = lead
                else:
                    premature, gap = 0, max(0, response - caller_end)
        return Scored(
            onset=onset,
            talking=talking,
            stop=stop,
            resume=resume,
            talk_over=talk_over,
            response=response,
            caller_end=caller_end,
            premature=premature,
            gap=gap,
        )
