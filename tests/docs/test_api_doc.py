"""docs/api.md is executable: its files are written and its Python examples run in order in an
empty folder, printing what the page shows (the conventions of tests/docrun.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import REPO
from tests.docrun import commands, parse, run_page

DOC = REPO / "docs" / "api.md"
STEPS = parse(DOC.read_text(encoding="utf-8"))


def test_the_page_covers_the_api() -> None:
    shown = "\n".join(c.text for c in commands(STEPS))
    for script in ("grade.py", "many.py", "trials.py", "loaded.py", "errors.py"):
        assert f"python {script}" in shown


@pytest.mark.slow  # runs every example of the page
def test_the_page_runs(tmp_path: Path) -> None:
    run_page(DOC, STEPS, tmp_path)
