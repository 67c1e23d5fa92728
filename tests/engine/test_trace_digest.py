"""An authenticated trace is graded from exactly the bytes its signature covers."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from tests.conftest import CONFORMANCE

from hotato.engine.sources import open_trace
from hotato.model.errors import InputError

NATIVE = CONFORMANCE / "fx-saydo-demo-assert-run" / "trace.jsonl"
VAPI = Path(__file__).resolve().parents[1] / "ingest" / "data"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_verified_bytes_load_as_authenticated(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    shutil.copy(NATIVE, trace)
    loaded = open_trace(str(trace), verified_sha256=_sha(trace))
    assert loaded.authenticated is True


def test_bytes_other_than_the_verified_ones_are_refused(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    shutil.copy(NATIVE, trace)
    verified = _sha(trace)
    with trace.open("a") as handle:  # swapped between the signature check and the read
        handle.write('{"type": "tool_call", "name": "issue_refund", "result": {"ok": true}}\n')
    with pytest.raises(InputError, match="changed after its signature was checked"):
        open_trace(str(trace), verified_sha256=verified)


def test_an_unverified_trace_is_not_marked_authenticated(tmp_path: Path) -> None:
    assert open_trace(str(NATIVE)).authenticated is False


@pytest.mark.parametrize("fixture", sorted(p.name for p in VAPI.glob("vapi*.json"))[:1])
def test_a_stack_export_is_checked_the_same_way(tmp_path: Path, fixture: str) -> None:
    export = tmp_path / fixture
    shutil.copy(VAPI / fixture, export)
    assert open_trace(str(export), verified_sha256=_sha(export)).authenticated is True
    with pytest.raises(InputError):
        open_trace(str(export), verified_sha256="0" * 64)
