"""The agent's voice leaking onto the caller channel (line echo, a speakerphone): found
by the caller channel's level following the agent's at a fixed delay, then masked frame by
frame where the caller channel is no louder than that echo would be."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hotato.evidence.audio.deps import need

if TYPE_CHECKING:
    import numpy as np

MAX_LAG_FRAMES = 40  # 0.4 s of echo path
MIN_CORRELATION = 0.3
MARGIN_DB = 9.0  # the caller must be this much over the predicted echo
TAIL_FRAMES = 4


@dataclass(frozen=True)
class Echo:
    suspected: bool
    lag_frames: int
    gain_db: float
    correlation: float


def estimate(caller_db: np.ndarray, agent_db: np.ndarray, agent_active: np.ndarray) -> Echo:
    """The delay and loss of the agent-to-caller echo path, from frames where the agent
    speaks; `suspected` when the caller channel's level tracks the agent's there."""
    np_ = need("numpy")
    n = min(len(caller_db), len(agent_db))
    best = Echo(False, 0, -120.0, 0.0)
    idx = np_.flatnonzero(agent_active[:n])
    if len(idx) < 50:
        return best
    for lag in range(MAX_LAG_FRAMES + 1):
        t = idx[idx + lag < n]
        if len(t) < 50:
            continue
        c, a = caller_db[t + lag], agent_db[t]
        if c.std() < 1e-6 or a.std() < 1e-6:
            continue
        r = float(np_.corrcoef(c, a)[0, 1])
        if r > best.correlation:
            gain = float(np_.median(c - a))
            best = Echo(r >= MIN_CORRELATION, lag, gain, r)
    return best


def mask(caller_db: np.ndarray, agent_db: np.ndarray, echo: Echo) -> np.ndarray:
    """True where the caller channel holds more than the agent's echo."""
    np_ = need("numpy")
    n = len(caller_db)
    if not echo.suspected:
        return np_.ones(n, dtype=bool)
    shifted = np_.full(n, -120.0)
    m = min(n - echo.lag_frames, len(agent_db))
    if m > 0:
        shifted[echo.lag_frames : echo.lag_frames + m] = agent_db[:m]
    # the echo's tail: the loudest recent agent frame, not only the current one
    peak = shifted.copy()
    for k in range(1, TAIL_FRAMES + 1):
        peak[k:] = np_.maximum(peak[k:], shifted[:-k] - 3.0 * k)
    peak[:-1] = np_.maximum(peak[:-1], shifted[1:])
    return caller_db >= peak + echo.gain_db + MARGIN_DB
