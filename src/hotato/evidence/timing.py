"""Timing evidence: measured timing of a call, a JSON object or a list of event objects (the
shape hotato 1.x's scored runs wrote as `events`), read by dotted paths (`latency` with `field`,
`outcome` parts `{field_present: PATH}`)."""

from __future__ import annotations

import os
from typing import Any

import msgspec

from hotato._io import read_bytes
from hotato.evidence.transcript import _line_col
from hotato.model.errors import InputError


def load_timing(path: str | os.PathLike[str]) -> Any:
    """The timing file's object or list of objects; InputError, located, when it is not one."""
    name = str(path)
    data = read_bytes(path, "timing").removeprefix(b"\xef\xbb\xbf")
    try:
        doc = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        line, col = _line_col(data, str(exc))
        raise InputError.one(
            f"timing is not valid JSON ({exc})", file=name, line=line, col=col
        ) from None
    if isinstance(doc, dict) and isinstance(doc.get("events"), list):
        doc = doc["events"]  # a 1.x scored-run envelope: its events are the timing
    if isinstance(doc, dict) or (isinstance(doc, list) and all(isinstance(e, dict) for e in doc)):
        return doc
    raise InputError.one(
        "timing must be a JSON object or a list of event objects", file=name, path="$"
    )
