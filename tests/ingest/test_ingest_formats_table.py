"""Every trace source is one row of `hotato.evidence.formats.TABLE`; nothing else names them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato
from tests.ingest._util import DATA

from hotato.evidence.formats import CHOICES, NAMES, READERS, TABLE, canonical
from hotato.evidence.ingest import FORMATS, load_any_trace
from hotato.model.errors import InputError


def test_every_row_resolves_to_a_detector_and_a_reader() -> None:
    for row in TABLE:
        reader = READERS[row.name]
        assert callable(reader.detect) and callable(reader.read), row.name
    assert FORMATS == NAMES and CHOICES[0] == "auto"


@pytest.mark.parametrize(
    ("typed", "name"),
    [("OTLP", "otel"), (" vapi ", "vapi"), ("hotato", "native"), ("auto", "auto")],
)
def test_aliases_and_case(typed: str, name: str) -> None:
    assert canonical(typed) == name


def test_an_unknown_format_is_refused_not_read_as_another_vendor() -> None:
    with pytest.raises(InputError, match="unknown trace format 'bland'"):
        load_any_trace(DATA / "retell_call_ended.json", "bland")


def test_a_json_document_no_row_claims_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"id": "c1", "status": "ended", "messages": []}))
    ran = hotato("trace", "ingest", str(path), "--out", str(tmp_path / "t.jsonl"))
    assert ran.code == 2
    assert "unrecognised input" in ran.err and "a Retell call object" in ran.err
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.parametrize("args", [("trace", "ingest", "--help"), ("assert", "run", "--help")])
def test_help_lists_the_table(args: tuple[str, ...]) -> None:
    ran = hotato(*args)
    assert ran.code == 0
    flat = " ".join(ran.out.split())
    for name in NAMES:
        assert name in flat
