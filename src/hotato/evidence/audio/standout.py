"""Caller runs that are the background, not speech: a swell of the noise the detector took for
speech stands only a few dB over the quiet around it; speech at any usable signal-to-noise
ratio stands well over it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotato.evidence.audio.deps import need
from hotato.evidence.audio.tracks import Runs, to_track

if TYPE_CHECKING:
    import numpy as np


def stand_out(runs: Runs, db: np.ndarray, margin_db: float, surround: int) -> Runs:
    """The runs whose 90th-percentile level stands `margin_db` or more over the median level
    of the non-speech frames within `surround` frames each side (a run with no such frames
    around it is kept: nothing says it is background)."""
    np_ = need("numpy")
    speech = to_track(runs, len(db))
    kept: Runs = []
    for s, e in runs:
        lo, hi = max(0, s - surround), min(len(db), e + surround)
        quiet = db[lo:hi][~speech[lo:hi]]
        if not len(quiet) or np_.percentile(db[s:e], 90) >= np_.median(quiet) + margin_db:
            kept.append((s, e))
    return kept


def near_loudest(runs: Runs, db: np.ndarray, within_db: float, sure: np.ndarray) -> Runs:
    """The runs whose 90th-percentile level comes within `within_db` of the loudest run's, or
    that hold a `sure` frame: a voice in the background (a television, people talking behind
    the caller) sits well under the caller's own speech on the same line."""
    np_ = need("numpy")
    if not runs:
        return runs
    peaks = [float(np_.percentile(db[s:e], 90)) for s, e in runs]
    top = max(peaks)
    return [
        (s, e)
        for (s, e), p in zip(runs, peaks, strict=True)
        if p >= top - within_db or sure[s:e].any()
    ]
