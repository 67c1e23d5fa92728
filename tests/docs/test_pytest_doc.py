"""docs/pytest.md is executable: its files are written and its pytest runs print what the page
shows (the conventions of tests/docrun.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import REPO
from tests.docrun import commands, parse, run_page

DOC = REPO / "docs" / "pytest.md"
STEPS = parse(DOC.read_text(encoding="utf-8"))


def test_the_page_covers_the_plugin() -> None:
    shown = "\n".join(c.text for c in commands(STEPS))
    assert "--hotato calls" in shown and "-k tuesday" in shown and "test_refund.py" in shown


@pytest.mark.slow  # runs every command of the page in a shell
def test_the_page_runs(tmp_path: Path) -> None:
    run_page(DOC, STEPS, tmp_path)
