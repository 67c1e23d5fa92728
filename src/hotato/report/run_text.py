"""Text rendering of a test-run document: scorecard, conditions, lanes apart."""

from __future__ import annotations

from pathlib import Path

import click

from hotato.model.reports import ReliabilityRow, TestRun, TrialRow
from hotato.model.results import Result
from hotato.model.status import Status
from hotato.report._printable import printable
from hotato.report.text import COLORS


def _word(status: str, color: bool) -> str:
    word = f"{status:<12}"
    if color and status in Status.__members__:
        return click.style(word, fg=COLORS[Status(status)], bold=True)
    return word


def render(doc: TestRun, results: list[Result], color: bool = False) -> str:
    """The run as `test run` prints it: each lane apart, the scorecard, the conditions."""
    out = [f"hotato test run: {doc.test_id} (agent {doc.agent})", "", "deterministic lane:"]
    width = max((len(r.id) for r in results), default=0)
    for r in results:
        dim = f"[{r.dimension}] " if r.dimension else ""
        out.append(f"  {_word(r.status.value, color)}  {r.id:<{width}}  {dim}{r.reason}")
    if doc.rubric.results:
        gated = "gated by --gate-judge" if doc.rubric.gated else "advisory, never in the exit code"
        out += ["", f"rubric lane ({gated}; deterministic: false):"]
        for rr in doc.rubric.results:
            who = " (authority: human)" if rr.authority == "human" else ""
            out.append(f"  {_word(rr.status.value, color)}  {rr.id}  {rr.reason}{who}")
    if doc.human is not None:
        out += ["", "human lane (signed labels):"]
        for label in doc.human.verified:
            out.append(
                f"  {label.verdict.upper():<12}  {label.assertion_id}  by "
                f"{label.reviewer} at {label.created_at} (authority: human)"
            )
        for refused in doc.human.refused:
            out.append(f"  REFUSED       {refused.source}  {refused.reason}")
    out += ["", "scorecard (pass / fail / inconclusive):"]
    for dim, t in doc.dimensions.items():
        row = f"  {dim:<13} {t.passed} / {t.failed} / {t.inconclusive}"
        out.append(row + (f"; {reliability_figures(t)}" if isinstance(t, ReliabilityRow) else ""))
        if dim == "reliability" and isinstance(t, ReliabilityRow):
            out += _reliability_notes(doc, t)
    out += ["", "success conditions:"]
    for name, value in doc.success.conditions.items():
        out.append(f"  {'holds ' if value else 'broken'}  {name}")
    for failed in doc.success.human_failures:
        out.append(f"  broken  {failed}: a person's signed label says FAIL")
    d, rb = doc.summary.deterministic, doc.summary.rubric
    out += [
        "",
        f"deterministic: {d.passed} pass, {d.failed} fail, {d.inconclusive} inconclusive",
        f"rubric (counted apart): {rb.passed} pass, {rb.failed} fail, "
        f"{rb.error} error, {rb.inconclusive} inconclusive",
        f"success: {'PASSED' if doc.success.passed else 'FAILED'}; "
        f"inconclusive policy {doc.inconclusive_policy.value}; exit {doc.exit_code}",
    ]
    art = doc.artifact
    if art is not None:
        if art.written:
            out.append(f"artifact: {art.path}")
        else:
            out.append(f"artifact: not written ({art.reason})")
    return printable("\n".join(out)) + "\n"


def trials_text(doc: TestRun, trials: list[TrialRow]) -> str:
    """One line per trial of a test graded over its recorded calls, then the success over all."""
    first = Path(trials[0].call).name
    lines = ["", f"trials (independent recorded calls; the lanes above are trial 1, {first}):"]
    for t in trials:
        s = t.summary
        lines.append(
            f"  {'PASSED' if t.passed else 'FAILED':<7} {Path(t.call).name}  "
            f"{s.passed} pass, {s.failed} fail, {s.inconclusive} inconclusive; "
            f"exit {t.exit_code}"
        )
    passes = sum(t.passed for t in trials)
    lines.append(
        f"success over {len(trials)} trial(s): "
        f"{'PASSED' if doc.success.passed else 'FAILED'} ({passes} of {len(trials)} passed); "
        f"exit {doc.exit_code}"
    )
    return "\n".join(lines) + "\n"


def reliability_figures(rel: ReliabilityRow) -> str:
    """pass@1, pass@k, pass^k and the Wilson interval, as one phrase."""
    k, ci = rel.k, rel.ci.wilson
    figures = f"pass@1 {rel.pass_at_1:.3f}"
    if k > 1:
        figures += f", pass@{k} {rel.pass_at_k:.3f}, pass^{k} {rel.pass_caret_k:.3f}"
    what = "independent trial(s)" if rel.independent_trials else "replay(s)"
    return f"{figures}, Wilson 95% [{ci.low:.3f}, {ci.high:.3f}] over n={rel.n} {what}"


def _reliability_notes(doc: TestRun, rel: ReliabilityRow) -> list[str]:
    out = []
    if rel.note and rel.n > 1:
        out.append(f"    note: {rel.note}")
    runs = doc.reliability.runs if doc.reliability is not None else []
    if len(runs) > 1:
        listed = ", ".join(
            f"{r.call or r.run}: {'pass' if r.passed else 'fail'}" for r in runs[:20]
        )
        out.append(f"    runs: {listed}" + (" ..." if len(runs) > 20 else ""))
    return out
