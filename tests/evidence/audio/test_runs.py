"""The caller's speech runs under noise and clicks: a word's weak edges stay in its run, a
short fragment after a word is its tail, an isolated one is a click, and a swell of the
background is not an onset. Each clip is also scored without the rule, to show it matters."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf
from tests.evidence.audio.synth import RATE, voice

from hotato.evidence.audio import Options, score_recording
from hotato.evidence.audio.rule import Rule
from hotato.evidence.audio.tracks import with_edges

SECONDS = 6.0
AGENT = [(0.2, 1.2), (3.0, 5.5)]  # talks, then answers the caller


Spans = list[tuple[float, float, float]]  # start, end (seconds), level (dB)


def _clip(path: Path, caller: Spans, noise: Spans | tuple[()] = ()) -> Path:
    """Caller speech (level relative to the synthetic voice, which peaks near -23 dBFS per
    frame) over white noise (level in dBFS) on the caller channel; the agent as AGENT."""
    rng = np.random.default_rng(7)
    n = int(SECONDS * RATE)
    out = np.zeros((n, 2))
    for s, e, level_db in noise:
        a, b = int(s * RATE), int(e * RATE)
        out[a:b, 0] = 10 ** (level_db / 20) * rng.standard_normal(b - a)
    for i, (s, e, gain_db) in enumerate(caller):
        a, b = int(s * RATE), int(e * RATE)
        out[a:b, 0] += 10 ** (gain_db / 20) * voice((b - a) / RATE, 210.0, seed=i)
    for i, (s, e) in enumerate(AGENT):
        a, b = int(s * RATE), int(e * RATE)
        out[a:b, 1] = voice((b - a) / RATE, 120.0, seed=100 + i)
    sf.write(path, out, RATE, subtype="PCM_16")
    return path


def _events(path: Path, **rule: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = score_recording(path, Options(rule=replace(Rule(), **rule)))[
        "events"
    ]
    return events


def test_a_run_that_reaches_the_level_bar_extends_over_the_detectors_weaker_frames() -> None:
    # webrtc's decision depends on the frames it was asked before (only frames over the lower
    # bar are asked), so this rule is shown on frames: the weak edges of a run that reaches
    # the bar stay in it; weak frames alone are not speech
    detector = np.array([0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0], dtype=bool)
    level_db = np.array([0, 6, 12, 12, 7, 6, 6, 0, 0, 7, 8, 6, 0], dtype=float)
    core, edges = detector & (level_db >= 10), detector & (level_db >= 5)
    got = with_edges(core, edges)
    assert got.astype(int).tolist() == [0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]


def test_a_short_fragment_after_a_word_is_its_tail_and_alone_is_a_click(tmp_path: Path) -> None:
    caller = [(1.0, 2.0, 0.0), (2.2, 2.27, 0.0), (4.0, 4.07, 0.0)]
    path = _clip(tmp_path / "frag.wav", caller)
    (ev,) = _events(path)
    assert abs(ev["onset_sec"] - 1.0) <= 0.06
    assert abs(ev["measurements"]["caller_turn_end_sec"] - 2.27) <= 0.06
    without = _events(path, fragment_sec=0.0, voice_bridge_sec=0.0)
    assert [round(e["onset_sec"]) for e in without] == [1, 2, 4]


def test_a_swell_of_the_background_is_not_an_onset(tmp_path: Path) -> None:
    # the background rises from -50 to -42 dBFS at 3 s; a caller at 1.0 s stands well over
    # it, a murmur at 4.0 s only ~6 dB over the noise around it (10 dB over the quieter start)
    caller = [(1.0, 2.0, 0.0), (4.0, 4.5, -14.0)]
    path = _clip(tmp_path / "swell.wav", caller, [(0.0, 3.0, -50.0), (3.0, SECONDS, -42.0)])
    (ev,) = _events(path)
    assert abs(ev["onset_sec"] - 1.0) <= 0.06
    without = _events(path, stand_out_db=0.0)
    assert [round(e["onset_sec"]) for e in without] == [1, 4]


def test_a_weak_first_syllable_the_detector_missed_starts_the_onset(tmp_path: Path) -> None:
    # 0.08 s far under the word that follows it (a breathy start), then the word at 1.08 s
    path = _clip(tmp_path / "start.wav", [(1.0, 1.08, -30.0), (1.08, 2.0, 0.0)])
    (ev,) = _events(path)
    assert abs(ev["onset_sec"] - 1.0) <= 0.03
    (without,) = _events(path, onset_backtrack_sec=0.0)
    assert without["onset_sec"] >= 1.05


def test_a_click_of_the_agent_inside_its_quiet_does_not_end_the_quiet(tmp_path: Path) -> None:
    # the agent stops at 1.3 s for a caller at 1.0 s; a 0.1 s sound at 1.9 s (a breath, a
    # TTS lead-in), then it resumes at 2.7 s: 1.4 s of quiet around one click is a stop
    n = int(SECONDS * RATE)
    out = np.zeros((n, 2))
    for ch, (s, e), f0, seed in (
        (0, (1.0, 1.6), 210.0, 0),
        (1, (0.2, 1.3), 120.0, 1),
        (1, (1.9, 2.0), 120.0, 2),
        (1, (2.7, 4.5), 120.0, 3),
    ):
        a, b = int(s * RATE), int(e * RATE)
        out[a:b, ch] = voice((b - a) / RATE, f0, seed=seed)
    sf.write(tmp_path / "click.wav", out, RATE, subtype="PCM_16")
    (ev,) = _events(tmp_path / "click.wav")
    assert ev["verdict"]["did_yield"] is True
    assert abs(ev["measurements"]["agent_stop_sec"] - 1.3) <= 0.06
    (without,) = _events(tmp_path / "click.wav", agent_min_run_sec=0.05)
    assert without["verdict"]["did_yield"] is False


def test_speech_rising_out_of_a_steady_background_taken_for_speech_is_an_onset(
    tmp_path: Path,
) -> None:
    # a steady murmur the detector takes for speech from 0 to 4 s, the caller over it at 1.5 s
    n = int(SECONDS * RATE)
    out = np.zeros((n, 2))
    for ch, (s, e), f0, gain_db, seed in (
        (0, (0.0, 4.0), 150.0, -8.0, 5),
        (0, (1.5, 2.5), 210.0, 6.0, 0),
        (1, (0.2, 1.8), 120.0, 0.0, 1),
        (1, (3.0, 5.0), 120.0, 0.0, 2),
    ):
        a, b = int(s * RATE), int(e * RATE)
        out[a:b, ch] += 10 ** (gain_db / 20) * voice((b - a) / RATE, f0, seed=seed)
    sf.write(tmp_path / "rise.wav", out, RATE, subtype="PCM_16")
    onsets = [e["onset_sec"] for e in _events(tmp_path / "rise.wav")]
    assert any(abs(o - 1.5) <= 0.06 for o in onsets)
    without = [e["onset_sec"] for e in _events(tmp_path / "rise.wav", rise_db=99.0)]
    assert not any(abs(o - 1.5) <= 0.1 for o in without)
