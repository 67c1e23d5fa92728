"""The kind tables in docs/assertions.md list exactly the registered kinds: a kind added to
the registry without a row (or a row for a kind that is gone) fails here."""

from __future__ import annotations

import re

from tests.conftest import REPO

from hotato.kinds import KINDS

PAGE = (REPO / "docs" / "assertions.md").read_text(encoding="utf-8")


def _table(header: str) -> list[str]:
    """The rows of the table whose header line starts with `header`."""
    lines = PAGE.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_kinds_table_links_every_kind_once() -> None:
    linked = [
        m.group(1)
        for row in _table("| kind | answers |")
        for m in re.finditer(r"\[`(\w+)`\]\(kinds/(\w+)\.md\)", row)
        if m.group(1) == m.group(2)
    ]
    assert sorted(linked) == sorted(KINDS)


def test_the_evidence_table_names_only_kinds_that_exist() -> None:
    named = {
        word
        for row in _table("| flag | kinds that are INCONCLUSIVE without it |")
        for word in re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", row.split("|")[2]))
    }
    assert named and named <= set(KINDS)
