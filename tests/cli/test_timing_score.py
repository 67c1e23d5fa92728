"""`hotato timing score`, and `assert run` / `test run` scoring `--audio` when no `--timing`
is given."""

from __future__ import annotations

import json
from pathlib import Path

import soundfile as sf
from tests.conftest import hotato
from tests.evidence.audio.synth import RATE, clip

BARGE_IN = {"caller": [(1.0, 2.5)], "agent": [(0.2, 1.3), (3.2, 4.5)]}

ASSERTIONS = """\
version: 1
assertions:
  - id: stopped
    kind: outcome
    all_of:
      - field_present: verdict.seconds_to_yield
  - id: answered-in-time
    kind: latency
    field: signals.latency.response_gap_sec
    max: 1.0
"""


def test_score_prints_the_timing_document(tmp_path: Path) -> None:
    clip(tmp_path / "call.wav", **BARGE_IN)
    ran = hotato("timing", "score", "call.wav", "--format", "json", cwd=tmp_path)
    assert ran.code == 0, ran.err
    doc = json.loads(ran.out)
    assert doc["schema"] == "hotato.timing.v1"
    assert doc["events"][0]["verdict"]["did_yield"] is True
    text = hotato("timing", "score", "call.wav", cwd=tmp_path)
    assert text.code == 0
    assert "1 caller onset(s)" in text.out and "whole call: response gap" in text.out


def test_score_of_a_mono_recording_exits_2_with_the_reason(tmp_path: Path) -> None:
    data, _ = sf.read(clip(tmp_path / "s.wav", **BARGE_IN), always_2d=True)
    sf.write(tmp_path / "mono.wav", data[:, 0], RATE)
    ran = hotato("timing", "score", "mono.wav", cwd=tmp_path)
    assert ran.code == 2
    assert "NOT SCORABLE: the recording is mono (one channel)" in ran.out


def test_score_refuses_a_file_that_is_not_audio(tmp_path: Path) -> None:
    (tmp_path / "x.wav").write_bytes(b"nope")
    ran = hotato("timing", "score", "x.wav", cwd=tmp_path)
    assert ran.code == 2
    assert "x.wav: the recording could not be decoded" in ran.err


def test_assert_run_scores_the_audio_when_no_timing_is_given(tmp_path: Path) -> None:
    clip(tmp_path / "call.wav", **BARGE_IN)
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    ran = hotato(
        "assert", "run", "--assertions", "a.yaml", "--audio", "call.wav", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 0, ran.out + ran.err
    results = {r["id"]: r for r in json.loads(ran.out)["results"]}
    assert results["stopped"]["status"] == "PASS"
    assert results["answered-in-time"]["status"] == "PASS"


def test_an_unscorable_recording_makes_the_timing_checks_inconclusive(tmp_path: Path) -> None:
    data, _ = sf.read(clip(tmp_path / "s.wav", **BARGE_IN), always_2d=True)
    data[:, 0] = 0.0
    sf.write(tmp_path / "call.wav", data, RATE)
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    ran = hotato(
        "assert", "run", "--assertions", "a.yaml", "--audio", "call.wav", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 0
    results = {r["id"]: r for r in json.loads(ran.out)["results"]}
    want = "the recording could not be scored: the caller channel is silent"
    for r in results.values():
        assert r["status"] == "INCONCLUSIVE"
        assert want in r["reason"]


# A conversation test whose one check reads the scored recording.
STOPPED_TEST = {
    "id": "barge-in",
    "version": 1,
    "kind": "hotato.conversation-test",
    "agent": "support-bot",
    "assertions": {"deterministic": [
        {"id": "stopped", "kind": "outcome",
         "all_of": [{"field_present": "verdict.seconds_to_yield"}]},
    ]},
}  # fmt: skip


def test_test_run_binds_the_audio_and_the_timing_made_from_it(tmp_path: Path) -> None:
    clip(tmp_path / "call.wav", **BARGE_IN)
    (tmp_path / "t.json").write_text(json.dumps(STOPPED_TEST))
    ran = hotato(
        "test", "run", "t.json", "--agent", "support-bot", "--audio", "call.wav",
        "--out", "art",
        "--created-at", "2026-01-01T00:00:00Z", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 0, ran.out + ran.err
    manifest = json.loads((tmp_path / "art" / "conversation.json").read_text())
    assert {"audio", "timing"} <= set(manifest["artifacts"])
    bound = json.loads((tmp_path / "art" / "timing.json").read_text())
    assert bound["events"][0]["verdict"]["did_yield"] is True
    verified = hotato("conversation", "verify", "art", cwd=tmp_path)
    assert verified.code == 0, verified.out + verified.err


def test_a_recording_that_is_not_audio_makes_the_timing_checks_inconclusive(
    tmp_path: Path,
) -> None:
    (tmp_path / "call.wav").write_bytes(b"RIFF" + bytes(64))
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    ran = hotato(
        "assert", "run", "--assertions", "a.yaml", "--audio", "call.wav", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 0
    for r in json.loads(ran.out)["results"]:
        assert r["status"] == "INCONCLUSIVE"
        assert (
            "the recording could not be scored: the recording could not be decoded" in (r["reason"])
        )


def _agent_left(tmp_path: Path) -> Path:
    data, _ = sf.read(clip(tmp_path / "s.wav", **BARGE_IN), always_2d=True)
    sf.write(tmp_path / "call.wav", data[:, ::-1], RATE)
    return tmp_path / "call.wav"


def test_assert_run_reads_the_audio_by_its_layout(tmp_path: Path) -> None:
    _agent_left(tmp_path)
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    run = ("assert", "run", "--assertions", "a.yaml", "--audio", "call.wav", "--format", "json")
    read_as_caller_left = hotato(*run, cwd=tmp_path)
    assert read_as_caller_left.code == 1
    ran = hotato(*run, "--layout", "agent-left", cwd=tmp_path)
    assert ran.code == 0, ran.out + ran.err
    results = {r["id"]: r["status"] for r in json.loads(ran.out)["results"]}
    assert results == {"stopped": "PASS", "answered-in-time": "PASS"}
    bad = hotato(*run, "--layout", "sideways", cwd=tmp_path)
    assert bad.code == 2
    assert "Invalid value for '--layout': 'sideways' is not one of" in bad.err


def test_test_run_scores_and_binds_the_audio_by_its_layout(tmp_path: Path) -> None:
    _agent_left(tmp_path)
    (tmp_path / "t.json").write_text(json.dumps(STOPPED_TEST))
    ran = hotato(
        "test", "run", "t.json", "--agent", "support-bot", "--audio", "call.wav",
        "--layout", "livekit", "--out", "art",
        "--created-at", "2026-01-01T00:00:00Z", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 0, ran.out + ran.err
    bound = json.loads((tmp_path / "art" / "timing.json").read_text())
    assert bound["recording"]["layout"] == "livekit"
    assert bound["recording"]["caller_channel"] == 1
    assert bound["events"][0]["verdict"]["did_yield"] is True
