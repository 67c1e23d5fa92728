"""One tool's recorded arguments (or results), decoded once per run and indexed by value.

`tool_call` with `args_subset`, `tool_result` with `result_subset` and `outcome`'s parts ask "which
calls of this tool hold these values?". Decoding each call's payload per assertion makes a run
cost assertions x calls. Here a tool's calls are grouped by their payload's raw bytes the first
time any assertion asks about that tool (calls repeat payloads: `{"ok": true}` a hundred
thousand times is one payload), each distinct payload is decoded once, and each top-level
`key: value` (a scalar) points at the payloads holding it. A question is answered from its
rarest scalar's payloads, each confirmed with the kinds' own `subset`: the index only narrows,
so the answer is exactly the scan's.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

from hotato.kinds._trace_util import as_object, derived
from hotato.model.evidence import Span, Trace
from hotato.model.match import subset

ABSENT: Any = object()  # a call that recorded no such payload (unlike a recorded null)
_SCALARS = (str, int, float, bool, type(None))


class Payloads:
    """The calls of one tool (`spans`, trace order), grouped by distinct payload.

    With `keep`, every distinct payload stays decoded (results: a few distinct values repeated).
    Without it (arguments: mostly one of a kind per call), only the index is kept, and a
    question decodes just its candidates again: memory in proportion to the index, not to
    every call's decoded arguments."""

    def __init__(
        self,
        spans: list[Span],
        raw: Callable[[Span], bytes | None],
        decode: Callable[[Span], Any],
        keep: bool = True,
    ) -> None:
        self.spans = spans
        self._decode = decode
        groups: dict[bytes | None, list[int]] = {}
        first: list[Span] = []
        for i, span in enumerate(spans):
            key = raw(span)
            group = groups.get(key)
            if group is None:
                groups[key] = group = []
                first.append(span)
            group.append(i)
        self.places = list(groups.values())
        self.recorded = len(spans) - len(groups.get(None, ()))
        self._first = first
        absent = [k is None for k in groups]
        # the index: the groups whose payload is an object, and each top-level scalar's groups
        objects: list[int] = []
        by_key: dict[str, dict[Any, list[int]]] = {}
        values: list[Any] = []
        for g, span in enumerate(first):
            value = ABSENT if absent[g] else decode(span)
            if keep:
                values.append(value)
            if not isinstance(value, dict):
                continue
            objects.append(g)
            for key, item in value.items():
                if isinstance(item, _SCALARS):
                    by_key.setdefault(key, {}).setdefault(item, []).append(g)
        self._absent = absent
        self._objects, self._by_key = objects, by_key
        self.values: list[Any] | None = values if keep else None

    def value(self, g: int) -> Any:
        """The payload of group `g` (decoded again when the payloads are not kept)."""
        if self.values is not None:
            return self.values[g]
        return ABSENT if self._absent[g] else self._decode(self._first[g])

    def _candidates(self, expected: Any) -> list[int]:
        """Payloads that may hold `expected` (a superset of those that do)."""
        if not isinstance(expected, dict):
            return [g for g, absent in enumerate(self._absent) if not absent]
        best, by_key = self._objects, self._by_key
        for key, want in expected.items():
            if isinstance(want, _SCALARS):
                # Equal scalars share a bucket (1, 1.0 and True hash alike); `subset` then holds
                # each candidate to type-strict equality.
                found = by_key.get(key, {}).get(want, [])
                if len(found) < len(best):
                    best = found
        return best

    def matching(self, expected: Any) -> list[int]:
        """Positions (in `spans`) whose payload contains `expected`, in trace order."""
        hits = [g for g in self._candidates(expected) if subset(expected, self.value(g))]
        if len(hits) == 1:
            return self.places[hits[0]]
        return sorted(chain.from_iterable(self.places[g] for g in hits))

    def any_value(self, test: Callable[[Any], bool]) -> bool:
        """Whether any recorded payload passes `test`, each distinct payload tried once."""
        values = (self.value(g) for g in range(len(self.places)))
        return any(v is not ABSENT and test(v) for v in values)

    def first_recorded(self, n: int) -> list[Any]:
        """The first `n` recorded payloads, in trace order."""
        place_of = {i: g for g, places in enumerate(self.places) for i in places[:n]}
        out = []
        for i in sorted(place_of):
            value = self.value(place_of[i])
            if value is not ABSENT:
                out.append(value)
                if len(out) == n:
                    break
        return out


# A call's group is its payload's raw bytes. The model's field reader may also read the payload
# from `attributes` (when the top level holds none, or null), so a span with attributes is
# grouped by both: calls in one group always read the same payload.
def _arguments_raw(span: Span) -> bytes:
    if not span.attributes_raw:
        return bytes(span.arguments_raw)
    return bytes(span.arguments_raw) + b"\n" + bytes(span.attributes_raw)


def _arguments(span: Span) -> Any:
    return as_object(span.read("arguments"))


def _result_raw(span: Span) -> bytes | None:
    if not span.has_result:
        return None
    if not span.attributes_raw:
        return bytes(span.result_raw)
    return bytes(span.result_raw) + b"\n" + bytes(span.attributes_raw)


def _result(span: Span) -> Any:
    return as_object(span.read("result"))


def arguments_of(trace: Trace, tool: str) -> Payloads:
    """Every call of `tool` with its arguments (JSON strings read as JSON)."""
    spans = trace.tool_calls.get(tool, [])
    return derived(
        trace, ("arguments", tool), lambda: Payloads(spans, _arguments_raw, _arguments, keep=False)
    )


def results_of(trace: Trace, tool: str) -> Payloads:
    """Every call of `tool` with its recorded result (ABSENT when it recorded none)."""
    spans = trace.tool_calls.get(tool, [])
    return derived(trace, ("results", tool), lambda: Payloads(spans, _result_raw, _result))
