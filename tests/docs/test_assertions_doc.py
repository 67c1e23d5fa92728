"""docs/assertions.md is executable: its files are written, its commands run in order in an
empty folder with the exit code their `# exit N` comment gives (none: 0), and every output line
shown is printed, in order (`...` marks lines left out; a shown line ending in `...` matches a
printed line that starts with the rest).

The page's conventions (the same as docs/conversation-tests.md):
- commands live in ```console blocks after `$ `; a line ending in `\\` continues the command;
- `<!-- file: PATH -->` before a block: that file's content, written before the next command;
- `<!-- written: PATH -->` before a block: exactly what earlier commands wrote there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import REPO
from tests.docrun import commands, in_order, parse, run_page

DOC = REPO / "docs" / "assertions.md"

STEPS = parse(DOC.read_text(encoding="utf-8"))


def test_the_matcher() -> None:
    assert in_order(["a", "...", "c"], "a\nb\nc\n") is None
    assert in_order(["c", "a"], "a\nb\nc\n") == "a"
    assert in_order(["  FAIL   x ..."], "  FAIL   x because\n") is None


def test_the_page_covers_the_assertion_file() -> None:
    shown = commands(STEPS)
    text = "\n".join(c.text for c in shown)
    for needed in (
        "hotato assert run",
        "--inconclusive-policy",
        "--format json",
        "--format junit",
        "--pack",
        "hotato assert packs",
        "hotato assert init",
    ):
        assert needed in text, needed
    assert {c.exit for c in shown} == {0, 1, 2}
    assert all(c.expected for c in shown), "every command shows what it prints"


@pytest.mark.slow  # runs every command of the page in a shell
def test_every_command_on_the_page_works(tmp_path: Path) -> None:
    run_page(DOC, STEPS, tmp_path)
