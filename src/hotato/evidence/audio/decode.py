"""Decoding a recording into per-channel samples (soundfile: WAV incl. mu-law, FLAC, MP3,
Ogg/Opus), with the rates the voice-activity detectors take."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hotato.evidence.audio.deps import need
from hotato.model.errors import InputError

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Recording:
    """A decoded recording: `samples` is (frames, channels), int16 for PCM-like input so a
    10-minute stereo call stays under 40 MB; float samples are read as float32."""

    samples: np.ndarray
    rate: int
    format: str
    subtype: str

    @property
    def channels(self) -> int:
        return int(self.samples.shape[1])

    @property
    def duration_sec(self) -> float:
        return self.samples.shape[0] / self.rate if self.rate else 0.0


def decode(path: str | os.PathLike[str]) -> Recording:
    """The recording at `path`; InputError naming the file when it cannot be read."""
    sf = need("soundfile")
    name = str(path)
    if not os.path.isfile(name):
        raise InputError.one("the recording is not a readable file", file=name)
    try:
        info = sf.info(name)
        dtype = "float32" if info.subtype in {"FLOAT", "DOUBLE", "VORBIS", "OPUS"} else "int16"
        data, rate = sf.read(name, dtype=dtype, always_2d=True)
    except (RuntimeError, sf.LibsndfileError, ValueError) as exc:
        raise InputError.one(f"the recording could not be decoded ({exc})", file=name) from None
    if data.shape[0] == 0 or rate <= 0:
        raise InputError.one("the recording holds no audio", file=name)
    return Recording(samples=data, rate=int(rate), format=info.format, subtype=info.subtype)


def channel_float(rec: Recording, index: int) -> np.ndarray:
    """One channel as float32 in [-1, 1) (int16 / 32768, the scale hotato 1.x used)."""
    np = need("numpy")
    col = rec.samples[:, index]
    if col.dtype == np.int16:
        return col.astype(np.float32) / np.float32(32768.0)
    return np.ascontiguousarray(col, dtype=np.float32)


def channel_pcm16(rec: Recording, index: int, rate: int) -> np.ndarray:
    """One channel as int16 PCM at `rate` (resampled with soxr when the rates differ)."""
    np = need("numpy")
    col = rec.samples[:, index]
    if rec.rate == rate and col.dtype == np.int16:
        return np.ascontiguousarray(col)
    x = channel_float(rec, index)
    if rec.rate != rate:
        soxr = need("soxr")
        x = soxr.resample(x, rec.rate, rate, quality="HQ")
    return np.clip(np.round(x * 32768.0), -32768, 32767).astype(np.int16)
