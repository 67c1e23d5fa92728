"""Speech rising out of a steady background inside one run: when the detector takes the
background for speech (a noise it cannot tell from a voice), the caller's words join that run
and their onset is lost. A sharp, sustained rise in level after a steady stretch starts a new
run there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotato.evidence.audio.deps import need
from hotato.evidence.audio.tracks import Runs

if TYPE_CHECKING:
    import numpy as np


def split_at_rises(
    runs: Runs, db: np.ndarray, rise_db: float, steady: int, flat_db: float, ahead: int
) -> Runs:
    """Each run split where the median level of the next `ahead` frames stands `rise_db` over
    the median of the `steady` frames before, those frames steady (their 90th and 10th
    percentile levels within `flat_db`) and inside the same run; the new run starts at the
    first frame that has risen half way."""
    np_ = need("numpy")
    n = len(db)
    if n < steady + ahead + 1:
        return runs
    windows = np_.lib.stride_tricks.sliding_window_view
    back = windows(db, steady)  # back[i] = db[i : i + steady]
    before = np_.median(back, axis=1)
    spread = np_.percentile(back, 90, axis=1) - np_.percentile(back, 10, axis=1)
    after = np_.median(windows(db, ahead), axis=1)  # after[k] = median of db[k : k + ahead]
    out: Runs = []
    for s, e in runs:
        start, k = s, s + steady
        while k < e - ahead:
            i = k - steady
            if k - start >= steady and spread[i] <= flat_db and after[k] - before[i] >= rise_db:
                j = k
                while j < e and db[j] < before[i] + rise_db / 2:
                    j += 1
                out.append((start, j))
                start, k = j, j + steady
                continue
            k += 1
        out.append((start, e))
    return out
