"""A whole OTLP/JSON document read span by span gives exactly what reading it whole gives.

Documents come from the real OpenTelemetry SDK (spans with generated names, attributes,
events and statuses, encoded by the OTLP encoder and written with protobuf's JSON mapping), as
one document pretty-printed, or on one line. The whole read (`spans_from_value` over the
decoded dicts; `spans_from_line` for a line) is the reference, for the spans and for refusals.
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import Status, StatusCode
from tests.conftest import hotato
from tests.ingest.sample_agent import OtlpFileExporter

from hotato.evidence.ingest._otlp import spans_from_line, spans_from_value
from hotato.evidence.ingest._otlp_doc import open_document
from hotato.model.errors import InputError

NAMES = st.sampled_from(
    [
        "execute_tool lookup_order",
        "POST",
        "handoff",
        "dtmf",
        "call_ended",
        "user_speaking",
        "agent_speaking",
        "chat",
        "other",
    ]
)
KEYS = st.sampled_from(
    [
        "gen_ai.operation.name",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "http.request.method",
        "url.full",
        "http.response.status_code",
        "handoff.to",
        "dtmf.digits",
        "call.ended_reason",
        "text",
        "error.type",
        "lk.agent",
        "x",
    ]
)
SCALAR = (
    st.text(max_size=6)
    | st.integers(-(2**63), 2**63 - 1)
    | st.booleans()
    | st.floats(allow_nan=False, allow_infinity=False)
)
VALUES = SCALAR | st.lists(st.text(max_size=4), max_size=3) | st.lists(st.integers(), max_size=3)
SPAN = st.tuples(
    NAMES,
    st.dictionaries(KEYS, VALUES, max_size=5),
    st.sampled_from([StatusCode.UNSET, StatusCode.OK, StatusCode.ERROR]),
    st.lists(
        st.dictionaries(
            st.sampled_from(["exception.message", "exception.type"]),
            st.text(max_size=5),
            max_size=2,
        ),
        max_size=2,
    ),
)


def _document(spans: list[tuple[Any, ...]], scope: str) -> dict[str, Any]:
    exporter = OtlpFileExporter()
    provider = TracerProvider(resource=Resource.create({"vcs.ref.head.revision": "abc"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer(scope)
    for i, (name, attributes, code, events) in enumerate(spans):
        span = tracer.start_span(name, attributes=attributes, start_time=10**18 + i * 1000)
        for event in events:
            span.add_event("exception", event)
        span.set_status(Status(code, "failed" if code is StatusCode.ERROR else None))
        span.end(end_time=10**18 + i * 1000 + 500)
    message = encode_spans([s for batch in exporter.batches for s in batch])
    return dict(json_format.MessageToDict(message))


def _write(tmp: Path, doc: dict[str, Any], pretty: bool, bom: bool) -> tuple[Path, bytes]:
    text = json.dumps(doc, indent=2 if pretty else None)
    data = (codecs.BOM_UTF8 if bom else b"") + text.encode()
    path = tmp / f"doc-{pretty}-{bom}.json"
    path.write_bytes(data)
    return path, text.encode()


def _whole(data: bytes, path: Path, pretty: bool) -> Any:
    return (
        spans_from_value(json.loads(data), str(path))
        if pretty
        else spans_from_line(data, str(path), 1)
    )


def _streamed(path: Path) -> Any:
    found = open_document(str(path), path.read_bytes()[:65536])
    assert found is not None
    return list(found.spans())


@given(
    st.lists(SPAN, min_size=1, max_size=6),
    st.sampled_from(["agent", "livekit.agents"]),
    st.booleans(),
    st.booleans(),
)
def test_streamed_spans_equal_the_whole_read(
    tmp_path_factory: pytest.TempPathFactory,
    spans: list[tuple[Any, ...]],
    scope: str,
    pretty: bool,
    bom: bool,
) -> None:
    tmp = tmp_path_factory.mktemp("otlp")
    path, data = _write(tmp, _document(spans, scope), pretty, bom)
    assert _streamed(path) == _whole(data, path, pretty)


BAD = st.sampled_from(
    [
        ("attributes", [{"key": "n", "value": {"intValue": "twelve"}}]),
        ("attributes", 5),
        ("startTimeUnixNano", "soon"),
        ("status", {"code": []}),
        ("events", [{"name": "exception", "timeUnixNano": "x"}]),
        (None, 7),  # the span itself is not an object
    ]
)


@given(st.lists(SPAN, min_size=1, max_size=4), st.data(), BAD, st.booleans())
def test_refusals_equal_the_whole_read(
    tmp_path_factory: pytest.TempPathFactory,
    spans: list[tuple[Any, ...]],
    data: Any,
    bad: tuple[str | None, Any],
    pretty: bool,
) -> None:
    doc = _document(spans, "agent")
    group = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    at = data.draw(st.integers(0, len(group) - 1))
    field, value = bad
    group[at] = value if field is None else {**group[at], field: value}
    path, raw = _write(tmp_path_factory.mktemp("otlp"), doc, pretty, False)
    with pytest.raises(InputError) as whole:
        _whole(raw, path, pretty)
    with pytest.raises(InputError) as streamed:
        _streamed(path)
    assert streamed.value.problems == whole.value.problems


def test_ingest_of_a_document_equals_the_array_form(tmp_path: Path) -> None:
    """End to end: a pretty document and the same document inside a JSON array (still read
    whole) are written byte for byte alike; a one-line document and the same line followed by
    an empty export (still read line by line) likewise."""
    spans = [
        (
            "execute_tool lookup_order",
            {"gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.result": '{"ok": true}'},
            StatusCode.OK,
            [],
        ),
        (
            "POST",
            {
                "http.request.method": "POST",
                "url.full": "https://x.test/r",
                "http.response.status_code": 201,
            },
            StatusCode.UNSET,
            [],
        ),
        ("user_speaking", {"text": "hello"}, StatusCode.UNSET, []),
    ]
    doc = _document(spans, "agent")
    cases = {
        "pretty.json": json.dumps(doc, indent=2),
        "array.json": json.dumps([doc], indent=2),
        "line.jsonl": json.dumps(doc) + "\n",
        "lines.jsonl": json.dumps(doc) + '\n{"resourceSpans": []}\n',
    }
    out = {}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        ran = hotato(
            "trace",
            "ingest",
            str(tmp_path / name),
            "--include-text",
            "--out",
            str(tmp_path / f"{name}.out"),
        )
        assert ran.code == 0, ran.err
        out[name] = (tmp_path / f"{name}.out").read_bytes()
    assert out["pretty.json"] == out["array.json"]
    assert out["line.jsonl"] == out["lines.jsonl"]
    assert b'"format":"otlp-json"' in out["pretty.json"]
    assert b'"format":"otlp-json-lines"' in out["line.jsonl"]
