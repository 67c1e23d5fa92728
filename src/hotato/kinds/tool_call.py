"""tool_call: did the trace record the tool running (with these arguments, this often, in order)?"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Mapping
from itertools import islice
from typing import Any

import msgspec

from hotato.kinds._base import CountBounds, Evidence, Spec, bounds, kind
from hotato.kinds._near_miss import NEAR_MISS_LIMIT, describe
from hotato.kinds._payloads import arguments_of
from hotato.kinds._placement import unknown_order, unplaced_in
from hotato.kinds._trace_util import Indexes, derived, span_ids
from hotato.model.evidence import Span, Trace
from hotato.model.results import Verdict
from hotato.model.status import Source, Status


class NeverBefore(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    tool: str
    until: str


class ToolCall(Spec, tag="tool_call", frozen=True):
    """Reads the ingested trace's tool spans, never the transcript.

    Passes when a `tool_call` span for `name` exists (arguments containing `args_subset`, a
    number of calls within `count`), when the tools in `require_order` ran as an in-order
    subsequence, and when `never_before.tool` never ran before `never_before.until` first ran.
    With `absent: true`, passes when no such call exists.
    Fails when the trace was read and holds no such call (a trace with zero spans included),
    the count is out of bounds, the order is broken, or a forbidden call came first.
    Inconclusive when no trace was supplied, or when an order depends on where a call with no
    time was and the trace, not written in time order around it, cannot tell (a call with no
    time otherwise keeps its place in the file among the timed ones).

    Example:
        - id: refund-issued-once
          kind: tool_call
          name: issue_refund
          args_subset: {order_id: A-3090}
          count: 1
    """

    name: str | None = None
    args_subset: dict[str, Any] | None = None
    count: int | CountBounds | None = None
    require_order: tuple[str, ...] | None = None
    never_before: NeverBefore | None = None
    absent: bool = False


def _validate(spec: ToolCall) -> list[str]:
    problems = []
    if spec.name is None and spec.require_order is None and spec.never_before is None:
        problems.append("needs 'name', 'require_order' or 'never_before'")
    if spec.name is None and (spec.args_subset is not None or spec.count is not None):
        problems.append("'args_subset' and 'count' need 'name'")
    if spec.absent and spec.count is not None:
        problems.append("'absent' and 'count' cannot be combined; use count: 0")
    if spec.require_order is not None and len(spec.require_order) < 2:
        problems.append("'require_order' needs at least two tools")
    return problems


def calls(trace: Trace, name: str, args_subset: dict[str, Any] | None) -> list[Span]:
    """The calls of `name` whose arguments contain `args_subset`, found by searching the
    tool's raw arguments for bytes a match must hold (kinds._payloads): a question costs its
    candidates, not the tool's calls."""
    spans = trace.tool_calls.get(name, [])
    if args_subset is None:
        return spans
    found = arguments_of(trace, name)
    return [found.spans[i] for i in found.matching(args_subset)]


EMPTY: array[int] = array("q")


Places = Mapping[str, "array[int] | Indexes"]


def _positions(trace: Trace, placed_only: bool = False) -> tuple[Places, list[Span]]:
    """Each tool's places in the time order of tool calls, for order checks by bisection, and
    the list those places index (without the calls whose place is unknown, with
    `placed_only`). A trace already in time order (as ingested) needs no pass: a call's place
    is its index in the trace, read from the tool's own list when bisected."""
    tool_order = trace.tool_order
    if tool_order is trace.by_type.get("tool_call") and not trace.unplaced:
        return {n: Indexes(c) for n, c in trace.tool_calls.items()}, trace.spans
    unplaced = trace.unplaced if placed_only else frozenset()
    places: dict[str, array[int]] = {}
    for i, span in enumerate(tool_order):
        if span.name is not None and span.index not in unplaced:
            places.setdefault(span.name, array("q")).append(i)
    return places, tool_order


def _places(trace: Trace, placed_only: bool = False) -> tuple[Places, list[Span]]:
    key = ("tool_positions", placed_only)
    return derived(trace, key, lambda: _positions(trace, placed_only))


def _check_name(spec: ToolCall, trace: Trace, name: str) -> Verdict:
    found = calls(trace, name, spec.args_subset)
    what = f"tool {name!r}" + (f" with arguments {spec.args_subset}" if spec.args_subset else "")
    if spec.absent:
        if found:
            return Verdict.failed(
                f"{what} was called {len(found)} time(s) but must not be",
                observed=len(found),
                evidence=span_ids(found),
            )
        return Verdict.passed(f"{what} was never called", observed=0)
    want = bounds(spec.count)
    n = len(found)
    if want.holds(n):  # before the zero-span check: `count: 0` holds on an empty trace
        return Verdict.passed(
            f"{what} was called {n} time(s)", observed=n, evidence=span_ids(found)
        )
    if not trace.spans:
        return Verdict.failed(
            f"the trace was read and holds zero spans; {what} never ran", observed=0
        )
    if n == 0:
        return Verdict.failed(
            f"{what} was never called{_near_miss(trace, name, spec.args_subset)}; the trace "
            f"holds {len(trace.by_type.get('tool_call', []))} tool call(s)",
            observed=0,
        )
    expected = (
        spec.count
        if isinstance(spec.count, int)
        else {k: v for k, v in (("min", want.min), ("max", want.max)) if v is not None}
    )
    return Verdict.failed(
        f"{what} was called {n} time(s); expected {expected}", observed=n, evidence=span_ids(found)
    )


def _near_miss(trace: Trace, name: str, args_subset: dict[str, Any] | None) -> str:
    """How the closest call of `name` differed from `args_subset` ("" when none ran)."""
    if not args_subset:
        return ""
    found = arguments_of(trace, name)
    spans = found.spans[:NEAR_MISS_LIMIT]
    return describe(spans, [found.value(i) for i in range(len(spans))], args_subset)


def _in_order(order: tuple[str, ...], trace: Trace, placed_only: bool = False) -> list[Span]:
    """The earliest in-order subsequence, found by bisecting each tool's places in the order:
    the calls of the steps that held."""
    places, placed = _places(trace, placed_only)
    hits: list[Span] = []
    at = -1
    for name in order:
        mine = places.get(name, EMPTY)
        nxt = bisect.bisect_right(mine, at)
        if nxt == len(mine):
            break
        at = mine[nxt]
        hits.append(placed[at])
    return hits


def _check_order(order: tuple[str, ...], trace: Trace) -> Verdict:
    unplaced = unplaced_in(trace, (s for n in set(order) for s in trace.tool_calls.get(n, [])))
    hits = _in_order(order, trace, placed_only=bool(unplaced))
    step = len(hits)  # the steps that held; order[step] is where it broke
    if step == len(order):
        return Verdict.passed(
            f"tools ran in the required order {list(order)}", evidence=span_ids(hits)
        )
    if unplaced and all(trace.tool_calls.get(n) for n in order):
        return unknown_order(f"the required order {list(order)}", unplaced)
    seen = [s.name for s in islice(trace.tool_order, 20)]
    return Verdict.failed(
        f"required order {list(order)} broke at {order[step]!r}; tools ran in the order {seen}",
        evidence=span_ids(hits),
    )


def _early(rule: NeverBefore, trace: Trace, placed_only: bool) -> tuple[list[Span], Span | None]:
    """The calls of `rule.tool` before the first call of `rule.until`, and that call."""
    places, placed = _places(trace, placed_only)
    gates = places.get(rule.until, EMPTY)
    gate = placed[gates[0]] if gates else None
    mine = places.get(rule.tool, EMPTY)
    cut = bisect.bisect_left(mine, gates[0]) if gates else len(mine)
    early = [placed[i] for i in (mine.upto(cut) if isinstance(mine, Indexes) else mine[:cut])]
    return early, gate


def _check_never_before(rule: NeverBefore, trace: Trace) -> Verdict:
    # The same time order require_order uses, so both parts of one kind agree on "before".
    tools = trace.tool_calls.get(rule.tool, [])
    unplaced_tools = unplaced_in(trace, tools)
    unplaced_gates = unplaced_in(trace, trace.tool_calls.get(rule.until, []))
    early, gate = _early(rule, trace, placed_only=bool(unplaced_tools or unplaced_gates))
    if early and not unplaced_gates:  # no gate of unknown place could have come first
        when = f"before {rule.until!r} ran" if gate else f"and {rule.until!r} never ran"
        return Verdict.failed(f"{rule.tool!r} was called {when}", evidence=span_ids(early))
    if not early and not unplaced_tools:  # every call placed, each after a placed gate
        return Verdict.passed(f"{rule.tool!r} never ran before {rule.until!r}")
    return unknown_order(
        f"whether {rule.tool!r} ran before {rule.until!r}", unplaced_tools + unplaced_gates
    )


@kind(ToolCall, reads={Source.TRACE}, validate=_validate)
def check(spec: ToolCall, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    parts: list[Verdict] = []
    if spec.name is not None:
        parts.append(_check_name(spec, ev.trace, spec.name))
    if spec.require_order is not None:
        parts.append(_check_order(spec.require_order, ev.trace))
    if spec.never_before is not None:
        parts.append(_check_never_before(spec.never_before, ev.trace))
    failed = [p for p in parts if p.status is Status.FAIL]
    if len(parts) == 1:
        return parts[0]
    chosen = failed or parts
    return Verdict(
        status=Status.FAIL if failed else Status.PASS,
        reason="; ".join(p.reason for p in chosen),
        evidence=[e for p in parts for e in p.evidence][:20],
    )
