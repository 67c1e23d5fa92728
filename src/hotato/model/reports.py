"""The documents hotato prints and binds, typed: a test run, a suite of them, and the assert.v1
envelope of `assert run`.

The renderers (text, Markdown, JUnit, the page) take these structs; `--format json` is their
encoding, and an artifact binds the same bytes. Field order is the JSON's key order, and a key
that is left out when it does not apply is a field defaulting to None (or empty), never a null
(DESIGN law 5: same inputs, same bytes out)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import msgspec

from hotato.model.results import Result
from hotato.model.rubric import RubricResult
from hotato.model.status import Policy, Status


class Counts(msgspec.Struct, kw_only=True):
    """Deterministic results counted apart: pass, fail, inconclusive (never a blended score).
    A scorecard row is one (the results tagged with that dimension)."""

    passed: int = msgspec.field(name="pass")
    failed: int = msgspec.field(name="fail")
    inconclusive: int

    @classmethod
    def of(cls, results: Iterable[Result]) -> Counts:
        c = Counter(r.status for r in results)
        return cls(
            passed=c[Status.PASS], failed=c[Status.FAIL], inconclusive=c[Status.INCONCLUSIVE]
        )


class ClaimsSummary(msgspec.Struct, kw_only=True):
    """`claims check`: how many claims were found, the graded ones counted (overall and per
    claim type), and how many were not graded (negated, or promised without --promises)."""

    claims: int
    graded: Counts
    not_graded: int
    by_type: dict[str, Counts]


class Wilson(msgspec.Struct, kw_only=True):
    level: float
    low: float
    high: float


class Interval(msgspec.Struct, kw_only=True):
    wilson: Wilson


class ReliabilityRow(Counts, kw_only=True, omit_defaults=True):
    """The Reliability row: its counts, then pass@1, pass@k, pass^k and the Wilson interval.

    The figures' fields repeat Figures' because the row's JSON puts the counts first, and a
    struct's inherited fields always come before its own (`Figures.row` makes one)."""

    n: int
    k: int
    passes: int
    pass_at_1: float
    pass_at_k: float
    pass_caret_k: float
    ci: Interval
    independent_trials: bool
    note: str | None = None  # replays of one recording: why pass^k equals pass@1


class Figures(msgspec.Struct, kw_only=True, omit_defaults=True):
    """pass@1, pass@k, pass^k and a Wilson interval over n runs with `passes` passes."""

    n: int
    k: int
    passes: int
    pass_at_1: float
    pass_at_k: float
    pass_caret_k: float
    ci: Interval
    independent_trials: bool
    note: str | None = None

    def row(self, counts: Counts) -> ReliabilityRow:
        """The scorecard's Reliability row: `counts` beside these figures."""
        return ReliabilityRow(
            passed=counts.passed,
            failed=counts.failed,
            inconclusive=counts.inconclusive,
            **msgspec.structs.asdict(self),
        )


class RubricCounts(msgspec.Struct, kw_only=True):
    passed: int = msgspec.field(name="pass")
    failed: int = msgspec.field(name="fail")
    error: int
    inconclusive: int


class HumanCounts(msgspec.Struct, kw_only=True):
    labels: int
    refused: int


class JudgeCounts(msgspec.Struct, kw_only=True):
    passed: int = msgspec.field(name="pass")
    failed: int = msgspec.field(name="fail")
    inconclusive: int
    total: int


class Summary(msgspec.Struct, kw_only=True):
    """A test run's counts, each lane apart."""

    deterministic: Counts
    rubric: RubricCounts
    human: HumanCounts
    note: str


class LaneSummary(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The assert.v1 summary: the deterministic counts, and for `assert run` the judge's count,
    the counts per kind and a note."""

    deterministic: Counts
    judge: JudgeCounts | None = None
    by_kind: dict[str, Counts] | None = None
    note: str | None = None


class TraceAuthResult(msgspec.Struct, kw_only=True):
    """Whether the trace's signature held, under which key, and why not."""

    authenticated: bool
    key_id: str | None
    reason: str


class AssertRun(
    msgspec.Struct, tag_field="schema", tag="assert.v1", kw_only=True, omit_defaults=True
):
    """The assert.v1 envelope: every result in document order, the policy and the exit code.
    `assert run` prints it; a test run nests its deterministic lane as one."""

    exit_code: int
    inconclusive_policy: Policy
    results: list[Result]
    summary: LaneSummary
    trace_auth: TraceAuthResult | None = None

    @property
    def deterministic(self) -> list[Result]:
        return [r for r in self.results if r.deterministic]

    @property
    def judged(self) -> list[Result]:
        """Results of the judge lane run by `assert run` (`deterministic: false`)."""
        return [r for r in self.results if not r.deterministic]


class Success(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A test's success: a boolean over its named conditions (law 3), never a score."""

    required: list[str]
    conditions: dict[str, bool]
    passed: bool
    rubric_gated: bool
    human_failures: list[str] = []  # ids a person's signed label judged FAIL


class RubricLane(msgspec.Struct, kw_only=True):
    """The quarantined lane: judged (or person-settled) criteria, gated only when asked."""

    gated: bool
    exit_code: int
    results: list[RubricResult]


class RunRow(msgspec.Struct, kw_only=True, omit_defaults=True):
    run: int
    call: str | None = None  # the trial's folder name, for independent trials
    passed: bool


class Reliability(msgspec.Struct, kw_only=True):
    """Each run's outcome, and the figures over them."""

    runs: list[RunRow]
    aggregate: Figures


class VerifiedLabelDoc(msgspec.Struct, kw_only=True):
    """A signed human label that verified and applies to this run."""

    authority: str
    path: str
    assertion_id: str
    verdict: str
    status: str
    reviewer: str
    created_at: str
    note: str
    key_id: str
    conversation_id: str
    manifest_sha256: str


class UnverifiedLabel(msgspec.Struct, kw_only=True):
    """A label file that did not verify under a trusted key."""

    path: str
    code: str
    reason: str
    source: str


class InapplicableLabel(msgspec.Struct, kw_only=True):
    """A verified label that does not apply to this run (another call, assertion or state)."""

    path: str
    source: str
    code: str
    reason: str


class HumanLabels(msgspec.Struct, kw_only=True):
    """The human lane: verified labels, the refused ones (never counted), and conflicts."""

    authority: str
    verified: list[VerifiedLabelDoc]
    refused: list[UnverifiedLabel | InapplicableLabel]
    conflicts: list[str]


class StateEntry(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One state read: what was asked of the system of record, and what it answered."""

    id: str
    kind: str
    phase: str
    resource: str
    filters: dict[str, Any]
    expect: Any
    observed: Any
    error: dict[str, str] | None = None  # why the system of record could not be read


class StateEvidence(msgspec.Struct, tag_field="kind", tag="hotato.state-evidence", kw_only=True):
    """Every state read of a run: the artifact's `state` child, byte for byte."""

    version: int
    entries: list[StateEntry]


class ArtifactInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Where a run's artifact was written (its manifest and signature), or why it was not."""

    path: str
    written: bool = True
    reason: str | None = None
    manifest: dict[str, Any] | None = None  # the artifact's conversation.json, as written
    signature: str | None = None


class TrialRow(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One independently recorded call of a test graded over its trials."""

    call: str
    passed: bool
    exit_code: int
    summary: Counts
    artifact: str | None = None


class TestRun(
    msgspec.Struct, tag_field="kind", tag="hotato.test-run", kw_only=True, omit_defaults=True
):
    """One test graded on one call (or over its trials): `hotato test run --format json`."""

    __test__ = False  # a class named Test* that pytest must not collect

    version: int
    test_id: str
    agent: str
    exit_code: int
    inconclusive_policy: Policy
    success: Success
    summary: Summary
    assertions: AssertRun
    rubric: RubricLane
    dimensions: dict[str, Counts]
    report_dimensions: list[str]
    reliability: Reliability | None = None  # only when the test reports the dimension
    trace_authenticated: bool
    trace_auth: TraceAuthResult | None = None
    human: HumanLabels | None = None
    state_evidence: StateEvidence | None = None
    trials: list[TrialRow] | None = None
    artifact: ArtifactInfo | None = None


class TestSuite(msgspec.Struct, tag_field="kind", tag="hotato.test-suite", kw_only=True):
    """Every test of a folder, each graded on its own call."""

    __test__ = False

    version: int
    exit_code: int
    passed: bool
    tests: list[TestRun]


__all__ = [
    "ArtifactInfo",
    "AssertRun",
    "Counts",
    "Figures",
    "HumanCounts",
    "HumanLabels",
    "InapplicableLabel",
    "Interval",
    "JudgeCounts",
    "LaneSummary",
    "Reliability",
    "ReliabilityRow",
    "RubricCounts",
    "RubricLane",
    "RunRow",
    "StateEntry",
    "StateEvidence",
    "Success",
    "Summary",
    "TestRun",
    "TestSuite",
    "TraceAuthResult",
    "TrialRow",
    "UnverifiedLabel",
    "VerifiedLabelDoc",
    "Wilson",
]
