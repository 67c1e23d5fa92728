"""JUnit XML: one testsuite per call or test, for CI test reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotato.cli.renderers import CallView, OutcomeView, Renderer

if TYPE_CHECKING:
    from hotato.runs.outcome import Graded


def call(view: CallView) -> str:
    from hotato.report import junit

    results = view.graded.outcome.results
    return junit.render([junit.suite(view.assertions_path, results)])


def outcome(view: OutcomeView) -> str:
    return junit_text(view.outcome.items)


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


JUNIT = Renderer(call, outcome)
