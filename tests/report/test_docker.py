"""The Dockerfile: a small image with the CLI as its entry point. Built only where a docker
engine answers; skipped with the reason elsewhere."""

from __future__ import annotations

import shutil
import subprocess
import uuid

import pytest
from tests.conftest import REPO


def test_the_dockerfile_copies_what_exists_and_runs_the_cli() -> None:
    text = (REPO / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["hotato"]' in text
    for line in text.splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            for source in line.split()[1:-1]:
                assert (REPO / source).exists(), source
    assert "tests" in (REPO / ".dockerignore").read_text().split()


def _engine() -> str | None:
    docker = shutil.which("docker")
    if docker is None:
        return "no docker command on PATH"
    info = subprocess.run([docker, "info"], capture_output=True, text=True, timeout=30)
    if info.returncode != 0:
        return "no docker engine answers here (`docker info` failed)"
    return None


def test_the_image_builds_and_runs_the_demo() -> None:
    why = _engine()
    if why is not None:
        pytest.skip(why)
    tag = f"hotato-test:{uuid.uuid4().hex[:8]}"
    build = subprocess.run(
        ["docker", "build", "-t", tag, str(REPO)], capture_output=True, text=True, timeout=900
    )
    assert build.returncode == 0, build.stderr[-2000:]
    try:
        ran = subprocess.run(
            ["docker", "run", "--rm", "--network", "none", tag, "demo"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert ran.returncode == 0, ran.stderr
        assert "did the task happen, or was it just claimed?" in ran.stdout
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, timeout=120)
