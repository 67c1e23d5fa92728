"""Shared test helpers: run the real CLI as a user would."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CONFORMANCE = REPO / "tests" / "conformance" / "cases"  # the earlier release's cases, vendored


@dataclass
class Ran:
    code: int
    out: str
    err: str


def hotato(
    *args: str,
    cwd: str | Path | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> Ran:
    proc = subprocess.run(
        [sys.executable, "-m", "hotato", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    return Ran(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def cli() -> object:
    return hotato
