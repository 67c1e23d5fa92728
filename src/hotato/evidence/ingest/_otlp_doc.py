"""One whole OTLP/JSON document (`{"resourceSpans": [...]}`, pretty-printed or on one line),
read without holding its spans as Python values.

The file is mapped, not read: one typed pass finds the resources, scopes and each span's bytes
(`msgspec.Raw`, a view into the mapping); each span is then decoded on its own with the same
typed structs the line reader uses, handed on, and dropped. The mapping's pages are released as
the spans are read, so memory follows the span store, not the file.

Only a document whose top level is exactly `resourceSpans` is read this way; anything else
(a JSON array of documents, extra top-level keys, malformed JSON) is read whole as before. A
document that turns out to be invalid is refused with exactly the message the whole read gives.
"""

from __future__ import annotations

import codecs
import contextlib
import mmap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from hotato.evidence.ingest._doc import decode_document
from hotato.evidence.ingest._otlp import (
    OSpan,
    _at,
    _attrs,
    _Bad,
    _Resource,
    _Scope,
    _Span,
    _span,
    spans_from_line,
    spans_from_value,
)
from hotato.model.errors import InputError, Problem

_RELEASE_EVERY = 1 << 16  # spans between releases of the mapping's pages
_JSON_SPACE = b" \t\r\n"
_TAIL = 64 * 1024


class _ScopeSpansRaw(msgspec.Struct):
    scope: _Scope | None = None
    spans: list[msgspec.Raw] = []


class _ResourceSpansRaw(msgspec.Struct):
    resource: _Resource | None = None
    scopeSpans: list[_ScopeSpansRaw] = []
    instrumentationLibrarySpans: list[_ScopeSpansRaw] = []


class _DocRaw(msgspec.Struct, forbid_unknown_fields=True):
    resourceSpans: list[_ResourceSpansRaw]


_doc_raw = msgspec.json.Decoder(_DocRaw)
_span_decoder = msgspec.json.Decoder(_Span)


class _Invalid(Exception):
    """Some span or resource is invalid: the whole read's refusal is the one to give."""


@dataclass
class OtlpDocument:
    """A mapped OTLP/JSON document. `line`: the line it sits on when it is one line (read as the
    Collector's line format, as before); None for a document spread over lines."""

    path: str
    mapping: mmap.mmap
    start: int  # where the JSON value starts (after a byte order mark and blank space)
    end: int
    line: int | None
    doc: _DocRaw

    def scope_names_and_keys(self) -> Iterator[tuple[str, Iterator[str]]]:
        """Per scope group (in order): its scope name and its spans' attribute keys."""
        # no key can start with `lk.` when those bytes (or an escape) appear nowhere
        keyed = self.mapping.find(b"lk.") != -1 or self.mapping.find(b"\\u") != -1
        self._release()
        for rs in self.doc.resourceSpans:
            for ss in rs.scopeSpans:
                keys = self._keys(ss.spans) if keyed else iter(())
                yield (ss.scope.name if ss.scope else ""), keys

    def _keys(self, raws: list[msgspec.Raw]) -> Iterator[str]:
        for raw in raws:
            try:
                sp = _span_decoder.decode(raw)
            except msgspec.DecodeError:
                continue  # a peek only: the reader refuses it
            for kv in sp.attributes:
                yield kv.key
        self._release()

    def spans(self) -> Iterator[OSpan]:
        """Every span, in document order; refused exactly as the whole read refuses."""
        return self._run(0, None)

    def halves(self, at_least: int) -> tuple[Iterator[OSpan], Iterator[OSpan]] | None:
        """Its spans in two runs of about equal length (for `in_two`), each refused exactly as
        the whole read refuses; None for fewer than `at_least` spans, when a resource holds
        both kinds of scope group (the serial read checks the one it does not read), or when a
        resource's attributes are invalid (the serial read refuses them first)."""
        resources = self.doc.resourceSpans
        if any(rs.scopeSpans and rs.instrumentationLibrarySpans for rs in resources):
            return None
        total = sum(len(ss.spans) for rs in resources for ss in _groups(rs))
        if total < at_least:
            return None
        try:
            for rs in resources:
                _resource(rs)
        except _Invalid:
            return None
        middle = total // 2
        return self._run(0, middle), self._run(middle, total)

    def _run(self, lo: int, hi: int | None) -> Iterator[OSpan]:
        try:
            yield from self._between(lo, hi)
        except _Invalid:
            self.refuse()
            raise AssertionError("unreachable: refuse() raises") from None

    def _between(self, lo: int, hi: int | None) -> Iterator[OSpan]:
        """The spans numbered `lo` to `hi` (exclusive) in document order. The whole document
        (`hi` None) is read as the whole read reads it: every resource, and the scope group a
        resource holds beside the one read, checked."""
        count = seen = 0
        for rs in self.doc.resourceSpans:
            groups = _groups(rs)
            if hi is not None:  # a run: only the resources it reaches
                size = sum(len(ss.spans) for ss in groups)
                if seen + size <= lo or seen >= hi:
                    seen += size
                    continue
            resource = _resource(rs)
            for ss in groups:
                scope = ss.scope.name if ss.scope else ""
                start = max(lo - seen, 0)
                stop = len(ss.spans) if hi is None else min(hi - seen, len(ss.spans))
                seen += len(ss.spans)
                for raw in ss.spans[start:stop] if start < stop else ():
                    try:
                        span = _span(_span_decoder.decode(raw), scope, resource)
                    except (_Bad, msgspec.DecodeError):
                        raise _Invalid from None
                    yield span
                    count += 1
                    if count % _RELEASE_EVERY == 0:
                        self._release()
            if hi is None:  # the group not read is still part of the document: it must be valid
                newer = groups is rs.scopeSpans
                for ss in rs.instrumentationLibrarySpans if newer else rs.scopeSpans:
                    for raw in ss.spans:
                        try:
                            _span_decoder.decode(raw)
                        except msgspec.DecodeError:
                            raise _Invalid from None
        self._release()

    def check(self) -> None:
        """Refuse now if any span or resource is invalid (a whole read refuses those before
        it converts anything)."""
        try:
            for _ in self._between(0, None):
                pass
        except _Invalid:
            self.refuse()

    def refuse(self) -> None:
        """Raise the refusal the whole read gives for this document."""
        data = self.mapping[self.start : self.end]
        if self.line is not None:
            spans_from_line(data, self.path, self.line)
        else:
            spans_from_value(decode_document(data, self.path, "input"), self.path)
        raise InputError([Problem("invalid OTLP/JSON document", file=self.path)])

    def _release(self) -> None:
        """Drop the mapping's resident pages; they are read back from the file if needed."""
        advice = getattr(mmap, "MADV_DONTNEED", None)
        if advice is not None:
            with contextlib.suppress(OSError, ValueError):
                self.mapping.madvise(advice)


def _groups(rs: _ResourceSpansRaw) -> list[_ScopeSpansRaw]:
    """The scope groups a resource's spans are read from (the older name when the newer is
    empty)."""
    return rs.scopeSpans or rs.instrumentationLibrarySpans


def _resource(rs: _ResourceSpansRaw) -> dict[str, Any]:
    try:
        return _at("", "attributes", _attrs, rs.resource.attributes) if rs.resource else {}
    except _Bad:
        raise _Invalid from None


def open_document(path: str, head: bytes) -> OtlpDocument | None:
    """The file as one OTLP/JSON document read span by span; None when it is not exactly one
    (the caller reads it the ordinary way)."""
    if b'"resourceSpans"' not in head:
        return None
    try:
        with open(path, "rb") as handle:
            mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    bom = len(codecs.BOM_UTF8) if mapping[:3] == codecs.BOM_UTF8 else 0
    lead = mapping[bom : bom + _TAIL]
    start = bom + len(lead) - len(lead.lstrip(_JSON_SPACE))
    tail = mapping[max(start, len(mapping) - _TAIL) :]
    end = len(mapping) - (len(tail) - len(tail.rstrip(_JSON_SPACE)))
    if start >= end or mapping[start : start + 1] != b"{":
        return None
    try:
        doc = _doc_raw.decode(memoryview(mapping)[start:end])
    except msgspec.DecodeError:
        return None
    one_line = mapping.find(b"\n", start, end) == -1
    lineno = mapping[:start].count(b"\n") + 1
    # on one line it is read as the Collector's line format, as the whole read does; a byte
    # order mark before a blank line makes the whole read take it as a document
    line = lineno if one_line and (not bom or lineno == 1) else None
    return OtlpDocument(path, mapping, start, end, line, doc)


def stack_peek(doc: OtlpDocument, classify: Any) -> str:
    """`classify(scope, keys)` over the document's scope groups until one is not plain otel."""
    for scope, keys in doc.scope_names_and_keys():
        found = classify(scope, keys)
        if found != "otel":
            return str(found)
    return "otel"
