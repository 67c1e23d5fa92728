"""The JSON envelope of `assert run` (docs/assertions.md): keys in a fixed order, byte-stable."""

from __future__ import annotations

from typing import Any

import msgspec

from hotato.engine.run import RunOutcome
from hotato.model.reports import AssertRun, Counts, JudgeCounts, LaneSummary, TraceAuthResult

NOTE = (
    "deterministic counts and the judge count are reported apart and never merged; "
    "judge results are advisory and do not change the exit code"
)


def envelope(outcome: RunOutcome, trace_auth: TraceAuthResult | None = None) -> AssertRun:
    """The assert.v1 envelope of one graded call; `trace_auth` when its signature was checked."""
    judge = Counts.of(outcome.judge)
    return AssertRun(
        exit_code=int(outcome.exit_code),
        inconclusive_policy=outcome.policy,
        results=outcome.results,
        summary=LaneSummary(
            deterministic=Counts.of(outcome.deterministic),
            judge=JudgeCounts(
                passed=judge.passed,
                failed=judge.failed,
                inconclusive=judge.inconclusive,
                total=len(outcome.judge),
            ),
            by_kind=by_kind(outcome),
            note=NOTE,
        ),
        trace_auth=trace_auth,
    )


def by_kind(outcome: RunOutcome) -> dict[str, Counts]:
    kinds: dict[str, list[Any]] = {}
    for r in outcome.deterministic:
        kinds.setdefault(r.kind, []).append(r)
    return {k: Counts.of(v) for k, v in kinds.items()}


def dumps(doc: Any) -> str:
    """A document as `--format json` prints it: 2-space indent, a trailing newline."""
    return encoded(doc).decode()


def encoded(doc: Any) -> bytes:
    """The same, as the UTF-8 bytes written out (a run with many results prints megabytes:
    no round trip through text)."""
    return msgspec.json.format(msgspec.json.encode(doc), indent=2) + b"\n"
