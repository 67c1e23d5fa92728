"""The caller's runs under a background the detector takes for speech: a run must hold a voice
(a steady pitch) unless it stands far over the channel's floor, its edges are cut to the voice,
a voice in the background well under the caller's own is not the caller, and a voiced word
that sinks under the noise for a moment stays one run. Each clip is also scored without the
rule, to show it matters."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf
from tests.evidence.audio.synth import RATE, voice

from hotato.evidence.audio import Options, score_recording
from hotato.evidence.audio.rule import Rule
from hotato.evidence.audio.tracks import bridge, bridge_unquiet
from hotato.evidence.audio.voicing import keep_voiced, voicing

SECONDS = 6.0
AGENT = [(0.2, 1.2), (3.0, 5.5)]
FLOOR_DBFS = -60.0  # a line's steady hiss: the channel's floor, so speech is not "sure"


def _noise(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n)


def _clip(path: Path, parts: list[tuple[str, float, float, float]]) -> Path:
    """The caller channel: hiss at FLOOR_DBFS throughout, plus parts (kind, start, end, level):
    `voice` at a gain in dB (the synthetic voice peaks near -23 dBFS per frame), `murmur` (a
    lower voice) likewise, `noise` (white) at a level in dBFS. The agent as AGENT."""
    n = int(SECONDS * RATE)
    out = np.zeros((n, 2))
    out[:, 0] = 10 ** (FLOOR_DBFS / 20) * _noise(n, 1)
    for i, (kind, s, e, level) in enumerate(parts):
        a, b = int(s * RATE), int(e * RATE)
        if kind == "noise":
            out[a:b, 0] += 10 ** (level / 20) * _noise(b - a, 10 + i)
        else:
            f0 = 210.0 if kind == "voice" else 150.0
            out[a:b, 0] += 10 ** (level / 20) * voice((b - a) / RATE, f0, seed=i)
    for i, (s, e) in enumerate(AGENT):
        a, b = int(s * RATE), int(e * RATE)
        out[a:b, 1] = voice((b - a) / RATE, 120.0, seed=100 + i)
    sf.write(path, out, RATE, subtype="PCM_16")
    return path


def _onsets(path: Path, **rule: Any) -> list[float]:
    doc = score_recording(path, Options(rule=replace(Rule(), **rule)))
    return [e["onset_sec"] for e in doc["events"] if e.get("scorable") is not False]


def test_voicing_reads_a_pitch_as_voiced_and_hiss_as_not() -> None:
    n = RATE
    tone = voice(1.0, 180.0, seed=3)
    hiss = _noise(n, 4) * 0.05
    frames = np.ones(100, dtype=bool)
    assert float(np.median(voicing(tone, RATE, frames)[5:95])) > 0.8
    assert float(np.median(voicing(hiss, RATE, frames)[5:95])) < 0.4
    # only the frames asked for are read
    some = np.zeros(100, dtype=bool)
    some[40:50] = True
    got = voicing(tone, RATE, some)
    assert got[:40].max() == 0.0 and got[40:50].min() > 0.5


def test_a_burst_of_noise_the_detector_takes_for_speech_is_not_an_onset(tmp_path: Path) -> None:
    path = _clip(tmp_path / "burst.wav", [("voice", 1.0, 2.0, 0.0), ("noise", 3.8, 4.4, -32.0)])
    onsets = _onsets(path)
    assert len(onsets) == 1 and abs(onsets[0] - 1.0) <= 0.06
    without = _onsets(path, voiced_level=0.0)
    assert any(abs(o - 3.8) <= 0.06 for o in without)


def test_a_run_that_starts_in_noise_starts_at_the_voice(tmp_path: Path) -> None:
    # noise the detector joins to the caller's word: the run starts 0.6 s before the voice
    path = _clip(tmp_path / "lead.wav", [("noise", 0.9, 1.5, -32.0), ("voice", 1.5, 2.5, 0.0)])
    onsets = _onsets(path)
    assert len(onsets) == 1 and abs(onsets[0] - 1.5) <= 0.1
    without = _onsets(path, voiced_level=0.0)
    assert abs(without[0] - 0.9) <= 0.06


def test_a_voice_well_under_the_callers_own_is_the_background(tmp_path: Path) -> None:
    # someone talking in the room behind the caller, 20 dB under the caller
    path = _clip(tmp_path / "room.wav", [("voice", 1.0, 2.0, 0.0), ("murmur", 4.0, 4.8, -20.0)])
    onsets = _onsets(path)
    assert len(onsets) == 1 and abs(onsets[0] - 1.0) <= 0.06
    without = _onsets(path, loudest_within_db=99.0)
    assert any(abs(o - 4.0) <= 0.06 for o in without)


def test_a_run_with_no_voice_is_dropped_and_voiced_runs_a_moment_apart_are_one() -> None:
    v = np.zeros(300)
    v[20:60] = 0.9
    v[200:260] = 0.2  # a hiss the detector took for speech: no pitch
    runs, moved = keep_voiced([(20, 60), (85, 120), (200, 260)], v, 0.7, 3, 60, 15, 25, 8)
    assert runs == [(20, 60)] and not moved
    v[85:120] = 0.9
    runs, _ = keep_voiced([(20, 60), (85, 120), (200, 260)], v, 0.7, 3, 60, 15, 25, 8)
    assert runs == [(20, 60), (85, 120)]
    assert bridge(runs, 30) == [(20, 120)]


def test_a_run_whose_voice_starts_late_is_moved_to_it_and_not_backtracked() -> None:
    v = np.zeros(200)
    v[100:150] = 0.9
    runs, moved = keep_voiced([(40, 160)], v, 0.7, 3, 60, 15, 25, 8)
    assert runs == [(92, 160)] and moved == frozenset({92})


def test_a_pause_that_does_not_go_quiet_joins_the_runs_either_side() -> None:
    db = np.full(100, -90.0)
    db[10:30] = -30.0
    db[30:50] = -70.0  # the voice sank under something 20 dB over the floor
    db[50:70] = -30.0
    db[70:90] = -90.0
    assert bridge_unquiet([(10, 30), (50, 70)], db, -90.0 + 6.0, 50) == [(10, 70)]
    # silent between: two runs
    db[30:50] = -90.0
    assert bridge_unquiet([(10, 30), (50, 70)], db, -90.0 + 6.0, 50) == [(10, 30), (50, 70)]
    # too long a pause: two runs
    db[30:50] = -70.0
    assert bridge_unquiet([(10, 30), (50, 70)], db, -90.0 + 6.0, 10) == [(10, 30), (50, 70)]


def test_speech_far_over_a_silent_floor_needs_no_voice(tmp_path: Path) -> None:
    # a digitally silent line: an unvoiced sound standing 50 dB over the floor is kept as the
    # detector found it (a whisper, a fricative), as before the voice rule
    n = int(SECONDS * RATE)
    out = np.zeros((n, 2))
    a, b = int(1.0 * RATE), int(2.0 * RATE)
    out[a:b, 0] = voice(1.0, 210.0, seed=0)
    for i, (s, e) in enumerate(AGENT):
        a, b = int(s * RATE), int(e * RATE)
        out[a:b, 1] = voice((b - a) / RATE, 120.0, seed=100 + i)
    sf.write(tmp_path / "silent.wav", out, RATE, subtype="PCM_16")
    assert _onsets(tmp_path / "silent.wav") == _onsets(tmp_path / "silent.wav", voiced_level=0.0)
