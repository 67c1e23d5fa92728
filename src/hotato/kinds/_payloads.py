"""One tool's recorded arguments (or results), searched as raw bytes once joined.

`tool_call` with `args_subset`, `tool_result` with `result_subset`, `tool_error` and `outcome`'s
parts ask "which calls of this tool hold these values?". Decoding each call's payload per
assertion makes a run cost assertions x calls, and decoding every payload once to index it costs
a microsecond or more per call for payloads that are mostly one of a kind. Here the first
question about a tool joins its calls' raw payload bytes into one buffer (`Haystack`), and each
question finds its candidates with C-speed substring searches for bytes any match must hold:
a string value as JSON writes it (`"A-1090"`), `true`, `false`, `null`, or a key's name. Only
the candidates are decoded, in trace order, and each is held to the kinds' own `subset`: the
search only narrows, so the answer is exactly the scan's.

Values with no such bytes (a number may be written `3`, `3.0` or `3e0`) are answered from a
per-key index of the tool's decoded values, built once for that key. Calls whose payload may be
written other than as plain bytes are always candidates: a payload holding an escape (`\\u0041`
is `A`; a JSON string holding JSON), and a call with `attributes` (the field reader may find the
payload there).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from heapq import merge
from itertools import compress, count, islice
from operator import attrgetter
from typing import Any

import msgspec

from hotato.kinds._trace_util import as_object, derived
from hotato.model.evidence import Span, Trace
from hotato.model.haystack import Haystack
from hotato.model.match import subset

ABSENT: Any = object()  # a call that recorded no such payload (unlike a recorded null)
_SCALARS = (str, int, float, bool, type(None))
_encode = msgspec.json.encode


def _spelled(value: Any) -> bool:
    """A value JSON writes one way only (a number may be `3`, `3.0` or `3e0`)."""
    return isinstance(value, str | bool) or value is None


def needles(expected: dict[str, Any]) -> list[bytes]:
    """Bytes every payload holding `expected` has, unless it is written with escapes: its
    string values as JSON writes them and the literals true, false and null; failing those,
    the names of its keys whose values are nested."""
    values = [_encode(v) for v in expected.values() if _spelled(v)]
    if not values:
        values = [_encode(k) for k, v in expected.items() if isinstance(v, dict | list)]
    return [n for n in values if b"\\" not in n]  # an escaped needle may be written otherwise


def _number(expected: dict[str, Any]) -> tuple[str, Any] | None:
    """A number `expected` holds at its top level: an integer first (it has plain digits)."""
    numbers = [
        (k, v) for k, v in expected.items() if isinstance(v, int | float) and type(v) is not bool
    ]
    numbers.sort(key=lambda kv: not isinstance(kv[1], int))
    return numbers[0] if numbers else None


# A number written with a fraction or an exponent (`3.0`, `3e0`): equal to an integer whose
# digits it need not spell.
_ODD_NUMBER = rb"[0-9][.eE]"  # compiled (and cached) by `re` when first searched for


class Payloads:
    """Spans (`spans`, trace order: one tool's calls, or the HTTP exchanges) and one payload
    of theirs: `raws[i]` is the raw JSON of span i's payload at its own level (b"" where it has
    none), `decode` reads the payload as the field reader does (ABSENT where there is none), and
    `reads(span)` gives the raw fields `decode` reads (spans holding the very same ones read
    alike, so each such set is decoded once).

    The bytes searched are the raw bytes where they are the payload as written plainly. Where
    they may not be, the payload is decoded once and searched as JSON writes it: a payload
    holding an escape (`\\u0041` is `A`; a JSON string holding JSON), a span whose own level
    holds none (or null) beside attributes naming one of `names` (the field reader looks there),
    and the spans in `loose`."""

    def __init__(
        self,
        spans: list[Span],
        raws: list[Any],
        decode: Callable[[Span], Any],
        reads: Callable[[Span], tuple[Any, ...]],
        names: tuple[str, ...],
        loose: Iterable[int] = (),
    ) -> None:
        self.spans = spans
        self._decode = decode
        keys = [_encode(n) for n in names]
        hay = Haystack(raws)
        rewrite = {*hay.containing(b"\\"), *loose}
        # hotato 1.x traces keep payloads under attributes too (found in C; few carry any)
        carrying = compress(count(), map(attrgetter("attributes_raw"), spans))
        rewrite.update(i for i in carrying if _from_attributes(raws[i], spans[i], keys))
        if rewrite:
            raws = list(raws)
            # spans whose fields `decode` reads are the very same objects read alike (the
            # loader keeps one copy of each repeated result and attributes payload)
            read: dict[tuple[int, ...], bytes] = {}
            for i in rewrite:
                span = spans[i]
                key = tuple(map(id, reads(span)))
                found = read.get(key)
                if found is None:
                    value = decode(span)
                    found = read[key] = b"" if value is ABSENT else _encode(value)
                raws[i] = found
            hay = Haystack(raws)  # joined again, with those payloads as JSON writes them
        self.hay = hay
        # recorded: a payload at the span's own level (null included), or under attributes
        self.recorded = len(raws) - list(map(bool, raws)).count(False)
        self._by_key: dict[str, dict[Any, list[int]]] = {}
        self._answers: dict[tuple[bytes, int | None], list[int]] = {}
        self._odd_numbers: Any = _UNSET

    def value(self, i: int) -> Any:
        """The payload of call `i` (ABSENT when it recorded none)."""
        return self._decode(self.spans[i])

    def _keyed(self, key: str) -> dict[Any, list[int]]:
        """Each scalar value the calls hold under `key` (top level), and the calls holding it;
        built once per key, for values that have no single spelling. Equal numbers share a
        bucket (1, 1.0 and True hash alike); `subset` then holds each to type-strict equality."""
        index = self._by_key.get(key)
        if index is None:
            index = self._by_key[key] = {}
            for i in self.hay.containing(_encode(key)):
                value = self.value(i)
                if isinstance(value, dict):
                    item = value.get(key, ABSENT)
                    if isinstance(item, _SCALARS):
                        index.setdefault(item, []).append(i)
        return index

    def candidates(self, expected: Any) -> Iterator[int]:
        """Calls that may hold `expected` (a superset of those that do), ascending."""
        if not isinstance(expected, dict) or not expected:
            return iter(range(len(self.spans)))
        keys = needles(expected)
        number = _number(expected)
        if any(_spelled(v) for v in expected.values()) or number is None:
            if not keys:
                return iter(range(len(self.spans)))
            found: Iterable[int] = self.hay.containing(min(keys, key=self.hay.count))
        elif isinstance(number[1], int) and self._odd() is not None:
            # an integer is written with its digits, unless it is written as `3.0` or `3e0`
            digits = self.hay.containing(str(abs(number[1])).encode())
            found = _unique(merge(digits, self._odd() or ()))
        else:
            found = self._keyed(number[0]).get(number[1], [])
        return iter(found)

    def _odd(self) -> list[int] | None:
        """The calls whose payload holds a number written with a fraction or an exponent, or
        None when more than an eighth do (a per-key index then serves numbers better)."""
        if self._odd_numbers is _UNSET:
            found: list[int] = []
            starts, bound = self.hay.starts, len(self.spans) // 8
            for hit in re.finditer(_ODD_NUMBER, self.hay.buf):
                i = bisect_right(starts, hit.start()) - 1
                if not found or found[-1] != i:
                    found.append(i)
                    if len(found) > bound:
                        self._odd_numbers = None
                        return None
            self._odd_numbers = found
        return self._odd_numbers

    def matching(self, expected: Any, limit: int | None = None) -> list[int]:
        """Positions (in `spans`) whose payload contains `expected`, in trace order; the first
        `limit` of them when a caller needs only so many. Each distinct question is answered
        once (`{}` may have every call for candidates)."""
        asked = (_encode(expected), limit)
        found = self._answers.get(asked)
        if found is None:
            hits = (i for i in self.candidates(expected) if _holds(expected, self.value(i)))
            found = self._answers[asked] = list(islice(hits, limit))
        return found

    def any_with(self, key: str, test: Callable[[Any], bool]) -> bool:
        """Whether any recorded payload passes `test`, reading only those that name `key` at
        some level (all of them when `key` is a list index or has no single spelling)."""
        needle = _encode(key)
        plain = not key.isdigit() and b"\\" not in needle
        pool = self.hay.containing(needle) if plain else range(len(self.spans))
        values = (self.value(i) for i in pool)
        return any(v is not ABSENT and test(v) for v in values)

    def recorded_positions(self, limit: int) -> list[int]:
        """The first `limit` positions whose span recorded a payload (null included)."""
        if not self.recorded:
            return []
        found = (i for i in range(len(self.spans)) if self.value(i) is not ABSENT)
        return list(islice(found, limit))

    def first_recorded(self, n: int) -> list[Any]:
        """The first `n` recorded payloads, in trace order."""
        values = (self.value(i) for i in range(len(self.spans)))
        return list(islice((v for v in values if v is not ABSENT), n))


def _from_attributes(raw: Any, span: Span, keys: list[bytes]) -> bool:
    """The field reader may take this span's payload from its attributes: its own level holds
    none (or null), and its attributes' bytes name one of `keys` (or hold an escape)."""
    if raw and bytes(raw) != b"null":
        return False
    attributes = bytes(span.attributes_raw)
    return b"\\" in attributes or any(k in attributes for k in keys)


def _unique(ordered: Iterator[int]) -> Iterator[int]:
    last = -1
    for i in ordered:
        if i != last:
            yield i
            last = i


_UNSET: Any = object()


def _holds(expected: Any, value: Any) -> bool:
    return value is not ABSENT and subset(expected, value)


# the raw fields each reader reads (the field reader looks under attributes too)
_READS_ARGUMENTS = attrgetter("arguments_raw", "attributes_raw")
_READS_RESULT = attrgetter("result_raw", "attributes_raw")


def _arguments(span: Span) -> Any:
    return as_object(span.read("arguments"))


def _result(span: Span) -> Any:
    return as_object(span.read("result")) if span.has_result else ABSENT


def arguments_of(trace: Trace, tool: str) -> Payloads:
    """Every call of `tool` with its arguments (JSON strings read as JSON)."""
    spans = trace.tool_calls.get(tool, [])

    def build() -> Payloads:
        raws = list(map(attrgetter("arguments_raw"), spans))
        return Payloads(spans, raws, _arguments, _READS_ARGUMENTS, ("arguments",))

    return derived(trace, ("arguments", tool), build)


def results_of(trace: Trace, tool: str) -> Payloads:
    """Every call of `tool` with its recorded result (ABSENT when it recorded none)."""
    spans = trace.tool_calls.get(tool, [])

    def build() -> Payloads:
        raws = list(map(attrgetter("result_raw"), spans))
        return Payloads(spans, raws, _result, _READS_RESULT, ("result",))

    return derived(trace, ("results", tool), build)
