"""judge_rubric and human_rubric: criteria no machine settles. Quarantined to the rubric lane."""

from __future__ import annotations

from typing import Literal

from hotato.kinds._base import Evidence, Spec, kind
from hotato.model.results import Verdict

# What a judged criterion may be shown. `tool_trace` is hotato 1.x's name for the trace.
RubricEvidence = Literal["transcript", "trace", "tool_trace"]


def evidence_sources(evidence: tuple[str, ...]) -> frozenset[str]:
    """The sources (`transcript`, `trace`) a criterion's `evidence` names."""
    return frozenset("trace" if name == "tool_trace" else name for name in evidence)


class JudgeRubric(Spec, tag="judge_rubric", frozen=True):
    """A criterion for an advisory model judge (`deterministic: false`).

    Never passes or fails in the deterministic lane: it is INCONCLUSIVE there and counted on the
    judge line, apart from the deterministic counts. A configured judge or a signed human label
    may speak to it in the rubric lane; neither changes the exit code unless asked to.
    `evidence` lists what the judge is shown: `transcript`, `trace` (or `tool_trace`, as hotato
    1.x called it).

    Example:
        - id: was-empathetic
          kind: judge_rubric
          criterion: "Did the agent acknowledge the caller's frustration?"
          evidence: [transcript]
    """

    criterion: str
    evidence: tuple[RubricEvidence, ...] = ("transcript",)
    examples: tuple[dict[str, str], ...] = ()


class HumanRubric(Spec, tag="human_rubric", frozen=True):
    """A criterion only a person settles, with an Ed25519-signed label.

    INCONCLUSIVE until a verified human label for this id is supplied.

    Example:
        - id: tone-acceptable
          kind: human_rubric
          criterion: "Was the agent's tone acceptable for a bereavement call?"
    """

    criterion: str


@kind(JudgeRubric, reads=set(), deterministic=False)
def check_judge(spec: JudgeRubric, ev: Evidence) -> Verdict:
    return Verdict.inconclusive(
        "model-judged criterion: quarantined to the rubric lane; "
        "no judge decides a deterministic result"
    )


@kind(HumanRubric, reads=set(), deterministic=False)
def check_human(spec: HumanRubric, ev: Evidence) -> Verdict:
    return Verdict.inconclusive("human-judged criterion: only a signed human label settles it")
