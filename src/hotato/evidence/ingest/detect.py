"""Which stack wrote this file? Looks at the shape of the file, never at its name.

Line-delimited files (native traces, OTLP/JSON from the Collector file exporter, the earlier OTel
bridge JSONL) are recognised from their first line and then streamed. A file whose first line is
not a whole JSON value is a single document and is read whole: vendor reports (LiveKit, Vapi,
Retell) and pretty-printed OTLP documents are small; a huge OTLP export should be line-delimited.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from typing import Any

import msgspec

from hotato._io import check_readable, read_bytes
from hotato.evidence.ingest import livekit, retell, vapi
from hotato.evidence.ingest._doc import decode_document
from hotato.evidence.ingest._otlp import is_traces_doc, looks_like_protobuf
from hotato.model.errors import InputError

FORMATS = ("native", "otel", "livekit", "pipecat", "vapi", "retell")
ALIASES = {"voice_trace": "native", "hotato": "native", "otlp": "otel", "opentelemetry": "otel"}
_HEAD = 64 * 1024
_decode_any = msgspec.json.Decoder().decode
SHAPES = ("a hotato voice_trace JSONL, OTLP/JSON (lines or a document), OTLP protobuf, the OTel "
          "bridge JSONL, a LiveKit session report, a Vapi end-of-call report or call, or a "
          "Retell call object")


@dataclass
class Sniffed:
    """What a file is physically: protobuf bytes, JSON lines, or one JSON document."""

    path: str
    shape: str  # "protobuf" | "lines" | "document"
    first: Any = None  # lines: the first line's value
    doc: Any = None  # document: the whole value
    data: bytes = b""  # protobuf: the bytes


def _is_text(head: bytes) -> bool:
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    return True


def sniff(path: str | os.PathLike[str]) -> Sniffed:
    name = str(path)
    p = check_readable(path, "trace")
    try:
        with p.open("rb") as handle:
            head = handle.read(_HEAD)
            stripped = head.removeprefix(codecs.BOM_UTF8).lstrip()
            if not stripped:
                raise InputError.one("the file is empty", file=name)
            if stripped[:1] not in (b"{", b"[") or not _is_text(head):
                if looks_like_protobuf(head):
                    return Sniffed(name, "protobuf", data=read_bytes(path, "trace"))
                raise InputError.one(f"unrecognised input: expected {SHAPES}", file=name)
            handle.seek(0)
            line = handle.readline()
            lineno = 1
            while not line.strip():
                line = handle.readline()
                lineno += 1
            rest = handle.read(_HEAD)
    except OSError as exc:
        raise InputError.one(f"cannot read trace: {exc.strerror}", file=name) from exc
    try:
        first = _decode_any(line.removeprefix(codecs.BOM_UTF8))
    except msgspec.DecodeError:
        data = read_bytes(path, "trace").removeprefix(codecs.BOM_UTF8)
        return Sniffed(name, "document", doc=decode_document(data, name, "input"))
    if not rest.strip() and not is_traces_doc(first):
        return Sniffed(name, "document", doc=first)  # one vendor document on one line
    return Sniffed(name, "lines", first=first)


def classify(sn: Sniffed) -> str:
    """The format name for a sniffed file; refused when it is none hotato reads."""
    if sn.shape == "protobuf":
        return "otel"
    value = sn.first if sn.shape == "lines" else sn.doc
    if isinstance(value, dict):
        if value.get("_meta") is True:
            return "native"
        if is_traces_doc(value):
            return otlp_stack(value)
        if vapi.is_report(value):
            return "vapi"
        if retell.is_call(value):
            return "retell"
        if livekit.is_session_report(value):
            return "livekit"
        if sn.shape == "lines" and "type" in value:
            # a span where the meta line belongs: a native trace missing its meta line, which
            # the native loader refuses with a message saying so
            return "native"
        if sn.shape == "lines" and ("deployment" in value or "call_id" in value):
            return "otel"  # the earlier OTel bridge JSONL: a meta line, then native-like spans
    if isinstance(value, list) and value and all(is_traces_doc(v) for v in value):
        return otlp_stack(value[0])
    raise InputError.one(f"unrecognised input: expected {SHAPES}", file=sn.path)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def otlp_stack(doc: Any) -> str:
    """otel, or livekit / pipecat when the spans follow that stack's conventions (a peek only:
    the OTLP reader validates the document)."""
    for rs in _list(doc.get("resourceSpans")):
        for ss in _list(rs.get("scopeSpans") if isinstance(rs, dict) else None):
            if not isinstance(ss, dict):
                continue
            scope = ss.get("scope")
            scope_name = str(scope.get("name") or "") if isinstance(scope, dict) else ""
            if scope_name == "pipecat":
                return "pipecat"
            if scope_name.startswith("livekit"):
                return "livekit"
            for sp in _list(ss.get("spans")):
                attrs = _list(sp.get("attributes") if isinstance(sp, dict) else None)
                if any(isinstance(kv, dict) and str(kv.get("key", "")).startswith("lk.")
                       for kv in attrs):
                    return "livekit"
    return "otel"


def normalize(fmt: str) -> str:
    low = fmt.strip().lower()
    low = ALIASES.get(low, low)
    if low != "auto" and low not in FORMATS:
        raise InputError.one(f"unknown trace format {fmt!r}; expected one of "
                             f"{', '.join(('auto', *FORMATS))}")
    return low


def detect_format(path: str | os.PathLike[str]) -> str:
    """The format of a trace file: one of `FORMATS`. Refused (InputError) when unrecognised."""
    return classify(sniff(path))
