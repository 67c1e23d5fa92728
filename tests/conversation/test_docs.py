"""docs/conversation-tests.md is executable: every command shown runs, in order, in an empty
folder, with the exit code its `# exit N` comment gives (none: 0), and every output line shown
appears in what it printed, in order (`...` marks lines left out).

Conventions the document follows:
- commands live in ```console blocks, after `$ `; a line ending in `\\` continues the command;
- `<!-- file: PATH -->` before a block: the block is that file's content, written before the
  commands after it run;
- `<!-- written: PATH -->` before a block: the block is exactly what earlier commands wrote there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import REPO
from tests.docrun import commands, in_order, parse, run_page

DOC = REPO / "docs" / "conversation-tests.md"

STEPS = parse(DOC.read_text()) if DOC.exists() else []


def test_the_document_covers_the_walkthrough() -> None:
    text = "\n".join(c.text for c in commands(STEPS))
    for needed in (
        "hotato scenario init",
        "hotato scenario validate",
        "hotato test run refund.yaml",
        "--trials",
        "--repetitions",
        "hotato test run suite",
        "--out conv-artifact",
        "hotato conversation verify",
    ):
        assert needed in text, needed
    commands_ = commands(STEPS)
    assert len(commands_) >= 20
    assert {c.exit for c in commands_} == {0, 1, 2}
    assert sum(bool(c.expected) for c in commands_) >= 15  # outputs are shown, and so checked


def test_the_output_matcher() -> None:
    printed = "a\nb\nc\n"
    assert in_order(["a", "...", "c"], printed) is None
    assert in_order(["c", "a"], printed) == "a"  # order matters
    assert in_order(["b", "d"], printed) == "d"


@pytest.mark.slow  # runs every command of the page in a shell
def test_every_command_in_the_document_works(tmp_path: Path) -> None:
    run_page(DOC, STEPS, tmp_path)
