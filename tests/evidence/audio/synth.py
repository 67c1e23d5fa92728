"""Small stereo clips synthesised at test time: voiced, speech-like bursts (harmonics of a
gliding pitch, syllable-rate amplitude) placed on a caller and an agent channel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

RATE = 16000


def voice(seconds: float, f0: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * RATE)) / RATE
    pitch = f0 * (1 + 0.08 * np.sin(2 * np.pi * 1.3 * t))
    phase = 2 * np.pi * np.cumsum(pitch) / RATE
    x = sum(np.sin(k * phase) / k for k in range(1, 20))
    syllables = 0.55 + 0.45 * np.sin(2 * np.pi * 4.0 * t + rng.uniform(0, np.pi)) ** 2
    return 0.08 * x * syllables + 0.002 * rng.standard_normal(len(t))


def clip(
    path: Path,
    caller: list[tuple[float, float]],
    agent: list[tuple[float, float]],
    seconds: float = 5.0,
    subtype: str = "PCM_16",
) -> Path:
    """A caller-left stereo clip with speech at the given [start, end) seconds."""
    n = int(seconds * RATE)
    out = np.zeros((n, 2))
    for ch, spans, f0 in ((0, caller, 210.0), (1, agent, 120.0)):
        for i, (s, e) in enumerate(spans):
            a, b = int(s * RATE), int(e * RATE)
            out[a:b, ch] = voice((b - a) / RATE, f0, seed=ch * 100 + i)
    sf.write(path, out, RATE, subtype=subtype)
    return path
