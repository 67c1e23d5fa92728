"""From a file of any supported format to converted spans held in an Emitter."""

from __future__ import annotations

import os

from hotato.evidence.ingest import _bridge, livekit, otel, retell, vapi
from hotato.evidence.ingest._emit import Emitter, Options
from hotato.evidence.ingest.detect import Sniffed, classify, normalize, sniff
from hotato.model.errors import InputError

SCHEMA = "hotato.voice_trace.v1"
CREATED_BY = "hotato trace ingest"


def convert(path: str | os.PathLike[str], fmt: str = "auto",
            opts: Options | None = None) -> Emitter:
    """Read `path` as `fmt` (or the detected format). The caller closes `em.col`."""
    wanted = normalize(fmt)
    sn = sniff(path)
    actual = classify(sn) if wanted == "auto" else wanted
    em = Emitter(opts or Options(), source=str(path))
    em.deployment.stack = actual if actual != "native" else None
    try:
        _read(sn, actual, em)
    except BaseException:
        em.col.close()
        raise
    return em


def _read(sn: Sniffed, fmt: str, em: Emitter) -> None:
    if fmt == "native":
        if sn.shape != "lines" and not (sn.shape == "document" and isinstance(sn.doc, dict)):
            raise InputError.one(f"not a {SCHEMA} JSONL trace", file=sn.path)
        _bridge.read(sn.path, em)
    elif fmt in ("otel", "pipecat"):
        otel.read(sn, em, fmt)
    elif fmt == "livekit" and sn.shape == "document" and livekit.is_session_report(sn.doc):
        livekit.read_session_report(sn.doc, sn.path, em)
    elif fmt == "livekit":
        otel.read(sn, em, "livekit")
    else:
        if sn.shape != "document":
            raise InputError.one(f"a {fmt} input is one JSON document, not JSON lines or "
                                 "protobuf", file=sn.path)
        (vapi.read if fmt == "vapi" else retell.read)(sn.doc, sn.path, em)


def meta(em: Emitter) -> dict[str, object]:
    """The trace's meta line: ids only with --include-identifiers, no wall clock."""
    ident = em.opts.include_identifiers
    dep = em.deployment
    return {
        "_meta": True,
        "schema": SCHEMA,
        "created_by": CREATED_BY,
        "call_id": em.call_id if ident else None,
        "deployment": {
            "stack": dep.stack,
            "agent_id": dep.agent_id if ident else None,
            "git_sha": dep.git_sha,
            "config_hash": dep.config_hash,
        },
        "source": {"format": em.source_format, "input_span_count": em.input_count},
    }


def transcript(em: Emitter) -> list[dict[str, object]]:
    turns = []
    for t in em.ordered_turns():
        turn: dict[str, object] = {"role": t.role, "text": t.text}
        if t.start_ns is not None:
            turn["start"] = em.col.seconds(t.start_ns)
        if t.end_ns is not None:
            turn["end"] = em.col.seconds(t.end_ns)
        turns.append(turn)
    return turns
