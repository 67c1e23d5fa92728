"""What hotato writes where people read it is safe to show. Markdown for a pull request or a job
summary never @mentions, never links a bare URL or e-mail address; the GitHub Action's summary
keeps a refusal inside its code fence whatever the file names in it hold; fleet summaries, fleet
diffs and refusal messages never send a raw terminal escape."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import REPO, hotato
from tests.conversation.conftest import REFUND_RAN, write_call, write_test

HOSTILE = (
    "ping @octo-org/admins and &#64;everyone, see https://evil.example/x, HTTP://EVIL.example, "
    "www.evil.example or mail bob@example.com"
)
ESC = "\x1b]0;owned\x07\x1b[2J"


def assert_inert(markdown: str) -> None:
    """Nothing GitHub would turn into a mention or a link."""
    assert not re.search(r"@[A-Za-z0-9]", markdown), markdown
    assert "&#64;" not in markdown.replace("&amp;#64;", "")
    assert not re.search(r"(?i)[a-z]://|www\.", markdown), markdown


def test_markdown_never_mentions_or_links(tmp_path: Path) -> None:
    from hotato.report.markdown import cell

    assert_inert(cell(HOSTILE))
    suite = tmp_path / HOSTILE.replace("/", "|")
    write_test(suite / "t.json", [REFUND_RAN], test_id="refund")
    write_call(suite / "t")
    ran = hotato("test", "run", str(suite), "--agent", "a", "--format", "markdown")
    assert ran.code == 0, ran.err
    assert_inert(ran.out)
    assert "evil" in ran.out  # shown, as text


def test_the_action_summary_keeps_a_refusal_inside_its_fence(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    name = "t\n```\n<img src=x onerror=alert(1)> @octo-org/admins\n````.yaml"
    (suite / name).parent.mkdir(parents=True)
    (suite / name).write_text("kind: hotato.conversation-test\nversion: 1\nid: [\n")
    runner = tmp_path / "runner"
    runner.mkdir()
    env = {
        **os.environ,
        "HOTATO_SUITE": str(suite),
        "HOTATO_AGENT": "a",
        "RUNNER_TEMP": str(runner),
        "GITHUB_STEP_SUMMARY": str(runner / "summary"),
        "GITHUB_OUTPUT": str(runner / "output"),
        "HOTATO_BIN": str(Path(sys.executable).parent / "hotato"),
    }
    subprocess.run(
        ["bash", str(REPO / "scripts" / "ci" / "github-action.sh")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert "exit-code=2" in (runner / "output").read_text()
    lines = (runner / "summary").read_text().splitlines()
    opening = next(i for i, line in enumerate(lines) if line.startswith("```"))
    fence = lines[opening].removesuffix("text")
    closing = next(i for i in range(opening + 1, len(lines)) if lines[i].strip() == fence)
    inside = "\n".join(lines[opening + 1 : closing])
    assert "<img" in inside and "onerror" in inside  # the hostile name is there, as text
    assert all(not re.match(r" {0,3}`{3,}\s*$", line) for line in lines[opening + 1 : closing])
    assert all(not line.strip() for line in lines[closing + 1 :])


def test_fleet_summary_and_diff_never_send_a_terminal_escape(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from tests.fleet.conftest import make_fleet

    fleet = make_fleet(tmp_path / "fleet", calls=2)
    rows = fleet.rows()
    for row in rows:
        row["call_id"] += ESC
        row["agent"] = f"agent{ESC}"
    fleet.manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    outs = []
    for name in ("before", "after"):
        text = fleet.assertions.read_text()
        if name == "after":  # the phrase check now fails where it passed: calls change
            text = text.replace('regex: "refund .*(sent|issued)"', 'regex: "never said"')
        assertions = tmp_path / f"{name}.yaml"
        assertions.write_text(text)
        out = tmp_path / name
        ran = hotato(
            "fleet", "grade", str(fleet.manifest), "--assertions", str(assertions),
            "--out", str(out), "--workers", "1", "--quiet",
        )  # fmt: skip
        assert ran.code in (0, 1), ran.err
        outs.append(out)
    shown = [
        hotato("fleet", "summary", str(outs[0]), "--by", "agent"),
        hotato("fleet", "diff", str(outs[0]), str(outs[1])),
    ]
    for ran in shown:
        assert ran.code in (0, 1), ran.err
        assert "\x1b" not in ran.out and "\x07" not in ran.out
        assert "\\x1b" in ran.out  # shown as a visible escape


def test_a_refusal_naming_a_file_never_sends_a_terminal_escape(tmp_path: Path) -> None:
    name = f"assertions{ESC}\n.yaml"
    ran = hotato("assert", "run", "--assertions", str(tmp_path / name))
    assert ran.code == 2
    assert "\x1b" not in ran.err and "\x07" not in ran.err
    assert "\\x1b" in ran.err and len(ran.err.strip().splitlines()) == 2
    (tmp_path / "bad").mkdir()
    ran = hotato("trace", "sign", str(tmp_path / "bad"), "--key", str(tmp_path / f"k{ESC}"))
    assert ran.code == 2 and "\x1b" not in ran.err, ran.err
