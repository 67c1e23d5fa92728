"""Grade each claim against the record: the trace (what the agent did) and, where a pack asks,
the system of record. PASS, FAIL, or INCONCLUSIVE when the evidence was not supplied.

A `done` claim needs a tool (or transfer) span of its type that succeeded by the end of the
claim's turn with the values that were said; each span backs one claim, except that a claim
repeating an earlier one (no new read-back of the action in between) rests on the same span.
A `failed` claim FAILs when the last such action before it succeeded. `promised` claims are
graded only on request (the action must follow); `negated` ones are listed, never graded.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from hotato.claims import record
from hotato.claims.agree import (
    LEFT,
    by_enum,
    by_skeleton,
    charged_otherwise,
    compared,
    describe,
    disagreements,
    flat_args,
    fold,
    holds_amount,
    read_value,
    role_words,
    with_result,
)
from hotato.claims.align import (
    align,
    by_words,
    may_act,
    only_of,
    said_actions,
    speaks_of,
    speaks_of_other,
    terms_beyond_actions,
)
from hotato.claims.catalog import Catalog, Tool, catalog_from_trace, stem, word_set, words
from hotato.claims.entities import Entity
from hotato.claims.extract import Claim, extract
from hotato.claims.fields import by_flags, by_item, by_number, by_option, by_parts, by_phone
from hotato.claims.pack import ClaimType, PackSet
from hotato.claims.said import Said, confirmed, said_for
from hotato.claims.units import by_unit
from hotato.model.evidence import Span, Trace, Transcript
from hotato.model.match import subset
from hotato.model.reports import ClaimsSummary, Counts
from hotato.model.state import StateSource, StateUnavailable
from hotato.model.status import Status


class ClaimResult(msgspec.Struct, kw_only=True):
    turn: int
    span: tuple[int, int]
    text: str
    type: str
    polarity: str
    entities: list[Entity]
    status: Status
    reason: str
    evidence: list[str]
    graded: bool = True
    deterministic: bool = True
    details: dict[str, Any] = {}


@dataclass
class Options:
    promises: bool = False  # grade `promised` claims: the action must follow in the call
    catalog: Catalog | None = None  # the agent's tool catalog (--tools); else the trace's tools


@dataclass
class _Ledger:
    """Which spans already back a claim of each type, and the claim's turn: one span backs one
    claim of a type, and may back claims of several types (a booking that also charged)."""

    used: dict[tuple[str, str], int] = field(default_factory=dict)  # (span id, type) -> turn
    first: dict[str, int] = field(default_factory=dict)  # span id -> the first turn it backed
    bare: set[str] = field(default_factory=set)  # spans first backing a claim not naming them
    acts: dict[str, set[str]] = field(default_factory=dict)  # span id -> actions its claims said


def candidates(ctype: ClaimType, trace: Trace, tools: Sequence[str]) -> list[Span]:
    """The spans that could back a claim of this type, in time order: spans of its `spans`
    types and calls of the aligned `tools`."""
    wanted = set(tools)
    return [
        span
        for span in trace.ordered
        if span.type in ctype.spans or (span.type == "tool_call" and span.name in wanted)
    ]


# Outcomes a call reports in which the action a claim says was done did not happen as said:
# put on a waitlist, on hold, drafted, queued.
_NOT_DONE_STATES = {
    "waitlisted": "wait",
    "wait_listed": "wait",
    "on_hold": "hold",
    "draft": "draft",
    "tentative": "tentative",
    "paused": "paus",
    "suspended": "suspend",
}
# Words of a claim that name no particular action or thing ("all the requested changes").
_VAGUE = frozenset(
    stem(w)
    for w in word_set(
        "action actions change changes request requests requested thing things "
        "everything item items update updates task tasks step steps complete completed "
        "processed finished handled"
    )
)
# The words of a result field's name that say something was done (`emailed_to`,
# `termination_fee_charged`), not a thing (`booking_id`).
_DONE_WORD = re.compile(r"[a-z]+ed(?=_|$)|(?<![a-z])(?:sent|paid|made|done)(?=_|$)")
# A result field whose one-word value is the state an action left (`old_card_status`).
_STATE_KEY = re.compile(r"status|state|outcome")
_SEVERAL = re.compile(
    r"\b(?:both|all|each|every one) (?:of )?(?:them|those|these|the|your|of)\b"
    r"|\b(?:both|all) (?:have|has|are|were)\b"
)
_BOTH = re.compile(r"\bboth\b")
_STAMP_KEY = re.compile(r"_(?:at|on|date)$")
_PARTICIPLE = re.compile(r"\b(?:been|is|are|was|were)\s+(?:\w+\s+)?([a-z]{3,}(?:ed|en))\b")

CONTEXT_TURNS = 4  # turns before a claim whose words help align it with a tool


def _action(ctype: ClaimType) -> str:
    """How a reason names the action a claim speaks of: "refund_issued action", or "such
    action" for a claim of no type."""
    return "such action" if ctype.align else f"{ctype.name} action"


def _verdict(
    status: Status, reason: str, evidence: list[str], details: dict[str, Any] | None = None
) -> tuple[Status, str, list[str], dict[str, Any]]:
    return status, reason, evidence, details or {}


def _state_check(
    ctype: ClaimType, span: Span | None, said: Said, state: StateSource | None
) -> tuple[Status, str, dict[str, Any]] | None:
    """The pack's state check after a backing span, or None when the type has none."""
    check = ctype.state
    if check is None:
        return None
    if state is None:
        return (
            Status.INCONCLUSIVE,
            f"the {ctype.name} type asks the system of record "
            f"(resource {check.resource!r}) and no state was supplied (--state)",
            {},
        )
    args = span.read("arguments") if span is not None else None
    filters: dict[str, Any] = {}
    for key, ref in check.filters.items():
        value: Any = ref
        if isinstance(ref, str) and ref.startswith("$arg."):
            value = args.get(ref[5:]) if isinstance(args, dict) else None
        elif isinstance(ref, str) and ref.startswith("$entity."):
            found = said.entities.get(ref[8:], [])
            value = found[0].value if found else None
        if value is None:
            return (
                Status.INCONCLUSIVE,
                f"state filter {key!r} ({ref}) has no value for this claim",
                {},
            )
        filters[key] = value
    try:
        record = state.after.query(check.resource, filters)
    except StateUnavailable as exc:
        return Status.INCONCLUSIVE, f"system of record unavailable: {exc.cause}", {}
    where = {"resource": check.resource, "filters": filters}
    if record is None:
        return Status.FAIL, f"no {check.resource} record matches {filters}", where
    if not subset(check.expect, record):
        return Status.FAIL, f"the {check.resource} record does not show {check.expect}", where
    return Status.PASS, f"the {check.resource} record agrees", where


class ClaimGrader:
    """Grades the claims of one call. Holds the ledger of spans already claimed."""

    def __init__(
        self,
        transcript: Transcript,
        trace: Trace | None,
        state: StateSource | None,
        packs: PackSet,
        options: Options,
    ) -> None:
        self.turns = transcript.turns
        self.trace = trace
        self.state = state
        self.packs = packs
        self.options = options
        self.ledger = _Ledger()
        self.catalog = catalog_from_trace(trace, options.catalog)
        self.spoken = fold(" ".join(t.text for t in self.turns))
        self.last_claim: dict[str, int] = {}  # type -> turn of its last graded claim
        self.readbacks: dict[str, list[int]] = {}  # type -> turns of negated/promised claims
        self._cands: dict[tuple[str, tuple[str, ...]], list[Span]] = {}
        self._codes_of: dict[str, set[str]] = {}  # span id -> the codes it holds
        self._known: dict[str, set[str]] | None = None
        self._ran_names: set[str | None] | None = None
        self.next_claim: dict[tuple[int, tuple[int, int]], int] = {}  # claim -> next of its type
        self.after: dict[tuple[int, tuple[int, int]], int] = {}  # claim -> the last one's end

    def _after(self, claim: Claim) -> int:
        """Where the claim before it in its turn ended: its own values are said after that."""
        return self.after.get((claim.turn, claim.span), 0)

    def aligned(self, claim: Claim, ctype: ClaimType, side_effects: bool = True) -> tuple[str, ...]:
        """The catalog's tools this claim speaks of (see `hotato.claims.align`)."""
        context = self._context(claim)
        return align(ctype, claim.text, context, self.catalog, self.packs, side_effects)

    def _context(self, claim: Claim) -> list[str]:
        """The turns whose words help align a claim: its own and the few before it, since the
        previous claim of its type."""
        floor = max(self.last_claim.get(claim.type, -1) + 1, claim.turn - CONTEXT_TURNS)
        return [self.turns[i].text for i in range(floor, claim.turn + 1)]

    def spans_for(self, ctype: ClaimType, tools: Sequence[str]) -> list[Span]:
        assert self.trace is not None
        key = (ctype.name, tuple(tools))
        if key not in self._cands:
            self._cands[key] = candidates(ctype, self.trace, tools)
        return self._cands[key]

    def _used(self, span: Span, claim: Claim) -> int | None:
        return self.ledger.used.get((span.id, claim.type))

    def _use(self, span: Span, claim: Claim) -> None:
        self.ledger.used[(span.id, claim.type)] = claim.turn
        self.ledger.acts.setdefault(span.id, set()).update(said_actions(claim.text))
        if span.id not in self.ledger.first:
            self.ledger.first[span.id] = claim.turn
            if not speaks_of(claim.text, self._tool(span.name)):  # "that one went through"
                self.ledger.bare.add(span.id)

    def _spent(self, span: Span, claim: Claim) -> bool:
        """The span backed a claim of another type in an earlier turn, and an action was read
        back since ("Please confirm a cab for 3"): a claim now speaks of that new action, not
        of the old one's side effects. A summary may still restate it."""
        first = self.ledger.first.get(span.id)
        if first is None or first >= claim.turn:
            return False
        if record.SUMMARY.search(self.turns[claim.turn].text.lower()):
            return False
        return any(confirmed(self.turns, t, self.packs) for t in range(first + 1, claim.turn))

    def _acted_by(self, limit: float | None) -> list[Span]:
        """Tool calls that succeeded by `limit` and are not known to be reads."""
        assert self.trace is not None
        return [
            s
            for s in self.trace.by_type.get("tool_call", [])
            if record.within(s, limit) and not record.raised(s) and self._acts(s)
        ]

    def _reads_before(self, span: Span) -> list[Span]:
        """The reads that returned before this call."""
        assert self.trace is not None
        return [
            s
            for s in self.trace.by_type.get("tool_call", [])
            if s.index < span.index and not record.raised(s) and not self._acts(s)
        ]

    def _ran(self) -> set[str | None]:
        """The names of the tools the trace shows called, read once per call."""
        if self._ran_names is None:
            assert self.trace is not None
            self._ran_names = {s.name for s in self.trace.by_type.get("tool_call", [])}
        return self._ran_names

    def _codes(self, span: Span) -> set[str]:
        """The codes a call was given or returned, read once per call."""
        if span.id not in self._codes_of:
            self._codes_of[span.id] = record.codes_in(span)
        return self._codes_of[span.id]

    def _tool(self, name: str | None) -> Tool:
        """The catalog's tool of this name, or one known by its name alone."""
        return self.catalog.get(name) or Tool(name or "")

    def _acts(self, span: Span) -> bool:
        """The span's tool is not known to be a read (see `hotato.claims.align.may_act`)."""
        return may_act(self._tool(span.name), self.packs)

    def _calls_since(self, start: float | None, limit: float | None) -> list[Span]:
        """The tool calls from `start` (when the agent or the caller last spoke) to `limit`;
        a call with no time is among them."""
        assert self.trace is not None
        return [
            s
            for s in self.trace.by_type.get("tool_call", [])
            if record.within(s, limit) and (start is None or s.time is None or s.time >= start)
        ]

    def grade(self, claim: Claim) -> ClaimResult:
        ctype = self.packs.by_name[claim.type]
        if claim.polarity == "negated":
            self.readbacks.setdefault(claim.type, []).append(claim.turn)
            status, reason, ev, details = _verdict(
                Status.INCONCLUSIVE,
                "negated or hypothetical: says nothing was done; not graded",
                [],
                None,
            )
            return self._result(claim, status, reason, ev, details, graded=False)
        if claim.polarity == "promised" and not self.options.promises:
            self.readbacks.setdefault(claim.type, []).append(claim.turn)
            return self._result(
                claim,
                Status.INCONCLUSIVE,
                "a promise: graded only with --promises (the action must follow in the call)",
                [],
                {},
                graded=False,
            )
        if self.trace is None:
            return self._result(
                claim,
                Status.INCONCLUSIVE,
                "no trace was supplied (--trace); "
                "a claim is checked against the spans of what the agent did",
                [],
                {},
            )
        if claim.polarity == "failed":
            verdict = self._failed(claim, ctype)
        elif claim.polarity == "promised":
            verdict = self._promised(claim, ctype)
        else:
            verdict = self._done(claim, ctype)
        if "superseded_by" in verdict[3]:  # a promise replaced by the next one: not graded
            self.readbacks.setdefault(claim.type, []).append(claim.turn)
            return self._result(claim, *verdict, graded=False)
        self.last_claim[claim.type] = claim.turn
        return self._result(claim, *verdict)

    def _disagree(self, ctype: ClaimType, span: Span, said: Said) -> list[dict[str, Any]]:
        tool = self.catalog.get(span.name)
        arguments = span.read("arguments")
        choices = by_enum(tool.enums, arguments, said.context) if tool else []
        found = (
            choices
            + by_unit(said.text, arguments)
            + by_skeleton(said.text, arguments)
            + by_parts(said.text, arguments)
            + by_flags(said.text, arguments)
            + by_number(said.text, arguments)
            + by_phone(said.text, arguments)
            + by_option(
                said.text,
                [s.read("result") for s in self._reads_before(span)],
                [arguments, span.read("result")],
            )
            + by_item(said.text, [str(e.value) for e in said.entities.get("date", [])], arguments)
            + disagreements(
                ctype,
                with_result(ctype, arguments, span.read("result"), said.own, said.named()),
                said.entities,
                self.spoken,
                said.context,
                self.known_values(),
                said.earlier,
                said.last,
                said.roles,
                "id" in said.own,
            )
        )
        if not any(m["kind"] == "id" for m in found):
            return found
        returned = self._codes(span)  # a code the call returned (a confirmation number) agrees
        return [
            m
            for m in found
            if m["kind"] != "id"
            or not all(record.CODE.sub("", s.upper()) in returned for s in m["said"])
        ]

    def _other_record(self, claim: Claim, span: Span) -> list[dict[str, Any]]:
        """A record the claim names by its code ("the address on order #W8843120") that the
        call it rests on never touched, while another call of the trace did: the action ran on
        something else (the customer's default address, another order)."""
        assert self.trace is not None
        held = self._codes(span)
        out = []
        for e in claim.entities:
            if e.kind != "id" or not claim.span[0] <= e.span[0] < claim.span[1]:
                continue
            code = record.CODE.sub("", str(e.value).upper())
            if len(code) < 5 or not any(c.isdigit() for c in code):
                continue
            if any(code in h or h in code for h in held if len(h) >= 5):
                continue
            others = [
                s
                for s in self.trace.by_type.get("tool_call", [])
                if s is not span and code in self._codes(s)
            ]
            if any(self._found_by(s, code, held) for s in others):
                continue  # one record by two codes: looked up by HX4Q92, it is BK-2209931
            if others:
                out.append(
                    {
                        "kind": "record",
                        "argument": "(no argument)",
                        "said": [e.text],
                        "executed": f"nothing naming it ({others[0].name} did)",
                    }
                )
        return out

    @staticmethod
    def _found_by(lookup: Span, code: str, held: set[str]) -> bool:
        """A read given the claimed code that returned, under another code, a record the
        backing call acted on: one record known by two codes (a confirmation code and a booking
        id). Not when the read's result names the claimed code itself: then what else it
        returned is another record (the order's customer)."""
        given = record.codes_of(lookup.read("arguments"))
        returned = record.codes_of(lookup.read("result"))
        return code in given and code not in returned and bool(held & returned)

    def _other_outcome(self, claim: Claim, span: Span) -> list[dict[str, Any]]:
        """The call's result gives its outcome as a state that is not what the claim says was
        done: "Maya is enrolled" of a call whose `status` is "waitlisted", "that's cancelled" of
        one that left the booking "on_hold"."""
        result = span.read("result")
        if not isinstance(result, dict):
            return []
        out = []
        for key in ("status", "state", "outcome"):
            value = result.get(key)
            if not isinstance(value, str):
                continue
            state = value.strip().lower().replace("-", "_").replace(" ", "_")
            word = _NOT_DONE_STATES.get(state)
            if word is not None and word not in claim.text.lower():
                out.append(
                    {
                        "kind": "outcome",
                        "argument": f"result.{key}",
                        "said": [claim.text],
                        "executed": value,
                    }
                )
        return out

    def known_values(self) -> dict[str, set[str]]:
        """Every string value each argument or result field takes anywhere in the trace."""
        if self._known is None:
            known: dict[str, set[str]] = {}
            assert self.trace is not None
            for span in self.trace.by_type.get("tool_call", []):
                for payload in (span.read("arguments"), span.read("result")):
                    for key, value in flat_args(payload):
                        if isinstance(value, str):
                            known.setdefault(key, set()).add(value)
            self._known = known
        return self._known

    def _result(
        self,
        claim: Claim,
        status: Status,
        reason: str,
        evidence: list[str],
        details: dict[str, Any],
        graded: bool = True,
    ) -> ClaimResult:
        return ClaimResult(
            turn=claim.turn,
            span=claim.span,
            text=claim.text,
            type=claim.type,
            polarity=claim.polarity,
            entities=claim.entities,
            status=status,
            reason=reason,
            evidence=[f"t_{claim.turn}", *evidence],
            graded=graded,
            details=details,
        )

    def _limit(self, claim: Claim, ctype: ClaimType) -> float | None:
        if ctype.after_claim:
            nxt = record.next_agent_start(self.turns, claim.turn)
            return nxt if nxt is not None else float("inf")
        return record.turn_end(self.turns, claim.turn)

    def _done(
        self, claim: Claim, ctype: ClaimType
    ) -> tuple[Status, str, list[str], dict[str, Any]]:
        aligned = self.aligned(claim, ctype)
        spans = self.spans_for(ctype, aligned)
        limit = self._limit(claim, ctype)
        before = [s for s in spans if record.within(s, limit)]
        ok = [s for s in before if not record.raised(s)]
        previous = self.last_claim.get(claim.type, -1)
        said = said_for(claim, self.turns, previous, self.packs, self._after(claim))
        said_doc = {k: [e.text for e in v] for k, v in said.entities.items()}
        fresh = [s for s in ok if self._used(s, claim) is None and not self._spent(s, claim)]
        checked: list[tuple[Span, list[dict[str, Any]]]] = []
        for span in reversed(fresh):
            problems = (
                record.denied(ctype, span)
                + self._disagree(ctype, span, said)
                + self._other_record(claim, span)
                + self._other_outcome(claim, span)
            )
            problems = problems or charged_otherwise(
                ctype, span.read("arguments"), span.read("result"), self._amounts(claim)
            )

            if not problems:
                return self._backed(claim, ctype, span, said)
            checked.append((span, problems))
        if checked and all(p["kind"] == "record" for _, ps in checked for p in ps):
            repeat = self._restated(claim, ctype, ok, said)  # a summary of another call
            if repeat is not None:
                return repeat
        if checked:
            span, problems = checked[0]
            text = "; ".join(describe(ctype, p) for p in problems)
            return _verdict(
                Status.FAIL,
                f"{span.name or span.type} ran with other values: {text}",
                [s.id for s, _ in checked][:5],
                {
                    "said": said_doc,
                    "said_in": [f"t_{t}" for t in said.turns],
                    "executed": {"span": span.id, "mismatches": problems},
                },
            )
        repeat = self._restated(claim, ctype, ok, said) or self._same_turn(claim, ctype, said)
        if repeat is not None:
            return repeat
        kind = ctype.description.rstrip(".").lower()
        if not spans:
            done = self._turn_action(claim, ctype, limit, said, aligned) or self._side_effect(
                claim, ctype, limit, said
            )
            if done is not None:
                return done
            return self._unbacked(claim, ctype, aligned, limit, said_doc)
        failed = [s for s in before if record.raised(s)]
        if failed and not ok:
            return _verdict(
                Status.FAIL,
                f"claimed, but {failed[-1].name or failed[-1].type} ran and failed",
                [s.id for s in failed][-5:],
                {"said": said_doc},
            )
        later = [s for s in spans if not record.within(s, limit)]
        if later and not ok:
            return _verdict(
                Status.FAIL,
                f"claimed before it happened: {later[0].name} ran only after turn {claim.turn}",
                [later[0].id],
                {"said": said_doc},
            )
        used = sorted({t for s in ok if (t := self._used(s, claim)) is not None})
        tail = (
            f"; the earlier {ctype.name} at {', '.join(f't_{t}' for t in used)} "
            "was read back anew since"
            if used
            else ""
        )
        return _verdict(
            Status.FAIL,
            f"claimed ({kind}), but no new {_action(ctype)} succeeded{tail}",
            [s.id for s in ok][-5:],
            {"said": said_doc},
        )

    def _turn_action(
        self,
        claim: Claim,
        ctype: ClaimType,
        limit: float | None,
        said: Said,
        aligned: tuple[str, ...] = (),
    ) -> tuple[Status, str, list[str], dict[str, Any]] | None:
        """An action of the claim's own turn (since the caller last spoke) that the claim speaks
        of, though no tool of its type ran: a table reserved by `slot_commit`, a difference
        refunded by `modify_pending_order_items`. None when no such call succeeded."""
        start = record.previous_caller_end(self.turns, claim.turn)
        free = [
            s
            for s in self._calls_since(start, limit)
            if not record.raised(s)
            and self._acts(s)
            and s.id not in self.ledger.first  # no other claim explains it
            and self.catalog.mutating(s.name) is not False
        ]
        calls = [s for s in free if speaks_of(claim.text, self._tool(s.name))]
        plain = " ".join(
            w for w in claim.text.lower().split() if stem(w.strip(".,!:")) not in _VAGUE
        )
        vague = (
            not calls
            and free
            and not terms_beyond_actions(plain)
            and not any(speaks_of_other(plain, self._tool(s.name)) for s in free)
        )
        if vague:  # "All of the requested changes have been completed.": every one of them
            for span in free:
                wrong = (
                    record.denied(ctype, span)
                    + self._disagree(ctype, span, said)
                    + self._other_outcome(claim, span)
                )
                if wrong:
                    text = "; ".join(describe(ctype, p) for p in wrong)
                    return _verdict(
                        Status.FAIL,
                        f"{span.name} ran with other values: {text}",
                        [span.id],
                        {"executed": {"span": span.id, "mismatches": wrong}},
                    )
            return self._backed(claim, ctype, free[-1], said)
        if (
            not calls
            and len(free) == 1
            and not aligned  # the catalog's own tool for it never ran: that one is missing
            and not speaks_of_other(claim.text, self._tool(free[0].name))
        ):
            calls = free  # the one thing the agent did this turn, reported in other words
        problems: list[dict[str, Any]] = []
        for span in reversed(calls):
            problems = (
                record.denied(ctype, span)
                + self._disagree(ctype, span, said)
                + self._other_outcome(claim, span)
            )
            if not problems:
                return self._backed(claim, ctype, span, said)
        if not calls:
            return None
        text = "; ".join(describe(ctype, p) for p in problems)
        return _verdict(
            Status.FAIL,
            f"{calls[0].name} ran with other values: {text}",
            [s.id for s in calls][:5],
            {"executed": {"span": calls[0].id, "mismatches": problems}},
        )

    @staticmethod
    def _amounts(claim: Claim) -> list[Any]:
        """The amounts the claim's own sentence states, but what it says is left or owed."""
        return [
            read_value("amount", e.value)
            for e in claim.entities
            if e.kind == "amount"
            and claim.span[0] <= e.span[0] < claim.span[1]
            and not role_words(claim.text, e.span[0] - claim.span[0]) & LEFT
        ]

    def _holds_amounts(self, claim: Claim, span: Span) -> bool:
        """Every amount the claim's own sentence states is one the call was given or returned."""
        args, result = span.read("arguments"), span.read("result")
        return all(holds_amount(args, a) or holds_amount(result, a) for a in self._amounts(claim))

    def _side_effect(
        self, claim: Claim, ctype: ClaimType, limit: float | None, said: Said
    ) -> tuple[Status, str, list[str], dict[str, Any]] | None:
        """An action that ran by the claim and whose record shows what the claim says as its
        side effect, though no tool of the claim's kind ran: a fee "charged" that the
        cancellation's result holds (`termination_fee_charged: 99.0`), a quote "emailed" that
        the quote tool's result says it was (`emailed_to`), a credit "added" of the amount a
        ledger call posted. Only a stated amount, or the claim's own action word in a result
        field's name, counts."""
        amounts = self._amounts(claim)
        verbs = said_actions(claim.text)
        start = record.previous_caller_end(self.turns, claim.turn)
        for span in reversed(self._acted_by(limit)):
            recent = start is None or span.time is None or span.time >= start
            if not recent and span.id not in self.ledger.first:
                continue
            result = span.read("result")
            problems = self._disagree(ctype, span, said) + self._other_record(claim, span)
            if problems:
                continue
            if amounts:
                args = span.read("arguments")
                keys = [holds_amount(args, a) or holds_amount(result, a) for a in amounts]
                # the amount alone backs it when the tool does this kind of action, or the
                # field holding it says the claimed one (`termination_fee_charged`)
                kind_ok = not speaks_of_other(claim.text, self._tool(span.name)) or all(
                    k and verbs & said_actions(k.replace("_", " ")) for k in keys
                )
                if all(keys) and kind_ok:
                    return _verdict(
                        Status.PASS,
                        f"{span.name} ran and succeeded; it holds the amount said",
                        [span.id],
                        {"side_effect": span.name},
                    )
                continue
            fields = [(k, v) for k, v in flat_args(result) if v not in (None, False, "", 0)]
            named = [  # `emailed_to: ...`, `old_card_status: "deactivated"`
                k
                for k, v in fields
                if verbs & said_actions(" ".join(_DONE_WORD.findall(k.lower())))
                or (
                    isinstance(v, str)
                    and _STATE_KEY.search(k.lower())
                    and " " not in v.strip()
                    and verbs & said_actions(v.replace("_", " "))
                )
            ]
            if named:
                return _verdict(
                    Status.PASS,
                    f"{span.name} ran and succeeded; its result's {named[0]} says it was done",
                    [span.id],
                    {"side_effect": span.name},
                )
        return None

    def _unbacked(
        self,
        claim: Claim,
        ctype: ClaimType,
        aligned: tuple[str, ...],
        limit: float | None,
        said_doc: dict[str, Any],
    ) -> tuple[Status, str, list[str], dict[str, Any]]:
        """A done claim no span of its aligned tools backs: FAIL when the catalog holds a tool
        that does it (and it never ran) or nothing that changes anything succeeded by then;
        INCONCLUSIVE when the claim cannot be aligned with any tool of the catalog."""
        assert self.trace is not None
        seen = sorted({s.name for s in self.trace.by_type.get("tool_call", []) if s.name})
        tail = f" (tools seen: {', '.join(seen[:10])})" if seen else " (no tool calls)"
        details: dict[str, Any] = {"said": said_doc}
        report = self._read_out(claim)
        if report is not None:
            return _verdict(
                Status.INCONCLUSIVE,
                f"reads as what {report.name} returned (a state, said with no 'I' or 'done'), "
                f"not as something the agent did; no {_action(ctype)} ran{tail}",
                [report.id],
                {**details, "read_out": report.name},
            )
        if aligned:
            return _verdict(
                Status.FAIL,
                f"claimed, but no {_action(ctype)} ran "
                f"(the catalog's {', '.join(aligned[:5])} never ran){tail}",
                [],
                {**details, "aligned": list(aligned)},
            )
        acted = self._acted_by(limit)
        if not acted:
            return _verdict(
                Status.FAIL,
                f"claimed, but no {_action(ctype)} ran: no tool that changes anything had "
                f"succeeded by t_{claim.turn}{tail}",
                [],
                details,
            )
        context = self._context(claim)
        loose = not ctype.align  # a type that names its action: the turns before may name it
        read = by_words(claim.text, context, self.catalog, self.packs, reads=True, loose=loose)
        if read:
            return _verdict(
                Status.FAIL,
                f"claimed, but only reads of it ran ({', '.join(read[:3])}); no action of "
                f"the catalog answers to {ctype.name} or shares its words{tail}",
                [s.id for s in self.trace.by_type.get("tool_call", []) if s.name in read][:5],
                {**details, "read_only": read},
            )
        names = sorted({s.name or s.type for s in acted})
        where = "the catalog" if self.catalog.source == "trace" else self.catalog.source
        return _verdict(
            Status.INCONCLUSIVE,
            f"cannot tell which tool this claim speaks of: no tool in {where} answers to "
            f"{ctype.name} or shares its words (actions that ran: {', '.join(names[:5])})",
            [s.id for s in acted][-5:],
            {**details, "unaligned": True},
        )

    def _read_out(self, claim: Claim) -> Span | None:
        """The read this claim reports, when it states a state ("your ride is on its way", "you
        have 1 alarm set") with no sign the agent acted (see `_AGENCY`), and the last tool call
        before it, since the previous agent turn, is a read whose words it shares."""
        text = claim.text.lower()
        asked = next(
            (t for t in range(claim.turn - 1, -1, -1) if self.turns[t].role == "agent"), None
        )
        if (
            asked is not None
            and record.PERFECT.search(text)
            and confirmed(self.turns, asked, self.packs)
        ):
            return None  # "has been shipped" right after the caller said yes: what was done
        changed = record.FIRST_PERSON.search(text) or record.PERFECT.search(
            record.SYSTEM_STATE.sub(" ", text)
        )
        read = self._record_read(claim)
        if read is not None and (not changed or self._shows_state(read, text)):
            return read  # "Your reservation HX-60127 was booked on May 3": what was read
        if not changed:  # "the refund is approved", as the last read's status says
            start = record.previous_agent_end(self.turns, claim.turn)
            limit = record.turn_end(self.turns, claim.turn)
            calls = self._calls_since(start, limit)
            if calls and not any(self._acts(s) for s in calls):
                shown = [s for s in calls if self._shows_state(s, text)]
                if shown:
                    return shown[-1]
        if record.AGENCY.search(record.SYSTEM_STATE.sub(" ", text)):
            return None
        start = record.previous_agent_end(self.turns, claim.turn)
        calls = self._calls_since(start, record.turn_end(self.turns, claim.turn))
        if not calls or self._acts(calls[-1]):
            return None
        context = [self.turns[claim.turn].text]
        reads = by_words(claim.text, context, self.catalog, self.packs, reads=True)
        return calls[-1] if calls[-1].name in reads else None

    @staticmethod
    def _shows_state(span: Span, text: str) -> bool:
        """The record a read returned already shows the state the claim says was reached: a
        status of the claim's word ("has been issued" and `status: issued`), or a stamp named
        for it (`issued_at`) that is set. Not "I've ...": the agent says it did that."""
        if record.FIRST_PERSON.search(text):
            return False
        said = {stem(w) for w in _PARTICIPLE.findall(text.replace("*", "").replace("_", " "))}
        if not said:
            return False
        for key, value in flat_args(span.read("result")):
            leaf = key.rsplit(".", 1)[-1].lower()
            if value in (None, "", False):
                continue
            if _STATE_KEY.search(leaf) and isinstance(value, str):
                if said & {stem(w) for w in words(value)}:
                    return True
            elif _STAMP_KEY.search(leaf) and said & {stem(w) for w in words(leaf)}:
                return True
        return False

    def _record_read(self, claim: Claim) -> Span | None:
        """A read before the claim that returned (or was asked for) the record the claim names
        by its code, when no action touched that code: the claim describes the record."""
        codes = {
            str(e.value)
            for e in claim.entities
            if e.kind == "id" and e.span[0] < claim.span[1] and len(str(e.value)) >= 4
        }
        if not codes:
            return None
        assert self.trace is not None
        limit = record.turn_end(self.turns, claim.turn)
        found: Span | None = None
        for span in self.trace.by_type.get("tool_call", []):
            if not record.within(span, limit):
                continue
            held = self._codes(span)
            if not any(code in h for code in codes for h in held):  # "4418" in "VISA4418"
                continue
            if self._acts(span):
                return None  # an action touched it: the claim may speak of that
            found = span
        return found

    def _restated(
        self, claim: Claim, ctype: ClaimType, ok: list[Span], said: Said
    ) -> tuple[Status, str, list[str], dict[str, Any]] | None:
        """A claim repeating one already backed, with no new read-back of the action since: by
        a span of its aligned tools, or by whatever backed an earlier claim of its type (a
        summary that restates, in other words, what a tool of another name did)."""
        assert self.trace is not None
        limit = record.turn_end(self.turns, claim.turn)
        acts = said_actions(claim.text)
        backed = {  # what backed an earlier claim of its type, or of the action it says
            sid
            for sid, kind in self.ledger.used
            if kind == claim.type or (acts and acts & self.ledger.acts.get(sid, set()))
        }
        earlier = [
            s
            for s in self.trace.by_type.get("tool_call", [])
            if s.id in backed and s not in ok and record.within(s, limit)
        ]
        if not record.SUMMARY.search(self.turns[claim.turn].text.lower()):
            earlier = []
        for span in [*reversed(ok), *earlier]:
            first = self._used(span, claim)
            if first is None and span in earlier:
                first = self.ledger.first.get(span.id)
            if first is None or (span in earlier and first >= claim.turn):
                continue
            # two actions of no type named in one turn are two actions, unless the first said
            # no action ("Done.") and this one says the tool's own action alone
            shared = span.id in self.ledger.bare and only_of(claim.text, self._tool(span.name))
            if ctype.align and first == claim.turn and not shared:
                continue
            named = by_words(claim.text, [], self.catalog, self.packs)
            if span in earlier:  # a summary: only a tool that ran can be another one it names
                named = [n for n in named if n in self._ran()]
            if named and span.name not in named:
                continue  # its own words name another tool ("and 1 bag has been added")
            anew = [t for t in self.readbacks.get(claim.type, []) if first < t < claim.turn]
            if anew and not record.SUMMARY.search(self.turns[claim.turn].text.lower()):
                return None  # read back anew since: it needs an action of its own
            if self._disagree(ctype, span, said):
                return None
            return _verdict(
                Status.PASS,
                f"repeats the claim at t_{first}, backed by {span.name or span.type}",
                [span.id],
                {},
            )
        return None

    def _same_turn(
        self, claim: Claim, ctype: ClaimType, said: Said
    ) -> tuple[Status, str, list[str], dict[str, Any]] | None:
        """A claim saying again, in other words, what an action backing an earlier claim of its
        own turn did ("Your order has been upgraded! Your items have been upgraded to: ..."),
        when no fresh action answers to it and it says no other kind of action."""
        assert self.trace is not None
        mine = {sid for (sid, _), turn in self.ledger.used.items() if turn == claim.turn}
        named = [n for n in by_words(claim.text, [], self.catalog, self.packs) if n in self._ran()]
        for span in reversed(self.trace.by_type.get("tool_call", [])):
            if span.id not in mine or (named and span.name not in named):
                continue
            tool = self._tool(span.name)
            said_acts = said_actions(claim.text)
            tool_acts = said_actions(" ".join(words(tool.name)))
            if said_acts and tool_acts and not said_acts & tool_acts:
                continue  # "1 bag has been added" of `update_reservation_flights`
            before = self.ledger.acts.get(span.id, set())
            if said_acts and before and not said_acts & before:
                continue  # "I've approved the brake job and added the oil change": two
            if not speaks_of(claim.text, tool) and terms_beyond_actions(claim.text):
                continue  # "Guest pass issued" says its own object, not the class booking
            if self._disagree(ctype, span, said) or self._other_record(claim, span):
                continue
            if not self._holds_amounts(claim, span):
                continue
            return _verdict(
                Status.PASS,
                f"says again what {span.name} did for an earlier claim of t_{claim.turn}",
                [span.id],
                {},
            )
        return None

    def _backed(
        self, claim: Claim, ctype: ClaimType, span: Span, said: Said
    ) -> tuple[Status, str, list[str], dict[str, Any]]:
        missed = self._one_of_several(claim, span)
        if missed is not None:
            return _verdict(
                Status.FAIL,
                f"said of all of them, but one {missed.name} failed and was not done again",
                [span.id, missed.id],
                {},
            )
        if self._one_for_both(claim, span):
            return _verdict(
                Status.FAIL,
                f"said of both, but {span.name} ran once and nothing else was done since the "
                "caller last spoke",
                [span.id],
                {},
            )
        self._use(span, claim)
        what = span.name or span.type
        checked = ", ".join(compared(ctype, span.read("arguments"), said.entities))
        reason = f"{what} ran and succeeded" + (f"; agrees on {checked}" if checked else "")
        state = _state_check(ctype, span, said, self.state)
        if state is None:
            return _verdict(Status.PASS, reason, [span.id], {})
        status, text, where = state
        return _verdict(status, f"{reason}; {text}", [span.id], {"state": where} if where else {})

    def _failed(
        self, claim: Claim, ctype: ClaimType
    ) -> tuple[Status, str, list[str], dict[str, Any]]:
        aligned = self.aligned(claim, ctype, side_effects=False)
        if ctype.align:  # a failure of no type: only a tool its own words name contradicts it
            aligned = tuple(t for t in aligned if speaks_of(claim.text, self._tool(t)))
        spans = self.spans_for(ctype, aligned)
        limit = record.turn_end(self.turns, claim.turn)
        fresh = [s for s in spans if record.within(s, limit) and self._used(s, claim) is None]
        if not fresh and not aligned:
            return self._failed_unaligned(claim, ctype, limit)
        if not fresh:
            return _verdict(Status.PASS, f"no {_action(ctype)} succeeded", [], {})
        last = fresh[-1]
        if not record.raised(last):  # an attempt that failed, of what the claim says, backs it
            said = said_for(
                claim,
                self.turns,
                self.last_claim.get(claim.type, -1),
                self.packs,
                self._after(claim),
            )
            last = next(
                (
                    s
                    for s in reversed(fresh)
                    if record.raised(s) and (ctype.align or not self._disagree(ctype, s, said))
                ),
                last,
            )
        self._use(last, claim)
        done = self._done_before(last, fresh)
        if record.raised(last) and done is not None:  # "duplicate blocked": it had gone through
            return _verdict(
                Status.FAIL,
                f"said it failed, but {done.name} had already succeeded with the same arguments "
                f"before {last.name} failed",
                [done.id, last.id],
                {},
            )
        if record.raised(last):
            return _verdict(Status.PASS, f"{last.name or last.type} ran and failed", [last.id], {})
        if record.undone_parts(last):
            return _verdict(
                Status.PASS,
                f"{last.name} ran, and its result lists {record.undone_parts(last)} part(s) "
                "not done",
                [last.id],
                {},
            )
        return _verdict(
            Status.FAIL, f"said it failed, but {last.name or last.type} succeeded", [last.id], {}
        )

    def _one_of_several(self, claim: Claim, span: Span) -> Span | None:
        """A claim said of several ("both of those have been transferred") whose tool ran more
        than once since the caller last spoke, one of those calls failing with arguments no
        call of it then carried out: the failed one."""
        if not _SEVERAL.search(claim.text.lower()):
            return None
        start = record.previous_caller_end(self.turns, claim.turn)
        calls = [s for s in self._calls_since(start, span.time) if s.name == span.name]
        done = [s.read("arguments") for s in calls if not record.raised(s)]
        return next(
            (s for s in calls if record.raised(s) and s.read("arguments") not in done), None
        )

    def _one_for_both(self, claim: Claim, span: Span) -> bool:
        """A claim of two things done ("I've booked both", "Both pickups are booked") resting
        on one call, the only action that succeeded since the caller last spoke."""
        if not _BOTH.search(claim.text.lower()):
            return False
        start = record.previous_caller_end(self.turns, claim.turn)
        limit = record.turn_end(self.turns, claim.turn)
        done = [
            s
            for s in self._calls_since(start, limit)
            if not record.raised(s) and self._acts(s) and self.catalog.mutating(s.name) is not False
        ]
        return len(done) == 1 and done[0].id == span.id and not _holds_list(span.read("arguments"))

    @staticmethod
    def _done_before(failed: Span, spans: Sequence[Span]) -> Span | None:
        """A call of the same tool with the same arguments that succeeded before `failed`."""
        args = failed.read("arguments")
        for span in spans:
            if span.id == failed.id:
                return None
            if (
                span.name == failed.name
                and not record.raised(span)
                and span.read("arguments") == args
            ):
                return span
        return None

    def _failed_unaligned(
        self, claim: Claim, ctype: ClaimType, limit: float | None
    ) -> tuple[Status, str, list[str], dict[str, Any]]:
        """A claimed failure no tool aligns with: read against the calls of its own turn. An
        attempt there that failed backs it; when the only actions of the turn succeeded, the
        claim contradicts them."""
        calls = self._calls_since(record.previous_caller_end(self.turns, claim.turn), limit)
        failed = [s for s in calls if record.raised(s)]
        if failed:
            return _verdict(Status.PASS, f"{failed[-1].name} ran and failed", [failed[-1].id], {})
        acted = [  # tools known to act, not backing another claim: a failure contradicts those
            s
            for s in calls
            if not record.raised(s)
            and self.catalog.mutating(s.name) is True
            and s.id not in self.ledger.first
            and speaks_of(claim.text, self._tool(s.name))
        ]
        if acted:
            names = ", ".join(sorted({s.name or s.type for s in acted}))
            return _verdict(
                Status.FAIL,
                f"said it failed, but the only actions of its turn succeeded ({names})",
                [s.id for s in acted][-5:],
                {},
            )
        return _verdict(Status.PASS, f"no {_action(ctype)} succeeded", [], {})

    def _promised(
        self, claim: Claim, ctype: ClaimType
    ) -> tuple[Status, str, list[str], dict[str, Any]]:
        start = self.turns[claim.turn].start
        tools = self.aligned(claim, ctype)
        spans = [s for s in self.spans_for(ctype, tools) if self._used(s, claim) is None]
        after = [s for s in spans if start is None or s.time is None or s.time >= start]
        said = said_for(
            claim,
            self.turns,
            self.last_claim.get(claim.type, -1),
            self.packs,
            self._after(claim),
        )
        for span in after:
            if not record.raised(span) and not self._disagree(ctype, span, said):
                return self._backed(claim, ctype, span, said)
        nxt = self.next_claim.get((claim.turn, claim.span))
        if nxt is not None:  # "I'm booking 2 at 7" then "no, make it 3": the next one counts
            return _verdict(
                Status.INCONCLUSIVE,
                f"superseded by the {ctype.name} claim at t_{nxt} before any such action",
                [],
                {"superseded_by": f"t_{nxt}"},
            )
        return _verdict(
            Status.FAIL,
            f"promised, but no {_action(ctype)} followed",
            [s.id for s in after][:5],
            {},
        )


def check_claims(
    transcript: Transcript,
    trace: Trace | None,
    packs: PackSet,
    state: StateSource | None = None,
    options: Options | None = None,
    claims: Sequence[Claim] | None = None,
) -> list[ClaimResult]:
    """Every claim of the call, graded in transcript order."""
    found = list(claims) if claims is not None else extract(transcript.turns, packs)
    grader = ClaimGrader(transcript, trace, state, packs, options or Options())
    for before, claim in itertools.pairwise(found):
        # two readings of one clause share its span: the one before it in the turn ended earlier
        if before.turn == claim.turn and before.span[0] < claim.span[0]:
            grader.after[(claim.turn, claim.span)] = before.span[1]
    for i, claim in enumerate(found):  # the next claim of each claim's type, for promises
        later = next((c for c in found[i + 1 :] if c.type == claim.type), None)
        if later is not None:
            grader.next_claim[(claim.turn, claim.span)] = later.turn
    return _one_reading([grader.grade(c) for c in found])


def _holds_list(value: Any, depth: int = 0) -> bool:
    """The arguments hold a list of two or more things: one call may act on both."""
    if depth > 4:
        return False
    if isinstance(value, list):
        return len(value) >= 2 or any(_holds_list(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(_holds_list(v, depth + 1) for v in value.values())
    return False


def _one_reading(results: list[ClaimResult]) -> list[ClaimResult]:
    """One clause read as claims of two types ("the refund has been added back to your gift
    card": a refund, an account change) says one thing: when the record backs one reading, the
    other does not FAIL; it is left INCONCLUSIVE with the reason."""
    backed = {(r.turn, r.span): r.type for r in results if r.graded and r.status is Status.PASS}
    out = []
    for r in results:
        other = backed.get((r.turn, r.span))
        if r.graded and r.status is Status.FAIL and other is not None and other != r.type:
            r = msgspec.structs.replace(
                r,
                status=Status.INCONCLUSIVE,
                reason=f"the same words read as {other} are backed by the record; "
                f"as {r.type}: {r.reason}",
            )
        out.append(r)
    return out


def summary(results: Sequence[ClaimResult]) -> ClaimsSummary:
    graded = [r for r in results if r.graded]
    by_type: dict[str, list[ClaimResult]] = {}
    for r in graded:
        by_type.setdefault(r.type, []).append(r)
    return ClaimsSummary(
        claims=len(results),
        graded=_counts(graded),
        not_graded=len(results) - len(graded),
        by_type={t: _counts(rs) for t, rs in sorted(by_type.items())},
    )


def _counts(results: Sequence[ClaimResult]) -> Counts:
    c = Counter(r.status for r in results)
    return Counts(passed=c[Status.PASS], failed=c[Status.FAIL], inconclusive=c[Status.INCONCLUSIVE])
