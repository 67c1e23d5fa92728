"""Writing under a full disk or a file-size limit (driven by RLIMIT_FSIZE, which makes a write
fail the way a full disk does) is a refusal naming the path, and leaves nothing half-written:
keygen leaves no empty key that would block the next keygen."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from tests.conftest import CONFORMANCE, hotato

TRACE = CONFORMANCE / "fx-itc-zombie-assert-run" / "trace.jsonl"


def _limited(args: list[str], cwd: Path, max_bytes: int) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    # Python's own bytecode cache is written with one unchecked write: under the limit it would
    # leave a truncated .pyc behind that breaks every later run, so this process writes none
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "hotato", *args], cwd=cwd, capture_output=True, text=True,
        preexec_fn=limit, timeout=60, env=env,
    )  # fmt: skip


def test_keygen_on_a_full_disk_refuses_and_leaves_no_key(tmp_path: Path) -> None:
    ran = _limited(["label", "keygen", "--out", "keys"], tmp_path, 40)
    assert ran.returncode == 2, ran.stderr
    assert "keys/signing.key" in ran.stderr and "cannot write" in ran.stderr
    assert [p.name for p in (tmp_path / "keys").iterdir()] == []
    assert hotato("label", "keygen", "--out", "keys", cwd=tmp_path).code == 0


def test_a_starter_written_on_a_full_disk_is_refused_and_not_left_half(tmp_path: Path) -> None:
    ran = _limited(["assert", "init", "--from-trace", str(TRACE), "--out", "a.yaml"], tmp_path, 20)
    assert ran.returncode == 2, ran.stderr
    assert "a.yaml" in ran.stderr
    assert list(tmp_path.iterdir()) == []


def test_keygen_into_a_file_is_refused_with_the_path(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    ran = hotato("label", "keygen", "--out", "file/keys", cwd=tmp_path)
    assert ran.code == 2 and "file/keys" in ran.err
