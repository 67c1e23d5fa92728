"""Order assertions so every reference (`when`, formula ids, outcome parts) is graded first.

Kahn's algorithm: linear in assertions plus references. An unknown id or a cycle is refused
before anything runs.
"""

from __future__ import annotations

from collections import deque

from hotato.kinds import REGISTRY
from hotato.kinds._base import Spec
from hotato.model.errors import Problem, UsageError


def references(spec: Spec) -> list[str]:
    kdef = REGISTRY[str(spec.__struct_config__.tag)]
    refs = list(spec.when)
    if kdef.refs is not None:
        refs += kdef.refs(spec)
    return refs


def plan(specs: list[Spec], origins: dict[str, str] | None = None) -> list[Spec]:
    """Specs in an order where each comes after everything it references."""
    by_id = {s.id: s for s in specs}
    problems: list[Problem] = []
    deps: dict[str, list[str]] = {}
    for spec in specs:
        refs = list(dict.fromkeys(references(spec)))
        for ref in refs:
            if ref not in by_id:
                problems.append(
                    Problem(
                        f"references unknown assertion id {ref!r}",
                        file=(origins or {}).get(spec.id),
                        path=spec.id,
                        kind=str(spec.__struct_config__.tag),
                    )
                )
            elif ref == spec.id:
                problems.append(
                    Problem("references itself", file=(origins or {}).get(spec.id), path=spec.id)
                )
        deps[spec.id] = [r for r in refs if r in by_id and r != spec.id]
    if problems:
        raise UsageError(problems)
    waiting = {sid: len(d) for sid, d in deps.items()}
    dependents: dict[str, list[str]] = {sid: [] for sid in deps}
    for sid, d in deps.items():
        for ref in d:
            dependents[ref].append(sid)
    ready = deque(s.id for s in specs if waiting[s.id] == 0)
    order: list[Spec] = []
    while ready:
        sid = ready.popleft()
        order.append(by_id[sid])
        for nxt in dependents[sid]:
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.append(nxt)
    if len(order) < len(specs):
        stuck = [s.id for s in specs if waiting[s.id] > 0]
        raise UsageError([Problem(f"reference cycle among {stuck}")])
    return order
