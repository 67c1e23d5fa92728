"""The report page as files: self-contained, escaped, byte-stable, its counts the JSON's, one row
per dimension the test reports, trials and suites, bound into artifacts. The browser tests
(test_browser.py) look at the same pages in chromium."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from tests.conftest import hotato
from tests.conversation.conftest import (
    DISCLOSED,
    NEVER_CANCELLED,
    RECORDED,
    REFUND,
    REFUND_RAN,
    evidence_args,
    write_call,
    write_test,
)
from tests.report.payloads import hostile_call
from tests.report.suite import make_suite, make_trials


class Tags(HTMLParser):
    """Every start tag with its attributes, and the page's text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    return tags


def check_statuses(page: str) -> list[str]:
    return [str(a["data-status"]) for t, a in parse(page).tags if t == "tr" and "data-status" in a]


def self_contained(page: str) -> None:
    tags = parse(page)
    assert not [t for t, _ in tags.tags if t in ("script", "iframe", "object", "embed", "link")]
    for _, attrs in tags.tags:
        for name in ("href", "src"):
            value = attrs.get(name)
            if value is not None:
                assert value.startswith(("#", "./", "../")), (name, value)
        assert not [a for a in attrs if a.startswith("on")], attrs  # no event handler attribute
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_the_demo_page(tmp_path: Path) -> None:
    ran = hotato("demo", "--html", str(tmp_path / "demo.html"))
    assert ran.code == 0, ran.err
    assert f"The report page is in {tmp_path / 'demo.html'}" in ran.out
    page = (tmp_path / "demo.html").read_text()
    self_contained(page)
    text = " ".join(parse(page).text)
    # the claim, the missing tool call, the row in the database
    assert "done, your refund for order A-3090 has been sent" in text
    assert "What did not hold" in text and "Not in the trace" in text
    assert "tool 'issue_refund' with arguments" in text
    assert '"refund_status": "none"' in text
    assert check_statuses(page) == ["PASS", "FAIL", "FAIL", "FAIL", "PASS"]


def test_the_page_is_byte_stable(tmp_path: Path) -> None:
    for name in ("a.html", "b.html"):
        assert hotato("demo", "--html", str(tmp_path / name)).code == 0
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()


def test_every_untrusted_field_is_escaped(tmp_path: Path) -> None:
    test, call = hostile_call(tmp_path)
    ran = hotato("test", "run", str(test), "--agent", "support-v3", *evidence_args(call),
                 "--format", "html")  # fmt: skip
    assert ran.code == 1, ran.err
    self_contained(ran.out)
    for raw in ("<script>window", "<img src=x", '<a id="js-link"', "<svg onload"):
        assert raw not in ran.out
    assert "&lt;script&gt;window.__hotato_pwned" in ran.out


def test_the_page_counts_equal_the_json(tmp_path: Path, good_call: Path) -> None:
    test = write_test(tmp_path / "t.json", [REFUND_RAN, NEVER_CANCELLED, RECORDED, DISCLOSED])
    args = [
        "test",
        "run",
        str(test),
        "--agent",
        "support-v3",
        *evidence_args(good_call, state=False),
    ]
    doc = json.loads(hotato(*args, "--format", "json").out)
    page = hotato(*args, "--format", "html").out
    statuses = check_statuses(page)
    counts = doc["summary"]["deterministic"]
    for status in ("PASS", "FAIL", "INCONCLUSIVE"):
        assert statuses.count(status) == counts[status.lower()]
    dims = [a["data-dimension"] for t, a in parse(page).tags if "data-dimension" in a]
    assert dims == list(doc["dimensions"])


def test_inconclusive_is_a_state_of_its_own(tmp_path: Path, good_call: Path) -> None:
    test = write_test(tmp_path / "t.json", [REFUND_RAN, RECORDED, DISCLOSED])
    page = hotato("test", "run", str(test), "--agent", "support-v3",
                  *evidence_args(good_call, state=False), "--format", "html").out  # fmt: skip
    row = re.search(r'<tr data-dimension="outcome">.*?</tr>', page, re.S)
    assert row is not None
    assert ">INCONCLUSIVE<" in row.group(0) and ">PASS<" not in row.group(0)
    assert "refund-recorded: " in row.group(0)  # the reason beside it


def test_a_dimension_left_out_is_left_out_everywhere(tmp_path: Path, good_call: Path) -> None:
    test = write_test(
        tmp_path / "t.json",
        [REFUND_RAN, DISCLOSED],
        success={"required": ["no_deterministic_fail"], "report_dimensions": ["outcome"]},
    )
    args = ["test", "run", str(test), "--agent", "support-v3", *evidence_args(good_call)]
    doc = json.loads(hotato(*args, "--format", "json").out)
    assert list(doc["dimensions"]) == ["outcome"]
    assert "reliability" not in doc
    text = hotato(*args).out
    assert "reliability" not in text and "pass@1" not in text
    assert "reliability" not in hotato(*args, "--format", "html").out
    assert "reliability" not in hotato(*args, "--format", "markdown").out.lower()


def test_reliability_figures_sit_in_the_reliability_dimension(
    tmp_path: Path, good_call: Path
) -> None:
    test = write_test(tmp_path / "t.json", [REFUND_RAN])
    args = ["test", "run", str(test), "--agent", "support-v3", *evidence_args(good_call)]
    doc = json.loads(hotato(*args, "--repetitions", "3", "--format", "json").out)
    rel = doc["dimensions"]["reliability"]
    assert (rel["n"], rel["pass_at_1"], rel["pass_caret_k"]) == (3, 1.0, 1.0)
    assert rel["ci"] == doc["reliability"]["aggregate"]["ci"]
    text = hotato(*args, "--repetitions", "3").out
    assert "  reliability   0 / 0 / 0; pass@1 1.000, pass@3 1.000, pass^3 1.000" in text
    assert "  replays " not in text


def test_trials_chart_and_strip(tmp_path: Path) -> None:
    test, trials = make_trials(tmp_path)
    args = ["test", "run", str(test), "--agent", "support-v3", "--trials", str(trials), "--k", "2"]
    doc = json.loads(hotato(*args, "--format", "json").out)
    page = hotato(*args, "--format", "html").out
    rel = doc["dimensions"]["reliability"]
    assert (rel["n"], rel["passes"], rel["independent_trials"]) == (3, 2, True)
    trial_rows = [a["data-trial"] for t, a in parse(page).tags if "data-trial" in a]
    assert trial_rows == ["t1", "t2", "t3"]
    strip = re.search(r'<ol class="strip".*?</ol>', page, re.S)
    assert strip is not None and strip.group(0).count("<li") == 3
    assert strip.group(0).count(">FAILED<") == 1
    assert '<svg class="chart" role="img"' in page
    assert "pass@2 1.000" in page and "pass^2 0.333" in page
    assert f"[{rel['ci']['wilson']['low']:.3f}, {rel['ci']['wilson']['high']:.3f}]" in page


def test_a_suite_page_links_each_test_and_its_artifact(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    out, html = tmp_path / "arts", tmp_path / "report.html"
    ran = hotato("test", "run", str(suite), "--agent", "support-v3", "--out", str(out),
                 "--html", str(html), "--created-at", "2026-01-01T00:00:00Z")  # fmt: skip
    assert ran.code == 1, ran.err
    assert ran.out.startswith("hotato test run: suite")  # the text output is unchanged
    page = html.read_text()
    self_contained(page)
    rows = [a["data-test"] for t, a in parse(page).tags if t == "tr" and "data-test" in a]
    assert rows == ["cancel", "refund"]  # failing tests first
    links = [a["href"] for t, a in parse(page).tags if t == "a"]
    assert "./arts/cancel/report.html" in links and "./arts/refund/report.html" in links
    for test_id in ("cancel", "refund"):
        manifest = json.loads((out / test_id / "conversation.json").read_text())
        assert manifest["artifacts"]["report"]["path"] == "report.html"
        assert hotato("conversation", "verify", str(out / test_id)).code == 0
    (out / "cancel" / "report.html").write_text("<p>edited</p>")
    assert hotato("conversation", "verify", str(out / "cancel")).code == 2


def test_no_page_no_report_in_the_artifact(tmp_path: Path, good_call: Path) -> None:
    test = write_test(tmp_path / "t.json", [REFUND_RAN])
    ran = hotato("test", "run", str(test), "--agent", "support-v3", *evidence_args(good_call),
                 "--out", str(tmp_path / "art"))  # fmt: skip
    assert ran.code == 0, ran.err
    assert (
        "report"
        not in json.loads((tmp_path / "art" / "conversation.json").read_text())["artifacts"]
    )


def test_assert_run_html_and_markdown(tmp_path: Path) -> None:
    assert hotato("demo", "--write", str(tmp_path / "d")).code == 0
    args = ["assert", "run", "--assertions", "assertions.yaml", "--trace", "trace.jsonl",
            "--transcript", "transcript.json", "--state", "orders.sqlite"]  # fmt: skip
    ran = hotato(*args, "--html", "page.html", cwd=tmp_path / "d")
    assert ran.code == 1 and ran.out.startswith("hotato assert run:")
    page = (tmp_path / "d" / "page.html").read_text()
    assert hotato(*args, "--format", "html", cwd=tmp_path / "d").out == page
    assert check_statuses(page).count("FAIL") == 3
    md = hotato(*args, "--format", "markdown", cwd=tmp_path / "d")
    assert md.code == 1
    lines = md.out.splitlines()
    assert lines[0] == "### hotato: assertions.yaml: **FAILED** (exit 1)"
    table = [line for line in lines if line.startswith("| ")][1:]
    assert [row.split(" | ")[0] for row in table] == ["| **FAIL**"] * 3 + ["| PASS"] * 2


def test_a_page_target_that_cannot_be_written_is_refused_first(tmp_path: Path) -> None:
    ran = hotato("demo", "--html", str(tmp_path))
    assert ran.code == 2 and "--html is a folder" in ran.err
    ran = hotato("demo", "--html", str(tmp_path / "no" / "p.html"))
    assert ran.code == 2 and "the folder that would hold --html does not exist" in ran.err
    suite = make_suite(tmp_path / "suite")
    ran = hotato("test", "run", str(suite), "--agent", "a", "--out", str(tmp_path / "arts"),
                 "--html", str(tmp_path / "no" / "p.html"))  # fmt: skip
    assert ran.code == 2
    assert not (tmp_path / "arts").exists()  # refused before anything was written


def _md(tmp_path: Path, spans: list[dict[str, Any]]) -> str:
    call = write_call(tmp_path / "call", spans=spans)
    test = write_test(tmp_path / "t.json", [NEVER_CANCELLED, REFUND_RAN, DISCLOSED])
    return hotato("test", "run", str(test), "--agent", "support-v3", *evidence_args(call),
                  "--format", "markdown").out  # fmt: skip


def test_markdown_puts_failing_checks_first(tmp_path: Path) -> None:
    out = _md(tmp_path, [REFUND])
    rows = [line for line in out.splitlines() if line.startswith("| **FAIL**") or
            line.startswith("| PASS")]  # fmt: skip
    assert rows[0].startswith("| **FAIL** | cancelled |")
    assert "| Dimension | Pass | Fail | Inconclusive | Figures |" in out
    assert "| reliability | 0 | 0 | 0 | pass@1 0.000, Wilson 95% [0.000, 0.793], n=1 |" in out


def test_markdown_escapes_what_a_call_says(tmp_path: Path) -> None:
    test, call = hostile_call(tmp_path)
    out = hotato("test", "run", str(test), "--agent", "support-v3", *evidence_args(call),
                 "--format", "markdown").out  # fmt: skip
    assert "<script" not in out and "<img" not in out and "<svg" not in out
    assert "&lt;script&gt;" in out
    for line in out.splitlines():
        if line.startswith("| "):
            assert line.count(" | ") == line.count("|") - 2 - line.count("\\|")


def test_the_readme_and_the_docs_show_the_demo_page() -> None:
    from tests.conftest import REPO

    shot = REPO / "docs" / "img" / "demo-report.png"
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert "(docs/img/demo-report.png)" in (REPO / "README.md").read_text()
    assert "(img/demo-report.png)" in (REPO / "docs" / "report.md").read_text()


def test_the_judge_and_human_lanes_have_shelves_of_their_own(tmp_path: Path) -> None:
    from tests.cli.test_signed_runs import TEST, _label
    from tests.conftest import CONFORMANCE

    call = CONFORMANCE / "fx-itc-zombie-assert-run"
    for name in ("trace.jsonl", "transcript.json"):
        (tmp_path / name).write_bytes((call / name).read_bytes())
    (tmp_path / "t.yaml").write_text(TEST)
    for who in ("me", "stranger"):
        assert hotato("label", "keygen", "--out", who, cwd=tmp_path).code == 0
    args = ["test", "run", "t.yaml", "--agent", "res-v1", "--transcript", "transcript.json",
            "--trace", "trace.jsonl"]  # fmt: skip
    assert hotato(*args, "--out", "art", cwd=tmp_path).code == 1
    _label(tmp_path, "landed", "pass", "me", "labels/landed.json")
    _label(tmp_path, "tone", "fail", "stranger", "labels/tone.json")
    ran = hotato(*args, "--labels", "labels", "--trust", "me/signing.pub", "--format", "html",
                 cwd=tmp_path)  # fmt: skip
    assert ran.code == 0, ran.err
    tags = parse(ran.out).tags
    lanes = [a["data-lane"] for t, a in tags if "data-lane" in a]
    assert lanes == ["judge", "human", "human-refused"]
    human = re.search(r'<li data-lane="human">.*?</li>', ran.out, re.S)
    assert human is not None and ">PASS<" in human.group(0) and "landed" in human.group(0)
    assert "by Ana" in human.group(0)
    # the person's word stands beside the check; the check itself stays INCONCLUSIVE
    assert 'data-status="INCONCLUSIVE"' in ran.out


def test_each_trial_artifact_binds_its_own_page(tmp_path: Path) -> None:
    test, trials = make_trials(tmp_path)
    out = tmp_path / "arts"
    ran = hotato("test", "run", str(test), "--agent", "support-v3", "--trials", str(trials),
                 "--out", str(out), "--html", str(tmp_path / "all.html"))  # fmt: skip
    assert ran.code == 1, ran.err
    for name in ("t1", "t2", "t3"):
        manifest = json.loads((out / name / "conversation.json").read_text())
        assert manifest["artifacts"]["report"]["path"] == "report.html"
    assert check_statuses((out / "t3" / "report.html").read_text()) == ["FAIL", "PASS"]


def test_each_claim_is_drawn_with_the_span_that_backs_it(tmp_path: Path, good_call: Path) -> None:
    said = {"id": "said-equals-done", "kind": "claims", "dimension": "outcome"}
    test = write_test(tmp_path / "t.json", [said])
    page = hotato("test", "run", str(test), "--agent", "support-v3",
                  *evidence_args(good_call, state=False), "--format", "html").out  # fmt: skip
    self_contained(page)
    table = re.search(r'<table class="claims">.*?</table>', page, re.S)
    assert table is not None, page
    rows = re.findall(r'<tr data-claim-status="(\w+)">(.*?)</tr>', table.group(0), re.S)
    assert rows and all(status == "PASS" for status, _ in rows)
    ids = {a.get("id") for _, a in parse(page).tags}
    links = re.findall(r'href="#([^"]+)"', table.group(0))
    assert any("t_" in link for link in links) and any("s_" in link for link in links)
    assert all(link in ids for link in links), (links, sorted(i for i in ids if i))
