"""A compact Markdown summary for a pull-request comment or a CI job summary.

Failing checks come first. Every cell is escaped: a call's text cannot open a link, an HTML tag,
a table cell or an @mention in the comment it lands in. GitHub decodes an entity before it looks
for mentions (`&#64;team` still pings the team) and links bare URLs, `www.` names and e-mail
addresses by itself, so those are broken with an invisible WORD JOINER (U+2060) after the `@`,
inside `://` and after `www`: the text reads the same and is never a mention or a link.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hotato.model.reports import ReliabilityRow, TestRun
from hotato.model.results import Result
from hotato.model.rubric import RubricResult
from hotato.report._doc import Graded, lanes, verdict
from hotato.report._printable import printable

RANK = {"FAIL": 0, "ERROR": 0, "INCONCLUSIVE": 1, "PASS": 2}
_ESCAPES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "|": "\\|",
    "\\": "\\\\",
    "`": "\\`",
    "*": "\\*",
    "_": "\\_",
    "[": "\\[",
    "]": "\\]",
    "@": "@\u2060",  # an e-mail address or a mention, broken (see above)
    "\r": " ",
    "\n": " ",
}
MAX_CELL = 300


_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(:)(//)|\b(www)(\.)", re.IGNORECASE)  # GitHub's bare-link triggers


def cell(text: object) -> str:
    value = printable(str(text))
    if len(value) > MAX_CELL:
        value = value[: MAX_CELL - 1] + "…"
    escaped = "".join(_ESCAPES.get(ch, ch) for ch in value)
    return _AUTOLINK.sub(lambda m: _JOINER.join(g for g in m.groups() if g), escaped)


def _counts(doc: Graded) -> str:
    d = doc.summary.deterministic
    return f"{d.passed} pass, {d.failed} fail, {d.inconclusive} inconclusive"


def _checks_table(
    results: Sequence[Result | RubricResult], only_failing: bool = False
) -> list[str]:
    rows = sorted(results, key=lambda r: RANK.get(r.status, 1))  # stable: document order
    if only_failing:
        rows = [r for r in rows if r.status != "PASS"]
    if not rows:
        return []
    out = ["| Status | Check | Kind | Reason |", "|---|---|---|---|"]
    for r in rows:
        status = r.status.value if r.status == "PASS" else f"**{r.status.value}**"
        out.append(f"| {status} | {cell(r.id)} | {cell(r.kind)} | {cell(r.reason)} |")
    return out


def _scorecard(doc: Graded) -> list[str]:
    dims = doc.dimensions if isinstance(doc, TestRun) else {}
    if not dims:
        return []
    out = ["", "| Dimension | Pass | Fail | Inconclusive | Figures |", "|---|---|---|---|---|"]
    for name, t in dims.items():
        figures = ""
        if isinstance(t, ReliabilityRow):
            ci = t.ci.wilson
            figures = f"pass@1 {t.pass_at_1:.3f}"
            if t.k > 1:
                figures += f", pass@{t.k} {t.pass_at_k:.3f}, pass^{t.k} {t.pass_caret_k:.3f}"
            figures += f", Wilson 95% [{ci.low:.3f}, {ci.high:.3f}], n={t.n}"
        out.append(f"| {cell(name)} | {t.passed} | {t.failed} | {t.inconclusive} | {figures} |")
    return out


def call(doc: Graded, title: str) -> str:
    """One call (or one test over its trials)."""
    deterministic, judge = lanes(doc)
    out = [
        f"### hotato: {cell(title)}: **{verdict(doc)}** (exit {doc.exit_code})",
        "",
        f"Deterministic lane: {_counts(doc)}; inconclusive policy "
        f"`{doc.inconclusive_policy.value}`. No overall score.",
        "",
    ]
    out += _checks_table(deterministic)
    out += _scorecard(doc)
    trials = (doc.trials if isinstance(doc, TestRun) else None) or []
    if trials:
        passed = sum(t.passed for t in trials)
        out += ["", f"Trials: {passed} of {len(trials)} passed."]
    if judge:
        j = {s: sum(r.status == s for r in judge) for s in ("PASS", "FAIL", "INCONCLUSIVE")}
        out += [
            "",
            f"Judge lane (advisory, counted apart): {j['PASS']} pass, {j['FAIL']} fail, "
            f"{j['INCONCLUSIVE']} inconclusive.",
        ]
    return "\n".join(out) + "\n"


def suite(docs: list[tuple[str, TestRun]], title: str, exit_code: int) -> str:
    """A suite: one row per test (failing tests first), then the failing checks of each."""
    ranked = sorted(docs, key=lambda d: {"REFUSED": 0, "FAILED": 1}.get(verdict(d[1]), 2))
    failed = sum(verdict(d) != "PASSED" for _, d in docs)
    out = [
        f"### hotato suite: {cell(title)}: **{'FAILED' if failed else 'PASSED'}** "
        f"(exit {exit_code})",
        "",
        f"{len(docs) - failed} passed, {failed} failed.",
        "",
        "| Test | Result | Pass | Fail | Inconclusive |",
        "|---|---|---|---|---|",
    ]
    for name, doc in ranked:
        d = doc.summary.deterministic
        word = verdict(doc)
        shown = word if word == "PASSED" else f"**{word}**"
        out.append(f"| {cell(name)} | {shown} | {d.passed} | {d.failed} | {d.inconclusive} |")
    for name, doc in ranked:
        if verdict(doc) == "PASSED":
            continue
        table = _checks_table(lanes(doc)[0], only_failing=True)
        if table:
            out += ["", f"#### {cell(name)}", "", *table]
    return "\n".join(out) + "\n"
