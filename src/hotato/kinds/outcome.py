"""outcome: did the task happen? A met/of fraction over named sub-predicates."""

from __future__ import annotations

from typing import Any

import msgspec

from hotato.kinds._base import Evidence, Role, Spec, kind
from hotato.kinds._payloads import results_of
from hotato.kinds._regex import matching_turns, pattern_problems
from hotato.kinds._timing import first_value, is_present, unscorable
from hotato.kinds._trace_util import derived
from hotato.kinds.state import judge_state
from hotato.kinds.tool_call import calls
from hotato.model.match import dotted, missing
from hotato.model.results import Verdict
from hotato.model.status import Source, Status


class StatePart(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    resource: str
    filters: dict[str, Any] = {}
    expect: dict[str, Any] = {}


class Part(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Exactly one of: tool_called, phrase, field_present (with tool), state, assertion."""

    tool_called: str | None = None
    args_subset: dict[str, Any] | None = None
    phrase: str | None = None
    role: Role | None = None
    field_present: str | None = None
    tool: str | None = None
    state: StatePart | None = None
    assertion: str | None = None

    def chosen(self) -> list[str]:
        keys = ("tool_called", "phrase", "field_present", "state", "assertion")
        return [k for k in keys if getattr(self, k) is not None]

    def source(self) -> Source:
        if self.phrase is not None:
            return Source.TRANSCRIPT
        if self.state is not None:
            return Source.STATE
        if self.assertion is not None:
            return Source.RESULTS
        if self.field_present is not None and self.tool is None:
            return Source.TIMING
        return Source.TRACE


class Outcome(Spec, tag="outcome", frozen=True):
    """Resolves the task over its sub-predicates: `{tool_called: NAME}` (optionally
    `args_subset`), `{phrase: REGEX, role}`, `{field_present: PATH, tool: NAME}` (the tool's
    recorded result carries the field), `{field_present: PATH}` (the timing evidence carries
    it, not null), `{state: {resource, filters, expect}}`, and
    `{assertion: ID}` (another assertion passed). Reports `met` / `of`.

    Passes when every `all_of` part is met and at least one `any_of` part is (when given).
    Fails when a part that was read is unmet and that settles it (one unmet `all_of` part, or
    every `any_of` part read and unmet).
    Inconclusive when the answer depends on a part whose evidence was not supplied or could
    not be read.

    Example:
        - id: refund-done
          kind: outcome
          all_of:
            - {tool_called: issue_refund}
            - state:
                resource: orders
                filters: {order_id: A-1}
                expect: {refund_status: refunded}
    """

    all_of: tuple[Part, ...] = ()
    any_of: tuple[Part, ...] = ()


def _validate(spec: Outcome) -> list[str]:
    problems = []
    if not spec.all_of and not spec.any_of:
        problems.append("needs 'all_of' or 'any_of'")
    for group in ("all_of", "any_of"):
        for i, part in enumerate(getattr(spec, group)):
            if len(part.chosen()) != 1:
                problems.append(
                    f"{group}[{i}] needs exactly one of tool_called, phrase, "
                    "field_present, state, assertion"
                )
            if part.tool is not None and part.field_present is None:
                problems.append(f"{group}[{i}] 'tool' applies only to field_present")
            problems += pattern_problems(part.phrase)
    return problems


def _reads(spec: Outcome) -> frozenset[Source]:
    return frozenset(p.source() for p in (*spec.all_of, *spec.any_of))


def _refs(spec: Outcome) -> list[str]:
    return [p.assertion for p in (*spec.all_of, *spec.any_of) if p.assertion is not None]


def _part(spec: Outcome, part: Part, ev: Evidence) -> tuple[bool | None, str]:
    """Met (True), unmet (False) or unknown (None), with a short account."""
    if part.assertion is not None:
        status = ev.results[part.assertion].status
        value = None if status is Status.INCONCLUSIVE else status is Status.PASS
        return value, f"assertion {part.assertion!r} is {status.value}"
    if part.phrase is not None:
        if ev.transcript is None:
            return None, "no transcript was supplied"
        hit = next(matching_turns(ev.transcript, part.role, part.phrase), None) is not None
        return hit, f"phrase {part.phrase!r} {'was' if hit else 'was not'} said"
    if part.state is not None:
        return _state_part(spec, part.state, ev)
    if part.field_present is not None and part.tool is None:
        if ev.timing is None:
            return None, "no timing evidence was supplied"
        if (why := unscorable(ev.timing)) is not None:
            return None, why
        held = first_value(ev.timing, part.field_present, is_present) is not None
        return held, f"field {part.field_present!r} {'is' if held else 'is not'} in the timing"
    if ev.trace is None:
        return None, "no trace was supplied"
    if part.tool_called is not None:
        found = calls(ev.trace, part.tool_called, part.args_subset)
        return bool(found), f"tool {part.tool_called!r} {'ran' if found else 'never ran'}"
    tool, path = str(part.tool), str(part.field_present)
    trace = ev.trace
    results = results_of(trace, tool)
    if not results.recorded:
        return (None if results.spans else False), f"tool {part.tool!r} recorded no result"
    present = derived(
        trace,
        ("field_present", tool, path),
        lambda: results.any_with(path.split(".")[0], lambda v: not missing(dotted(v, path))),
    )
    return present, f"field {part.field_present!r} {'is' if present else 'is not'} in the result"


def _state_part(spec: Outcome, part: StatePart, ev: Evidence) -> tuple[bool | None, str]:
    if ev.state is None:
        return None, "no state adapter was supplied"
    verdict = judge_state(
        ev.state,
        assertion_id=spec.id,
        kind="outcome",
        resource=part.resource,
        filters=part.filters,
        expect=part.expect,
    )
    met = None if verdict.status is Status.INCONCLUSIVE else verdict.status is Status.PASS
    return met, verdict.reason


@kind(Outcome, reads=_reads, validate=_validate, refs=_refs, partial=True)
def check(spec: Outcome, ev: Evidence) -> Verdict:
    accounts: list[dict[str, Any]] = []
    values: dict[str, list[bool | None]] = {"all_of": [], "any_of": []}
    for group in ("all_of", "any_of"):
        for part in getattr(spec, group):
            value, why = _part(spec, part, ev)
            values[group].append(value)
            accounts.append({"group": group, "met": value, "why": why})
    every = [*values["all_of"], *values["any_of"]]
    met, of = sum(1 for v in every if v), len(every)
    observed = {"met": met, "of": of}
    all_vals, any_vals = values["all_of"], values["any_of"]
    if False in all_vals or (any_vals and all(v is False for v in any_vals)):
        status = Status.FAIL
    elif all(v is True for v in all_vals) and (not any_vals or True in any_vals):
        status = Status.PASS
    else:
        status = Status.INCONCLUSIVE
    reason = f"met {met} / of {of}: " + "; ".join(a["why"] for a in accounts)
    return Verdict(status=status, reason=reason, observed=observed, details={"parts": accounts})
