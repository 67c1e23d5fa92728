"""`hotato.grade` and `hotato.run_test` read an `audio` recording by its `audio_layout`."""

from __future__ import annotations

import json
from pathlib import Path

import soundfile as sf
from tests.evidence.audio.synth import RATE, clip

import hotato

ASSERTIONS = {
    "version": 1,
    "assertions": [
        {"id": "stopped", "kind": "outcome",
         "all_of": [{"field_present": "verdict.seconds_to_yield"}]},
    ],
}  # fmt: skip


def _agent_left(tmp_path: Path) -> Path:
    src = clip(tmp_path / "s.wav", caller=[(1.0, 2.5)], agent=[(0.2, 1.3), (3.2, 4.5)])
    data, _ = sf.read(src, always_2d=True)
    sf.write(tmp_path / "call.wav", data[:, ::-1], RATE)
    return tmp_path / "call.wav"


def test_grade_and_run_test_read_the_recording_by_its_layout(tmp_path: Path) -> None:
    audio = _agent_left(tmp_path)
    (tmp_path / "a.json").write_text(json.dumps(ASSERTIONS))
    as_caller_left = hotato.grade(tmp_path / "a.json", audio=audio)
    assert as_caller_left.outcome.exit_code == 1
    graded = hotato.grade(tmp_path / "a.json", audio=audio, audio_layout="agent-left")
    assert graded.outcome.exit_code == 0
    test = {
        "id": "barge-in", "version": 1, "kind": "hotato.conversation-test",
        "agent": "support-bot",
        "assertions": {"deterministic": ASSERTIONS["assertions"]},
    }  # fmt: skip
    (tmp_path / "t.json").write_text(json.dumps(test))
    ran = hotato.run_test(tmp_path / "t.json", audio=audio, audio_layout="livekit")
    assert ran.exit_code == 0
