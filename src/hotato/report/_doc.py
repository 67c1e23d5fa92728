"""Reading the two documents the page and the Markdown summary are made from: a
`hotato.test-run` document, or the `assert.v1` envelope of `assert run`."""

from __future__ import annotations

from typing import Any

Lanes = tuple[list[dict[str, Any]], list[dict[str, Any]]]


def lanes(doc: dict[str, Any]) -> Lanes:
    """The deterministic results, and the judge's (the rubric lane), from either shape."""
    if doc.get("kind") == "hotato.test-run":
        return list(doc["assertions"]["results"]), list(doc["rubric"]["results"])
    results = doc["results"]
    judged = [r for r in results if not r["deterministic"]]
    return [r for r in results if r["deterministic"]], judged


def verdict(doc: dict[str, Any]) -> str:
    """REFUSED (exit 2), else PASSED or FAILED: a test's success, or a run's exit code."""
    if doc["exit_code"] == 2:
        return "REFUSED"
    success = doc.get("success")
    ok = success["passed"] if success else doc["exit_code"] == 0
    return "PASSED" if ok else "FAILED"
