"""OTLP trace data, JSON or protobuf, as a stream of plain spans.

OTLP/JSON (the Collector file exporter writes one `{"resourceSpans": [...]}` document per line)
is decoded line by line with typed msgspec structs, so a malformed field is refused with its
line and JSON path. `intValue` and the nanosecond times may be strings (that is how protobuf's
JSON mapping writes 64-bit integers); ids may be hex (OTLP/JSON) or base64 (protobuf JSON
mapping) and always come out as hex. Protobuf input (ExportTraceServiceRequest / TracesData,
raw or as the file exporter's 4-byte length-prefixed frames) needs `opentelemetry-proto`.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from hotato.evidence.ingest._doc import MAX_PROBLEMS, split_path
from hotato.model.errors import InputError, Problem

STATUS_OK, STATUS_ERROR = 1, 2
_HEX = re.compile(r"[0-9a-fA-F]+")
_STATUS_NAMES = {
    "STATUS_CODE_UNSET": 0,
    "STATUS_CODE_OK": STATUS_OK,
    "STATUS_CODE_ERROR": STATUS_ERROR,
}


@dataclass(slots=True)
class Event:
    name: str
    time_ns: int | None
    attributes: dict[str, Any]


@dataclass(slots=True)
class OSpan:
    """One OTLP span, decoded: attribute values are plain Python values. Ids are as the source
    wrote them (hex or base64); `hex_id` normalises them when they are asked for."""

    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    start_ns: int | None
    end_ns: int | None
    attributes: dict[str, Any]
    status_code: int
    status_message: str
    scope: str
    resource: dict[str, Any]
    events: list[Event] = field(default_factory=list)


# --- OTLP/JSON --------------------------------------------------------------------------------


class _AnyValue(msgspec.Struct, gc=False):
    stringValue: str | None = None
    boolValue: bool | None = None
    intValue: int | str | None = None
    doubleValue: float | str | None = None
    arrayValue: _ArrayValue | None = None
    kvlistValue: _KvList | None = None
    bytesValue: str | None = None


class _ArrayValue(msgspec.Struct, gc=False):
    values: list[_AnyValue] = []


class _KeyValue(msgspec.Struct, gc=False):
    key: str
    value: _AnyValue | None = None


class _KvList(msgspec.Struct, gc=False):
    values: list[_KeyValue] = []


class _Status(msgspec.Struct, gc=False):
    code: int | str = 0
    message: str = ""


class _Event(msgspec.Struct, gc=False):
    name: str = ""
    timeUnixNano: int | str | None = None
    attributes: list[_KeyValue] = []


class _Span(msgspec.Struct, gc=False):
    name: str = ""
    traceId: str = ""
    spanId: str = ""
    parentSpanId: str = ""
    startTimeUnixNano: int | str | None = None
    endTimeUnixNano: int | str | None = None
    attributes: list[_KeyValue] = []
    events: list[_Event] = []
    status: _Status | None = None


class _Scope(msgspec.Struct, gc=False):
    name: str = ""


class _ScopeSpans(msgspec.Struct, gc=False):
    scope: _Scope | None = None
    spans: list[_Span] = []


class _Resource(msgspec.Struct, gc=False):
    attributes: list[_KeyValue] = []


class _ResourceSpans(msgspec.Struct, gc=False):
    resource: _Resource | None = None
    scopeSpans: list[_ScopeSpans] = []
    instrumentationLibrarySpans: list[_ScopeSpans] = []


class _TracesDoc(msgspec.Struct, gc=False):
    resourceSpans: list[_ResourceSpans]


_doc_decoder = msgspec.json.Decoder(_TracesDoc)
_convert_doc = msgspec.convert


class _Bad(Exception):
    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message


def _int(value: int | str | None, where: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    try:
        return int(value)
    except ValueError:
        raise _Bad(where, f"expected an integer (or integer string), got {value!r}") from None


def _value(v: _AnyValue | None) -> Any:
    """A decoded AnyValue; a bad one raises _Bad with its path relative to the value."""
    if v is None:
        return None
    if v.stringValue is not None:
        return v.stringValue
    if v.boolValue is not None:
        return v.boolValue
    if v.intValue is not None:
        return _int(v.intValue, ".intValue")
    if v.doubleValue is not None:
        if isinstance(v.doubleValue, str):
            try:
                number = float(v.doubleValue)
            except ValueError:
                raise _Bad(".doubleValue", "expected a number") from None
        else:
            number = v.doubleValue
        return number if math.isfinite(number) else None
    if v.arrayValue is not None:
        out = []
        for i, x in enumerate(v.arrayValue.values):
            try:
                out.append(_value(x))
            except _Bad as bad:
                raise _Bad(f".arrayValue.values[{i}]{bad.where}", bad.message) from None
        return out
    if v.kvlistValue is not None:
        try:
            return _attrs(v.kvlistValue.values)
        except _Bad as bad:
            raise _Bad(f".kvlistValue.values{bad.where}", bad.message) from None
    if v.bytesValue is not None:
        return v.bytesValue
    return None


def _attrs(kvs: list[_KeyValue]) -> dict[str, Any]:
    out = {}
    for kv in kvs:
        value = kv.value
        if value is not None and value.stringValue is not None:  # the common case, inline
            out[kv.key] = value.stringValue
            continue
        try:
            out[kv.key] = _value(value)
        except _Bad as bad:
            raise _Bad(f"[{kvs.index(kv)}].value{bad.where}", bad.message) from None
    return out


def _at(where: str, what: str, fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except _Bad as bad:
        raise _Bad(f"{where}.{what}{bad.where}", bad.message) from None


def hex_id(value: str | bytes) -> str:
    """Trace and span ids as lowercase hex, from hex, base64 or raw bytes."""
    if isinstance(value, bytes):
        return value.hex()
    if not value:
        return ""
    if len(value) in (16, 32) and _HEX.fullmatch(value):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        return value


def _status_code(code: int | str) -> int:
    if isinstance(code, int):
        return code
    return _STATUS_NAMES.get(code, 0)


def _spans_of(doc: _TracesDoc, where: str) -> list[OSpan]:
    out: list[OSpan] = []
    for r, rs in enumerate(doc.resourceSpans):
        rwhere = f"{where}.resourceSpans[{r}]"
        resource = (
            _at(f"{rwhere}.resource", "attributes", _attrs, rs.resource.attributes)
            if rs.resource
            else {}
        )
        groups = rs.scopeSpans or rs.instrumentationLibrarySpans
        key = "scopeSpans" if rs.scopeSpans else "instrumentationLibrarySpans"
        for g, ss in enumerate(groups):
            scope = ss.scope.name if ss.scope else ""
            k = 0
            try:
                for k, sp in enumerate(ss.spans):  # noqa: B007 - `k` locates a refusal
                    out.append(_span(sp, scope, resource))
            except _Bad as bad:
                raise _Bad(f"{rwhere}.{key}[{g}].spans[{k}]{bad.where}", bad.message) from None
    return out


_START, _END = ".startTimeUnixNano", ".endTimeUnixNano"


def _span(sp: _Span, scope: str, resource: dict[str, Any]) -> OSpan:
    # Hot: once per span. Integer times and string attributes (the common case) are read
    # inline; anything else goes through the checked readers, which locate a bad value (in
    # the order the fields are checked: events, times, attributes).
    events = _events(sp.events) if sp.events else []
    start = sp.startTimeUnixNano
    if start.__class__ is not int:  # protobuf's JSON mapping writes them as digit strings
        start = int(start) if start.__class__ is str and start.isdecimal() else _int(start, _START)
    end = sp.endTimeUnixNano
    if end.__class__ is not int:
        end = int(end) if end.__class__ is str and end.isdecimal() else _int(end, _END)
    try:
        attributes = _attrs(sp.attributes) if sp.attributes else {}
    except _Bad as bad:
        raise _Bad(f".attributes{bad.where}", bad.message) from None
    status = sp.status
    code = status.code if status else 0
    return OSpan(
        sp.name,
        sp.traceId,
        sp.spanId,
        sp.parentSpanId,
        start or None,
        end or None,
        attributes,
        code if code.__class__ is int else _status_code(code),
        status.message if status else "",
        scope,
        resource,
        events,
    )


def _events(events: list[_Event]) -> list[Event]:
    return [
        Event(
            ev.name,
            _at(f".events[{e}]", "timeUnixNano", _int, ev.timeUnixNano, ""),
            _at(f".events[{e}]", "attributes", _attrs, ev.attributes),
        )
        for e, ev in enumerate(events)
    ]


def is_traces_doc(value: Any) -> bool:
    return isinstance(value, dict) and "resourceSpans" in value


def spans_from_line(line: bytes, name: str, lineno: int) -> list[OSpan]:
    """One OTLP/JSON document on one line; refused with its line and JSON path."""
    try:
        doc = _doc_decoder.decode(line)
    except msgspec.ValidationError as exc:
        message, path = split_path(str(exc))
        raise InputError([Problem(message, file=name, line=lineno, path=path)]) from None
    except msgspec.DecodeError as exc:
        raise InputError.one(f"line is not JSON ({exc})", file=name, line=lineno) from None
    try:
        return _spans_of(doc, "$")
    except _Bad as bad:
        raise InputError([Problem(bad.message, file=name, line=lineno, path=bad.where)]) from None


def spans_from_value(value: Any, name: str, where: str = "$") -> list[OSpan]:
    """An already-decoded OTLP/JSON document (a whole file read at once)."""
    try:
        doc = _convert_doc(value, _TracesDoc)
    except msgspec.ValidationError as exc:
        message, path = split_path(str(exc))
        path = where + path[1:] if path else where
        raise InputError([Problem(message, file=name, path=path)]) from None
    try:
        return _spans_of(doc, where)
    except _Bad as bad:
        raise InputError([Problem(bad.message, file=name, path=bad.where)]) from None


# --- OTLP protobuf ----------------------------------------------------------------------------


def looks_like_protobuf(head: bytes) -> bool:
    """TracesData starts with field 1 (resource_spans, length-delimited): 0x0A. The file exporter's
    proto format prefixes each message with a 4-byte big-endian length."""
    if not head:
        return False
    if head[0] == 0x0A:
        return True
    return len(head) > 4 and head[0] == 0 and head[4] == 0x0A


def _frames(data: bytes) -> list[bytes] | None:
    frames, pos = [], 0
    while pos < len(data):
        if pos + 4 > len(data):
            return None
        size = int.from_bytes(data[pos : pos + 4], "big")
        pos += 4
        if size == 0 or pos + size > len(data):
            return None
        frames.append(data[pos : pos + size])
        pos += size
    return frames or None


def spans_from_protobuf(data: bytes, name: str) -> Iterator[OSpan]:
    try:
        from google.protobuf.message import DecodeError
        from opentelemetry.proto.trace.v1.trace_pb2 import TracesData
    except ImportError:
        raise InputError.one(
            "this is OTLP protobuf; reading it needs the opentelemetry-proto package "
            "(pip install 'hotato[otel]'), or export OTLP/JSON instead",
            file=name,
        ) from None
    frames = [data] if data[:1] == b"\x0a" else _frames(data)
    if frames is None:
        raise InputError.one(
            "not OTLP protobuf: the length-prefixed frames do not add up", file=name
        )
    messages = []
    for i, frame in enumerate(frames):
        message = TracesData()
        try:
            message.ParseFromString(frame)
        except (DecodeError, ValueError, RuntimeError) as exc:
            where = f"frame {i + 1}: " if len(frames) > 1 else ""
            raise InputError.one(
                f"{where}not a valid OTLP protobuf message ({exc})", file=name
            ) from None
        messages.append(message)
    count = sum(len(ss.spans) for m in messages for rs in m.resource_spans for ss in rs.scope_spans)
    if count == 0:
        raise InputError.one(
            "protobuf input holds no spans (is it an OTLP ExportTraceServiceRequest?)", file=name
        )
    for message in messages:
        yield from _proto_spans(message)


def _pvalue(v: Any) -> Any:
    which = v.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [_pvalue(x) for x in v.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _pvalue(kv.value) for kv in v.kvlist_value.values}
    if which == "bytes_value":
        return base64.b64encode(v.bytes_value).decode("ascii")
    value = getattr(v, which)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def proto_attributes(kvs: Any) -> dict[str, Any]:
    """Protobuf OTLP attributes (KeyValue list) as JSON values: bytes as base64, a non-finite
    float as null."""
    return {kv.key: _pvalue(kv.value) for kv in kvs}


def _proto_spans(message: Any) -> Iterator[OSpan]:
    for rs in message.resource_spans:
        resource = proto_attributes(rs.resource.attributes)
        for ss in rs.scope_spans:
            scope = ss.scope.name
            for sp in ss.spans:
                yield OSpan(
                    name=sp.name,
                    trace_id=sp.trace_id.hex(),
                    span_id=sp.span_id.hex(),
                    parent_span_id=sp.parent_span_id.hex(),
                    start_ns=sp.start_time_unix_nano or None,
                    end_ns=sp.end_time_unix_nano or None,
                    attributes=proto_attributes(sp.attributes),
                    status_code=int(sp.status.code),
                    status_message=sp.status.message,
                    scope=scope,
                    resource=resource,
                    events=[
                        Event(ev.name, ev.time_unix_nano or None, proto_attributes(ev.attributes))
                        for ev in sp.events
                    ],
                )


__all__ = [
    "MAX_PROBLEMS",
    "STATUS_ERROR",
    "STATUS_OK",
    "Event",
    "OSpan",
    "hex_id",
    "is_traces_doc",
    "looks_like_protobuf",
    "spans_from_line",
    "spans_from_protobuf",
    "spans_from_value",
]
