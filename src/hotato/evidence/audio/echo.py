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
MIN_SHARPNESS = 20.0  # the echo peak over the cross-correlation's median
MARGIN_DB = 12.0  # the caller must be this much over the predicted echo
TAIL_FRAMES = 12  # the echo tail: 0.12 s, 3 dB quieter per frame


@dataclass(frozen=True)
class Echo:
    suspected: bool
    lag_frames: int
    gain_db: float
    sharpness: float  # the cross-correlation peak over its median


def _delay(caller: np.ndarray, agent: np.ndarray, rate: int) -> tuple[int, float]:
    """The caller channel's delay behind the agent's (samples) and how sharp that peak is:
    the phase transform of their cross-spectrum, summed over one-second blocks where both
    channels carry sound (at most the first two minutes). A linear echo is a sharp peak;
    two independent voices are not."""
    np_ = need("numpy")
    size = 1 << int(np_.ceil(np_.log2(rate)))  # about a second
    step = size // 2
    total = None
    used = 0
    limit = min(len(caller), len(agent), 120 * rate)
    window = np_.hanning(size)
    for start in range(0, limit - size + 1, step):
        c = caller[start : start + size].astype(np_.float64)
        a = agent[start : start + size].astype(np_.float64)
        if not c.any() or not a.any():
            continue
        cross = np_.fft.rfft(c * window) * np_.conj(np_.fft.rfft(a * window))
        total = (
            cross / (np_.abs(cross) + 1e-12)
            if total is None
            else total + cross / (np_.abs(cross) + 1e-12)
        )
        used += 1
    if total is None or used < 2:
        return 0, 0.0
    gcc = np_.fft.irfft(total / used, n=size)
    lags = gcc[: int(MAX_LAG_FRAMES * 0.01 * rate) + 1]
    best = int(np_.argmax(lags))
    spread = float(np_.median(np_.abs(gcc))) + 1e-12
    return best, float(lags[best]) / spread


def estimate(
    caller_db: np.ndarray,
    agent_db: np.ndarray,
    agent_active: np.ndarray,
    caller: np.ndarray | None = None,
    agent: np.ndarray | None = None,
    rate: int = 16000,
) -> Echo:
    """The delay and loss of the agent-to-caller echo path; `suspected` when the caller
    channel carries a delayed copy of the agent's signal (a sharp cross-correlation peak).
    The loss is read from the quietest quarter of caller frames while the agent speaks
    (echo alone; the caller talking over it is louder)."""
    np_ = need("numpy")
    n = min(len(caller_db), len(agent_db))
    none = Echo(False, 0, -120.0, 0.0)
    if caller is None or agent is None:
        return none
    delay, sharpness = _delay(caller, agent, rate)
    lag = round(delay / (0.01 * rate))
    idx = np_.flatnonzero(agent_active[: n - lag]) if n > lag else np_.array([], dtype=int)
    if len(idx) < 20:
        return none
    diff = caller_db[idx + lag] - agent_db[idx]
    gain = float(np_.percentile(diff, 25))
    return Echo(sharpness >= MIN_SHARPNESS, lag, gain, round(sharpness, 1))


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
