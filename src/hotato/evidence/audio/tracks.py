"""Speech runs from per-frame decisions: gaps shorter than a bridge are closed (one
utterance, not two), runs shorter than a minimum are dropped (a click, not speech)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotato.evidence.audio.deps import need

if TYPE_CHECKING:
    import numpy as np

Runs = list[tuple[int, int]]  # [start, end) frame indices


def runs_of(active: np.ndarray) -> Runs:
    """The [start, end) runs of True frames."""
    np_ = need("numpy")
    a = np_.concatenate(([False], active.astype(bool), [False]))
    edges = np_.flatnonzero(a[1:] != a[:-1])
    return [(int(s), int(e)) for s, e in zip(edges[::2], edges[1::2], strict=True)]


def bridge(runs: Runs, max_gap: int) -> Runs:
    """Runs with gaps of at most `max_gap` frames closed."""
    out: Runs = []
    for s, e in runs:
        if out and s - out[-1][1] <= max_gap:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def drop_short(runs: Runs, min_len: int) -> Runs:
    return [(s, e) for s, e in runs if e - s >= min_len]


def with_edges(core: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Hysteresis: the runs of `edges` (a lower bar) that hold at least one `core` frame (the
    higher bar), whole; `core` frames are a subset of `edges` frames."""
    np_ = need("numpy")
    out = np_.zeros(len(edges), dtype=bool)
    for s, e in runs_of(edges):
        if core[s:e].any():
            out[s:e] = True
    return out


def absorb_fragments(runs: Runs, shortest: int, join_gap: int) -> Runs:
    """Runs shorter than `shortest` frames: joined to the run before when they start at most
    `join_gap` frames after it (the weak tail of a word), else dropped (a click)."""
    out: Runs = []
    for s, e in runs:
        if e - s >= shortest:
            out.append((s, e))
        elif out and s - out[-1][1] <= join_gap:
            out[-1] = (out[-1][0], e)
    return out


def backtrack(runs: Runs, sound: np.ndarray, most: int, keep: frozenset[int] = frozenset()) -> Runs:
    """Each run's start moved back over at most `most` frames of `sound` just before it (a
    weak first syllable the detector missed), never into the run before; starts in `keep`
    stay where they are."""
    out: Runs = []
    for s, e in runs:
        if s in keep:
            out.append((s, e))
            continue
        k, stop = s, max(out[-1][1] if out else 0, s - most)
        while k > stop and sound[k - 1]:
            k -= 1
        out.append((k, e))
    return out


def speech_runs(active: np.ndarray, *, bridge_frames: int, min_frames: int) -> Runs:
    """Runs of speech: short blips dropped first, then the gaps between words bridged."""
    return bridge(drop_short(runs_of(active), min_frames), bridge_frames)


def to_track(runs: Runs, n: int) -> np.ndarray:
    np_ = need("numpy")
    track = np_.zeros(n, dtype=bool)
    for s, e in runs:
        track[s:e] = True
    return track


def bridge_unquiet(runs: Runs, db: np.ndarray, quiet_db: float, max_gap: int) -> Runs:
    """Runs with gaps of at most `max_gap` frames closed when the gap does not go quiet (its
    median level stays at or over `quiet_db`): a stretch where the voice sank under the
    agent's echo or a background noise, not a pause the caller's line falls silent in."""
    np_ = need("numpy")
    out: Runs = []
    for s, e in runs:
        if out and s - out[-1][1] <= max_gap and np_.median(db[out[-1][1] : s]) >= quiet_db:
            out[-1] = (out[-1][0], e)
            continue
        out.append((s, e))
    return out
