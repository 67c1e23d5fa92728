"""docs/kinds/ is generated from each kind's docstring and spec: stale pages fail here.

Fix a failure with `.venv/bin/python scripts/gen_kind_docs.py` and commit the pages."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

from hotato.kinds import BUILTIN

ROOT = Path(__file__).resolve().parent.parent.parent
GEN: dict[str, Any] = runpy.run_path(str(ROOT / "scripts" / "gen_kind_docs.py"))
DOCS: Path = GEN["DOCS"]
EXPECTED: dict[Path, str] = GEN["expected"]()


@pytest.mark.parametrize("path", sorted(EXPECTED), ids=lambda p: p.name)
def test_page_is_current(path: Path) -> None:
    assert path.exists(), f"{path.name} is missing: run scripts/gen_kind_docs.py"
    assert path.read_text(encoding="utf-8") == EXPECTED[path], (
        f"{path.name} is stale: run .venv/bin/python scripts/gen_kind_docs.py"
    )


def test_every_kind_has_a_page_and_no_page_is_orphaned() -> None:
    pages = {p.stem for p in DOCS.glob("*.md")} - {"README"}
    assert pages == {k.tag for k in BUILTIN}


@pytest.mark.parametrize("kdef", BUILTIN, ids=lambda k: k.tag)
def test_every_docstring_has_the_parts_a_page_needs(kdef: Any) -> None:
    parsed = GEN["parse_docstring"](kdef.doc)
    assert parsed.example, f"{kdef.tag}: the docstring needs an 'Example:' block"
    if kdef.deterministic:
        assert set(parsed.sections) == {"Passes when", "Fails when", "Inconclusive when"}, (
            f"{kdef.tag}: the docstring needs Passes when / Fails when / Inconclusive when"
        )


@pytest.mark.parametrize("kdef", BUILTIN, ids=lambda k: k.tag)
def test_every_example_is_a_valid_assertion(kdef: Any) -> None:
    import yaml

    from hotato._documents import Document
    from hotato.engine.loader import decode_assertion_document

    example = yaml.safe_load(GEN["parse_docstring"](kdef.doc).example)
    assert isinstance(example, list) and example[0]["kind"] == kdef.tag
    items = list(example)
    for spec in example:  # ids an example refers to (formula, outcome parts) exist for it
        for ref in _refs(spec):
            if ref not in {i["id"] for i in items}:
                items.append({"id": ref, "kind": "tool_call", "name": "x"})
    decode_assertion_document(Document({"version": 1, "assertions": items}, f"{kdef.tag}.md"))


def _refs(spec: dict[str, Any]) -> list[str]:
    from hotato.kinds._formula import parse, refs

    found = list(spec.get("when", []))
    if spec.get("kind") == "formula":
        found += refs(parse(spec["expr"]))
    for part in [*spec.get("all_of", []), *spec.get("any_of", [])]:
        if "assertion" in part:
            found.append(part["assertion"])
    return found


def test_the_check_mode_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    assert GEN["main"](["--check"]) == 0, capsys.readouterr().out
