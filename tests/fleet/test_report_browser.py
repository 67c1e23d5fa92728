"""`hotato fleet report --html`: the page in a real headless chromium (Debian's, driven by
Playwright; no browser is downloaded). Its numbers equal `hotato fleet summary`'s, its filters
regroup them, and call text cannot run as script."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import hotato
from tests.fleet.conftest import make_fleet

from hotato.fleet.grade import FleetRequest, grade_fleet

pytestmark = [pytest.mark.services("chromium"), pytest.mark.slow]

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PAYLOAD = "<script>window.pwned=1</script><img src=x onerror=window.pwned=2>"


@pytest.fixture(scope="module")
def page_and_results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    import shutil

    from playwright.sync_api import sync_playwright

    root = tmp_path_factory.mktemp("report")
    fleet = make_fleet(root / "fleet", calls=12)
    rows = fleet.rows()
    rows[0]["call_id"] = PAYLOAD  # untrusted text in an id and (below) an agent
    rows[2]["agent"] = PAYLOAD
    fleet.manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = root / "r"
    grade_fleet(
        FleetRequest(
            calls=str(fleet.manifest),
            out=str(out),
            assertions=str(fleet.assertions),
            state=str(fleet.state),
            workers=1,
        )
    )
    html = root / "report.html"
    ran = hotato("fleet", "report", str(out), "--html", str(html))
    assert ran.code == 0, ran.err
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=FLAGS)
        context = browser.new_context(offline=True)
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(html.as_uri())
        page.errors = errors
        yield page, out
        browser.close()


def table(page: Any) -> dict[str, list[str]]:
    rows = page.eval_on_selector_all(
        "#rates tbody tr",
        "rows => rows.map(r => [r.dataset.assertion, ...[...r.cells].slice(1, 7)"
        ".map(c => c.textContent)])",
    )
    return {r[0]: r[1:] for r in rows}


def expected(rates: list[dict[str, Any]]) -> dict[str, list[str]]:
    def num(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    return {
        r["assertion_id"]: [
            str(r["n"]),
            str(r["passed"]),
            str(r["failed"]),
            str(r["inconclusive"]),
            num(r["rate"]),
            "-" if r["low"] is None else f"[{num(r['low'])}, {num(r['high'])}]",
        ]
        for r in rates
    }


def summary(out: Path, *flags: str) -> dict[str, Any]:
    ran = hotato("fleet", "summary", str(out), "--format", "json", *flags)
    assert ran.code == 0
    return json.loads(ran.out)


def test_the_page_shows_the_summary_numbers(page_and_results: tuple[Any, Path]) -> None:
    page, out = page_and_results
    doc = summary(out)
    assert table(page) == expected(doc["rates"])
    assert page.text_content("#calls") == "12 call(s): 12 graded, 0 refused."
    assert page.errors == []


def test_filtering_by_agent_gives_the_per_agent_summary(page_and_results: tuple[Any, Path]) -> None:
    page, out = page_and_results
    page.select_option("#agent", "v2")
    by_agent = [r for r in summary(out, "--by", "agent")["rates"] if r["group"] == "v2"]
    assert table(page) == expected(by_agent)
    hidden = page.eval_on_selector_all(
        "#failing tbody tr", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.agent)"
    )
    assert hidden and set(hidden) == {"v2"}
    page.select_option("#agent", "")
    assert table(page) == expected(summary(out)["rates"])


def test_call_text_is_shown_never_run(page_and_results: tuple[Any, Path]) -> None:
    page, _ = page_and_results
    assert page.evaluate("window.pwned") is None
    cells = page.eval_on_selector_all("#failing td", "cells => cells.map(c => c.textContent)")
    assert PAYLOAD in cells
    assert page.errors == []
