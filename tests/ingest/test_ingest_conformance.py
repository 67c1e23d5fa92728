"""The earlier release's OTel bridge JSONL still ingests to the same trace, span for span."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import REPO, hotato
from tests.ingest._util import read_trace

_SHARED = REPO.parent / "shared" / "conformance" / "cases"
_VENDORED = REPO / "tests" / "conformance" / "cases"
CASES = sorted(
    p
    for root in (_SHARED, _VENDORED)
    if root.exists()
    for p in root.glob("fx-otel-ingest-*")
    if (p / "case.json").exists()
)
CASES = list({p.name: p for p in CASES}.values())


@pytest.mark.parametrize("case_dir", CASES, ids=[c.name for c in CASES])
def test_bridge_case_ingests_to_the_same_trace(case_dir: Path, tmp_path: Path) -> None:
    case = json.loads((case_dir / "case.json").read_text())
    expected = json.loads((case_dir / "expected.json").read_text())
    argv = [a.replace("{OUT}", str(tmp_path)) for a in case["argv"]]
    ran = hotato(*argv, cwd=case_dir)
    assert ran.code == expected["exit_code"], ran.err
    meta, spans = read_trace(tmp_path / "voice_trace.jsonl")
    assert meta.pop("_meta") is True
    assert {**meta, "spans": spans} == expected["voice_trace"]
    printed = json.loads(ran.out)
    assert printed["kind"] == "trace-ingest"
    assert printed["voice_trace"] == meta


def test_cases_are_present() -> None:
    assert len(CASES) == 2
