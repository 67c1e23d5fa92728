"""Helpers for the ingest tests: read what `hotato trace ingest` wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import Ran, hotato

DATA = Path(__file__).resolve().parent / "data"


def read_trace(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return lines[0], lines[1:]


def ingest(src: Path, out: Path, *extra: str) -> tuple[Ran, dict[str, Any], list[dict[str, Any]]]:
    ran = hotato("trace", "ingest", str(src), "--out", str(out), *extra)
    assert ran.code == 0, ran.err
    meta, spans = read_trace(out)
    return ran, meta, spans


def of_type(spans: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [s for s in spans if s["type"] == type_]


def tool(spans: list[dict[str, Any]], name: str) -> dict[str, Any]:
    found = [s for s in spans if s["type"] == "tool_call" and s.get("name") == name]
    assert len(found) == 1, f"{name}: {found}"
    return found[0]
