"""Which stack wrote this file? Looks at the shape of the file, never at its name.

Line-delimited files (native traces, OTLP/JSON from the Collector file exporter, the earlier OTel
bridge JSONL) are recognised from their first line and then streamed. A file whose first line is
not a whole JSON value is a single document and is read whole: vendor reports (LiveKit, Vapi,
Retell) are small. A file that is exactly one OTLP/JSON document (pretty-printed or on one line)
is mapped and read span by span instead (`_otlp_doc`), so a huge export costs what its spans do.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from hotato._io import check_readable, read_bytes
from hotato.evidence.formats import CHOICES, NAMES, READERS, SHAPES, canonical
from hotato.evidence.ingest._doc import decode_document
from hotato.evidence.ingest._otlp import (
    OSpan,
    is_traces_doc,
    looks_like_protobuf,
    spans_from_protobuf,
)
from hotato.evidence.ingest._otlp_doc import OtlpDocument, open_document, stack_peek
from hotato.model.errors import InputError

FORMATS = NAMES
_HEAD = 64 * 1024
_decode_any = msgspec.json.Decoder().decode


@dataclass
class Sniffed:
    """What a file is physically: protobuf bytes, JSON lines, or one JSON document."""

    path: str
    shape: str  # "protobuf" | "lines" | "document"
    first: Any = None  # lines: the first line's value
    doc: Any = None  # document: the whole value
    data: bytes = b""  # protobuf: the bytes
    stack: str | None = None  # OTLP: which stack's conventions ("" when not OTLP), once peeked
    # one OTLP/JSON document read span by span; `first` / `doc` then hold only its top-level
    # key (`{"resourceSpans": []}`), which is all the format detectors look at
    otlp: OtlpDocument | None = None


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
            otlp = open_document(name, head) if stripped[:1] == b"{" else None
            if otlp is not None:
                top: dict[str, Any] = {"resourceSpans": []}
                if otlp.line is not None:
                    return Sniffed(name, "lines", first=top, otlp=otlp)
                return Sniffed(name, "document", doc=top, otlp=otlp)
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
    """The format name for a sniffed file (the first row of the format table that claims it);
    refused when it is none hotato reads."""
    for name in READERS:
        if READERS[name].detect(sn):
            return name
    raise InputError.one(f"unrecognised input: expected {SHAPES}", file=sn.path)


def value_of(sn: Sniffed) -> Any:
    """The value a format's detector looks at: the first line, or the whole document."""
    return sn.first if sn.shape == "lines" else sn.doc


def traces_docs(sn: Sniffed) -> list[Any]:
    """The OTLP/JSON documents a JSON file starts with ([] when it is not OTLP/JSON)."""
    value = value_of(sn)
    if is_traces_doc(value):
        return [value]
    if isinstance(value, list) and value and all(is_traces_doc(v) for v in value):
        return value[:1]
    return []


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def otlp_stack(sn: Sniffed) -> str | None:
    """otel, or livekit / pipecat when the spans follow that stack's conventions; None when the
    file is not OTLP at all. A peek only: the OTLP reader validates the data. Protobuf is
    decoded for the peek (it is read whole anyway)."""
    if sn.stack is not None:
        return sn.stack or None
    if sn.shape == "protobuf":
        sn.stack = _stack_of_spans(spans_from_protobuf(sn.data, sn.path))
    elif sn.otlp is not None:
        sn.stack = stack_peek(sn.otlp, _stack_of)
    else:
        docs = traces_docs(sn)
        sn.stack = _stack_of_docs(docs[0]) if docs else ""
    return sn.stack or None


def _stack_of_docs(doc: Any) -> str:
    for rs in _list(doc.get("resourceSpans")):
        for ss in _list(rs.get("scopeSpans") if isinstance(rs, dict) else None):
            if not isinstance(ss, dict):
                continue
            scope = ss.get("scope")
            scope_name = str(scope.get("name") or "") if isinstance(scope, dict) else ""
            keys = (
                str(kv.get("key", ""))
                for sp in _list(ss.get("spans"))
                if isinstance(sp, dict)
                for kv in _list(sp.get("attributes"))
                if isinstance(kv, dict)
            )
            found = _stack_of(scope_name, keys)
            if found != "otel":
                return found
    return "otel"


def _stack_of_spans(spans: Iterator[OSpan]) -> str:
    for s in spans:
        found = _stack_of(s.scope, iter(s.attributes))
        if found != "otel":
            return found
    return "otel"


def _stack_of(scope: str, keys: Iterator[str]) -> str:
    if scope == "pipecat" or scope.startswith("pipecat."):
        return "pipecat"
    if scope.startswith("livekit"):
        return "livekit"
    return "livekit" if any(k.startswith("lk.") for k in keys) else "otel"


def normalize(fmt: str) -> str:
    found = canonical(fmt)
    if found is None:
        raise InputError.one(f"unknown trace format {fmt!r}; expected one of {', '.join(CHOICES)}")
    return found


def detect_format(path: str | os.PathLike[str]) -> str:
    """The format of a trace file: one of `FORMATS`. Refused (InputError) when unrecognised."""
    return classify(sniff(path))


def document(sn: Sniffed, fmt: str) -> Any:
    """The one JSON document a vendor format is; refused for JSON lines or protobuf."""
    if sn.shape != "document":
        raise InputError.one(
            f"a {fmt} input is one JSON document, not JSON lines or protobuf", file=sn.path
        )
    return sn.doc
