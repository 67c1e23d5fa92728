"""hotato 1.20's event, for `--compat 1.20`: one event at the first caller onset (or the
given one), its energy tracks and its rule (agent quiet for 0.2 s within 3 s of the onset
with the caller near). Kept so a team can reproduce the numbers its 1.x files were written
against; the default rule (events.py) is the one to trust."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hotato.evidence.audio.deps import need

if TYPE_CHECKING:
    import numpy as np

HANGOVER_SEC = 0.15


@dataclass(frozen=True)
class Tracks:
    """`active` carries each run's hangover (presence); `trimmed` ends each run at its last
    frame over the threshold (boundaries); `pad` is the hangover in frames."""

    active: np.ndarray
    trimmed: np.ndarray
    pad: int


def tracks(raw: np.ndarray, hop: float) -> Tracks:
    np_ = need("numpy")
    hang = round(HANGOVER_SEC / hop)
    n = len(raw)
    idx = np_.flatnonzero(raw)
    active = np_.zeros(n, dtype=bool)
    trimmed = np_.zeros(n, dtype=bool)
    if len(idx):
        # a frame is active when an energy frame lies at most `hang` frames before it
        last = np_.maximum.accumulate(np_.where(raw, np_.arange(n), -(10**9)))
        active = np_.arange(n) - last <= hang
        nxt = np_.minimum.accumulate(np_.where(raw, np_.arange(n), 10**9)[::-1])[::-1]
        trimmed = active & (nxt < 10**9) & (nxt - np_.arange(n) <= hang + 1)
        trimmed &= _same_run(active, nxt)
    return Tracks(active=active, trimmed=trimmed, pad=hang)


def _same_run(active: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """True where the next energy frame lies inside the same active run."""
    np_ = need("numpy")
    n = len(active)
    run_id = np_.cumsum(np_.concatenate(([1], (active[1:] != active[:-1]).astype(int))))
    safe = np_.minimum(nxt, n - 1)
    return (run_id[safe] == run_id) & (nxt < n)


def first_onset(active: np.ndarray, need_frames: int) -> int | None:
    run = 0
    for i, a in enumerate(active.tolist()):
        run = run + 1 if a else 0
        if run >= need_frames:
            return i - need_frames + 1
    return None


def score(caller: Tracks, agent: Tracks, hop: float, onset_sec: float | None) -> dict[str, object]:
    """The 1.20 event figures (seconds, rounded to the millisecond as 1.20 printed them)."""
    c_act, a_act = caller.active.tolist(), agent.active.tolist()
    c_tr, a_tr = caller.trimmed.tolist(), agent.trimmed.tolist()
    n = min(len(c_act), len(a_act))
    detected = first_onset(caller.active, max(1, round(0.05 / hop)))
    onset = onset_sec if onset_sec is not None else (detected * hop if detected is not None else -1)
    oi = max(0, min(round(onset / hop) if onset >= 0 else 0, n - 1))
    lookback = max(1, round(0.10 / hop))
    talking = any(a_act[max(0, oi - lookback) : oi + 1])
    yield_frames = max(1, round((0.20 + agent.pad * hop) / hop))
    grace = max(1, round(0.5 / hop))
    send = min(n, oi + round(3.0 / hop))
    did, tty, yidx = False, None, send
    i = oi
    while i < send:
        if a_tr[i]:
            i += 1
            continue
        q = i
        while q > 0 and not a_tr[q - 1]:
            q -= 1
        j = i
        while j < n and not a_tr[j]:
            j += 1
            if j - q >= yield_frames:
                break
        if j - q >= yield_frames and any(c_act[max(0, i - grace) : min(n, i + grace)]):
            did, yidx, tty = True, i, max(0.0, (i - oi) * hop)
            break
        i = j + 1
    end = yidx if did else send
    talk_over = sum(1 for k in range(oi, end) if c_tr[k] and a_tr[k]) * hop
    silence = max(1, round((0.20 + caller.pad * hop) / hop))
    turn_end = _turn_end(c_tr, oi, silence, n)
    r = oi
    while r < n and a_act[r]:
        r += 1
    while r < n and not a_act[r]:
        r += 1
    gap = premature = None
    if turn_end is not None and r < n:
        lead = turn_end - r
        if lead > round(0.05 / hop):
            premature = round(lead * hop, 3)
        else:
            premature, gap = 0.0, round(max(0, r - turn_end) * hop, 3)
    return {
        "onset": round(onset, 3) if onset >= 0 else None,
        "detected": None if detected is None else round(detected * hop, 3),
        "talking": talking,
        "did_yield": did,
        "time_to_yield": None if tty is None else round(tty, 3),
        "talk_over": round(talk_over, 3),
        "gap": gap,
        "premature": premature,
        "onset_frame": oi,
    }


def _turn_end(c_tr: list[bool], oi: int, silence: int, n: int) -> int | None:
    i = oi
    while i < n and not c_tr[i]:
        i += 1
    while i < n:
        if c_tr[i]:
            i += 1
            continue
        j = i
        while j < n and not c_tr[j]:
            j += 1
            if j - i >= silence:
                return i
        i = j
    return None
