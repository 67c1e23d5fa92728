"""pii: was an identifier spoken that must not be? Reports where, never what.

The detectors (`_pii_detect`, `_pii_scan`: a few large RE2 patterns, about a millisecond to
compile) load when a check first reads a transcript, not when a file naming `pii` is decoded.
"""

from __future__ import annotations

from typing import Any, Literal

from hotato.kinds._base import Evidence, Role, Spec, kind
from hotato.kinds._trace_util import derived
from hotato.model.evidence import Transcript, normalize_role
from hotato.model.results import Verdict
from hotato.model.status import Source

Detector = Literal["ssn", "card_luhn", "email", "phone"]


class Pii(Spec, tag="pii", frozen=True):
    """Reads every transcript turn (of `role`, when given) for identifiers: US social security
    numbers (never-issued areas 000, 666 and 900-999, group 00 and serial 0000 are not SSNs),
    card numbers of 13 to 19 digits that pass the Luhn checksum, email addresses and phone
    numbers (NANP and E.164). Numbers spoken as words count ("five five five, one two one two",
    "oh" for zero, "double five", digits mixed with words). A hit names the detector, the turn
    and its role, never the text that matched.

    Passes when no turn read says an identifier.
    Fails when a turn says one; the hits are listed under `details.hits`.
    Inconclusive when no transcript was supplied.

    Example:
        - id: no-card-or-ssn-spoken
          kind: pii
          detectors: [ssn, card_luhn]
          mode: must_not_leak
          role: agent
    """

    detectors: tuple[Detector, ...] = ("ssn", "card_luhn", "email", "phone")
    mode: Literal["must_not_leak"] = "must_not_leak"
    role: Role | None = None


def _validate(spec: Pii) -> list[str]:
    if spec.detectors:
        return []
    from hotato.kinds._pii_detect import DETECTORS

    return [f"'detectors' needs at least one of {list(DETECTORS)}"]


def hits(
    transcript: Transcript, detectors: tuple[str, ...], role: str | None
) -> list[dict[str, Any]]:
    """Every (turn, detector) that fired, in turn order. The transcript is scanned once per run
    with every detector (each detector judges a turn alone, so a subset's answer is the full
    answer filtered), its hits listed once per role; each (detectors, role) question is then a
    filter of that list."""
    who = "any" if role in (None, "any") else normalize_role(str(role))

    def build() -> list[dict[str, Any]]:
        every = derived(transcript, ("pii", who), lambda: _role_hits(transcript, who))
        return [hit for hit in every if hit["detector"] in detectors]

    return derived(transcript, ("pii", detectors, who), build)


def _role_hits(transcript: Transcript, who: str) -> list[dict[str, Any]]:
    """Every detector's hits in the turns of one role (`any`: every turn); a turn of the role
    is one `of_role` lists, whose roles are normalized as `who` is."""
    from hotato.kinds._pii_scan import fired_turns

    fired = derived(transcript, "pii", lambda: fired_turns(transcript))
    return [
        {
            "detector": detector,
            "turn": turn.index,
            "turn_id": turn.id,
            "role": turn.role,
            "form": form,
        }
        for turn, forms in fired
        if who == "any" or turn.role == who
        for detector, form in forms.items()
    ]


def _first_turns(found: list[dict[str, Any]], limit: int) -> list[str]:
    """The first `limit` turns with a hit. Hits are in turn order, so a turn's hits are next to
    one another, and the list stops at `limit` however many hits there are."""
    turns: list[str] = []
    for hit in found:
        if not turns or turns[-1] != hit["turn_id"]:
            if len(turns) == limit:
                break
            turns.append(hit["turn_id"])
    return turns


def _where(hit: dict[str, Any]) -> str:
    spoken = ", spoken" if hit["form"] == "spoken" else ""
    return f"{hit['detector']} in turn {hit['turn']} ({hit['role']}{spoken})"


@kind(Pii, reads={Source.TRANSCRIPT}, validate=_validate)
def check(spec: Pii, ev: Evidence) -> Verdict:
    from hotato.kinds._pii_detect import DETECTORS

    assert ev.transcript is not None
    detectors = tuple(d for d in DETECTORS if d in spec.detectors)
    found = hits(ev.transcript, detectors, spec.role)
    read = len(ev.transcript.of_role(spec.role))
    who = f"{spec.role} " if spec.role else ""
    if not found:
        return Verdict.passed(
            f"no identifier ({', '.join(detectors)}) was spoken in {read} {who}turn(s)", observed=0
        )
    shown = "; ".join(_where(h) for h in found[:5])
    more = f"; and {len(found) - 5} more" if len(found) > 5 else ""
    return Verdict.failed(
        f"{len(found)} identifier(s) spoken that must not leak: {shown}{more}",
        observed=len(found),
        evidence=_first_turns(found, 20),
        details={"hits": found},
    )
