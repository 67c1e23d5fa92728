"""tool_error: did a tool raise, according to the trace?"""

from __future__ import annotations

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._regex import compile_pattern, encoded, pattern_problems
from hotato.kinds._trace_util import derived, error_text, span_ids
from hotato.model.evidence import Span, Trace
from hotato.model.results import Verdict
from hotato.model.status import Source

ERROR_SPAN_TYPES = frozenset({"tool_timeout", "tool_error"})


class ToolError(Spec, tag="tool_error", frozen=True):
    """Reads the errors recorded on tool spans: a truthy `error`, `status: error`, a result with
    `ok: false`, or a `tool_timeout` / `tool_error` span.

    Passes when `name` (or, without a name, any tool) raised an error matching `error_matches`;
    with `absent: true`, passes when it never raised.
    Fails when the trace was read and the error is missing (or, with `absent`, present).
    Inconclusive when no trace was supplied.

    Example:
        - id: charge-never-failed
          kind: tool_error
          name: charge_card
          absent: true
    """

    name: str | None = None
    error_matches: str | None = None
    absent: bool = False


def _validate(spec: ToolError) -> list[str]:
    return pattern_problems(spec.error_matches)


def _may_have_raised(span: Span) -> bool:
    """What Span.raised() needs, read from raw bytes: an error, a status, attributes (which may
    hold either), or `false` somewhere in the result (for `ok: false`). Most calls fail this
    without decoding anything."""
    return (
        bool(span.error_raw)
        or isinstance(span.status, str)
        or bool(span.attributes_raw)
        or (bool(span.result_raw) and b"false" in bytes(span.result_raw))
    )


def errors(trace: Trace, name: str | None) -> list[Span]:
    if name is None:
        candidates = [s for s in trace.by_type.get("tool_call", ())]
    else:
        candidates = list(trace.tool_calls.get(name, ()))
    raised = [s for s in candidates if _may_have_raised(s) and s.raised()]
    raised += [s for s in trace.of_types(ERROR_SPAN_TYPES) if name is None or s.name == name]
    raised.sort(key=lambda s: s.index)
    return raised


@kind(ToolError, reads={Source.TRACE}, validate=_validate)
def check(spec: ToolError, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    trace, name = ev.trace, spec.name
    found = derived(trace, ("tool_errors", name), lambda: errors(trace, name))
    if spec.error_matches is not None:
        pattern = compile_pattern(spec.error_matches)
        found = [s for s in found if pattern.search(encoded(error_text(s)))]
    who = f"tool {spec.name!r}" if spec.name else "a tool"
    if spec.absent:
        if found:
            return Verdict.failed(
                f"{who} errored but must not have",
                observed=[error_text(s) for s in found[:5]],
                evidence=span_ids(found),
            )
        return Verdict.passed(f"{who} never errored")
    if found:
        return Verdict.passed(f"{who} raised: {error_text(found[0])}", evidence=span_ids(found))
    match = f" matching {spec.error_matches!r}" if spec.error_matches else ""
    return Verdict.failed(f"{who} raised no error{match} in the trace")
