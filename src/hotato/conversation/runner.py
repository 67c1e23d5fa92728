"""Grade one call against one conversation test: both lanes, conditions, exit code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hotato.conversation.reliability import Aggregate
from hotato.conversation.scorecard import (
    HumanVerdicts,
    conditions,
    dimensions,
    human_failures,
    passed,
    settle_rubric,
)
from hotato.conversation.testfile import ConversationTest
from hotato.engine.evaluate import Sources, evaluate
from hotato.engine.policy import Tally, exit_code, resolve_policy
from hotato.model.reports import Counts, HumanLabels, TraceAuthResult
from hotato.model.results import Result
from hotato.model.rubric import JudgeStatus, RubricResult
from hotato.model.state import StateRead
from hotato.model.status import ExitCode, Policy

RubricLane = Callable[[ConversationTest, Sources], list[RubricResult]]


@dataclass
class ConversationRun:
    test: ConversationTest
    agent: str
    results: list[Result]
    rubric: list[RubricResult]
    policy: Policy
    conditions: dict[str, bool]
    passed: bool
    gate_judge: bool
    exit_code: ExitCode
    reliability: Aggregate
    runs: list[bool]
    sources: Sources
    state_reads: list[StateRead] = field(default_factory=list)  # the first run's reads
    labels: HumanLabels | None = None  # the verified and refused signed labels, when given
    trace_auth: TraceAuthResult | None = None
    human_failures: list[str] = field(default_factory=list)  # ids a person judged FAIL

    @property
    def tally(self) -> Tally:
        return Tally.of(self.results)

    def rubric_exit(self) -> int:
        """The rubric lane's exit code: 0 unless the user gates on the judge (law 7)."""
        if not self.gate_judge:
            return 0
        statuses = {r.status for r in self.rubric}
        return 1 if JudgeStatus.FAIL in statuses else 2 if JudgeStatus.ERROR in statuses else 0

    @property
    def dimensions(self) -> dict[str, Counts]:
        return dimensions(self.results)


def decide_exit(policy_code: ExitCode, ok: bool, rubric_code: int) -> ExitCode:
    """The policy's code, raised to 1 when a required condition fails, and to the judge's code
    when the user gates on it. Refusal (2) is never lowered."""
    code = int(policy_code)
    if not ok:
        code = max(code, 1)
    return ExitCode(max(code, rubric_code))


def run_test(
    test: ConversationTest,
    sources: Sources,
    agent: str,
    policy_flag: str | None = None,
    repetitions: int | None = None,
    rubric_lane: RubricLane | None = None,
    gate_judge: bool = False,
    human: HumanVerdicts | Callable[[list[StateRead]], HumanVerdicts] | None = None,
) -> ConversationRun:
    """Grade `test` on `sources`. `human`: the verified labels' verdicts, or a function giving
    them from the state reads (labels bound to the state evidence they were made against)."""
    policy = resolve_policy(policy_flag, test.policy)
    n = repetitions or test.repetitions
    try:
        results = evaluate(test.deterministic, sources)
        reads = list(sources.state.reads) if sources.state is not None else []
        runs = [results] + [evaluate(test.deterministic, sources) for _ in range(n - 1)]
    finally:
        sources.close()
    if rubric_lane is None:
        from hotato.conversation.judge import rubric_lane as judged

        rubric_lane = judged(None)  # no judge: every criterion INCONCLUSIVE, counted apart
    if callable(human):
        human = human(reads)
    human = human or {}
    rubric = settle_rubric(rubric_lane(test, sources), human)
    conds = conditions(test.required, results, rubric, human)
    ok = passed(conds, gate_judge, human)
    per_run = [passed(conditions(test.required, r, rubric, human), gate_judge, human) for r in runs]
    draft = ConversationRun(
        test,
        agent,
        results,
        rubric,
        policy,
        conds,
        ok,
        gate_judge,
        ExitCode.OK,
        Aggregate(n, n, sum(per_run), independent=False),
        per_run,
        sources,
        reads,
    )
    draft.human_failures = human_failures(human)
    draft.exit_code = decide_exit(exit_code(results, policy), ok, draft.rubric_exit())
    return draft
