"""A test run as data: the typed document every output and the artifact are made from."""

from __future__ import annotations

from collections import Counter

from hotato.conversation.runner import ConversationRun
from hotato.conversation.scorecard import scorecard
from hotato.model.reports import (
    AssertRun,
    Counts,
    HumanCounts,
    LaneSummary,
    Reliability,
    RubricCounts,
    RubricLane,
    RunRow,
    StateEntry,
    StateEvidence,
    Success,
    Summary,
    TestRun,
)
from hotato.model.rubric import JudgeStatus
from hotato.model.state import StateRead

NOTE = (
    "success is a boolean over named conditions; deterministic, rubric and human results are "
    "counted apart and never merged into a score"
)


def state_evidence(reads: list[StateRead]) -> StateEvidence:
    """The state reads of a run, as the artifact's `state` child binds them."""
    entries = [
        StateEntry(
            id=r.assertion_id,
            kind=r.kind,
            phase=r.phase,
            resource=r.resource,
            filters=r.filters,
            expect=r.expect,
            observed=r.observed,
            error=r.error,
        )
        for r in reads
    ]
    return StateEvidence(version=1, entries=entries)


def assertions_envelope(run: ConversationRun) -> AssertRun:
    """The assert.v1 envelope of the deterministic lane."""
    return AssertRun(
        exit_code=int(run.exit_code),
        inconclusive_policy=run.policy,
        results=run.results,
        summary=LaneSummary(deterministic=Counts.of(run.results)),
    )


def _rubric_counts(run: ConversationRun) -> RubricCounts:
    c = Counter(r.status for r in run.rubric)
    return RubricCounts(
        passed=c[JudgeStatus.PASS],
        failed=c[JudgeStatus.FAIL],
        error=c[JudgeStatus.ERROR],
        inconclusive=c[JudgeStatus.INCONCLUSIVE],
    )


def run_document(run: ConversationRun) -> TestRun:
    """The `hotato.test-run` document of one graded call (`test run --format json`)."""
    reporting = run.test.report_dimensions
    labels = run.labels
    return TestRun(
        version=1,
        test_id=run.test.id,
        agent=run.agent,
        exit_code=int(run.exit_code),
        inconclusive_policy=run.policy,
        success=Success(
            required=run.test.required,
            conditions=run.conditions,
            passed=run.passed,
            rubric_gated=run.gate_judge,
            human_failures=run.human_failures,
        ),
        summary=Summary(
            deterministic=Counts.of(run.results),
            rubric=_rubric_counts(run),
            human=HumanCounts(
                labels=len(labels.verified) if labels else 0,
                refused=len(labels.refused) if labels else 0,
            ),
            note=NOTE,
        ),
        assertions=assertions_envelope(run),
        rubric=RubricLane(gated=run.gate_judge, exit_code=run.rubric_exit(), results=run.rubric),
        dimensions=scorecard(run.results, reporting, run.reliability.figures()),
        report_dimensions=reporting,
        # left out of the scorecard, left out here
        reliability=Reliability(
            runs=[RunRow(run=i + 1, passed=p) for i, p in enumerate(run.runs)],
            aggregate=run.reliability.figures(),
        )
        if "reliability" in reporting
        else None,
        trace_authenticated=bool(run.sources.trace is not None and run.sources.trace.authenticated),
        trace_auth=run.trace_auth,
        human=labels,
        state_evidence=state_evidence(run.state_reads) if run.state_reads else None,
    )
