"""Transcripts in the three shapes hotato reads (docs/assertions.md)."""

from __future__ import annotations

import os
import re
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from hotato._io import read_bytes
from hotato.model.errors import InputError, Problem
from hotato.model.evidence import Transcript, Turn, normalize_role

SHAPES = 'a JSON array of turns, {"segments": [...]}, or {"transcript": {"segments": [...]}}'


def load_transcript(path: str | os.PathLike[str]) -> Transcript:
    """A transcript file (a list of turns, or a segments object); InputError when malformed."""
    name = str(path)
    data = read_bytes(path, "transcript").removeprefix(b"\xef\xbb\xbf")  # a UTF-8 BOM is not data
    fast = _typed(data, name)
    if fast is not None:
        return fast
    try:
        doc = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        line, col = _line_col(data, str(exc))
        raise InputError.one(
            f"transcript is not valid JSON ({exc})", file=name, line=line, col=col
        ) from None
    try:
        return parse_transcript(doc, name)
    except InputError as exc:
        raise _with_lines(exc, data, name) from None


class _Segment(msgspec.Struct):
    """A turn as the common case writes it: string role and text, numbers or nulls for times.
    Anything else (a missing role, a boolean time, ...) leaves the typed path for
    `parse_transcript`, which says what is wrong and where."""

    role: str | UnsetType = UNSET
    speaker: str | UnsetType = UNSET
    text: str | UnsetType = UNSET
    content: str | UnsetType = UNSET
    start: int | float | None = None
    end: int | float | None = None


class _Inner(msgspec.Struct):
    segments: list[_Segment]


class _Wrapped(msgspec.Struct):
    segments: list[_Segment] | UnsetType = UNSET
    transcript: _Inner | list[_Segment] | UnsetType = UNSET


_TYPED = msgspec.json.Decoder(list[_Segment] | _Wrapped)


def _typed(data: bytes, name: str) -> Transcript | None:
    """The transcript decoded straight into typed turns (several times faster on a long call
    than walking generic JSON), or None when the file is anything but the plain shapes with
    well-typed turns: `parse_transcript` then reads it, the one definition of what a transcript
    holds, and reports its problems."""
    try:
        doc = _TYPED.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if isinstance(doc, _Wrapped):
        inner = doc.transcript
        if not isinstance(doc.segments, UnsetType):
            doc = doc.segments
        elif isinstance(inner, _Inner):
            doc = inner.segments
        elif isinstance(inner, list):
            doc = inner
        else:
            return None
    roles: dict[str, str] = {}
    turns: list[Turn] = []
    for seg in doc:
        role = seg.role if not isinstance(seg.role, UnsetType) else seg.speaker
        text = seg.text if not isinstance(seg.text, UnsetType) else seg.content
        if isinstance(role, UnsetType) or not role or isinstance(text, UnsetType):
            return None
        known = roles.get(role)
        if known is None:
            known = roles[role] = normalize_role(role)
        start, end = seg.start, seg.end
        turns.append(
            Turn(
                len(turns),
                known,
                text,
                None if start is None else float(start),
                None if end is None else float(end),
            )
        )
    return Transcript(turns, path=name)


def _line_col(data: bytes, message: str) -> tuple[int | None, int | None]:
    """msgspec names a byte offset; a person looks for a line and column."""
    found = re.search(r"\(byte (\d+)\)", message)
    if found is None and "truncated" not in message:
        return None, None
    offset = min(int(found.group(1)), len(data)) if found else len(data)
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def _with_lines(exc: InputError, data: bytes, name: str) -> InputError:
    """Add the line of each problem's JSON path. Only on the way out with problems, so a good
    transcript never pays for the marks."""
    from hotato._documents import parse_document

    try:
        marked = parse_document(data.decode("utf-8-sig"), name, "transcript", is_json=True)
    except (InputError, UnicodeDecodeError):
        return exc
    problems = []
    for problem in exc.problems:
        if problem.path is not None and problem.line is None:
            line, col = marked.where(problem.path)
            problem = msgspec.structs.replace(problem, line=line, col=col)
        problems.append(problem)
    return InputError(problems)


def parse_transcript(doc: Any, name: str | None = None) -> Transcript:
    segments, base = _segments(doc, name)
    problems: list[Problem] = []
    turns: list[Turn] = []
    for i, seg in enumerate(segments):
        where = f"{base}[{i}]"
        if not isinstance(seg, dict):
            problems.append(Problem(f"a turn must be an object, got {_tn(seg)}", name, path=where))
            continue
        role = seg.get("role", seg.get("speaker"))
        text = seg.get("text", seg.get("content"))
        if not isinstance(role, str) or not role:
            problems.append(Problem("'role' must be a non-empty string", name, path=where))
            continue
        if not isinstance(text, str):
            problems.append(
                Problem(f"'text' must be a string, got {_tn(text)}", name, path=f"{where}.text")
            )
            continue
        start, end = seg.get("start"), seg.get("end")
        for key, value in (("start", start), ("end", end)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                problems.append(
                    Problem(
                        f"'{key}' must be a number, got {_tn(value)}", name, path=f"{where}.{key}"
                    )
                )
        turns.append(Turn(len(turns), normalize_role(role), text, _num(start), _num(end)))
    if problems:
        raise InputError(problems)
    return Transcript(turns, path=name)


def _segments(doc: Any, name: str | None) -> tuple[list[Any], str]:
    if isinstance(doc, list):
        return doc, "$"
    if isinstance(doc, dict):
        if isinstance(doc.get("segments"), list):
            return doc["segments"], "$.segments"
        inner = doc.get("transcript")
        if isinstance(inner, dict) and isinstance(inner.get("segments"), list):
            return inner["segments"], "$.transcript.segments"
        if isinstance(inner, list):
            return inner, "$.transcript"
    raise InputError.one(f"unrecognised transcript shape; expected {SHAPES}", file=name, path="$")


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _tn(value: Any) -> str:
    return "null" if value is None else type(value).__name__
