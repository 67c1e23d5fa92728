"""pii: was an identifier spoken that must not be? Reports where, never what."""

from __future__ import annotations

from typing import Any, Literal

from hotato.kinds._base import Evidence, Role, Spec, kind
from hotato.kinds._pii_detect import DETECTORS, cues_in, scan
from hotato.kinds._trace_util import derived
from hotato.model.evidence import Transcript, Turn, normalize_role
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
    return [] if spec.detectors else [f"'detectors' needs at least one of {list(DETECTORS)}"]


def hits(
    transcript: Transcript, detectors: tuple[str, ...], role: str | None
) -> list[dict[str, Any]]:
    """Every (turn, detector) that fired, in turn order. The transcript is scanned once per run
    with every detector (each detector judges a turn alone, so a subset's answer is the full
    answer filtered); each (detectors, role) question is then a filter of the turns that fired."""
    who = "any" if role in (None, "any") else normalize_role(str(role))

    def build() -> list[dict[str, Any]]:
        fired = derived(transcript, "pii", lambda: _scan(transcript))
        wanted = {t.index for t in transcript.of_role(role)} if who != "any" else None
        found = []
        for turn, forms in fired:
            if wanted is not None and turn.index not in wanted:
                continue
            for detector in detectors:
                form = forms.get(detector)
                if form is not None:
                    found.append(
                        {
                            "detector": detector,
                            "turn": turn.index,
                            "turn_id": turn.id,
                            "role": turn.role,
                            "form": form,
                        }
                    )
        return found

    return derived(transcript, ("pii", detectors, who), build)


def _scan(transcript: Transcript) -> list[tuple[Turn, dict[str, str]]]:
    """The turns where any detector fires, with what fired and in which form. Cue words carry
    over one turn, so the answer to "what's your social?" is read as an SSN even when said as
    nine bare digits."""
    fired: list[tuple[Turn, dict[str, str]]] = []
    before: frozenset[str] = frozenset()
    for turn in transcript.turns:
        here = cues_in(turn.text)
        forms = scan(turn.text, DETECTORS, here | before)
        if forms:
            fired.append((turn, dict(forms)))
        before = here
    return fired


def _where(hit: dict[str, Any]) -> str:
    spoken = ", spoken" if hit["form"] == "spoken" else ""
    return f"{hit['detector']} in turn {hit['turn']} ({hit['role']}{spoken})"


@kind(Pii, reads={Source.TRANSCRIPT}, validate=_validate)
def check(spec: Pii, ev: Evidence) -> Verdict:
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
        evidence=list(dict.fromkeys(h["turn_id"] for h in found))[:20],
        details={"hits": found},
    )
