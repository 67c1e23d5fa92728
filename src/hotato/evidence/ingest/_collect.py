"""Holding converted spans until they can be written in time order, in little memory.

A stack's export is not always in time order (OTLP batches arrive as spans end), and times are
relative to the call's first moment, which is known only at the end. So each span's payload is
encoded once into a spool file, and only its type, times and place are kept in arrays: a
million spans cost tens of megabytes, not a million dicts. Writing then reads the spool in
(start time, source order) order and puts the type and times in front of each payload.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import IO, Any

import msgspec

NO_TIME = (1 << 63) - 1  # sorts an untimed span after every timed one
_INTERVAL, _POINT, _UNTIMED = 0, 1, 2

_encode = msgspec.json.Encoder().encode


@dataclass
class Part:
    """What a Collector holds besides its spool, to be absorbed by another (`Collector.part`)."""

    types: list[str]
    code: array[int]
    t0: array[int]
    t1: array[int]
    seq: array[int]
    len: array[int]
    next_seq: int
    min_ns: int | None
    in_order: bool
    counts: dict[str, int]


class Collector:
    def __init__(self, spool: IO[bytes] | None = None, first_seq: int = 0) -> None:
        """`spool`: where payloads go (a new temporary file by default). `first_seq`: the first
        place in source order; a Collector to be absorbed by another starts far beyond it."""
        self._spool: IO[bytes] = spool or tempfile.TemporaryFile()  # noqa: SIM115 - close()
        self._types: list[str] = []
        self._type_ids: dict[str, int] = {}
        self._code = array("l")  # type id * 4 + kind (interval, point, untimed)
        self._t0 = array("q")
        self._t1 = array("q")
        self._seq = array("q")
        self._len = array("l")  # payload sizes: the spool holds the payloads back to back
        self._next_seq = first_seq
        self._last_t0 = -1  # the (time, place) of the span added last
        self._last_seq = -1
        self._in_order = True
        self.base_ns: int | None = None  # set by a format whose times are already call-relative
        self._min_ns: int | None = None
        self.counts: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._seq)

    def reserve(self) -> int:
        """A place in source order for a span emitted later (a tool call paired with its result)."""
        seq = self._next_seq
        self._next_seq += 1
        return seq

    def add(
        self,
        type_: str,
        body: dict[str, Any],
        start: int | None = None,
        end: int | None = None,
        at: int | None = None,
        seq: int | None = None,
    ) -> None:
        # Hot: once per span written, so attribute lookups are kept few.
        if seq is None:
            seq = self._next_seq
            self._next_seq = seq + 1
        payload = _encode(body)
        self._spool.write(payload)
        tid = self._type_ids.get(type_)
        if tid is None:
            tid = self._type_id(type_)
        if start is not None:
            code, t0, t1 = tid * 4 + _INTERVAL, start, (end if end is not None else NO_TIME)
        elif at is not None:
            code, t0, t1 = tid * 4 + _POINT, at, NO_TIME
        else:
            code, t0, t1 = tid * 4 + _UNTIMED, NO_TIME, NO_TIME
        if t0 != NO_TIME and (self._min_ns is None or t0 < self._min_ns):
            self._min_ns = t0
        last_t0 = self._last_t0
        if t0 < last_t0 or (t0 == last_t0 and seq < self._last_seq):
            self._in_order = False
        self._last_t0 = t0
        self._last_seq = seq
        self._code.append(code)
        self._t0.append(t0)
        self._t1.append(t1)
        self._seq.append(seq)
        self._len.append(len(payload))
        counts = self.counts
        counts[type_] = counts.get(type_, 0) + 1

    def observe(self, t_ns: int | None) -> None:
        """A source moment that is not itself written (a root span): it may be time zero."""
        if (
            t_ns is not None
            and -NO_TIME < t_ns < NO_TIME
            and (self._min_ns is None or t_ns < self._min_ns)
        ):
            self._min_ns = t_ns

    @property
    def origin_ns(self) -> int:
        """Time zero of the call: the format's own, or the earliest span."""
        if self.base_ns is not None:
            return self.base_ns
        return self._min_ns if self._min_ns is not None else 0

    def seconds(self, t_ns: int) -> float:
        value = (t_ns - self.origin_ns) / 1_000_000_000
        return value + 0.0  # never -0.0 (`lines` computes the same, inline)

    def order(self) -> list[int]:
        """Positions in (start time, source order) order. Two stable sorts on single-int keys
        cost far less memory than one sort on (time, seq) tuples."""
        positions = list(range(len(self._seq)))
        if not self._in_order:
            seq = self._seq
            if any(seq[i] > seq[i + 1] for i in range(len(seq) - 1)):
                positions.sort(key=seq.__getitem__)
            positions.sort(key=self._t0.__getitem__)
        return positions

    def lines(self) -> Iterator[bytes]:
        """Every span as one JSON object (no newline), in (start time, source order) order."""
        self._spool.flush()
        if not self._seq:
            return
        fd = self._spool.fileno()
        types = [b'{"type":' + _encode(t) for t in self._types]
        origin = self.origin_ns
        code_of, t0_of, t1_of, len_of = self._code, self._t0, self._t1, self._len
        off_of = array("q", accumulate(len_of, initial=0))
        # pread, not mmap: spool pages read once should not count as resident memory
        for i in self.order():
            tid, kind = divmod(code_of[i], 4)
            body = os.pread(fd, len_of[i], off_of[i])
            rest = b"}" if body == b"{}" else b"," + body[1:]
            if kind == _INTERVAL:
                start = _encode((t0_of[i] - origin) / 1_000_000_000 + 0.0)
                if t1_of[i] == NO_TIME:
                    yield b"".join((types[tid], b',"start_sec":', start, rest))
                else:
                    end = _encode((t1_of[i] - origin) / 1_000_000_000 + 0.0)
                    yield b"".join((types[tid], b',"start_sec":', start, b',"end_sec":', end, rest))
            elif kind == _POINT:
                at = _encode((t0_of[i] - origin) / 1_000_000_000 + 0.0)
                yield b"".join((types[tid], b',"time_sec":', at, rest))
            else:
                yield types[tid] + rest

    def part(self) -> Part:
        """Everything but the spool, for `absorb` (the spool's bytes are flushed)."""
        self._spool.flush()
        return Part(
            self._types,
            self._code,
            self._t0,
            self._t1,
            self._seq,
            self._len,
            self._next_seq,
            self._min_ns,
            self._in_order,
            self.counts,
        )

    def absorb(self, part: Part, spool: IO[bytes]) -> None:
        """Append the spans of another Collector (its `part()` and its spool) as if they had
        been added here after every span so far: it started its places in source order beyond
        every place here (`first_seq`), so they are kept as they are."""
        if not part.seq:
            return
        if part.seq[0] < self._next_seq:
            raise ValueError("the absorbed spans' places must follow this Collector's")
        self._spool.flush()
        spool.seek(0)
        shutil.copyfileobj(spool, self._spool, 1 << 20)
        ids = [self._type_id(t) for t in part.types]
        first_t0, first_seq = part.t0[0], part.seq[0]
        if first_t0 < self._last_t0 or (first_t0 == self._last_t0 and first_seq < self._last_seq):
            self._in_order = False
        self._in_order = self._in_order and part.in_order
        self._last_t0, self._last_seq = part.t0[-1], part.seq[-1]
        if ids == list(range(len(ids))):  # both saw the types in the same order
            self._code.extend(part.code)
        else:
            self._code.extend(ids[c >> 2] * 4 + (c & 3) for c in part.code)
        self._t0.extend(part.t0)
        self._t1.extend(part.t1)
        self._seq.extend(part.seq)
        self._len.extend(part.len)
        self._next_seq = part.next_seq
        if part.min_ns is not None and (self._min_ns is None or part.min_ns < self._min_ns):
            self._min_ns = part.min_ns
        for type_, n in part.counts.items():
            self.counts[type_] = self.counts.get(type_, 0) + n

    def _type_id(self, type_: str) -> int:
        tid = self._type_ids.get(type_)
        if tid is None:
            tid = self._type_ids[type_] = len(self._types)
            self._types.append(type_)
        return tid

    def close(self) -> None:
        self._spool.close()
