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
    """The calls of one tool (`spans`, trace order), grouped by distinct payload."""

    def __init__(
        self, spans: list[Span], raw: Callable[[Span], bytes | None], decode: Callable[[Span], Any]
    ) -> None:
        self.spans = spans
        groups: dict[bytes | None, list[int]] = {}
        first: list[Span] = []
        for i, span in enumerate(spans):
            key = raw(span)
            group = groups.get(key)
            if group is None:
                groups[key] = group = []
                first.append(span)
            group.append(i)
        # values[g] is the payload of every call in places[g]; ABSENT when not recorded
        self.values = [
            decode(s) if k is not None else ABSENT for k, s in zip(groups, first, strict=True)
        ]
        self.places = list(groups.values())
        self.recorded = len(spans) - len(groups.get(None, ()))
        self._index: tuple[list[int], dict[str, dict[Any, list[int]]]] | None = None

    def _by_key(self) -> tuple[list[int], dict[str, dict[Any, list[int]]]]:
        if self._index is None:
            objects: list[int] = []
            by_key: dict[str, dict[Any, list[int]]] = {}
            for g, value in enumerate(self.values):
                if not isinstance(value, dict):
                    continue
                objects.append(g)
                for key, item in value.items():
                    if isinstance(item, _SCALARS):
                        by_key.setdefault(key, {}).setdefault(item, []).append(g)
            self._index = (objects, by_key)
        return self._index

    def _candidates(self, expected: Any) -> list[int]:
        """Payloads that may hold `expected` (a superset of those that do)."""
        if not isinstance(expected, dict):
            return [g for g, v in enumerate(self.values) if v is not ABSENT]
        best, by_key = self._by_key()
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
        values = self.values
        hits = [g for g in self._candidates(expected) if subset(expected, values[g])]
        if len(hits) == 1:
            return self.places[hits[0]]
        return sorted(chain.from_iterable(self.places[g] for g in hits))

    def any_value(self, test: Callable[[Any], bool]) -> bool:
        """Whether any recorded payload passes `test`, each distinct payload tried once."""
        return any(v is not ABSENT and test(v) for v in self.values)

    def first_recorded(self, n: int) -> list[Any]:
        """The first `n` recorded payloads, in trace order."""
        place_of = {i: g for g, places in enumerate(self.places) for i in places[:n]}
        out = []
        for i in sorted(place_of):
            value = self.values[place_of[i]]
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
    return derived(trace, ("arguments", tool), lambda: Payloads(spans, _arguments_raw, _arguments))


def results_of(trace: Trace, tool: str) -> Payloads:
    """Every call of `tool` with its recorded result (ABSENT when it recorded none)."""
    spans = trace.tool_calls.get(tool, [])
    return derived(trace, ("results", tool), lambda: Payloads(spans, _result_raw, _result))
