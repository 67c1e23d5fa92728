"""A Vapi report's per-message fields are read on a short path when they have the common type (an
epoch number, a float, a string) and through `Walk` otherwise: both must give the same trace,
transcript and refusals. The report is `hotato serve`'s benchmark body, validated by the
vapi-server-sdk's model; its variants write the same instants in the other ways Vapi and its
SDK releases write them."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.serve.bodies import vapi_body

from hotato.evidence.ingest import ingest
from hotato.model.errors import InputError

pytestmark = pytest.mark.slow  # the SDK's model takes seconds to import


def _report() -> dict[str, Any]:
    pytest.importorskip("vapi", reason="vapi-server-sdk is in the test extra")
    return json.loads(vapi_body("call-1", pad=6))


def _iso(ms: float) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def _each_message(doc: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> bytes:
    for m in doc["message"]["artifact"]["messages"]:
        change(m)
    return json.dumps(doc).encode()


def _written(tmp_path: Path, name: str, body: bytes) -> tuple[bytes, bytes]:
    src = tmp_path / f"{name}.json"
    src.write_bytes(body)
    out, said = tmp_path / f"{name}.trace.jsonl", tmp_path / f"{name}.transcript.json"
    ingest(src, out=out, transcript_out=said, include_text=True)
    return out.read_bytes(), said.read_bytes()


def _with(key: str, conv: Callable[[Any], Any]) -> Callable[[dict[str, Any]], None]:
    def change(m: dict[str, Any]) -> None:
        if key in m:
            m[key] = conv(m[key])

    return change


VARIANTS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "time as whole milliseconds": ("time", int),
    "time as ISO text": ("time", _iso),
    "time as numeric text": ("time", lambda v: str(int(v))),
    "endTime as ISO text": ("endTime", _iso),
    "endTime as epoch seconds": ("endTime", lambda v: v / 1000),
    "duration as a whole number": ("duration", lambda v: v if v != int(v) else int(v)),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_way_of_writing_a_message_time_gives_the_same_files(
    tmp_path: Path, variant: str
) -> None:
    report = _report()
    expected = _written(tmp_path, "sdk", json.dumps(report).encode())
    key, conv = VARIANTS[variant]
    assert _written(tmp_path, "variant", _each_message(report, _with(key, conv))) == expected


def test_wrong_types_are_refused_with_every_path_as_before(tmp_path: Path) -> None:
    report = _report()
    messages = report["message"]["artifact"]["messages"]
    messages[0]["role"] = 7
    messages[1]["time"] = True
    messages[1]["duration"] = "long"
    messages[2]["message"] = ["hi"]
    messages[3]["endTime"] = "soon"
    messages[1]["secondsFromStart"] = "later"  # read when `time` gives no instant
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(report))
    with pytest.raises(InputError) as refused:
        ingest(src, out=tmp_path / "bad.trace.jsonl")
    got = [(p.path, p.message) for p in refused.value.problems]
    at = "$.message.artifact.messages"
    stamp = "expected a timestamp (ISO 8601 or epoch), got"
    assert got == [  # as Walk records them: `time` twice (the clock's, the turn's), in order
        (f"{at}[0].role", "expected a string, got number"),
        (f"{at}[1].time", f"{stamp} boolean"),
        (f"{at}[1].secondsFromStart", "expected a number, got string"),
        (f"{at}[1].duration", "expected a number, got string"),
        (f"{at}[1].time", f"{stamp} boolean"),
        (f"{at}[2].message", "expected a string, got array"),
        (f"{at}[3].endTime", f"{stamp} 'soon'"),
    ]
