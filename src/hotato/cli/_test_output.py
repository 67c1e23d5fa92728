"""How `hotato test run` shows a conversation outcome: text, JSON or JUnit XML."""

from __future__ import annotations

from pathlib import Path

from hotato.runs.outcome import ConversationOutcome, Graded


def render(fmt: str, outcome: ConversationOutcome, color: bool) -> str:
    if fmt == "json":
        return outcome.to_json()
    if fmt == "junit":
        return junit_text(outcome.items)
    if fmt == "markdown":
        from hotato.report import markdown

        if outcome.suite is not None:
            named = [(g.name, g.document) for g in outcome.items]
            return markdown.suite(named, str(outcome.suite), outcome.exit_code)
        first = outcome.items[0].document
        return markdown.call(first, first.test_id)
    if outcome.suite is not None:
        return _suite_text(outcome.suite, outcome)
    from hotato.report.run_text import render as render_run
    from hotato.report.run_text import trials_text

    doc = outcome.items[0].document
    text = render_run(doc, outcome.run.results, color)
    if doc.trials is not None:
        text += trials_text(doc, doc.trials)
    return text


def _suite_text(folder: Path, outcome: ConversationOutcome) -> str:
    items = outcome.items
    failed = [g for g in items if not g.run.passed]
    lines = [f"hotato test run: suite {folder} ({len(items)} test(s))", ""]
    for g in items:
        t = g.run.tally
        lines.append(
            f"  {'PASSED' if g.run.passed else 'FAILED':<7} {g.name}  "
            f"{t.passed} pass, {t.failed} fail, {t.inconclusive} inconclusive; "
            f"exit {g.document.exit_code}"
        )
    code = outcome.exit_code
    lines += ["", f"suite: {len(items) - len(failed)} passed, {len(failed)} failed; exit {code}"]
    return "\n".join(lines) + "\n"


def junit_text(items: list[Graded]) -> str:
    """One testsuite per test (or trial): its deterministic results, plus a `success` testcase
    that fails when a required condition broke, so CI sees a failed test even when no single
    assertion FAILed (say an INCONCLUSIVE under `no_inconclusive`)."""
    import xml.etree.ElementTree as ET

    from hotato.report import junit

    suites = []
    for g in items:
        name, run = g.name, g.run
        el = junit.suite(name, run.results)
        case = ET.SubElement(el, "testcase", {"classname": f"{name}.success", "name": "success"})
        if not run.passed:
            broken = [c for c, ok in run.conditions.items() if not ok]
            ET.SubElement(
                case,
                "failure",
                {"message": "required condition(s) broken: " + ", ".join(broken), "type": "FAIL"},
            )
            el.set("failures", str(int(el.get("failures", "0")) + 1))
        el.set("tests", str(int(el.get("tests", "0")) + 1))
        suites.append(el)
        if run.rubric:
            suites.append(junit.rubric_suite(name, run.rubric, run.gate_judge))
        if run.labels:
            suites.append(junit.human_suite(name, run.labels))
    return junit.render(suites)


def check_junit(path: str | None) -> None:
    """Refuse a --junit that cannot be written before anything runs or is written."""
    from hotato.cli._pages import check_target

    check_target(path, "--junit")


def write_junit(path: str | None, items: list[Graded]) -> None:
    if path is None:
        return
    from hotato._io import write_atomic

    write_atomic(path, junit_text(items).encode())
