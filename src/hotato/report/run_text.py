"""Text rendering of a test-run document: scorecard, conditions, lanes apart."""

from __future__ import annotations

from typing import Any

import click

from hotato.model.results import Result
from hotato.model.status import Status
from hotato.report._printable import printable
from hotato.report.text import COLORS


def _word(status: str, color: bool) -> str:
    word = f"{status:<12}"
    if color and status in Status.__members__:
        return click.style(word, fg=COLORS[Status(status)], bold=True)
    return word


def render(doc: dict[str, Any], results: list[Result], color: bool = False) -> str:
    out = [f"hotato test run: {doc['test_id']} (agent {doc['agent']})", "", "deterministic lane:"]
    width = max((len(r.id) for r in results), default=0)
    for r in results:
        dim = f"[{r.dimension}] " if r.dimension else ""
        out.append(f"  {_word(r.status.value, color)}  {r.id:<{width}}  {dim}{r.reason}")
    if doc["rubric"]["results"]:
        gated = (
            "gated by --gate-judge"
            if doc["rubric"]["gated"]
            else "advisory, never in the exit code"
        )
        out += ["", f"rubric lane ({gated}; deterministic: false):"]
        for r in doc["rubric"]["results"]:
            who = " (authority: human)" if r.get("authority") == "human" else ""
            out.append(f"  {_word(r['status'], color)}  {r['id']}  {r.get('reason', '')}{who}")
    human = doc.get("human")
    if human:
        out += ["", "human lane (signed labels):"]
        for label in human.get("verified", []):
            out.append(
                f"  {label['verdict'].upper():<12}  {label['assertion_id']}  by "
                f"{label['reviewer']} at {label['created_at']} (authority: human)"
            )
        for refused in human.get("refused", []):
            out.append(f"  REFUSED       {refused.get('source', '?')}  {refused.get('reason', '')}")
    out += ["", "scorecard (pass / fail / inconclusive):"]
    for dim, t in doc["dimensions"].items():
        row = f"  {dim:<13} {t['pass']} / {t['fail']} / {t['inconclusive']}"
        out.append(row + (f"; {reliability_figures(t)}" if "pass_at_1" in t else ""))
        if dim == "reliability":
            out += _reliability_notes(doc, t)
    out += ["", "success conditions:"]
    for name, value in doc["success"]["conditions"].items():
        out.append(f"  {'holds ' if value else 'broken'}  {name}")
    for failed in doc["success"].get("human_failures", []):
        out.append(f"  broken  {failed}: a person's signed label says FAIL")
    s = doc["summary"]
    d, rb = s["deterministic"], s["rubric"]
    out += [
        "",
        f"deterministic: {d['pass']} pass, {d['fail']} fail, {d['inconclusive']} inconclusive",
        f"rubric (counted apart): {rb.get('pass', 0)} pass, {rb.get('fail', 0)} fail, "
        f"{rb.get('error', 0)} error, {rb.get('inconclusive', 0)} inconclusive",
        f"success: {'PASSED' if doc['success']['passed'] else 'FAILED'}; "
        f"inconclusive policy {doc['inconclusive_policy']}; exit {doc['exit_code']}",
    ]
    if "artifact" in doc:
        art = doc["artifact"]
        if art.get("written", True):
            out.append(f"artifact: {art['path']}")
        else:
            out.append(f"artifact: not written ({art['reason']})")
    return printable("\n".join(out)) + "\n"


def reliability_figures(rel: dict[str, Any]) -> str:
    """pass@1, pass@k, pass^k and the Wilson interval, as one phrase."""
    k, ci = rel["k"], rel["ci"]["wilson"]
    figures = f"pass@1 {rel['pass_at_1']:.3f}"
    if k > 1:
        figures += f", pass@{k} {rel['pass_at_k']:.3f}, pass^{k} {rel['pass_caret_k']:.3f}"
    what = "independent trial(s)" if rel.get("independent_trials") else "replay(s)"
    return f"{figures}, Wilson 95% [{ci['low']:.3f}, {ci['high']:.3f}] over n={rel['n']} {what}"


def _reliability_notes(doc: dict[str, Any], rel: dict[str, Any]) -> list[str]:
    out = []
    if rel.get("note") and rel["n"] > 1:
        out.append(f"    note: {rel['note']}")
    runs = doc.get("reliability", {}).get("runs", [])
    if len(runs) > 1:
        listed = ", ".join(
            f"{r.get('call', r['run'])}: {'pass' if r['passed'] else 'fail'}" for r in runs[:20]
        )
        out.append(f"    runs: {listed}" + (" ..." if len(runs) > 20 else ""))
    return out
