"""The HTML report: one self-contained page for a call, its trials, or a suite of tests.

The page is made from the same JSON document the `--format json` output prints, plus the call's
evidence (transcript and trace) for the timeline, so its counts are the JSON's counts. Every
string on it comes from untrusted calls and is escaped by Jinja2's autoescape; the page carries
no script and a Content-Security-Policy that would block one. See docs/report.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import msgspec

from hotato.model.evidence import Trace, Transcript
from hotato.model.reports import Counts, ReliabilityRow, StateEntry, TestRun
from hotato.model.results import Result
from hotato.report import timeline
from hotato.report._doc import Graded, lanes, verdict
from hotato.report._printable import printable
from hotato.report.timeline import Cite, pretty

STATUS_ORDER = {"FAIL": 0, "ERROR": 0, "INCONCLUSIVE": 1, "PASS": 2}
TRACE_KINDS = frozenset(
    {
        "tool_call",
        "tool_result",
        "tool_error",
        "http_result",
        "handoff",
        "dtmf",
        "termination",
        "sequence",
        "latency",
    }
)


@dataclass
class CallInput:
    """One graded call: the JSON document as printed, and the evidence it was graded on."""

    doc: Graded  # a `hotato.test-run` document or an `assert.v1` envelope
    title: str
    trace: Trace | None = None
    transcript: Transcript | None = None
    state: list[StateEntry] = field(default_factory=list)  # state evidence entries
    link: str | None = None  # a page of its own (a suite's test with an artifact), if any


def _dimension_state(row: Counts) -> str:
    """A dimension's own state: a FAIL anywhere fails it; otherwise an INCONCLUSIVE leaves it
    INCONCLUSIVE, never a pass; a dimension with no checks says so."""
    if row.failed:
        return "FAIL"
    if row.inconclusive:
        return "INCONCLUSIVE"
    if row.passed:
        return "PASS"
    return "NO CHECKS"


def _checks(results: list[Result], prefix: str, state_ids: set[str]) -> list[dict[str, Any]]:
    checks = []
    for i, r in enumerate(results):
        refs = [{"ref": e, "anchor": f"{prefix}{e}"} for e in r.evidence]
        if r.id in state_ids:
            refs.append({"ref": "state read", "anchor": f"{prefix}state-{r.id}"})
        extra = []
        if r.observed is not msgspec.UNSET:
            extra.append(("observed", pretty(r.observed)))
        if r.details:
            extra.append(("details", pretty(r.details)))
        checks.append(
            {
                "anchor": f"{prefix}check-{i}",
                "id": r.id,
                "kind": r.kind,
                "status": r.status.value,
                "reason": r.reason,
                "dimension": r.dimension or "untagged",
                "skipped": r.skipped,
                "refs": refs,
                "extra": extra,
            }
        )
    return checks


def _cites(checks: list[dict[str, Any]]) -> dict[str, list[Cite]]:
    out: dict[str, list[Cite]] = {}
    for c in checks:
        for ref in c["refs"]:
            out.setdefault(ref["ref"], []).append(Cite(c["anchor"], c["id"], c["status"]))
    return out


def _missing(checks: list[dict[str, Any]], has_trace: bool) -> list[dict[str, Any]]:
    """Trace checks that FAILed on a trace that was read, with nothing in it to point at:
    what the agent claimed or was expected to do and did not."""
    if not has_trace:
        return []
    return [
        c for c in checks if c["status"] == "FAIL" and c["kind"] in TRACE_KINDS and not c["refs"]
    ]


def _scorecard(doc: Graded, checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    dimensions = doc.dimensions if isinstance(doc, TestRun) else {}
    for name, counts in dimensions.items():
        state = _dimension_state(counts)
        reasons = [
            f"{c['id']}: {c['reason']}"
            for c in checks
            if c["dimension"] == name and c["status"] == "INCONCLUSIVE"
        ]
        rows.append(
            {
                "name": name,
                "state": state,
                "pass": counts.passed,
                "fail": counts.failed,
                "inconclusive": counts.inconclusive,
                "reasons": reasons,
                "reliability": _figures(counts) if isinstance(counts, ReliabilityRow) else None,
            }
        )
    return rows


def _figures(rel: ReliabilityRow) -> dict[str, Any]:
    """The reliability figures, with the chart's bar lengths worked out here (fixed precision,
    so the page is byte-stable)."""
    ci = rel.ci.wilson
    k = rel.k
    bars = [("pass@1", rel.pass_at_1)]
    if k > 1:
        bars += [(f"pass@{k}", rel.pass_at_k), (f"pass^{k}", rel.pass_caret_k)]
    return {
        "n": rel.n,
        "k": k,
        "passes": rel.passes,
        "independent": rel.independent_trials,
        "note": rel.note or "",
        "bars": [
            {"label": label, "value": f"{v:.3f}", "width": f"{300 * v:.1f}", "y": 8 + 26 * i}
            for i, (label, v) in enumerate(bars)
        ],
        "low": f"{ci.low:.3f}",
        "high": f"{ci.high:.3f}",
        "low_x": f"{60 + 300 * ci.low:.1f}",
        "high_x": f"{60 + 300 * ci.high:.1f}",
        "height": 16 + 26 * len(bars),
    }


def _trials(doc: Graded) -> list[dict[str, Any]]:
    trials = (doc.trials if isinstance(doc, TestRun) else None) or []
    return [
        {
            "name": os.path.basename(t.call.rstrip("/\\")) or t.call,
            "status": "PASSED" if t.passed else "FAILED",
            "summary": _counts(t.summary),
            "exit_code": t.exit_code,
            "artifact": t.artifact,
        }
        for t in trials
    ]


def _counts(c: Counts) -> dict[str, int]:
    """Counts as the template reads them (`pass`, `fail`, `inconclusive`)."""
    return {"pass": c.passed, "fail": c.failed, "inconclusive": c.inconclusive}


def _claimed(
    results: list[Result], checks: list[dict[str, Any]], prefix: str
) -> list[dict[str, Any]]:
    """Each claim a `claims` check graded: the turn it was said in, what it says, its status,
    and the spans that back it (or the reason nothing does), each linked to its timeline row."""
    out = []
    for r, check in zip(results, checks, strict=True):
        details = r.details if isinstance(r.details, dict) else {}
        if r.kind != "claims" or not isinstance(details.get("claims"), list):
            continue
        for claim in details["claims"]:
            if not isinstance(claim, dict):
                continue
            refs = [e for e in claim.get("evidence", []) if isinstance(e, str)]
            turn = f"t_{claim.get('turn')}"
            out.append(
                {
                    "check": check,
                    "turn": {"ref": turn, "anchor": f"{prefix}{turn}"},
                    "text": str(claim.get("text", "")),
                    "type": str(claim.get("type", "")),
                    "polarity": str(claim.get("polarity", "")),
                    "status": str(claim.get("status", "")),
                    "reason": str(claim.get("reason", "")),
                    "backing": [{"ref": e, "anchor": f"{prefix}{e}"} for e in refs if e != turn],
                }
            )
    return out


def call_view(call: CallInput, prefix: str) -> dict[str, Any]:
    doc = call.doc
    deterministic, judge = lanes(doc)
    state_ids = {e.id for e in call.state}
    checks = _checks(deterministic, prefix, state_ids)
    line = timeline.build(call.trace, call.transcript, _cites(checks), prefix)
    run = doc if isinstance(doc, TestRun) else None
    said = {r.ref: r for r in line.rows if r.lane == "said" and r.title == "agent"}
    claims = [
        {"check": c, "turn": said[ref["ref"]]}
        for c in checks
        if c["kind"] == "phrase" and c["status"] == "PASS"
        for ref in c["refs"]
        if ref["ref"] in said
    ]
    return {
        "prefix": prefix,
        "title": call.title,
        "test_id": run.test_id if run else None,
        "agent": run.agent if run else None,
        "verdict": verdict(doc),
        "exit_code": doc.exit_code,
        "policy": doc.inconclusive_policy.value,
        "counts": _counts(doc.summary.deterministic),
        "checks": checks,
        "failing": [c for c in checks if c["status"] != "PASS"],
        "claims": claims,  # what the agent said that a phrase check found
        "claimed": _claimed(deterministic, checks, prefix),  # claims a `claims` check graded
        "missing": _missing(checks, line.has_trace),
        "timeline": line,
        "state": [
            {
                "anchor": f"{prefix}state-{e.id}",
                "id": e.id,
                "resource": e.resource,
                "phase": e.phase,
                "filters": pretty(e.filters),
                "observed": pretty(e.observed),
                "error": e.error,
            }
            for e in call.state
        ],
        "scorecard": _scorecard(doc, checks),
        "conditions": list(run.success.conditions.items()) if run else [],
        "judge": [
            {"id": r.id, "kind": r.kind, "status": r.status.value, "reason": r.reason}
            for r in judge
        ],
        "judge_gated": run.rubric.gated if run else False,
        "human": {
            "verified": run.human.verified if run and run.human else [],
            "refused": run.human.refused if run and run.human else [],
        },
        "trials": _trials(doc),
        "link": call.link,
    }


@cache
def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("hotato.report", "templates"),
        autoescape=True,  # every value on the page comes from an untrusted call
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["STATUS_ORDER"] = STATUS_ORDER
    return env


def render_call(call: CallInput) -> str:
    """A page for one call (one `assert run`, one `test run`, or a test over its trials)."""
    view = call_view(call, "c0-")
    page = (
        _environment()
        .get_template("page.html.j2")
        .render(title=call.title, calls=[view], suite=None)
    )
    return printable(page)  # a control character in a call's text is spelled visibly


def render_suite(title: str, calls: list[CallInput], passed: bool, exit_code: int) -> str:
    """A page for a suite: one row per test linking to its section (and to its own page when
    its artifact holds one), then each test's section."""
    views = [call_view(c, f"c{i}-") for i, c in enumerate(calls)]
    rank = {"REFUSED": 0, "FAILED": 1, "PASSED": 2}
    suite = {
        "rows": sorted(views, key=lambda v: rank[v["verdict"]]),
        "verdict": "PASSED" if passed else "REFUSED" if exit_code == 2 else "FAILED",
        "exit_code": exit_code,
        "passed": sum(v["verdict"] == "PASSED" for v in views),
        "failed": sum(v["verdict"] != "PASSED" for v in views),
    }
    page = _environment().get_template("page.html.j2").render(title=title, calls=views, suite=suite)
    return printable(page)
