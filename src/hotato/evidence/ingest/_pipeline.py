"""From a file of any supported format to converted spans held in an Emitter."""

from __future__ import annotations

import os

from hotato._io import gc_paused
from hotato.evidence.formats import READERS
from hotato.evidence.ingest._emit import Emitter, Options
from hotato.evidence.ingest.detect import Sniffed, classify, normalize, sniff
from hotato.model.errors import InputError
from hotato.model.evidence import Turn

SCHEMA = "hotato.voice_trace.v1"
CREATED_BY = "hotato trace ingest"


def convert(
    path: str | os.PathLike[str],
    fmt: str = "auto",
    opts: Options | None = None,
    sniffed: Sniffed | None = None,
) -> Emitter:
    """Read `path` as `fmt` (or the detected format). The caller closes `em.col`. `sniffed`:
    the file's head already read by the caller (`sniff(path)`), so it is not read twice."""
    wanted = normalize(fmt)
    sn = sniffed if sniffed is not None else sniff(path)
    actual = classify(sn) if wanted == "auto" else wanted
    em = Emitter(opts or Options(), source=str(path))
    em.deployment.stack = actual if actual != "native" else None
    try:
        with gc_paused():  # a million small dicts and no cycles: GC passes free nothing
            _read(sn, actual, em)
    except BaseException:
        em.col.close()
        raise
    return em


def _read(sn: Sniffed, fmt: str, em: Emitter) -> None:
    if fmt not in READERS:  # normalize() admits only table names; never read one vendor as another
        raise InputError.one(f"unknown trace format {fmt!r}", file=sn.path)
    READERS[fmt].read(sn, em)


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


def empty_reason(em: Emitter) -> str | None:
    """Why a recognised export counts as empty (it yielded no call evidence), naming where it
    was looked for; None when it yielded some. A native trace is what it is: never empty here;
    nor is a call the source says never connected (its emptiness is what happened)."""
    if (
        em.source_format in ("hotato.voice_trace.v1", "otel-jsonl-bridge")
        or em.never_connected
        or not em.empty()
    ):
        return None
    where = ", ".join(f"`{p}`" for p in em.looked_in) or (
        f"{em.input_count} span(s), none a tool call, turn, handoff, keypad tone or HTTP exchange"
    )
    return (
        f"the {em.source_format} export holds no tool call and no spoken turn (looked in {where})"
    )


def spoken_turns(em: Emitter) -> list[Turn]:
    """The turns the source carries, in time order, times in seconds from the call's start."""
    return [
        Turn(
            index=i,
            role=t.role,
            text=t.text,
            start=em.col.seconds(t.start_ns) if t.start_ns is not None else None,
            end=em.col.seconds(t.end_ns) if t.end_ns is not None else None,
        )
        for i, t in enumerate(em.ordered_turns())
    ]


def transcript(em: Emitter) -> list[dict[str, object]]:
    """The turns as transcript JSON (`--transcript-out`)."""
    turns = []
    for t in spoken_turns(em):
        turn: dict[str, object] = {"role": t.role, "text": t.text}
        if t.start is not None:
            turn["start"] = t.start
        if t.end is not None:
            turn["end"] = t.end
        turns.append(turn)
    return turns
