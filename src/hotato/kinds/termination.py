"""termination: how did the call end, according to the trace?"""

from __future__ import annotations

from itertools import chain

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._trace_util import derived, span_ids
from hotato.model.evidence import TERMINATION_TYPES, Span, Trace
from hotato.model.results import Verdict
from hotato.model.status import Source


class Termination(Spec, tag="termination", frozen=True):
    """Reads the call's end-of-call spans (`call_ended`, `termination`, `call_terminated`,
    `hangup`); who ended it is read from `by` (or `terminated_by`, `ended_by`).

    Passes when any end-of-call span matches `reason` and `by` (each compared without case);
    with `absent: true`, passes when none matches.
    Fails when the trace was read and holds no matching end-of-call span (or, with `absent`,
    holds one).
    Inconclusive when no trace was supplied.

    Example:
        - id: caller-hung-up
          kind: termination
          by: caller
    """

    reason: str | None = None
    by: str | None = None
    absent: bool = False


def _by(span: Span) -> str | None:
    value = span.read("ended_by")
    return str(value).lower() if value is not None else None


def _reason(span: Span) -> str | None:
    value = span.read("reason")
    return str(value) if value is not None else None


class Ends:
    """Every end-of-call span, read once per run: grouped by what it says (reason in lower case,
    who ended it), so an assertion looks at the few distinct endings, not at every span."""

    def __init__(self, trace: Trace) -> None:
        self.spans = trace.of_types(TERMINATION_TYPES)
        self.groups: dict[tuple[str, str | None], list[Span]] = {}
        for span in self.spans:
            said = ((_reason(span) or "").lower(), _by(span))
            self.groups.setdefault(said, []).append(span)
        self.observed = [{"reason": _reason(s), "by": _by(s)} for s in self.spans[:5]] or None

    def matching(self, reason: str | None, by: str | None) -> list[Span]:
        found = [
            spans
            for (said, who), spans in self.groups.items()
            if (reason is None or said == reason) and (by is None or who == by)
        ]
        return found[0] if len(found) == 1 else sorted(chain(*found), key=lambda s: s.index)


@kind(Termination, reads={Source.TRACE})
def check(spec: Termination, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    trace = ev.trace
    read = derived(trace, "termination", lambda: Ends(trace))
    ends, observed = read.spans, read.observed
    matched = read.matching(
        spec.reason.lower() if spec.reason is not None else None,
        spec.by.lower() if spec.by is not None else None,
    )
    want = {k: v for k, v in (("reason", spec.reason), ("by", spec.by)) if v is not None}
    if spec.absent:
        if matched:
            return Verdict.failed(
                f"the call ended {want}, which must not happen",
                observed=observed,
                evidence=span_ids(matched),
            )
        return Verdict.passed("the call did not end that way", observed=observed)
    if not ends:
        return Verdict.failed("the trace records no end-of-call span")
    if matched:
        return Verdict.passed(
            f"the call ended {want or observed}",
            observed=observed,
            evidence=span_ids(matched),
        )
    return Verdict.failed(
        f"expected an end-of-call span matching {want}; the trace records {observed}",
        observed=observed,
        evidence=span_ids(ends),
    )
