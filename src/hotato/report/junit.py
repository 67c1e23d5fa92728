"""JUnit XML for CI: one testcase per assertion; INCONCLUSIVE is skipped, with its reason."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hotato.model.results import Result
from hotato.model.status import Status


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
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
