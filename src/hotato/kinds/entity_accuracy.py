"""entity_accuracy: did the agent pass the right values (names, dates, amounts) to its tools?"""

from __future__ import annotations

from typing import Any, Literal

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._trace_util import as_object, derived
from hotato.model.evidence import Trace
from hotato.model.results import Verdict
from hotato.model.status import Source


class EntityAccuracy(Spec, tag="entity_accuracy", frozen=True):
    """Reads the arguments of every `tool_call` span in the trace (what the agent committed to
    its tools, never what it said), merged by argument name with later calls winning.

    Passes when every `reference` entity (`require: all`, the default) or at least one
    (`require: any`) equals the argument of that name, compared as text (without case unless
    `case_sensitive: true`). Reports `met` / `of`, and never the values themselves.
    Fails when the trace was read and an entity is missing or differs (or, with `any`, none
    matches).
    Inconclusive when no trace was supplied.

    Example:
        - id: booked-right-slot
          kind: entity_accuracy
          reference: {date: "2026-03-14", party_size: 4}
          require: all
    """

    reference: dict[str, Any]
    require: Literal["all", "any"] = "all"
    case_sensitive: bool = False


def _validate(spec: EntityAccuracy) -> list[str]:
    return [] if spec.reference else ["'reference' must name at least one entity"]


def _arguments(trace: Trace) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for span in trace.by_type.get("tool_call", ()):
        args = as_object(span.read("arguments"))
        if isinstance(args, dict):
            merged.update(args)
    return merged


def _text(value: Any, case_sensitive: bool) -> str:
    text = str(value)
    return text if case_sensitive else text.lower()


@kind(EntityAccuracy, reads={Source.TRACE}, validate=_validate)
def check(spec: EntityAccuracy, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    trace = ev.trace
    observed = derived(trace, "entity_arguments", lambda: _arguments(trace))
    wrong = sorted(
        name
        for name, expected in spec.reference.items()
        if observed.get(name) is None
        or _text(observed[name], spec.case_sensitive) != _text(expected, spec.case_sensitive)
    )
    of = len(spec.reference)
    met = of - len(wrong)
    counts = {"met": met, "of": of}
    held = not wrong if spec.require == "all" else met > 0
    if held:
        return Verdict.passed(
            f"{spec.require}: {met} of {of} reference entities match the tool arguments",
            observed=counts,
        )
    return Verdict.failed(
        f"{spec.require}: {met} of {of} reference entities match the tool arguments; "
        f"wrong or absent: {wrong}",
        observed=counts,
    )
