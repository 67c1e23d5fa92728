"""`hotato.voice_trace.v1` JSONL: a meta line, then one span per line, read line by line."""

from __future__ import annotations

import os
from typing import Any

import msgspec

from hotato._io import check_readable, gc_paused
from hotato.model.errors import InputError, Problem
from hotato.model.evidence import SPAN_KEYS, Span, Trace, TraceIndexer

SCHEMA = "hotato.voice_trace.v1"
MAX_PROBLEMS = 20

_span_decoder = msgspec.json.Decoder(Span)
_any_decoder = msgspec.json.Decoder()
_encode = msgspec.json.Encoder().encode


class StrictSpan(Span, forbid_unknown_fields=True):
    """The same fields; a line naming any other top-level key is refused (so extras are seen).
    A line whose extras are folded is read as one too, so a trace's spans are of one class and
    the interpreter's attribute reads over them (`TraceIndexer.add`, the kinds) stay specialized
    to it; a mix of two classes is measurably slower on a 1.x trace."""


_strict_decoder = msgspec.json.Decoder(StrictSpan)
_UNKNOWN_FIELD = "Object contains unknown field"  # how msgspec's refusal of an extra key starts


def decode_span(line: bytes) -> Span:
    """One span line. Lines that name only `Span`'s own keys (what ingest writes) decode in one
    step; any other line is decoded again after its extra keys are folded into `attributes`."""
    try:
        return _strict_decoder.decode(line)
    except msgspec.ValidationError as exc:
        if not str(exc).startswith(_UNKNOWN_FIELD):
            raise
    return _folded(line)


def _folded(line: bytes) -> Span:
    """A span line the strict decoder refused for naming keys `Span` does not (`error_message`,
    `ok`, `http.method`, ...), read with those keys moved under `attributes` (the top level
    winning over an attribute of the same name, as it does when read) so the field reader finds
    them; read as it stands, those keys unread, when `attributes` is not an object to hold them."""
    try:
        body = _any_decoder.decode(line)
    except msgspec.DecodeError:
        return _span_decoder.decode(line)
    if isinstance(body, dict):
        extras = [key for key in body if key not in SPAN_KEYS]
        attributes = body.get("attributes")
        if extras and (attributes is None or isinstance(attributes, dict)):
            if attributes is None:  # absent or null: in its place, or else last
                attributes = body["attributes"] = {}
            for key in extras:  # after its own keys, replacing one of the same name in place
                attributes[key] = body.pop(key)
            return _strict_decoder.decode(_encode(body))  # only Span's keys are left
    return _span_decoder.decode(line)


def read_spans(index: TraceIndexer, lines: list[bytes], at: int = 0) -> int:
    """Add the spans of `lines[at:]` to `index`, each line read as `decode_span` reads it, up to
    the first line with something to tell (a blank line, anything malformed or of a wrong type),
    which is left to the caller to tell; returns that line's position (`len(lines)` if none).

    The lines go through the strict decoder in one C-level `map` (as cheap as one call for the
    lines joined into an array), so a refusal names its line: a line with keys to fold (a 1.x
    trace's `ok`, `http.method`, ...) is folded where it stands and the run goes on after it."""
    spans: list[Span] = []
    rest = iter(lines[at:])
    try:
        while True:
            try:
                spans.extend(map(_strict_decoder.decode, rest))  # the spans before a refusal kept
                break
            except msgspec.ValidationError as exc:
                if not str(exc).startswith(_UNKNOWN_FIELD):
                    raise
            spans.append(_folded(lines[at + len(spans)]))
    except msgspec.DecodeError:  # or a ValidationError: the line stays unread
        pass
    read = at + len(spans)
    for span, line in zip(spans, lines[at:read], strict=True):
        index.add(span, line)
    return read


def _problem(path: str, lineno: int, message: str) -> Problem:
    return Problem(message, file=path, line=lineno)


def _invalid(name: str, lineno: int, err: msgspec.ValidationError, span_no: int) -> Problem:
    """`trace.jsonl:7 $.name: Expected `str | null`, got `int` (span s_5)`: msgspec's path
    within the line becomes the problem's JSON path, and the span is named by its id."""
    message, _, tail = str(err).partition(" - at `")
    path = tail.rstrip("`") or "$"
    if path == "$" and message.startswith("Expected `object`, got"):
        message = "a span line must be a JSON object, got " + message.rsplit("`", 2)[-2]
    return Problem(f"{message} (span s_{span_no})", file=name, line=lineno, path=path)


def load_trace(path: str | os.PathLike[str], digest: Any = None) -> Trace:
    """Read a trace. A missing meta line, a non-object line or a wrong type is refused, located.

    `digest` (a hashlib object), when given, is fed every byte as it is read, so a caller that
    verified the file's signature can check that these very bytes are the ones it verified."""
    name = str(path)
    p = check_readable(path, "trace")
    index = TraceIndexer()
    problems: list[Problem] = []
    meta: dict[str, Any] | None = None
    span_no = -1  # index among span lines, whether or not the line decodes
    try:
        handle = p.open("rb")
    except OSError as exc:
        raise InputError.one(f"cannot read trace: {exc.strerror}", file=name) from exc
    with handle, gc_paused():
        lineno = 0
        stop = False
        while not stop and (batch := handle.readlines(_BATCH_BYTES)):
            if digest is not None:
                digest.update(b"".join(batch))  # the same bytes, in the same order
            lines = list(map(bytes.strip, batch))
            at = 0
            while at < len(lines):
                if meta is not None and not problems:  # spans with nothing to tell, in runs
                    read = read_spans(index, lines, at)
                    lineno += read - at
                    span_no += read - at
                    at = read
                    if at == len(lines):
                        break
                line = lines[at]  # line by line: whatever a line holds is told, located
                at += 1
                lineno += 1
                if lineno == 1:
                    line = line.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark is not data
                if not line:
                    continue
                if meta is None:
                    meta = _read_meta(line, name, lineno)
                    continue
                span_no += 1
                try:
                    span = decode_span(line)
                except msgspec.ValidationError as exc:
                    problems.append(_invalid(name, lineno, exc, span_no))
                except msgspec.DecodeError:
                    problems.append(_problem(name, lineno, _describe_bad_line(line)))
                else:
                    index.add(span, line)
                if len(problems) >= MAX_PROBLEMS:
                    problems.append(Problem("too many problems; stopped reading", file=name))
                    stop = True
                    break
    if meta is None:
        raise InputError.one(
            f"empty trace: expected a meta line with schema {SCHEMA!r}", file=name, line=1
        )
    if problems:
        raise InputError(problems)
    return index.trace(meta, name)


_BATCH_BYTES = 1 << 20  # whole lines read at a time, about a megabyte


def _read_meta(line: bytes, name: str, lineno: int) -> dict[str, Any]:
    try:
        meta = _any_decoder.decode(line)
    except msgspec.DecodeError:
        raise InputError([_problem(name, lineno, _describe_bad_line(line))]) from None
    if not isinstance(meta, dict) or meta.get("_meta") is not True:
        raise InputError.one(
            f'first line must be the meta object {{"_meta": true, "schema": "{SCHEMA}", ...}}',
            file=name,
            line=lineno,
        )
    schema = meta.get("schema")
    if schema != SCHEMA:
        raise InputError.one(
            f"unsupported trace schema {schema!r}; expected {SCHEMA!r}", file=name, line=lineno
        )
    return meta


def _describe_bad_line(line: bytes) -> str:
    try:
        value = _any_decoder.decode(line)
    except msgspec.DecodeError as exc:
        text = "line is not JSON"
        if b"\x00" in line[:1024] or not _looks_textual(line):
            text = "line is binary, not JSON"
        return f"{text} ({exc})" if len(line) < 200 else text
    return f"a span must be a JSON object, got {type(value).__name__}"


def _looks_textual(data: bytes) -> bool:
    try:
        data[:1024].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
