"""OTLP/HTTP trace exports (protobuf or JSON, as the OpenTelemetry exporters send them),
gathered per call.

A call is one trace: LiveKit's `agent_session` and Pipecat's `conversation` span is the
trace's root, exported when the call ends, so a root span (no parent) closes the call; a trace
that stays quiet for the idle period is closed too. Each export's spans are appended to their
trace's file as one length-prefixed protobuf frame (the OpenTelemetry file exporter's layout,
which `hotato trace ingest` reads), fsync'd before the export is acknowledged. A frame a killed
process left half-written is dropped when the call is closed; a span sent twice (an exporter's
retry) is kept once."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any, NamedTuple

from hotato.serve.intake import Refused

# Attributes that name the call, looked for on the root span, then the resource.
CALL_ID_KEYS = ("conversation.id", "gen_ai.conversation.id", "session.id", "call.id", "lk.job_id")
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")
# An attribute `hotato.var.COLUMN` is the call's `${call.COLUMN}`.
VAR_PREFIX = "hotato.var."


class Closed(NamedTuple):
    """A closed call: its spans as one clean file, the call id and agent they name, and the
    attributes its variables are read from (the root span's, then the resource's, then the
    other spans', the first value of a name winning)."""

    data: bytes
    call_id: str | None
    agent: str | None
    attributes: dict[str, Any]


def variables(attributes: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    """The call's `${call.COLUMN}` values: every `hotato.var.COLUMN` attribute, then each
    `--var COLUMN=attr:NAME` (an attribute the call lacks gives no value)."""
    out = {
        name[len(VAR_PREFIX) :]: value
        for name, value in attributes.items()
        if name.startswith(VAR_PREFIX) and len(name) > len(VAR_PREFIX)
    }
    for column, name in mapping.items():
        if attributes.get(name) is not None:
            out[column] = attributes[name]
    return out


def _messages() -> Any:
    try:
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    except ImportError:
        raise Refused(
            "OTLP needs the opentelemetry-proto package: pip install 'hotato[serve]'"
        ) from None
    return trace_service_pb2


def decode(body: bytes, content_type: str) -> Any:
    """An ExportTraceServiceRequest from an OTLP/HTTP body."""
    pb = _messages()
    request = pb.ExportTraceServiceRequest()
    if "json" in content_type:
        import msgspec
        from google.protobuf import json_format

        try:
            doc = msgspec.json.decode(body)
            json_format.ParseDict(_ids_to_base64(doc), request, ignore_unknown_fields=True)
        except (msgspec.DecodeError, json_format.ParseError, ValueError, TypeError) as exc:
            raise Refused(f"not an OTLP/JSON trace export ({exc})") from None
        return request
    if "protobuf" not in content_type:
        raise Refused("Content-Type must be application/x-protobuf or application/json")
    from google.protobuf.message import DecodeError

    try:
        request.ParseFromString(body)
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise Refused(f"not an OTLP protobuf trace export ({exc})") from None
    return request


def _ids_to_base64(value: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex; the protobuf JSON mapping reads bytes as
    base64 (and some exporters write that)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in _ID_FIELDS and isinstance(v, str):
                from hotato.runs.fleet import hex_id

                try:  # hex as the specification says, or base64 as some exporters write
                    v = base64.b64encode(bytes.fromhex(hex_id(v))).decode()
                except ValueError:
                    raise Refused(f"{k} {v!r} is neither hexadecimal nor base64") from None
            out[k] = _ids_to_base64(v)
        return out
    if isinstance(value, list):
        return [_ids_to_base64(v) for v in value]
    return value


def split(request: Any) -> dict[str, tuple[bytes, bool]]:
    """trace id (hex) -> (this export's spans of that trace as one serialized request, whether
    they hold the trace's root span)."""
    pb = _messages()
    parts: dict[str, Any] = {}
    roots: set[str] = set()
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            for span in ss.spans:
                trace = span.trace_id.hex()
                if not trace:
                    raise Refused("a span without a trace id")
                out = parts.get(trace)
                if out is None:
                    out = parts[trace] = pb.ExportTraceServiceRequest()
                if not out.resource_spans or out.resource_spans[-1].resource != rs.resource:
                    new = out.resource_spans.add()
                    new.resource.CopyFrom(rs.resource)
                    new.schema_url = rs.schema_url
                rs_out = out.resource_spans[-1]
                if not rs_out.scope_spans or rs_out.scope_spans[-1].scope != ss.scope:
                    new_ss = rs_out.scope_spans.add()
                    new_ss.scope.CopyFrom(ss.scope)
                    new_ss.schema_url = ss.schema_url
                rs_out.scope_spans[-1].spans.append(span)
                if not span.parent_span_id:
                    roots.add(trace)
    return {t: (m.SerializeToString(), t in roots) for t, m in parts.items()}


def append(folder: Path, trace: str, data: bytes) -> Path:
    """Add one frame to the trace's file, durably."""
    path = folder / trace
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, len(data).to_bytes(4, "big") + data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def close_call(path: Path) -> Closed:
    """The gathered frames as one clean file (torn tail dropped, repeated spans once), the
    call id the spans name (None: the trace id stands for it), the agent's service name, and
    the attributes the call's variables are read from."""
    from hotato.runs.fleet import otlp_attributes as _attrs

    pb = _messages()
    data = path.read_bytes()
    seen: set[bytes] = set()
    frames: list[bytes] = []
    call_id = agent = None
    root: dict[str, Any] = {}
    resource: dict[str, Any] = {}
    others: dict[str, Any] = {}
    pos = 0
    while pos + 4 <= len(data):
        size = int.from_bytes(data[pos : pos + 4], "big")
        if size == 0 or pos + 4 + size > len(data):
            break  # a frame cut short by a kill: its export was never acknowledged
        request = pb.ExportTraceServiceRequest()
        request.ParseFromString(data[pos + 4 : pos + 4 + size])
        pos += 4 + size
        for rs in request.resource_spans:
            found = _attrs(rs.resource.attributes)
            agent = agent or _str(found.get("service.name"))
            for k, v in found.items():
                resource.setdefault(k, v)
            for ss in rs.scope_spans:
                keep = [s for s in ss.spans if s.span_id not in seen]
                seen.update(s.span_id for s in keep)
                for span in keep:
                    attrs = _attrs(span.attributes)
                    if not span.parent_span_id:
                        call_id = call_id or next(
                            (_str(attrs.get(k)) for k in CALL_ID_KEYS if _str(attrs.get(k))),
                            None,
                        )
                        for k, v in attrs.items():
                            root.setdefault(k, v)
                    else:
                        for k, v in attrs.items():
                            others.setdefault(k, v)
                del ss.spans[:]
                ss.spans.extend(keep)
        frame = request.SerializeToString()
        if frame:
            frames.append(len(frame).to_bytes(4, "big") + frame)
    return Closed(b"".join(frames), call_id, agent, {**others, **resource, **root})


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
