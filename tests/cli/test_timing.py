"""`assert run --timing FILE`: measured timing for `latency` with `field` + `max` and `outcome`
parts `{field_present: PATH}` (hotato 1.x read these from a scored recording's events)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato

ASSERTIONS = """\
version: 1
assertions:
  - id: answered-quickly
    kind: latency
    field: verdict.response_latency_s
    max: 1.2
  - id: yielded
    kind: outcome
    all_of:
      - field_present: verdict.did_yield
  - id: first-word-fast
    kind: latency
    field: first_word_s
    max: 0.5
"""


def _run(tmp_path: Path, timing: object) -> tuple[int, dict[str, str], str]:
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    (tmp_path / "timing.json").write_text(json.dumps(timing))
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--timing",
        "timing.json",
        "--format",
        "json",
        cwd=tmp_path,
    )
    doc = json.loads(ran.out) if ran.out else {}
    return ran.code, {r["id"]: r["status"] for r in doc.get("results", [])}, ran.err


def test_a_list_of_events_is_searched_in_order(tmp_path: Path) -> None:
    events = [{"first_word_s": 0.9}, {"verdict": {"response_latency_s": 0.8, "did_yield": True}}]
    code, got, _ = _run(tmp_path, events)
    assert got == {"answered-quickly": "PASS", "yielded": "PASS", "first-word-fast": "FAIL"}
    assert code == 1


def test_a_1x_envelope_is_read_by_its_events(tmp_path: Path) -> None:
    envelope = {"schema": "envelope.v1", "events": [{"verdict": {"response_latency_s": 2.5}}]}
    _, got, _ = _run(tmp_path, envelope)
    assert got == {
        "answered-quickly": "FAIL",
        "yielded": "FAIL",
        "first-word-fast": "INCONCLUSIVE",  # read, and holds no such number
    }


def test_without_timing_they_are_inconclusive(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    ran = hotato("assert", "run", "--assertions", "a.yaml", "--format", "json", cwd=tmp_path)
    results = json.loads(ran.out)["results"]
    assert {r["status"] for r in results} == {"INCONCLUSIVE"}
    assert all("--timing" in r["reason"] for r in results if r["kind"] == "latency")


@pytest.mark.parametrize(
    ("body", "said"),
    [("[1, 2]", "a JSON object or a list of event objects"), ("{", "timing is not valid JSON")],
)
def test_a_bad_timing_file_is_refused(tmp_path: Path, body: str, said: str) -> None:
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    (tmp_path / "timing.json").write_text(body)
    ran = hotato("assert", "run", "--assertions", "a.yaml", "--timing", "timing.json", cwd=tmp_path)
    assert ran.code == 2 and said in ran.err and "timing.json" in ran.err
