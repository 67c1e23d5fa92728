"""The human lane of a run: verified labels for this conversation, and the ones refused."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from hotato.model.reports import (
    HumanLabels,
    InapplicableLabel,
    StateEvidence,
    UnverifiedLabel,
    VerifiedLabelDoc,
)
from hotato.model.status import Status


def state_digest(state_doc: StateEvidence | None) -> str:
    """The sha256 of a run's state evidence as the artifact binds it (the bytes of its
    state-evidence.json child), or of no bytes when the run read no state: what a label is bound
    to, so a run against a different snapshot is not settled by it."""
    from hotato.artifacts.bundle import encode

    return hashlib.sha256(b"" if state_doc is None else encode(state_doc)).hexdigest()


@dataclass
class HumanLane:
    """The labels of one run: verified ones that apply, refused ones that never count."""

    verified: list[VerifiedLabelDoc] = field(default_factory=list)
    refused: list[UnverifiedLabel | InapplicableLabel] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    # per verified label (by path), the state evidence digest it was made against; "" when the
    # label carries none (made before labels were bound to state evidence)
    state_sha256: dict[str, str] = field(default_factory=dict)

    @property
    def verdicts(self) -> dict[str, frozenset[Status]]:
        """Per assertion id, the verdicts its verified labels give (several when in conflict)."""
        out: dict[str, set[Status]] = {}
        for label in self.verified:
            out.setdefault(label.assertion_id, set()).add(Status(label.verdict.upper()))
        return {i: frozenset(v) for i, v in out.items()}

    def against_state(self, digest: str) -> dict[str, frozenset[Status]]:
        """The verdicts once the run's state evidence is known (`digest`: `state_digest` of it).
        A label made against other state evidence is moved to the refused list
        (`state_changed`) and never counts."""
        kept = []
        for label in self.verified:
            bound = self.state_sha256.get(label.path, "")
            if bound and bound != digest:
                self.refused.append(
                    _refused(
                        label.path,
                        "state_changed",
                        f"made for assertion {label.assertion_id!r} as graded against other "
                        "state evidence; this run's system of record answered differently",
                    )
                )
            else:
                kept.append(label)
        self.verified = kept
        self.conflicts = sorted(i for i, v in self.verdicts.items() if len(v) > 1)
        return self.verdicts

    def as_doc(self) -> HumanLabels:
        """The lane as the run's document carries it (`human`)."""
        return HumanLabels(
            authority="human",
            verified=self.verified,
            refused=self.refused,
            conflicts=self.conflicts,
        )


def _refused(path: str, code: str, reason: str) -> InapplicableLabel:
    return InapplicableLabel(path=path, source=path, code=code, reason=reason)


def load_human_lane(
    folder: str, trust_paths: list[str], conv_id: str, known: dict[str, str]
) -> HumanLane:
    """Labels that verify under a trusted key, were made for this conversation, and name one of
    the test's assertions (`known`: id -> digest) as it is now. Anything else is listed as
    refused and never counts."""
    from hotato.artifacts.labels import load_labels
    from hotato.artifacts.signing import load_trust

    verified, refused = load_labels(folder, load_trust(trust_paths))
    lane = HumanLane(
        refused=[
            UnverifiedLabel(path=r.path, code=r.code, reason=r.reason, source=r.path)
            for r in refused
        ]
    )
    verdicts: dict[str, set[str]] = {}
    for label in verified:
        if label.conversation_id != conv_id:
            lane.refused.append(
                _refused(
                    label.path,
                    "wrong_conversation",
                    f"made for conversation {label.conversation_id}, not "
                    f"{conv_id} (a different call, test or agent)",
                )
            )
        elif label.assertion_id not in known:
            lane.refused.append(
                _refused(
                    label.path,
                    "unknown_assertion",
                    f"names assertion {label.assertion_id!r}, which this test does not have",
                )
            )
        elif label.assertion_sha256 and label.assertion_sha256 != known[label.assertion_id]:
            lane.refused.append(
                _refused(
                    label.path,
                    "assertion_changed",
                    f"made for assertion {label.assertion_id!r} as it was graded "
                    "then; the test now checks something else under that id",
                )
            )
        else:
            lane.verified.append(VerifiedLabelDoc(**label.to_dict()))
            lane.state_sha256[label.path] = label.state_sha256
            verdicts.setdefault(label.assertion_id, set()).add(label.verdict)
    lane.conflicts = sorted(i for i, v in verdicts.items() if len(v) > 1)
    return lane
