"""tool_error: did a tool raise, according to the trace?"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._regex import compile_pattern, encoded, pattern_problems
from hotato.kinds._trace_util import derived, error_text, span_ids
from hotato.model.evidence import Span, Trace
from hotato.model.results import Verdict
from hotato.model.status import Source

ERROR_SPAN_TYPES = frozenset({"tool_timeout", "tool_error"})


class ToolError(Spec, tag="tool_error", frozen=True):
    """Reads the errors recorded on tool spans, in one table of failure shapes
    (`hotato.model.failure`) held to the span and to what the tool returned: a truthy `error`,
    `status: error|failed`, `ok: false`, `success: false` (Retell's function results), an
    `error` string or object, an HTTP status of 400 or more; or a `tool_timeout` /
    `tool_error` span.

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


class Raised:
    """Every error the trace records, found in one pass over its tool spans: in trace order,
    each with its error text, and grouped by tool name.

    Only calls that may have raised are read (Span.raised() decodes fields): the trace's
    `maybe_raised`, found from bytes once."""

    def __init__(self, trace: Trace) -> None:
        raised: dict[tuple[Any, ...], bool] = {}
        found = [s for s in trace.maybe_raised if _memo(raised, s, Span.raised)]
        found += trace.of_types(ERROR_SPAN_TYPES)
        found.sort(key=lambda s: s.index)
        self.spans = found
        texts: dict[tuple[Any, ...], str] = {}
        self.texts = {s.index: _memo(texts, s, error_text) for s in found}
        self.by_name: dict[str | None, list[Span]] = {None: found}
        for span in found:
            if span.name is not None:
                self.by_name.setdefault(span.name, []).append(span)


T = TypeVar("T")


def _memo(memo: dict[tuple[Any, ...], T], span: Span, read: Callable[[Span], T]) -> T:
    """`read(span)` once per distinct set of the fields it reads: a trace's errors repeat a few
    shapes (the same timeout a thousand times), so each shape is read once. The payloads are
    told apart by identity: the loader keeps one copy of each repeated error, result and
    attributes payload (TraceIndexer), so a shape's spans share theirs; payloads equal but not
    shared are only read once more each."""
    key = (
        span.type,
        span.status,
        id(span.error_raw),
        id(span.result_raw),
        id(span.attributes_raw),
    )
    value = memo.get(key, _UNSEEN)
    if value is _UNSEEN:
        value = memo[key] = read(span)
    return value


_UNSEEN: Any = object()


def _texts_matching(raised: Raised, matches: str) -> set[str]:
    pattern = compile_pattern(matches)
    return {t for t in set(raised.texts.values()) if pattern.search(encoded(t))}


def errors(trace: Trace, name: str | None, matches: str | None = None) -> tuple[Raised, list[Span]]:
    """The errors of `name` (any tool when None) whose text matches `matches`, once per run."""
    raised = derived(trace, "tool_errors", lambda: Raised(trace))
    found = raised.by_name.get(name, [])
    if matches is None:
        return raised, found

    def build() -> list[Span]:
        # the pattern runs once per distinct error text (a trace repeats a few texts)
        hit = derived(
            trace, ("tool_error_texts", matches), lambda: _texts_matching(raised, matches)
        )
        return [s for s in found if raised.texts[s.index] in hit]

    return raised, derived(trace, ("tool_errors", name, matches), build)


@kind(ToolError, reads={Source.TRACE}, validate=_validate)
def check(spec: ToolError, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    raised, found = errors(ev.trace, spec.name, spec.error_matches)
    who = f"tool {spec.name!r}" if spec.name else "a tool"
    if spec.absent:
        if found:
            return Verdict.failed(
                f"{who} errored but must not have",
                observed=[raised.texts[s.index] for s in found[:5]],
                evidence=span_ids(found),
            )
        return Verdict.passed(f"{who} never errored")
    if found:
        return Verdict.passed(
            f"{who} raised: {raised.texts[found[0].index]}", evidence=span_ids(found)
        )
    match = f" matching {spec.error_matches!r}" if spec.error_matches else ""
    return Verdict.failed(f"{who} raised no error{match} in the trace")
