"""OTLP/JSON details: intValue strings, arrays and key-value lists, ids, documents, order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.ingest._util import ingest, tool

from hotato.evidence.ingest import load_any_trace


def _kv(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


def _span(name: str, start: int, attrs: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "traceId": "5B8EFFF798038103D269B633813FC60C",
        "spanId": "EEE19B7EC3C1B174",
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 250_000_000),
        "attributes": attrs,
        **extra,
    }


def _doc(*spans: dict[str, Any]) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": []},
                "scopeSpans": [{"scope": {"name": "x"}, "spans": list(spans)}],
            }
        ]
    }


def test_values_are_decoded(tmp_path: Path) -> None:
    args = {
        "kvlistValue": {
            "values": [
                _kv("order_id", {"stringValue": "A17"}),
                _kv("qty", {"intValue": "3"}),
                _kv("tags", {"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": 7}]}}),
                _kv("gift", {"boolValue": True}),
                _kv("weight", {"doubleValue": 1.5}),
            ]
        }
    }
    span = _span(
        "execute_tool ship",
        2_000_000_000,
        [
            _kv("gen_ai.operation.name", {"stringValue": "execute_tool"}),
            _kv("gen_ai.tool.call.arguments", args),
            _kv("gen_ai.tool.call.result", {"intValue": "12345678901234"}),
        ],
    )
    src = tmp_path / "one.json"
    src.write_text(json.dumps(_doc(span), indent=2))
    _, meta, spans = ingest(src, tmp_path / "t.jsonl")
    assert meta["source"]["format"] == "otlp-json"
    ship = tool(spans, "ship")
    assert ship["arguments"] == {
        "order_id": "A17",
        "qty": 3,
        "tags": ["a", 7],
        "gift": True,
        "weight": 1.5,
    }
    assert ship["result"] == 12345678901234
    assert ship["latency_ms"] == 250


def test_spans_are_ordered_by_start_then_source_order(tmp_path: Path) -> None:
    def named(name: str, start: int) -> dict[str, Any]:
        return _span(
            f"execute_tool {name}",
            start,
            [_kv("gen_ai.operation.name", {"stringValue": "execute_tool"})],
        )

    lines = [_doc(named("c", 3_000), named("a", 1_000)), _doc(named("b", 1_000))]
    src = tmp_path / "batches.jsonl"
    src.write_text("\n".join(json.dumps(d) for d in lines) + "\n")
    trace = load_any_trace(src)
    assert [s.name for s in trace.spans] == ["a", "b", "c"]
    assert [s.index for s in trace.spans] == [0, 1, 2]
    assert trace.spans[0].start_sec == 0.0


def test_a_json_array_of_documents_is_read(tmp_path: Path) -> None:
    span = _span("handoff", 5, [_kv("handoff.to", {"stringValue": "billing"})])
    src = tmp_path / "many.json"
    src.write_text(json.dumps([_doc(span), _doc()]))
    trace = load_any_trace(src)
    assert [(s.type, s.to) for s in trace.spans] == [("handoff", "billing")]


def test_status_error_as_enum_name_and_hotato_native_spans(tmp_path: Path) -> None:
    failing = _span(
        "execute_tool pay",
        10,
        [_kv("gen_ai.tool.name", {"stringValue": "pay"})],
        status={"code": "STATUS_CODE_ERROR", "message": "declined"},
    )
    native = _span(
        "anything",
        20,
        [
            _kv("hotato.type", {"stringValue": "dtmf"}),
            _kv("hotato.digits", {"stringValue": "1234"}),
            _kv("hotato.by", {"stringValue": "caller"}),
        ],
    )
    src = tmp_path / "x.jsonl"
    src.write_text(json.dumps(_doc(failing, native)) + "\n")
    trace = load_any_trace(src)
    [pay] = trace.tool_calls["pay"]
    assert pay.raised() and pay.error() == "declined"
    [dtmf] = trace.by_type["dtmf"]
    assert (dtmf.digits, dtmf.by) == ("1234", "caller")


def test_an_empty_export_is_a_trace_with_no_spans(tmp_path: Path) -> None:
    src = tmp_path / "empty.json"
    src.write_text('{"resourceSpans": []}')
    trace = load_any_trace(src)
    assert trace.spans == [] and trace.meta["source"]["input_span_count"] == 0
