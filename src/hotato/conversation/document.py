"""A test run as data: the JSON document every output and the artifact are made from."""

from __future__ import annotations

from typing import Any

import msgspec

from hotato.conversation.runner import ConversationRun
from hotato.conversation.scorecard import scorecard
from hotato.model.state import StateRead

NOTE = (
    "success is a boolean over named conditions; deterministic, rubric and human results are "
    "counted apart and never merged into a score"
)


def state_evidence(reads: list[StateRead]) -> dict[str, Any]:
    entries = []
    for r in reads:
        entry: dict[str, Any] = {
            "id": r.assertion_id,
            "kind": r.kind,
            "phase": r.phase,
            "resource": r.resource,
            "filters": r.filters,
            "expect": r.expect,
            "observed": r.observed,
        }
        if r.error is not None:
            entry["error"] = r.error
        entries.append(entry)
    return {"kind": "hotato.state-evidence", "version": 1, "entries": entries}


def assertions_envelope(run: ConversationRun) -> dict[str, Any]:
    """The assert.v1 envelope of the deterministic lane."""
    return {
        "schema": "assert.v1",
        "exit_code": int(run.exit_code),
        "inconclusive_policy": run.policy.value,
        "results": [msgspec.to_builtins(r) for r in run.results],
        "summary": {"deterministic": run.tally.as_dict()},
    }


def run_document(run: ConversationRun) -> dict[str, Any]:
    rubric_counts: dict[str, int] = {"pass": 0, "fail": 0, "error": 0, "inconclusive": 0}
    for r in run.rubric:
        rubric_counts[r["status"].lower()] = rubric_counts.get(r["status"].lower(), 0) + 1
    doc: dict[str, Any] = {
        "kind": "hotato.test-run",
        "version": 1,
        "test_id": run.test.id,
        "agent": run.agent,
        "exit_code": int(run.exit_code),
        "inconclusive_policy": run.policy.value,
        "success": {
            "required": run.test.required,
            "conditions": run.conditions,
            "passed": run.passed,
            "rubric_gated": run.gate_judge,
            **({"human_failures": run.human_failures} if run.human_failures else {}),
        },
        "summary": {
            "deterministic": run.tally.as_dict(),
            "rubric": rubric_counts,
            "human": {
                "labels": len(run.labels.get("verified", [])),
                "refused": len(run.labels.get("refused", [])),
            },
            "note": NOTE,
        },
        "assertions": assertions_envelope(run),
        "rubric": {"gated": run.gate_judge, "exit_code": run.rubric_exit(), "results": run.rubric},
        "dimensions": scorecard(run.results, run.test.report_dimensions, run.reliability.as_dict()),
        "report_dimensions": run.test.report_dimensions,
    }
    if "reliability" in run.test.report_dimensions:  # left out of the scorecard, left out here
        doc["reliability"] = {
            "runs": [{"run": i + 1, "passed": p} for i, p in enumerate(run.runs)],
            "aggregate": run.reliability.as_dict(),
        }
    doc["trace_authenticated"] = bool(
        run.sources.trace is not None and run.sources.trace.authenticated
    )
    if run.trace_auth is not None:
        doc["trace_auth"] = run.trace_auth
    if run.labels:
        doc["human"] = run.labels
    if run.state_reads:
        doc["state_evidence"] = state_evidence(run.state_reads)
    return doc
