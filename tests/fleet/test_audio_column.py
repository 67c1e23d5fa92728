"""A fleet manifest's `audio` column: each call's recording is scored into timing for the
timing checks; a recording that cannot be scored makes them INCONCLUSIVE with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import soundfile as sf
from tests.conftest import hotato
from tests.evidence.audio.synth import RATE, clip
from tests.fleet.conftest import table_rows

ASSERTIONS = """\
version: 1
assertions:
  - id: stopped
    kind: outcome
    all_of:
      - field_present: verdict.seconds_to_yield
"""


def test_the_audio_column_is_scored_per_call(tmp_path: Path) -> None:
    clip(tmp_path / "good.wav", caller=[(1.0, 2.5)], agent=[(0.2, 1.3), (3.2, 4.5)])
    data, _ = sf.read(tmp_path / "good.wav", always_2d=True)
    sf.write(tmp_path / "mono.wav", data[:, 0], RATE)
    rows = [{"call_id": "good", "audio": "good.wav"}, {"call_id": "mono", "audio": "mono.wav"}]
    (tmp_path / "calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    ran = hotato(
        "fleet", "grade", "calls.jsonl", "--assertions", "a.yaml", "--out", "r",
        "--workers", "1",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 0, ran.out + ran.err
    results = {r["call_id"]: r for r in table_rows(tmp_path / "r", "results")}
    assert results["good"]["status"] == "PASS"
    assert results["mono"]["status"] == "INCONCLUSIVE"
    assert "the recording could not be scored: the recording is mono" in results["mono"]["reason"]
