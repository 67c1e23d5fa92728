"""order: was one thing said before another?"""

from __future__ import annotations

from hotato.kinds._base import Evidence, Role, Spec, kind
from hotato.kinds._regex import compile_pattern, encoded, matching_turns, pattern_problems
from hotato.model.evidence import Transcript
from hotato.model.results import Verdict
from hotato.model.status import Source


class Order(Spec, tag="order", frozen=True):
    """Reads the transcript's turns (of `role`) and finds the first match of each pattern.

    Passes when the first match of `before` is in an earlier turn than the first match of
    `after`, and vacuously when either is never said.
    Fails when `after` is first said before `before` is, or in the same turn: nobody can answer
    in the middle of one turn, so "I'll need to verify you. Your balance is 12 dollars, and
    what is your date of birth?" has not verified anyone first. With `within_turn: true`, two
    phrases of one turn are held to their order in it (a disclosure read before the question).
    Inconclusive when no transcript was supplied.

    Example:
        - id: verify-then-balance
          kind: order
          before: "date of birth"
          after: "your balance"
          role: agent
    """

    before: str
    after: str
    role: Role | None = None
    case_sensitive: bool = False
    within_turn: bool = False


def _validate(spec: Order) -> list[str]:
    return pattern_problems(spec.before, spec.after, case_sensitive=spec.case_sensitive)


def _first(
    transcript: Transcript, role: str | None, pattern: str, case_sensitive: bool
) -> tuple[int, int] | None:
    """The first turn saying `pattern`, and where in that turn."""
    turn = next(matching_turns(transcript, role, pattern, case_sensitive), None)
    if turn is None:
        return None
    match = compile_pattern(pattern, case_sensitive).search(encoded(turn.text))
    return (turn.index, match.start())


@kind(Order, reads={Source.TRANSCRIPT}, validate=_validate)
def check(spec: Order, ev: Evidence) -> Verdict:
    assert ev.transcript is not None
    first_before = _first(ev.transcript, spec.role, spec.before, spec.case_sensitive)
    first_after = _first(ev.transcript, spec.role, spec.after, spec.case_sensitive)
    if first_before is None or first_after is None:
        missing = spec.before if first_before is None else spec.after
        return Verdict.passed(f"{missing!r} was never said; the order holds vacuously")
    ids = [f"t_{first_before[0]}", f"t_{first_after[0]}"]
    if first_before[0] == first_after[0] and not spec.within_turn:
        return Verdict.failed(
            f"{spec.before!r} and {spec.after!r} are first said in the same turn "
            f"({first_before[0]}), so {spec.before!r} did not come first; set within_turn: true "
            "to compare their places in one turn",
            evidence=ids[:1],
        )
    if first_before < first_after:
        return Verdict.passed(
            f"{spec.before!r} (turn {first_before[0]}) came before "
            f"{spec.after!r} (turn {first_after[0]})",
            evidence=ids,
        )
    return Verdict.failed(
        f"{spec.after!r} (turn {first_after[0]}) came before "
        f"{spec.before!r} (turn {first_before[0]})",
        evidence=ids,
    )
