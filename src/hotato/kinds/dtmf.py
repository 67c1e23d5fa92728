"""dtmf: which keypad digits did the call collect, according to the trace?"""

from __future__ import annotations

from collections import Counter

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._placement import unknown_order, unplaced_in
from hotato.kinds._trace_util import derived, span_ids
from hotato.model.evidence import Span, Trace
from hotato.model.results import Verdict
from hotato.model.status import Source

_SEPARATORS = str.maketrans("", "", " -,.")


class Dtmf(Spec, tag="dtmf", frozen=True):
    """Reads `dtmf` spans (their `digits`) in the trace, in time order (a span with no time
    keeps its place in the file among the timed ones).

    Passes when the collected digits contain `digits` in order and contiguously (separators such
    as `1-2-3-4` are ignored); without `digits`, when any keypad tone was collected. With
    `absent: true`, passes when none was.
    Fails when the trace was read and the digits were not collected.
    Inconclusive when no trace was supplied, or when the digits were collected but their order
    depends on where a keypad span with no time was, which the trace cannot tell.

    Example:
        - id: pin-entered
          kind: dtmf
          digits: "1-2-3-4"
    """

    digits: str | None = None
    absent: bool = False


def _validate(spec: Dtmf) -> list[str]:
    # An empty pattern is contained in anything: it would pass with no tone collected.
    if spec.digits is not None and not spec.digits.translate(_SEPARATORS):
        return ["'digits' must hold at least one digit; leave it out to accept any tone"]
    return []


def _digits(span: Span) -> str:
    value = span.read("digits")
    return ("" if value is None else str(value)).translate(_SEPARATORS)


def _collected(trace: Trace) -> tuple[list[Span], str]:
    """The keypad spans in time order and every digit they collected, once per trace."""
    spans = trace.by_type.get("dtmf", [])
    if trace.ordered is not trace.spans:
        spans = [s for s in trace.ordered if s.type == "dtmf"]
    return spans, "".join(_digits(s) for s in spans)


def _could_hold(collected: str, want: str) -> bool:
    """Whether some order of the collected digits could hold `want`: it holds each digit."""
    return not Counter(want) - Counter(collected)


@kind(Dtmf, reads={Source.TRACE}, validate=_validate)
def check(spec: Dtmf, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    trace = ev.trace
    spans, collected = derived(trace, "dtmf", lambda: _collected(trace))
    want = spec.digits.translate(_SEPARATORS) if spec.digits is not None else None
    present = bool(collected) if want is None else want in collected
    what = f"digits {spec.digits!r}" if spec.digits else "keypad tones"
    unplaced = unplaced_in(trace, spans) if want is not None else []
    if unplaced and _could_hold(collected, want or ""):
        # the digits are there, in an order the trace cannot show
        return unknown_order(f"whether {what} were collected in order", unplaced)
    if spec.absent:
        if present:
            return Verdict.failed(
                f"{what} were collected but must not be", evidence=span_ids(spans)
            )
        return Verdict.passed(f"{what} were not collected")
    if present:
        return Verdict.passed(f"{what} were collected", evidence=span_ids(spans))
    return Verdict.failed(
        f"{what} were not collected; the trace holds {len(spans)} keypad span(s)",
        observed=len(spans),
    )
