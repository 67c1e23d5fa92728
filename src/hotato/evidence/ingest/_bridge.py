"""Line-delimited traces in hotato's own span vocabulary: native `hotato.voice_trace.v1` files and
the earlier OTel bridge JSONL (a meta line `{"call_id", "deployment"}`, then one span per line
with `type` and `start_sec`/`end_sec` or `time_sec`). Spans pass through with their fields; text
and identifiers are redacted like every other source.
"""

from __future__ import annotations

import codecs
import math
from typing import Any

import msgspec

from hotato.evidence.formats import TraceReader
from hotato.evidence.ingest._doc import MAX_PROBLEMS, type_name
from hotato.evidence.ingest._emit import ABSENT, NATIVE_FIELDS, Emitter, field_problem
from hotato.evidence.ingest._otlp import is_traces_doc
from hotato.evidence.ingest._values import IDENTIFIER_KEYS, TEXT_KEYS, seconds_to_ns
from hotato.evidence.ingest.detect import Sniffed, value_of
from hotato.model.errors import InputError, Problem

_decode_any = msgspec.json.Decoder().decode
_TIMES = ("start_sec", "end_sec", "time_sec")
_DEPLOYMENT = ("stack", "agent_id", "git_sha", "config_hash")


def detect_native(sn: Sniffed) -> bool:
    """A voice_trace's meta line; or JSON lines starting with a span where the meta line belongs
    (a native trace missing its meta line, which `read` refuses with a message saying so)."""
    value = value_of(sn)
    return isinstance(value, dict) and (
        value.get("_meta") is True
        or (sn.shape == "lines" and "type" in value and not is_traces_doc(value))
    )


def read_native(sn: Sniffed, em: Emitter) -> None:
    if sn.shape != "lines" and not (sn.shape == "document" and isinstance(sn.doc, dict)):
        raise InputError.one("not a hotato.voice_trace.v1 JSONL trace", file=sn.path)
    read(sn.path, em)


def read(name: str, em: Emitter) -> None:
    problems: list[Problem] = []
    em.col.base_ns = 0  # the bridge's times are already seconds from the call's start
    em.source_format = "otel-jsonl-bridge"
    seen_meta = False
    try:
        handle = open(name, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise InputError.one(f"cannot read trace: {exc.strerror}", file=name) from exc
    with handle:
        for lineno, raw in enumerate(handle, start=1):
            line = raw.strip()
            if lineno == 1:
                line = line.removeprefix(codecs.BOM_UTF8)
            if not line:
                continue
            try:
                value = _decode_any(line)
            except msgspec.DecodeError as exc:
                problems.append(Problem(f"line is not JSON ({exc})", file=name, line=lineno))
            else:
                if not isinstance(value, dict):
                    problems.append(
                        Problem(
                            f"expected a JSON object, got {type_name(value)}",
                            file=name,
                            line=lineno,
                        )
                    )
                elif not seen_meta and ("type" not in value or value.get("_meta") is True):
                    _meta(value, em)
                elif value.get("_meta") is True:
                    problems.append(Problem("a second meta line", file=name, line=lineno))
                else:
                    problems.extend(_span(value, em, name, lineno))
            seen_meta = True
            if len(problems) >= MAX_PROBLEMS:
                break
    if problems:
        raise InputError(problems[:MAX_PROBLEMS])


def _meta(meta: dict[str, Any], em: Emitter) -> None:
    if meta.get("_meta") is True:
        em.source_format = "hotato.voice_trace.v1"
    em.identify(meta.get("call_id"))
    deployment = meta.get("deployment")
    if isinstance(deployment, dict):
        em.identify(None, deployment.get("agent_id"))
        for key in ("stack", "git_sha", "config_hash"):
            value = deployment.get(key)
            if isinstance(value, str) and value:
                setattr(em.deployment, key, value)


def _span(span: dict[str, Any], em: Emitter, name: str, lineno: int) -> list[Problem]:
    problems = []
    type_ = span.get("type")
    if not isinstance(type_, str) or not type_:
        problems.append(
            Problem("'type' must be a non-empty string", file=name, line=lineno, path="$.type")
        )
    times: dict[str, int | None] = {}
    for key in _TIMES:
        value = span.get(key)
        if value is None:
            times[key] = None
        elif (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            problems.append(
                Problem(
                    f"'{key}' must be a number, got {type_name(value)}",
                    file=name,
                    line=lineno,
                    path=f"$.{key}",
                )
            )
        else:
            times[key] = seconds_to_ns(float(value))
    typed = field_problem(span)
    if typed is not None:
        problems.append(Problem(typed[0], file=name, line=lineno, path=typed[1]))
    if problems:
        return problems
    em.input_count += 1
    fields: dict[str, Any] = {k: span[k] for k in NATIVE_FIELDS if k in span}
    for key in ("arguments", "result", "response"):
        fields.setdefault(key, ABSENT)
    extra: dict[str, Any] = {}
    redacted = False
    for key, value in span.items():
        if key in NATIVE_FIELDS or key in _TIMES or key in ("type", "attributes"):
            continue
        if key in TEXT_KEYS and not em.opts.include_text:
            redacted = True
            continue
        if key in IDENTIFIER_KEYS and not em.opts.include_identifiers:
            continue
        extra[key] = value
    if redacted:
        extra["text_redacted"] = True
    attributes = span.get("attributes")
    start = times["start_sec"]
    if start is None and times["end_sec"] is not None:
        extra["end_sec"] = span["end_sec"]  # an end without a start: kept as the source had it
    if start is not None and times["time_sec"] is not None:
        extra["time_sec"] = span["time_sec"]
    em.span(
        str(type_),
        start=start,
        end=times["end_sec"] if start is not None else None,
        at=times["time_sec"] if start is None else None,
        extra=extra or None,
        attributes=attributes if isinstance(attributes, dict) else None,
        **fields,
    )
    return []


NATIVE = TraceReader(detect_native, read_native)
