"""Scoring a stereo recording: every caller onset an event, the yield rule, the whole-call
figures, and recordings that cannot be scored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from tests.evidence.audio.synth import RATE, clip

from hotato import score_timing
from hotato.model.errors import InputError, UsageError

# The agent talks, the caller barges in at 1.0 s, the agent stops at 1.3 s and answers at 3.2 s
# after the caller ends at 2.5 s.
BARGE_IN = {"caller": [(1.0, 2.5)], "agent": [(0.2, 1.3), (3.2, 4.5)]}
# The caller says something short over the agent, which pauses 0.4 s between sentences and
# goes on: a hold, not a stop.
HOLD = {"caller": [(1.5, 1.9)], "agent": [(0.2, 1.6), (2.0, 4.6)]}


def near(value: float | None, want: float, tol: float = 0.06) -> bool:
    return value is not None and abs(value - want) <= tol


def test_a_barge_in_the_agent_stops_for_is_a_yield_with_its_times(tmp_path: Path) -> None:
    doc = score_timing(clip(tmp_path / "b.wav", **BARGE_IN)).document
    (ev,) = doc["events"]
    assert near(ev["onset_sec"], 1.0)
    assert ev["verdict"]["did_yield"] is True
    assert near(ev["verdict"]["seconds_to_yield"], 0.3)
    assert near(ev["signals"]["barge_in"]["talk_over_sec"], 0.3)
    assert near(ev["signals"]["latency"]["response_gap_sec"], 0.7)
    assert ev["signals"]["latency"]["premature_start_sec"] == 0.0
    assert ev["signals"]["resume"]["resumed"] is True
    assert doc["recording"]["vad"] == "webrtc"


def test_a_pause_between_sentences_during_a_short_burst_is_not_a_stop(tmp_path: Path) -> None:
    (ev,) = score_timing(clip(tmp_path / "h.wav", **HOLD)).document["events"]
    assert ev["measurements"]["agent_talking_at_onset"] is True
    assert ev["verdict"]["did_yield"] is False
    assert ev["verdict"]["seconds_to_yield"] is None
    assert "resume" not in ev["signals"]


def test_every_caller_onset_is_an_event_and_the_call_has_figures(tmp_path: Path) -> None:
    path = clip(
        tmp_path / "c.wav",
        caller=[(1.0, 2.0), (4.0, 5.0), (7.5, 8.0)],
        agent=[(0.0, 1.3), (2.6, 3.6), (5.8, 9.0)],
        seconds=9.5,
    )
    events = score_timing(path).document["events"]
    assert len(events) == 3
    assert all(near(e["onset_sec"], want) for e, want in zip(events, [1.0, 4.0, 7.5], strict=True))
    assert [e["verdict"]["did_yield"] for e in events] == [True, False, False]
    assert [e["measurements"]["agent_talking_at_onset"] for e in events] == [True, False, True]
    figures = events[0]["call"]["figures"]
    assert figures["caller_onsets"] == 3 and figures["response_gap_sec"]["count"] == 2
    assert near(figures["response_gap_sec"]["max"], 0.8)
    assert near(figures["longest_silence_sec"], 0.8)
    assert [e["agent_stopped"] for e in events[0]["call"]["events"]] == [True, None, False]


def test_the_layout_names_which_channel_is_the_caller(tmp_path: Path) -> None:
    path = clip(tmp_path / "b.wav", caller=BARGE_IN["agent"], agent=BARGE_IN["caller"])
    (ev,) = score_timing(path, layout="livekit").document["events"]
    assert ev["verdict"]["did_yield"] is True and near(ev["onset_sec"], 1.0)


def test_a_given_onset_scores_that_event_only(tmp_path: Path) -> None:
    (ev,) = score_timing(clip(tmp_path / "b.wav", **BARGE_IN), onset=1.0).document["events"]
    assert ev["measurements"]["onset_requested_sec"] == 1.0
    assert ev["verdict"]["did_yield"] is True


def test_mu_law_wav_and_8_khz_are_scored(tmp_path: Path) -> None:
    src = clip(tmp_path / "b.wav", **BARGE_IN)
    data, _ = sf.read(src, always_2d=True)
    low = data[::2]  # 8 kHz (the test tones stay under 4 kHz)
    sf.write(tmp_path / "u.wav", low, RATE // 2, subtype="ULAW")
    scored = score_timing(tmp_path / "u.wav")
    assert scored.document["recording"]["subtype"] == "ULAW"
    (ev,) = scored.events
    assert ev["verdict"]["did_yield"] is True


def test_energy_compat_scores_one_event_with_the_1x_rule(tmp_path: Path) -> None:
    scored = score_timing(clip(tmp_path / "h.wav", **HOLD), vad="energy", compat="1.20")
    (ev,) = scored.events
    assert scored.document["recording"]["rule"] == "hotato-1.20"
    # 1.x's 0.2 s rule takes the 0.4 s pause between sentences for a yield
    assert ev["verdict"]["did_yield"] is True


@pytest.mark.parametrize(
    ("shape", "reason"),
    [
        ("mono", "the recording is mono"),
        ("silent", "the agent channel is silent"),
        ("copies", "the two channels are copies of each other"),
    ],
)
def test_a_recording_that_cannot_be_scored_says_why(
    tmp_path: Path, shape: str, reason: str
) -> None:
    data, _ = sf.read(clip(tmp_path / "b.wav", **BARGE_IN), always_2d=True)
    if shape == "mono":
        data = data[:, :1]
    elif shape == "silent":
        data[:, 1] = 0.0
    else:
        data[:, 1] = data[:, 0]
    sf.write(tmp_path / "x.wav", data, RATE)
    scored = score_timing(tmp_path / "x.wav")
    assert not scored.scorable
    assert scored.reason is not None and scored.reason.startswith(reason)
    (ev,) = scored.events
    assert ev["scorable"] is False and ev["verdict"]["did_yield"] is None


def test_a_file_that_is_not_audio_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.wav").write_bytes(b"RIFF" + bytes(64))
    with pytest.raises(InputError, match="could not be decoded"):
        score_timing(tmp_path / "x.wav")


def test_silero_without_its_model_file_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    monkeypatch.delenv("HOTATO_SILERO_MODEL", raising=False)
    import importlib.util

    if importlib.util.find_spec("silero_vad") is not None:
        pytest.skip("the silero-vad package is installed here")
    with pytest.raises(UsageError, match="HOTATO_SILERO_MODEL"):
        score_timing(clip(tmp_path / "b.wav", **BARGE_IN), vad="silero")


def test_the_synthetic_voice_is_loud_enough_to_matter() -> None:
    from tests.evidence.audio.synth import voice

    assert float(np.abs(voice(0.5, 120.0, 0)).max()) > 0.1


def _silero_or_skip() -> None:
    """Skip, saying why, unless onnxruntime and the Silero model file are both here."""
    pytest.importorskip(
        "onnxruntime", reason="--vad silero needs onnxruntime (hotato[audio-silero])"
    )
    from hotato.evidence.audio import vad

    try:
        vad._silero_model_path()
    except UsageError:
        pytest.skip(
            "--vad silero needs the Silero ONNX file (HOTATO_SILERO_MODEL, or "
            "`pip install --no-deps silero-vad`)"
        )


def test_silero_decides_every_frame_and_is_named_in_the_document(tmp_path: Path) -> None:
    # Silero is a learned speech model: the synthetic voice here (a harmonic buzz) is not
    # speech to it, so this checks the frames and the document, not the detection
    _silero_or_skip()
    from hotato.evidence.audio import vad
    from hotato.evidence.audio.decode import decode

    path = clip(tmp_path / "b.wav", **BARGE_IN)
    rec = decode(str(path))
    active = vad.silero_active(rec, 0)
    assert len(active) == -(-rec.samples.shape[0] // 160)
    assert not active[:90].any()  # the caller channel is silent before 0.9 s
    doc = score_timing(path, vad="silero").document
    assert doc["recording"]["vad"] == "silero"
