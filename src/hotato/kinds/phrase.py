"""phrase: was something said (or never said), by whom, where in the call?"""

from __future__ import annotations

from typing import Literal

from hotato.kinds._base import Evidence, Role, Spec, kind
from hotato.kinds._regex import compile_pattern, encoded, matching_turns, pattern_problems
from hotato.model.evidence import Transcript, Turn
from hotato.model.results import Verdict
from hotato.model.status import Source


class Phrase(Spec, tag="phrase", frozen=True):
    """Reads the transcript's turns (of `role`), by pattern. Patterns run on RE2, without case
    unless `case_sensitive: true`.

    Passes when a turn matches `regex` (only the role's first or last turn with `position`);
    with `absent: true`, passes when no turn matches.
    Fails when the transcript was read and no turn matches (or, with `absent`, one does).
    Inconclusive when no transcript was supplied.

    Example:
        - id: recording-disclosed
          kind: phrase
          regex: "this call (is|may be) recorded"
          role: agent
          position: first
    """

    regex: str
    role: Role | None = None
    position: Literal["first", "last", "any"] = "any"
    absent: bool = False
    case_sensitive: bool = False


def _validate(spec: Phrase) -> list[str]:
    return pattern_problems(spec.regex, case_sensitive=spec.case_sensitive)


def candidate_turns(transcript: Transcript, role: str | None, position: str) -> list[Turn]:
    turns = transcript.of_role(role)
    if position == "first":
        return turns[:1]
    if position == "last":
        return turns[-1:]
    return turns


@kind(Phrase, reads={Source.TRANSCRIPT}, validate=_validate)
def check(spec: Phrase, ev: Evidence) -> Verdict:
    assert ev.transcript is not None
    turns = candidate_turns(ev.transcript, spec.role, spec.position)
    if spec.position == "any":
        found = matching_turns(ev.transcript, spec.role, spec.regex, spec.case_sensitive)
    else:
        pattern = compile_pattern(spec.regex, spec.case_sensitive)
        found = (t for t in turns if pattern.search(encoded(t.text)))
    hit = next(found, None)
    who = f"{spec.role} " if spec.role else ""
    where = f"{spec.position} {who}turn" if spec.position != "any" else f"any {who}turn"
    if spec.absent:
        if hit is not None:
            return Verdict.failed(
                f"{spec.regex!r} was said in turn {hit.index} ({hit.role})", evidence=[hit.id]
            )
        return Verdict.passed(f"{spec.regex!r} was never said in {where}")
    if hit is not None:
        return Verdict.passed(
            f"{spec.regex!r} matched turn {hit.index} ({hit.role})", evidence=[hit.id]
        )
    return Verdict.failed(
        f"{spec.regex!r} matched {_none_of(spec.position, who)} ({len(turns)} read)",
        observed=len(turns),
    )


def _none_of(position: str, who: str) -> str:
    """`no agent turn`, or `not the first agent turn` (never "no any agent turn")."""
    return f"no {who}turn" if position == "any" else f"not the {position} {who}turn"
