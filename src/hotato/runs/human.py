"""The human lane of a run: verified labels for this conversation, and the ones refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hotato.model.status import Status


@dataclass
class HumanLane:
    verified: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    @property
    def verdicts(self) -> dict[str, frozenset[Status]]:
        """Per assertion id, the verdicts its verified labels give (several when in conflict)."""
        out: dict[str, set[Status]] = {}
        for label in self.verified:
            out.setdefault(label["assertion_id"], set()).add(Status(label["verdict"].upper()))
        return {i: frozenset(v) for i, v in out.items()}

    def as_dict(self) -> dict[str, Any]:
        return {
            "authority": "human",
            "verified": self.verified,
            "refused": self.refused,
            "conflicts": self.conflicts,
        }


def load_human_lane(
    folder: str, trust_paths: list[str], conv_id: str, known: dict[str, str]
) -> HumanLane:
    """Labels that verify under a trusted key, were made for this conversation, and name one of
    the test's assertions (`known`: id -> digest) as it is now. Anything else is listed as
    refused and never counts."""
    from hotato.artifacts.labels import load_labels
    from hotato.artifacts.signing import load_trust

    verified, refused = load_labels(folder, load_trust(trust_paths))
    lane = HumanLane(refused=[{**r.to_dict(), "source": r.path} for r in refused])
    verdicts: dict[str, set[str]] = {}
    for label in verified:
        doc = label.to_dict()
        if label.conversation_id != conv_id:
            lane.refused.append(
                {
                    "path": label.path,
                    "source": label.path,
                    "code": "wrong_conversation",
                    "reason": f"made for conversation {label.conversation_id}, not "
                    f"{conv_id} (a different call, test or agent)",
                }
            )
        elif label.assertion_id not in known:
            lane.refused.append(
                {
                    "path": label.path,
                    "source": label.path,
                    "code": "unknown_assertion",
                    "reason": f"names assertion {label.assertion_id!r}, which this "
                    "test does not have",
                }
            )
        elif label.assertion_sha256 and label.assertion_sha256 != known[label.assertion_id]:
            lane.refused.append(
                {
                    "path": label.path,
                    "source": label.path,
                    "code": "assertion_changed",
                    "reason": f"made for assertion {label.assertion_id!r} as it was graded "
                    "then; the test now checks something else under that id",
                }
            )
        else:
            lane.verified.append(doc)
            verdicts.setdefault(label.assertion_id, set()).add(label.verdict)
    lane.conflicts = sorted(i for i, v in verdicts.items() if len(v) > 1)
    return lane
