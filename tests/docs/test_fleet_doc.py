"""docs/fleet.md is executable: its files are written and its commands run in order in an empty
folder, each with its exit code and printing what the page shows (see tests/docrun.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import REPO
from tests.docrun import commands, parse, run_page

DOC = REPO / "docs" / "fleet.md"
STEPS = parse(DOC.read_text(encoding="utf-8"))


def test_the_page_covers_the_fleet_commands() -> None:
    text = "\n".join(c.text for c in commands(STEPS))
    for needed in ("fleet grade", "fleet summary", "--by day", "fleet report", "fleet diff"):
        assert needed in text, needed
    assert {c.exit for c in commands(STEPS)} == {0, 1, 2}


@pytest.mark.slow  # runs every command of the page in a shell
def test_every_command_on_the_page_works(tmp_path: Path) -> None:
    run_page(DOC, STEPS, tmp_path)
