"""Whether a recording can be scored at all: two channels, both carrying speech, and not
the same signal twice. A recording that fails is unscorable with the reason, never
guessed at."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotato.evidence.audio.deps import need

if TYPE_CHECKING:
    import numpy as np

SILENT_PEAK_DBFS = -60.0
COPY_CORRELATION = 0.98


def channel_count_reason(channels: int) -> str | None:
    if channels < 2:
        return (
            "the recording is mono (one channel): the caller and the agent must be on separate "
            "channels, and hotato does not diarise a mixed recording"
        )
    return None


def silent_reason(role: str, db: np.ndarray) -> str | None:
    peak = float(db.max()) if len(db) else -120.0
    if peak < SILENT_PEAK_DBFS:
        return f"the {role} channel is silent (peak frame level {peak:.0f} dBFS)"
    return None


def copies_reason(a: np.ndarray, b: np.ndarray) -> str | None:
    """The channels carry the same signal (a mono mix written to both sides)."""
    np_ = need("numpy")
    x, y = a.astype(np_.float64), b.astype(np_.float64)
    if not len(x) or x.std() == 0 or y.std() == 0:
        return None
    r = float(np_.corrcoef(x, y)[0, 1])
    if r >= COPY_CORRELATION:
        return (
            f"the two channels are copies of each other (correlation {r:.3f}): a mixed "
            "recording split in two does not say who spoke when"
        )
    return None
