"""Shared test helpers: run the CLI as a user would, in process unless the process is the point."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent
CONFORMANCE = REPO / "tests" / "conformance" / "cases"  # the earlier release's cases, vendored

# Hypothesis example counts come from a profile, never from a test: a quick one while working, a
# thorough one in CI (.ci/run sets HYPOTHESIS_PROFILE=ci).
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("dev", max_examples=25, deadline=None, suppress_health_check=_QUIET)
settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=_QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


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
    process: bool = False,
) -> Ran:
    """Run `hotato ARGS`. In this process (fast) unless `process=True` or a whole environment is
    given: a test about the process itself (start-up, signals, PYTHONPATH) asks for one."""
    if process or env is not None:
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
    return _in_process(list(args), cwd, stdin)


def _in_process(args: list[str], cwd: str | Path | None, stdin: str | None) -> Ran:
    from click.testing import CliRunner

    from hotato.cli._run import run_cli
    from hotato.cli.main import cli

    runner = CliRunner()
    with _chdir(cwd), runner.isolation(input=stdin or "") as (out, err, _):
        code = run_cli(cli, args)
        sys.stdout.flush()
        sys.stderr.flush()
        printed, complained = out.getvalue(), err.getvalue()
    return Ran(int(code), printed.decode("utf-8", "replace"), complained.decode("utf-8", "replace"))


@contextlib.contextmanager
def _chdir(cwd: str | Path | None) -> Iterator[None]:
    if cwd is None:
        yield
        return
    before = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)


# --- services: PostgreSQL, MariaDB and a browser, where users have them --------------------------

SERVICES = {
    "postgresql": ("127.0.0.1", 5432),
    "mariadb": ("127.0.0.1", 3306),
}
_reachable: dict[str, str | None] = {}


def _why_absent(name: str) -> str | None:
    """None when the service is usable here, else what is missing."""
    if name not in _reachable:
        if name == "chromium":
            import shutil

            found = shutil.which("chromium") or shutil.which("chromium-browser")
            _reachable[name] = None if found else "no chromium on PATH (apt-get install chromium)"
        else:
            import socket

            host, port = SERVICES[name]
            try:
                socket.create_connection((host, port), timeout=2).close()
                _reachable[name] = None
            except OSError as exc:
                _reachable[name] = f"nothing accepts connections on {host}:{port} ({exc})"
    return _reachable[name]


def require_service(name: str) -> None:
    """Skip with the reason when `name` is not here; under HOTATO_REQUIRE_SERVICES=1 (CI), fail."""
    why = _why_absent(name)
    if why is None:
        return
    if os.environ.get("HOTATO_REQUIRE_SERVICES", "") not in ("", "0"):
        pytest.fail(f"{name} is required (HOTATO_REQUIRE_SERVICES=1): {why}", pytrace=False)
    pytest.skip(f"{name} not available: {why}")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("services"):
        for name in mark.args:
            require_service(name)


@pytest.fixture
def cli() -> object:
    return hotato
