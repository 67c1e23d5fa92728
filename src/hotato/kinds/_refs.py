"""References between assertions (`when`, formula ids, outcome `assertion` parts), checked where
a file is decoded: an unknown id, a self-reference and every cycle are reported with the file's
other problems, each at the place that names it (`file:line:col $.assertions[2].when`)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from hotato._documents import Document
from hotato.kinds._base import KindDef, Spec
from hotato.model.errors import Problem

# (the path of an assertion, its item as written, its spec when it decoded)
Entry = tuple[str, Any, Spec | None]


def references(spec: Spec, registry: Mapping[str, KindDef]) -> list[str]:
    """The ids `spec` depends on, each once, in the order written."""
    kdef = registry[str(spec.__struct_config__.tag)]
    refs = list(spec.when) + (kdef.refs(spec) if kdef.refs is not None else [])
    return list(dict.fromkeys(refs))


def _leaves(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _leaves(child, f"{path}.{key}")
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _leaves(child, f"{path}[{i}]")


def where_named(item: Any, path: str, ref: str) -> str:
    """The path of the value in `item` that names `ref`: a value equal to it (`when: a`), else
    one holding it as a word (a formula's `expr`); else the assertion itself."""
    leaves = [(p, v) for p, v in _leaves(item, path) if not p.endswith((".id", ".kind"))]
    for p, v in leaves:
        if v == ref:
            return p
    word = re.compile(rf"(?<![\w.-]){re.escape(ref)}(?![\w.-])")
    for p, v in leaves:
        if word.search(v):
            return p
    return path


def reference_problems(
    entries: list[Entry],
    doc: Document,
    registry: Mapping[str, KindDef],
    known: Collection[str] = (),
) -> list[Problem]:
    """Every reference problem among `entries`. `known`: ids defined elsewhere (a merged pack).
    Items that did not decode still define their id; their own references are not read."""
    # An item that did not decode may carry any value as its id (a list, a mapping): only text
    # can be referred to.
    ids = {
        item["id"]
        for _, item, _ in entries
        if isinstance(item, dict) and isinstance(item.get("id"), str)
    } | set(known)
    problems: list[Problem] = []
    graph: dict[str, list[str]] = {}
    place: dict[str, tuple[str, Any]] = {}
    for path, item, spec in entries:
        if spec is None:
            continue
        label = f"{spec.__struct_config__.tag} {spec.id!r}"
        place[spec.id] = (path, item)
        graph[spec.id] = []
        for ref in references(spec, registry):
            at = where_named(item, path, ref)
            if ref == spec.id:
                problems.append(doc.problem(at, "references itself", label))
            elif ref not in ids:
                problems.append(doc.problem(at, f"references unknown assertion id {ref!r}", label))
            else:
                graph[spec.id].append(ref)
    for cycle in _cycles(graph):
        first = cycle[0]
        path, item = place[first]
        at = where_named(item, path, cycle[1])
        named = " -> ".join([*cycle, first])
        message = f"reference cycle: {named}; 'when' and formula references must not loop"
        problems.append(doc.problem(at, message))
    return problems


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Each strongly connected group of more than one assertion, as one cycle through it that
    starts at its first assertion in document order (Tarjan's algorithm, iteratively)."""
    order = {node: i for i, node in enumerate(graph)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    cycles = [_walk(sorted(g, key=order.__getitem__), graph) for g in groups]
    return sorted(cycles, key=lambda c: order[c[0]])


def _walk(group: list[str], graph: dict[str, list[str]]) -> list[str]:
    """A cycle within `group` from its first member: follow references inside the group (the
    first written) until one leads back to the start; breadth-first, so the loop is shortest."""
    members = set(group)
    start = group[0]
    parent: dict[str, str] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        nxt_frontier = []
        for node in frontier:
            for ref in graph[node]:
                if ref == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return path[::-1]
                if ref in members and ref not in seen:
                    seen.add(ref)
                    parent[ref] = node
                    nxt_frontier.append(ref)
        frontier = nxt_frontier
    return group  # pragma: no cover - a strongly connected group always loops back


def _decoded(item: Any, decoded: dict[str, Spec]) -> Spec | None:
    ident = item.get("id") if isinstance(item, dict) else None
    return decoded.get(ident) if isinstance(ident, str) else None


def entries_of(items: Any, base: str, specs: list[Spec]) -> list[Entry]:
    """A decoded list's assertions beside the items they came from (ids are unique by then)."""
    if not isinstance(items, list):
        return []
    decoded = {s.id: s for s in specs}
    return [(f"{base}[{i}]", item, _decoded(item, decoded)) for i, item in enumerate(items)]
