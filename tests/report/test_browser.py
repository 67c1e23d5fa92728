"""The page in a real browser (Debian's chromium, headless): nothing an untrusted call holds
runs, the page loads nothing from the network and logs no error, and what it shows counts the
same as the JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import hotato
from tests.conversation.conftest import evidence_args
from tests.report.payloads import hostile_call
from tests.report.suite import make_suite, make_trials

pytestmark = pytest.mark.services("chromium")


@dataclass
class Opened:
    page: Any
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


def open_page(browser: Any, path: Path) -> Opened:
    page = browser.new_page()
    opened = Opened(page)
    page.on("console", lambda m: opened.console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: opened.errors.append(str(e)))
    page.on("dialog", lambda d: (opened.dialogs.append(d.message), d.dismiss()))
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    return opened


def count(page: Any, status: str) -> int:
    return int(page.locator(f'table.checks tr[data-status="{status}"]').count())


def clean(opened: Opened, browser: Any) -> None:
    assert opened.console == [] and opened.errors == [] and opened.dialogs == []
    assert browser.egress == []


def test_nothing_a_call_holds_runs(browser: Any, tmp_path: Path) -> None:
    test, call = hostile_call(tmp_path)
    page_file = tmp_path / "hostile.html"
    ran = hotato("test", "run", str(test), "--agent", "support-v3", *evidence_args(call),
                 "--html", str(page_file))  # fmt: skip
    assert ran.code == 1, ran.err
    opened = open_page(browser, page_file)
    page = opened.page
    # click everything clickable: a live javascript: link would set the flag now
    for link in page.locator("a").all():
        link.click()
    for summary in page.locator("summary").all():
        summary.click()
    assert page.evaluate("typeof window.__hotato_pwned") == "undefined"
    assert page.evaluate("document.scripts.length") == 0
    assert page.locator("#js-link, img, [onerror], [onload], svg[onload]").count() == 0
    assert "<script>window.__hotato_pwned = 'script'</script>" in page.inner_text("body")
    clean(opened, browser)
    page.close()


def test_the_demo_page_counts_equal_the_json(browser: Any, tmp_path: Path) -> None:
    html = tmp_path / "demo.html"
    assert hotato("demo", "--html", str(html)).code == 0
    doc = json.loads(hotato("demo", "--format", "json").out)
    opened = open_page(browser, html)
    page = opened.page
    for status in ("PASS", "FAIL", "INCONCLUSIVE"):
        assert count(page, status) == doc["summary"]["deterministic"][status.lower()]
    assert page.get_by_role("heading", name="What did not hold").is_visible()
    assert "has been sent" in page.locator("#c0-t_3 td.said").inner_text()
    page.screenshot(path=str(tmp_path / "demo.png"))
    assert (tmp_path / "demo.png").stat().st_size > 10_000
    page.emulate_media(media="print")
    assert page.get_by_text("Not in the trace").is_visible()
    clean(opened, browser)
    page.close()


def test_trials_and_suite_pages_render_cleanly(browser: Any, tmp_path: Path) -> None:
    test, trials = make_trials(tmp_path)
    trials_html, suite_html = tmp_path / "trials.html", tmp_path / "suite.html"
    args = ["test", "run", str(test), "--agent", "support-v3", "--trials", str(trials)]
    doc = json.loads(hotato(*args, "--format", "json", "--html", str(trials_html)).out)
    opened = open_page(browser, trials_html)
    strip = opened.page.locator("ol.strip li")
    assert strip.count() == doc["dimensions"]["reliability"]["n"] == 3
    assert opened.page.locator("svg.chart").is_visible()
    clean(opened, browser)
    opened.page.close()

    suite = make_suite(tmp_path / "suite")
    ran = hotato("test", "run", str(suite), "--agent", "support-v3", "--format", "json",
                 "--html", str(suite_html), "--out", str(tmp_path / "arts"))  # fmt: skip
    suite_doc = json.loads(ran.out)
    opened = open_page(browser, suite_html)
    rows = opened.page.locator("section.suite tbody tr")
    assert rows.count() == len(suite_doc["tests"])
    opened.page.locator("section.suite a", has_text="report.html").first.click()
    opened.page.wait_for_load_state("load")
    assert opened.page.url.endswith("/arts/cancel/report.html")
    assert count(opened.page, "FAIL") == 1
    clean(opened, browser)
    opened.page.close()
