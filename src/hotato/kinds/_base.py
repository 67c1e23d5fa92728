"""The contract every assertion kind meets: a typed spec, the evidence it reads, a check."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import msgspec

from hotato.model.evidence import Trace, Transcript
from hotato.model.results import Result, Verdict
from hotato.model.state import StateSource
from hotato.model.status import Source

Dimension = Literal["outcome", "policy", "conversation", "speech", "reliability"]
# A transcript role: `caller` / `agent` (and their aliases, see model.evidence.ROLE_ALIASES),
# `any`, or a third party's own word (`supervisor`), compared exactly as written.
Role = str


class Spec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="kind"):
    """Fields every assertion carries."""

    id: str
    dimension: Dimension | None = None
    when: tuple[str, ...] = ()
    description: str | None = None
    # `hotato serve --alert URL` posts an alert when a call FAILs this assertion. It changes
    # no verdict, so it is left out of every digest of the assertion (`identity_doc`).
    alert: bool = False


# Fields of a spec that say what to do with its verdict, never what it checks: left out of the
# digests that identify assertions (a run's id, a human label's binding), so marking an
# assertion for alerts keeps every digest it had.
NOT_IDENTITY = ("alert",)


def identity_doc(spec: Spec) -> dict[str, Any]:
    """The spec as builtins, less the fields that are not part of what it checks."""
    doc: dict[str, Any] = msgspec.to_builtins(spec)
    for name in NOT_IDENTITY:
        doc.pop(name, None)
    return doc


class CountBounds(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    min: int | None = None
    max: int | None = None

    def holds(self, n: int) -> bool:
        return (self.min is None or n >= self.min) and (self.max is None or n <= self.max)

    def describe(self) -> str:
        if self.min is not None and self.min == self.max:
            return f"exactly {self.min}"
        parts = []
        if self.min is not None:
            parts.append(f"at least {self.min}")
        if self.max is not None:
            parts.append(f"at most {self.max}")
        return " and ".join(parts) or "any number"


def bounds(count: int | CountBounds | None, default_min: int = 1) -> CountBounds:
    """`count: 2` means exactly two; no count means at least `default_min`."""
    if count is None:
        return CountBounds(min=default_min)
    if isinstance(count, int):
        return CountBounds(min=count, max=count)
    return count


class Evidence(msgspec.Struct):
    """What a check may read. The engine fills only the sources a kind declares."""

    trace: Trace | None = None
    transcript: Transcript | None = None
    state: StateSource | None = None
    timing: Any = None
    results: Mapping[str, Result] = {}


Check = Callable[[Any, Evidence], Verdict]

# What a check says when a source it reads was not supplied. One wording, wherever a spec is
# graded (the engine, or a policy pack's rules).
MISSING_REASON = {
    Source.TRACE: "no trace was supplied (--trace); {kind} reads the trace's spans, never the "
    "transcript",
    Source.TRANSCRIPT: "no transcript was supplied (--transcript); {kind} reads what was said",
    Source.STATE: "no state adapter was provided (--state); {kind} reads a post-call system of "
    "record (Authority 2), never the agent's spoken claim",
    Source.TIMING: "no timing evidence was supplied (--timing, or --audio to score the "
    "recording); {kind} reads measured timing",
}
Reads = frozenset[Source] | Callable[[Any], frozenset[Source]]
Validate = Callable[[Any], list[str]]


class KindDef(msgspec.Struct, frozen=True):
    """One registered kind. `refs` names the other assertions a spec depends on."""

    spec: type[Spec]
    check: Check
    reads: Reads
    validate: Validate | None = None
    refs: Callable[[Any], list[str]] | None = None
    deterministic: bool = True
    partial: bool = False  # the kind weighs missing sources itself (outcome's parts)

    @property
    def tag(self) -> str:
        return str(self.spec.__struct_config__.tag)

    @property
    def doc(self) -> str:
        return self.spec.__doc__ or ""

    def sources(self, spec: Spec) -> frozenset[Source]:
        return self.reads(spec) if callable(self.reads) else self.reads

    def __call__(self, spec: Spec, ev: Evidence) -> Verdict:
        return self.check(spec, ev)


def kind(
    spec: type[Spec],
    reads: set[Source] | Callable[[Any], frozenset[Source]],
    validate: Validate | None = None,
    refs: Callable[[Any], list[str]] | None = None,
    deterministic: bool = True,
    partial: bool = False,
) -> Callable[[Check], KindDef]:
    """Register a check for a spec type. Listing it in `hotato.kinds.BUILTIN` makes it live."""

    def wrap(check: Check) -> KindDef:
        r: Reads = frozenset(reads) if isinstance(reads, set) else reads
        return KindDef(spec, check, r, validate, refs, deterministic, partial)

    return wrap


def missing_source(kdef: KindDef, spec: Spec, have: Any) -> Verdict | None:
    """INCONCLUSIVE when `have` (anything with trace / transcript / state attributes) lacks a
    source the kind reads; None when the check may run. Partial kinds weigh gaps themselves."""
    if kdef.partial:
        return None
    gaps = getattr(have, "gaps", None) or {}
    for source in sorted(kdef.sources(spec) - {Source.RESULTS}):
        if getattr(have, source.value, None) is None:
            reason = gaps.get(source.value) or MISSING_REASON[source].format(kind=kdef.tag)
            return Verdict.inconclusive(reason, details={"missing": source.value})
    return None


def run_check(
    kdef: KindDef, spec: Spec, have: Any, results: Mapping[str, Result] | None = None
) -> Verdict:
    """Grade one spec as the engine does: a missing source is INCONCLUSIVE in one place, and
    the kind is handed only the sources it declares (everything, for a partial kind)."""
    gap = missing_source(kdef, spec, have)
    if gap is not None:
        return gap
    reads = kdef.sources(spec)
    every = kdef.partial
    return kdef.check(
        spec,
        Evidence(
            trace=have.trace if every or Source.TRACE in reads else None,
            transcript=have.transcript if every or Source.TRANSCRIPT in reads else None,
            state=have.state if every or Source.STATE in reads else None,
            timing=getattr(have, "timing", None) if every or Source.TIMING in reads else None,
            results=results if results is not None else {},
        ),
    )
