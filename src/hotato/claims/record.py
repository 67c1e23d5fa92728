"""What the record says of a call, as claims read it: when turns end and who spoke last, the
codes a call was given or returned, whether a call failed (beyond the shapes every kind reads)
or denies what a claim says, and the phrasings that tell an agent's report of what it did from
a read-out of what a system shows."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from hotato.claims.agree import flat_args
from hotato.claims.catalog import word_set
from hotato.claims.pack import ClaimType
from hotato.model.evidence import Span, Turn


def turn_end(turns: Sequence[Turn], i: int) -> float | None:
    t = turns[i]
    return t.end if t.end is not None else t.start


def next_agent_start(turns: Sequence[Turn], i: int) -> float | None:
    for t in turns[i + 1 :]:
        if t.role == "agent":
            return t.start
    return None


def _previous_end(turns: Sequence[Turn], i: int, caller: bool) -> float | None:
    """When the last turn before turn `i` of the agent (or, with `caller`, of anyone else)
    ended; None when there is none."""
    for t in reversed(turns[:i]):
        if (t.role != "agent") == caller:
            return t.end if t.end is not None else t.start
    return None


def previous_agent_end(turns: Sequence[Turn], i: int) -> float | None:
    return _previous_end(turns, i, caller=False)


def previous_caller_end(turns: Sequence[Turn], i: int) -> float | None:
    return _previous_end(turns, i, caller=True)


# Signs the agent says it acted, not what a system shows: "I've", "we", "done", "all set",
# "has been cancelled".
AGENCY = re.compile(
    r"\b(?:i|we)(?:'ve|'d|'ll| have| had)?\b|\b(?:done|all set|successfully|went through|"
    r"complete|completed)\b|\b(?:has|have|had) been\b|\b(?:was|were) [a-z]+ed\b"
)


# A turn that sums up the call ("To summarize: ...") restates what was done before.
SUMMARY = re.compile(
    r"\b(?:summar(?:y|ize|ise)|recap|here'?s (?:everything|what (?:i|we)(?:'ve)? (?:did|done))|"
    r"everything (?:we|i)(?:'ve)? (?:did|done)|to confirm everything|all (?:that )?we did)\b"
)


# The agent speaking of what it did: "I", "we", "done".
FIRST_PERSON = re.compile(r"\b(?:i|we)(?:'ve|'d|'ll| have| had)?\b|\b(?:done|all set)\b")


CODE = re.compile(r"[^A-Z0-9]")


# "has been cancelled": a change said to have just happened, never a record read out
PERFECT = re.compile(r"\b(?:has|have|had|'s|'ve) (?:now |just |already )?been\b")


def codes_in(span: Span) -> set[str]:
    """The codes a call was given or returned, written as claims' ids are: upper case,
    letters and digits only."""
    return codes_of(span.read("arguments")) | codes_of(span.read("result"))


def codes_of(payload: Any) -> set[str]:
    """The codes a payload holds (see `codes_in`)."""
    out = set()
    for _, value in flat_args(payload):
        if isinstance(value, str | int) and not isinstance(value, bool):
            code = CODE.sub("", str(value).upper())
            if len(code) >= 4 and any(c.isdigit() for c in code):
                out.add(code)
    return out


# What a system or somebody else does to an order, a payment or a request, not the agent:
# "the order has been processed" after a read of it reports the read.
SYSTEM_STATE = re.compile(
    r"\b(?:has|have|had) been (?:processed|shipped|delivered|received|approved|declined|posted|"
    r"cleared|settled|flagged|delayed|picked up|dispatched)\b"
)


def within(span: Span, limit: float | None) -> bool:
    t = span.time
    return t is None or limit is None or t <= limit


# Beyond the failure shapes every kind reads (`hotato.model.failure`, through `Span.raised`):
# a result whose status names an outcome in which the claimed action did not happen, and a
# tool that answers in text saying it failed.
_FAILED_STATUS = word_set(
    "declined rejected denied timeout timed_out unavailable refused not_found invalid blocked"
)


_FAILED_TEXT = ("error", "failed", "failure", "exception", "unable to", "cannot", "could not")


def raised(span: Span) -> bool:
    """The tool failed: the span or its result says so in a shape of the table
    (`Span.raised`), its result's `status`, `state` or `outcome` names an outcome in which
    nothing was done ("declined", "timeout"), or it is text that starts by saying it failed
    ("Error: payment method not found")."""
    if span.raised():
        return True
    result = span.read("result")
    if isinstance(result, str):
        return result.lstrip().lower().startswith(_FAILED_TEXT)
    return isinstance(result, dict) and any(
        isinstance(result.get(k), str) and result[k].lower() in _FAILED_STATUS
        for k in ("status", "state", "outcome")
    )


# A result's list of the parts that were not done (`failed: [{email: ..}]`).
_UNDONE = re.compile(r"^(?:failed|failures|errors|rejected|not_sent|unsent|skipped|declined)$")


def denied(ctype: ClaimType, span: Span) -> list[dict[str, Any]]:
    """A result field named for what the claim says that the tool reports as not done
    (`refund_issued: false` beside a cancellation that a refund claim rests on), and a
    result that lists parts of the action that failed (`failed: [...]`): the claim says all
    of it was done."""
    result = span.read("result")
    if not isinstance(result, dict):
        return []
    out = [
        {"argument": f"result.{key}", "kind": "partial", "said": [], "executed": len(value)}
        for key, value in result.items()
        if _UNDONE.match(key.lower()) and isinstance(value, list) and value
    ]
    if ctype.tools is None:
        return out
    return out + [
        {"argument": f"result.{key}", "kind": "result", "said": [], "executed": value}
        for key, value in flat_args(result)
        if value is False and ctype.tools.search(key.lower().encode())
    ]


_DONE_FLAG = re.compile(r"^(?:[a-z]+ed|success|successful|ok|done|applied|sent|paid)$")
_FAILED_STATE = re.compile(r"^(?:fail(?:ed|ure)?|rejected|denied|declined|error|blocked|refused)$")


def undone_parts(span: Span) -> int:
    """How many items of a list in the call's result say they were not done (`renewed:
    false`, `status: failed`) though the call itself succeeded: one loan of two not renewed."""
    result = span.read("result")
    found = 0
    for key, value in flat_args(result):
        if "[]" not in key:
            continue
        leaf = key.rsplit(".", 1)[-1].lower()
        if value is False and _DONE_FLAG.match(leaf):
            found += 1
        elif isinstance(value, str) and leaf in ("status", "state", "outcome"):
            found += bool(_FAILED_STATE.match(value.lower()))
    return found
