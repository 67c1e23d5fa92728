"""The front door: `hotato --version`, `--help` on every command, `python -m hotato`, the
console script, and `hotato demo` (exit 0 after printing its verdicts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from tests.conftest import hotato

from hotato._version import __version__
from hotato.cli.main import cli


def command_paths() -> list[tuple[str, ...]]:
    """Every command and subcommand the CLI lists, found the way click finds them."""
    found: list[tuple[str, ...]] = []

    def walk(group: click.Group, prefix: tuple[str, ...]) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if command is None:
                continue
            found.append((*prefix, name))
            if isinstance(command, click.Group):
                walk(command, (*prefix, name))

    walk(cli, ())
    return found


COMMANDS = command_paths()


def test_version() -> None:
    ran = hotato("--version")
    assert ran.code == 0
    assert ran.out.strip() == f"hotato, version {__version__}"


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_top_level_help(flag: str) -> None:
    ran = hotato(flag)
    assert ran.code == 0
    assert "did the task happen, or was it just claimed?" in ran.out
    assert "Exit codes: 0 pass, 1 a check failed, 2 refused" in " ".join(ran.out.split())
    for name in ("assert", "demo"):
        assert f"  {name}" in ran.out


def test_no_arguments_shows_usage() -> None:
    ran = hotato()
    assert ran.code in (0, 2)
    assert "Usage:" in ran.out + ran.err and "Traceback" not in ran.err


def test_the_assert_commands_are_listed() -> None:
    assert {
        ("assert",),
        ("assert", "run"),
        ("assert", "init"),
        ("assert", "packs"),
        ("demo",),
    } <= set(COMMANDS)


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_help_on_every_command(path: tuple[str, ...]) -> None:
    ran = hotato(*path, "--help")
    assert ran.code == 0, ran.err
    assert ran.out.startswith(f"Usage: hotato {' '.join(path)}")
    assert "Traceback" not in ran.err
    body = ran.out.split("\n\n", 1)[1] if "\n\n" in ran.out else ""
    assert body.strip(), "the help explains the command"


def test_assert_run_help_explains_the_flags() -> None:
    out = hotato("assert", "run", "--help").out
    for flag in (
        "--assertions",
        "--pack",
        "--trace",
        "--transcript",
        "--state",
        "--inconclusive-policy",
        "--format",
    ):
        assert flag in out
    assert "INCONCLUSIVE" in out


def test_python_dash_m_is_the_same_program() -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "hotato", "--version"], capture_output=True, text=True, check=False
    )
    assert ran.returncode == 0 and __version__ in ran.stdout


def test_the_console_script() -> None:
    script = Path(sys.executable).parent / "hotato"
    if not script.exists():
        pytest.skip("no console script beside this interpreter")
    ran = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=False)
    assert ran.returncode == 0 and __version__ in ran.stdout


def test_unknown_command_is_a_usage_error() -> None:
    ran = hotato("asert")
    assert ran.code == 2 and "No such command" in ran.err


def test_demo_prints_its_verdicts_and_exits_0() -> None:
    ran = hotato("demo")
    assert ran.code == 0, ran.err
    out = ran.out
    assert "your refund for order A-3090 has been sent" in out  # what was said
    assert "no issue_refund span" in out  # what the trace shows
    assert "refund_status='none'" in out  # what the data shows
    for verdict in (
        "PASS          agent-claimed-refund",
        "FAIL          refund-tool-ran",
        "FAIL          refund-recorded",
    ):
        assert verdict in out
    assert "deterministic: " in out and "3 fail" in out
    assert "The demo exits 0" in out


def test_demo_json() -> None:
    ran = hotato("demo", "--format", "json")
    assert ran.code == 0
    doc = json.loads(ran.out)
    assert doc["exit_code"] == 1  # what `assert run` would return; the demo itself exits 0
    status = {r["id"]: r["status"] for r in doc["results"]}
    assert status["agent-claimed-refund"] == "PASS"
    assert status["refund-tool-ran"] == status["refund-recorded"] == "FAIL"


def test_demo_write_gives_files_that_run(tmp_path: Path) -> None:
    ran = hotato("demo", "--write", "try", cwd=tmp_path)
    assert ran.code == 0
    folder = tmp_path / "try"
    assert {"assertions.yaml", "trace.jsonl", "transcript.json"} <= {
        p.name for p in folder.iterdir()
    }
    command = next(line for line in ran.out.splitlines() if "hotato assert run" in line)
    argv = command.split("&&", 1)[1].split()
    assert argv[:3] == ["hotato", "assert", "run"]
    run = hotato(*argv[1:], cwd=folder)  # the command the demo suggests, as printed
    assert run.code == 1, run.err  # the CI gate fails the claimed-but-not-done refund
    again = hotato("demo", "--write", "try", cwd=tmp_path)
    assert again.code == 2 and "not empty" in again.err
