from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.serve.bodies import ASSERTIONS, Server

pytest.importorskip("uvicorn", reason="the serve extra is in the test extra")


@pytest.fixture
def assertions(tmp_path: Path) -> Path:
    path = tmp_path / "assertions.yaml"
    path.write_text(ASSERTIONS)
    return path


@pytest.fixture
def server(tmp_path: Path, assertions: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "results", assertions, "--workers", "1").start()
    try:
        yield srv
    finally:
        srv.stop()
