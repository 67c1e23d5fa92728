"""Voicing: whether a frame holds a periodic sound, a voice's pitch. A caller's speech is
voiced in most of its vowels; a background noise a detector takes for speech (traffic, a room,
a fan, hiss) rarely holds a steady pitch for more than a frame or two.

The measure is the normalised autocorrelation's peak over pitch lags 2.5-12.5 ms (80-400 Hz)
of a 32 ms Hann-windowed frame centred on each 10 ms frame (1.0 for a pure periodic sound,
near 0 for white noise). It is computed only on the frames asked for, so a long call stays
fast."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotato.evidence.audio.deps import need
from hotato.evidence.audio.tracks import Runs

if TYPE_CHECKING:
    import numpy as np

WINDOW_SEC = 0.032
LAG_MIN_SEC = 0.0025
LAG_MAX_SEC = 0.0125
BLOCK = 512  # frames per batch


def voicing(x: np.ndarray, rate: int, where: np.ndarray, hop_sec: float = 0.010) -> np.ndarray:
    """Per 10 ms frame, the voicing of the frames `where` is True (0.0 elsewhere)."""
    np_ = need("numpy")
    n = len(where)
    out = np_.zeros(n, dtype=np_.float64)
    ask = np_.flatnonzero(where)
    if not len(ask):
        return out
    hop = round(rate * hop_sec)
    size = round(rate * WINDOW_SEC)
    nfft = 1 << int(np_.ceil(np_.log2(2 * size)))
    lo, hi = max(1, round(rate * LAG_MIN_SEC)), round(rate * LAG_MAX_SEC)
    window = np_.hanning(size)
    w_ac = np_.fft.irfft(np_.abs(np_.fft.rfft(window, nfft)) ** 2)[: hi + 1]
    w_ac = w_ac / w_ac[0]
    scale = 32768.0 if x.dtype == np_.int16 else 1.0
    offsets = np_.arange(size)[None, :]
    for b in range(0, len(ask), BLOCK):
        idx = ask[b : b + BLOCK]
        # frame i covers samples [i*hop, i*hop + 2*hop): the window is centred on i*hop + hop
        starts = idx * hop + hop - size // 2
        at = starts[:, None] + offsets
        inside = (at >= 0) & (at < len(x))
        # the samples of each window, zero past either end of the call
        frames = np_.where(inside, x[np_.clip(at, 0, len(x) - 1)], 0).astype(np_.float64) / scale
        frames = (frames - frames.mean(axis=1, keepdims=True)) * window
        power = np_.abs(np_.fft.rfft(frames, nfft, axis=1)) ** 2
        ac = np_.fft.irfft(power, nfft, axis=1)[:, : hi + 1]
        energy = ac[:, :1]
        ok = energy[:, 0] > 1e-12
        norm = np_.zeros_like(ac)
        norm[ok] = ac[ok] / energy[ok] / w_ac
        out[idx] = norm[:, lo : hi + 1].max(axis=1)
    return out


def voiced_spans(v: np.ndarray, s: int, e: int, level: float, least: int, gap: int) -> Runs:
    """Inside [s, e): the spans of voiced frames (`v` at least `level` for `least` frames in a
    row), spans at most `gap` frames apart joined."""
    np_ = need("numpy")
    on = v[s:e] >= level
    a = np_.concatenate(([False], on, [False]))
    edges = np_.flatnonzero(a[1:] != a[:-1])
    spans: Runs = []
    for a0, a1 in zip(edges[::2], edges[1::2], strict=True):
        if a1 - a0 < least:
            continue
        if spans and s + a0 - spans[-1][1] <= gap:
            spans[-1] = (spans[-1][0], s + int(a1))
        else:
            spans.append((s + int(a0), s + int(a1)))
    return spans


def keep_voiced(
    runs: Runs,
    v: np.ndarray,
    level: float,
    least: int,
    gap: int,
    lead: int,
    tail: int,
    before: int,
    strong: float = 0.0,
) -> tuple[Runs, frozenset[int]]:
    """Each run cut to the voice in it: a run with no voiced span is dropped (a noise); a run
    whose voice starts more than `lead` frames after the run starts is started `lead` frames
    before the voice (the detector took the background before the caller for speech), likewise
    its end `tail` frames after the voice; voiced spans more than `gap` frames apart are
    separate runs. Also the starts it set (from the voice, not the detector)."""
    out: Runs = []
    moved: set[int] = set()
    for s, e in runs:
        spans = [
            (vs, ve)
            for vs, ve in voiced_spans(v, s, e, level, least, gap)
            if strong <= level or voiced_spans(v, vs, ve, strong, least, 0)
        ]
        for k, (vs, ve) in enumerate(spans):
            start = s if k == 0 and vs - s <= lead else max(s, vs - before)
            end = e if k == len(spans) - 1 and e - ve <= tail else min(e, ve + tail)
            if out and start < out[-1][1]:
                start = out[-1][1]
            if start != s:
                moved.add(start)
            out.append((start, end))
    return out, frozenset(moved)
