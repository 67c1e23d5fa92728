"""Draft explicit assertions from a call's claims: the starter `assert init --from-transcript`
writes. One `claims` assertion per claim type found; with a trace, one `tool_call` (or
`tool_error`, for a claimed failure) per claim the trace backs, naming the tool and the
arguments that agreed with what was said."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hotato.claims.agree import flat_args
from hotato.claims.check import ClaimResult
from hotato.claims.pack import PackSet
from hotato.model.evidence import Trace
from hotato.model.status import Status


def _agreed_args(result: ClaimResult, arguments: Any, packs: PackSet) -> dict[str, Any]:
    """The backing span's arguments whose names the type compares with what is said (the
    claim passed, so they agreed with whatever was said of them)."""
    ctype = packs.by_name[result.type]
    patterns = [p for p in ctype.agree.values() if p is not None]
    out: dict[str, Any] = {}
    if not isinstance(arguments, dict):
        return out
    for key, value in flat_args(arguments):
        if "." not in key and any(p.search(key.lower().encode()) for p in patterns):
            out[key] = value
    return out


def draft(
    results: Sequence[ClaimResult], packs: PackSet, trace: Trace | None
) -> list[dict[str, Any]]:
    """Assertions (as plain mappings, in file order) drafted from graded claims."""
    graded = [r for r in results if r.polarity in ("done", "failed")]
    types = list(dict.fromkeys(r.type for r in graded))
    out: list[dict[str, Any]] = []
    for t in types:
        turns = ", ".join(f"t_{r.turn}" for r in graded if r.type == t)
        out.append(
            {
                "id": f"claims-{t}".replace("_", "-"),
                "kind": "claims",
                "types": [t],
                "description": f"claimed at {turns}: {packs.by_name[t].description}",
            }
        )
    spans = {s.id: s for s in trace.spans} if trace is not None else {}
    used: set[str] = set()
    for r in graded:
        backing = [e for e in r.evidence if e in spans]
        if r.status is not Status.PASS or not backing:
            continue
        span = spans[backing[0]]
        if span.type != "tool_call" or not span.name or span.id in used:
            continue
        used.add(span.id)
        item: dict[str, Any] = {
            "id": f"t{r.turn}-{r.type}".replace("_", "-"),
            "kind": "tool_error" if r.polarity == "failed" else "tool_call",
            "name": span.name,
            "description": f"said at t_{r.turn}: {r.text}",
        }
        args = _agreed_args(r, span.read("arguments"), packs) if r.polarity == "done" else {}
        if args:
            item["args_subset"] = args
        out.append(item)
    return out
