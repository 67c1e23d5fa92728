"""JUnit XML for CI: one testcase per assertion; INCONCLUSIVE is skipped, with its reason."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hotato.model.reports import HumanLabels
from hotato.model.results import Result
from hotato.model.rubric import RubricResult
from hotato.model.status import Status
from hotato.report._printable import printable


def suite(name: str, results: list[Result]) -> ET.Element:
    el = ET.Element(
        "testsuite",
        {
            "name": name,
            "tests": str(len(results)),
            "failures": str(sum(r.status is Status.FAIL for r in results)),
            "skipped": str(sum(r.status is Status.INCONCLUSIVE for r in results)),
            "errors": "0",
        },
    )
    for r in results:
        case = ET.SubElement(el, "testcase", {"classname": f"{name}.{r.kind}", "name": r.id})
        lane = "" if r.deterministic else "judge lane (advisory): "
        if r.status is Status.FAIL:
            ET.SubElement(case, "failure", {"message": lane + r.reason, "type": "FAIL"})
        elif r.status is Status.INCONCLUSIVE:
            ET.SubElement(case, "skipped", {"message": "INCONCLUSIVE: " + lane + r.reason})
    return el


def render(suites: list[ET.Element]) -> str:
    root = ET.Element("testsuites")
    root.extend(suites)
    for el in root.iter():  # evidence text may hold control characters XML cannot carry
        el.attrib = {k: printable(v) for k, v in el.attrib.items()}
        if el.text:
            el.text = printable(el.text)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def rubric_suite(name: str, results: list[RubricResult], gated: bool) -> ET.Element:
    """The rubric lane on its own suite. Advisory unless gated: then a FAIL is a failure and a
    judge ERROR an error; otherwise every verdict is reported as skipped, so CI never fails on
    a model's opinion the user did not opt into."""
    el = ET.Element("testsuite", {"name": f"{name}.rubric", "tests": str(len(results))})
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    for r in results:
        case = ET.SubElement(
            el,
            "testcase",
            {"classname": f"{name}.rubric.{r.kind}", "name": r.id},
        )
        status, reason = r.status.value, r.reason
        if gated and status == "FAIL":
            ET.SubElement(case, "failure", {"message": reason, "type": "FAIL"})
            counts["failures"] += 1
        elif gated and status == "ERROR":
            ET.SubElement(case, "error", {"message": reason, "type": "ERROR"})
            counts["errors"] += 1
        elif status != "PASS" or not gated:
            ET.SubElement(
                case,
                "skipped",
                {
                    "message": f"{status} (rubric lane, "
                    f"{'gated' if gated else 'advisory'}): {reason}"
                },
            )
            counts["skipped"] += 1
    for key, value in counts.items():
        el.set(key, str(value))
    return el


def human_suite(name: str, lane: HumanLabels) -> ET.Element:
    """Signed human labels: each verified label a testcase naming its verdict, reviewer and
    time; refused labels skipped with the reason. Labels never rewrite a deterministic result."""
    verified, refused = lane.verified, lane.refused
    el = ET.Element(
        "testsuite",
        {
            "name": f"{name}.human",
            "tests": str(len(verified) + len(refused)),
            "failures": str(sum(label.verdict == "fail" for label in verified)),
            "errors": "0",
            "skipped": str(len(refused)),
        },
    )
    for label in verified:
        case = ET.SubElement(
            el, "testcase", {"classname": f"{name}.human", "name": label.assertion_id}
        )
        said = (
            f"human label: {label.verdict} by {label.reviewer} at "
            f"{label.created_at} (key {label.key_id})"
        )
        if label.verdict == "fail":  # a person's FAIL is a failure, never a pass
            ET.SubElement(case, "failure", {"message": said, "type": "FAIL"})
        out = ET.SubElement(case, "system-out")
        out.text = said
    for refusal in refused:
        case = ET.SubElement(el, "testcase", {"classname": f"{name}.human", "name": refusal.path})
        ET.SubElement(case, "skipped", {"message": f"refused label: {refusal.reason}"})
    return el
