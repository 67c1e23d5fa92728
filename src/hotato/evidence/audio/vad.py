"""Voice activity per 10 ms frame, three detectors: `webrtc` (default), `energy` (hotato
1.x's energy detector, for numbers identical to 1.20) and `silero` (ONNX, optional).

Each returns the raw per-frame decision; `tracks.py` turns it into speech runs."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hotato.evidence.audio.decode import Recording, channel_pcm16
from hotato.evidence.audio.deps import need
from hotato.model.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

HOP_SEC = 0.010
FRAME_SEC = 0.020  # energy frames, as 1.x framed them


@dataclass(frozen=True)
class Energy:
    """Per-frame RMS level in dBFS (20 ms frames every 10 ms) and the 1.x threshold."""

    db: np.ndarray
    floor_db: float
    threshold_db: float
    hop_sec: float


def _hop_energy(x: np.ndarray, hop: int) -> np.ndarray:
    """Sum of squares of each `hop`-sample block (the last one shorter), exact for int16
    samples (integer arithmetic), float64 for float samples; read in chunks so a long call
    never holds a float64 copy of itself."""
    np_ = need("numpy")
    n = len(x)
    blocks = -(-n // hop)
    out = np_.empty(blocks, dtype=np_.float64)
    chunk = hop * 8192
    for start in range(0, n, chunk):
        part = np_.ascontiguousarray(x[start : start + chunk])
        whole = len(part) // hop
        wide = part.astype(np_.int64 if part.dtype == np_.int16 else np_.float64)
        k = start // hop
        out[k : k + whole] = (wide[: whole * hop].reshape(whole, hop) ** 2).sum(axis=1)
        if len(part) > whole * hop:
            out[k + whole] = float((wide[whole * hop :] ** 2).sum())
    if x.dtype == np_.int16:
        out /= 32768.0**2
    return out


def frame_db(x: np.ndarray, rate: int) -> tuple[np.ndarray, float]:
    """RMS in dBFS of 20 ms frames starting every 10 ms (the last frames shorter), the
    framing hotato 1.x used; and the hop in seconds. `x`: int16 (read as x / 32768, as 1.x
    read PCM) or float samples."""
    np_ = need("numpy")
    frame = max(1, round(rate * FRAME_SEC))
    hop = max(1, round(rate * HOP_SEC))
    n = len(x)
    if frame == 2 * hop:
        e = _hop_energy(x, hop)
        nxt = np_.concatenate((e[1:], [0.0]))
        starts = np_.arange(len(e)) * hop
        length = np_.minimum(starts + frame, n) - starts
        mean = (e + nxt) / length
    else:  # a rate whose 20 ms is not two 10 ms hops: running sums
        xf = x.astype(np_.float64) / (32768.0 if x.dtype == np_.int16 else 1.0)
        starts = np_.arange(0, n, hop)
        csum = np_.concatenate(([0.0], np_.cumsum(xf**2)))
        ends = np_.minimum(starts + frame, n)
        mean = (csum[ends] - csum[starts]) / (ends - starts)
    rms = np_.sqrt(np_.maximum(mean, 0.0))
    return 20.0 * np_.log10(np_.maximum(rms, 1e-6)), hop / rate


def energy(x: np.ndarray, rate: int, rel_db: float = 15.0) -> Energy:
    """1.x's energy threshold: `rel_db` over the 10th-percentile frame, at least -60 dBFS,
    at most 22 dB under the loudest frame when that is above -60."""
    np_ = need("numpy")
    db, hop = frame_db(x, rate)
    ordered = np_.sort(db)
    floor = float(ordered[int(0.10 * (len(ordered) - 1))]) if len(ordered) else -120.0
    threshold = max(floor + rel_db, -60.0)
    cap = float(db.max()) - 22.0 if len(db) else -60.0
    if cap > -60.0:
        threshold = min(threshold, cap)
    return Energy(db=db, floor_db=floor, threshold_db=threshold, hop_sec=hop)


def _webrtc_rate(rate: int) -> int:
    return rate if rate in (8000, 16000, 32000, 48000) else 16000


def webrtc_active(
    rec: Recording, channel: int, mode: int = 2, where: np.ndarray | None = None
) -> np.ndarray:
    """webrtcvad's decision per 10 ms frame (aggressiveness `mode`); only frames `where` is
    True are asked (the rest are not speech), which keeps a long call fast."""
    np_ = need("numpy")
    webrtcvad = need("webrtcvad")
    rate = _webrtc_rate(rec.rate)
    pcm = channel_pcm16(rec, channel, rate)
    step = rate // 100
    n = len(pcm) // step
    vad = webrtcvad.Vad(mode)
    buf = pcm[: n * step].tobytes()
    width = step * 2
    is_speech = vad.is_speech
    ask = range(n) if where is None else np_.flatnonzero(where[:n]).tolist()
    out = np_.zeros(n, dtype=bool)
    out[list(ask)] = [is_speech(buf[i * width : (i + 1) * width], rate) for i in ask]
    # the last partial frame (if any) repeats the decision before it
    frames = -(-rec.samples.shape[0] // round(rec.rate * HOP_SEC))
    if len(out) < frames:
        out = np_.concatenate((out, np_.repeat(out[-1:] if len(out) else [False], frames - n)))
    return out[:frames]


SILERO_ENV = "HOTATO_SILERO_MODEL"


def _silero_model_path() -> str:
    path = os.environ.get(SILERO_ENV)
    if path:
        return path
    import importlib.util

    spec = importlib.util.find_spec("silero_vad")  # its data files only; never imported
    if spec is not None and spec.submodule_search_locations:
        for base in spec.submodule_search_locations:
            candidate = os.path.join(base, "data", "silero_vad.onnx")
            if os.path.isfile(candidate):
                return candidate
    raise UsageError.one(
        f"--vad silero needs the Silero VAD ONNX file: set {SILERO_ENV} to silero_vad.onnx, "
        "or `pip install --no-deps silero-vad` (its model file is read, torch is not needed)"
    )


def silero_active(rec: Recording, channel: int, threshold: float = 0.5) -> np.ndarray:
    """Silero VAD (v5 ONNX) speech probability per 32 ms window at 16 kHz, spread onto
    10 ms frames."""
    np_ = need("numpy")
    ort = need("onnxruntime")
    path = _silero_model_path()
    x = channel_pcm16(rec, channel, 16000).astype(np_.float32) / 32768.0
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])
    window, context = 512, 64
    state = np_.zeros((2, 1, 128), dtype=np_.float32)
    sr = np_.array(16000, dtype=np_.int64)
    prev = np_.zeros(context, dtype=np_.float32)
    n_win = -(-len(x) // window)
    x = np_.concatenate((x, np_.zeros(n_win * window - len(x), dtype=np_.float32)))
    probs = np_.empty(n_win, dtype=np_.float32)
    for i in range(n_win):
        chunk = x[i * window : (i + 1) * window]
        inp = np_.concatenate((prev, chunk))[None, :]
        out, state = session.run(None, {"input": inp, "state": state, "sr": sr})
        probs[i] = float(out.reshape(-1)[0])
        prev = chunk[-context:]
    frames = -(-rec.samples.shape[0] // round(rec.rate * HOP_SEC))
    centres = (np_.arange(frames) * 160) // window
    return probs[np_.minimum(centres, n_win - 1)] >= threshold


Detector = Callable[[Recording, int], "np.ndarray"]

NAMES = ("webrtc", "energy", "silero")
