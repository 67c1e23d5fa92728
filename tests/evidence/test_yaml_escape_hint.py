"""A regex in double quotes with a backslash YAML does not know (`"\\d{4}"`) is refused, with a
hint that names both fixes; each suggested form reads back as the pattern the writer meant."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st
from tests.conftest import hotato

from hotato._documents import parse_document
from hotato.model.errors import InputError

FILE = 'version: 1\nassertions:\n  - id: card\n    kind: phrase\n    regex: "{}"\n'


def test_the_refusal_names_the_place_and_both_fixes(tmp_path: Path) -> None:
    path = tmp_path / "assertions.yaml"
    path.write_text(FILE.format("ends in \\d{4}"))
    ran = hotato("assert", "run", "--assertions", str(path))
    assert ran.code == 2
    assert "assertions.yaml:5:21" in ran.err
    assert "found unknown escape character" in ran.err
    assert "single quotes ('ends in \\d{4}')" in ran.err
    assert 'double each backslash ("ends in \\\\d{4}")' in ran.err


def _suggestions(message: str) -> tuple[str, str]:
    found = re.search(r"single quotes \((.*)\) or double each backslash \((.*)\)$", message)
    assert found, message
    return found.group(1), found.group(2)


# Regex-like text holding at least one backslash YAML refuses in double quotes.
pieces = st.sampled_from(["\\d", "\\s", "\\w", "\\.", "\\\\", "a", "'", " ", "{4}", "$", "é"])


@given(st.lists(pieces, min_size=1, max_size=6).map("".join))
def test_each_suggestion_reads_back_as_the_meant_pattern(body: str) -> None:
    if not any(u in body.replace("\\\\", "") for u in ("\\d", "\\s", "\\w", "\\.")):
        body += "\\d"
    try:
        parse_document(FILE.format(body), "a.yaml", "assertions file")
    except InputError as exc:
        single, doubled = _suggestions(str(exc))
    else:  # pragma: no cover - every body above holds an unknown escape
        raise AssertionError("accepted")
    meant = re.sub(r"\\(.)", lambda m: m.group(1) if m.group(1) == "\\" else m.group(0), body)
    assert yaml.safe_load(f"x: {single}")["x"] == meant
    assert yaml.safe_load(f"x: {doubled}")["x"] == meant
