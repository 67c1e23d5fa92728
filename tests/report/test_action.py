"""The GitHub Action's shell step (scripts/ci/github-action.sh), run here with the environment
variables a runner sets, and the composite action that calls it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from tests.conftest import REPO, hotato
from tests.report.suite import make_suite

SCRIPT = REPO / "scripts" / "ci" / "github-action.sh"


def runner_env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    """What a runner hands a step: its files, a temp folder, and the action's inputs."""
    (tmp_path / "runner").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "runner" / "step_summary"),
        "GITHUB_OUTPUT": str(tmp_path / "runner" / "output"),
        "GITHUB_ENV": str(tmp_path / "runner" / "env"),
        "RUNNER_TEMP": str(tmp_path / "runner" / "temp"),
        "RUNNER_OS": "Linux",
        "HOTATO_BIN": str(Path(sys.executable).parent / "hotato"),
        **inputs,
    }
    (tmp_path / "runner" / "step_summary").write_text("earlier step\n")
    return env


def outputs(tmp_path: Path) -> dict[str, str]:
    lines = (tmp_path / "runner" / "output").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def step(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT)], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_a_failing_suite_leaves_a_summary_and_every_file(tmp_path: Path) -> None:
    make_suite(tmp_path / "suite")
    env = runner_env(tmp_path, HOTATO_SUITE="suite", HOTATO_AGENT="support-v3")
    ran = step(env, tmp_path)
    assert ran.returncode == 0, ran.stderr  # the action's last step fails the job, after upload
    out = outputs(tmp_path)
    assert out["exit-code"] == "1"
    temp = tmp_path / "runner" / "temp" / "hotato"
    assert out["output-dir"] == str(temp)
    summary = (tmp_path / "runner" / "step_summary").read_text()
    assert summary.startswith("earlier step\n### hotato suite: suite: **FAILED** (exit 1)")
    assert "| cancel | **FAILED** | 0 | 1 | 0 |" in summary
    assert "<testsuites>" in Path(out["junit"]).read_text()
    assert "<!DOCTYPE html>" in Path(out["report"]).read_text()
    for test_id in ("cancel", "refund"):
        art = Path(out["artifacts"]) / test_id
        assert json.loads((art / "conversation.json").read_text())["artifacts"]["report"]
        assert hotato("conversation", "verify", str(art)).code == 0


def test_extra_flags_pass_through(tmp_path: Path) -> None:
    make_suite(tmp_path / "suite")
    (tmp_path / "suite" / "cancel.json").unlink()
    env = runner_env(
        tmp_path,
        HOTATO_SUITE="suite",
        HOTATO_AGENT="support-v3",
        HOTATO_ARGS="--inconclusive-policy fail --created-at 2026-01-01T00:00:00Z",
    )
    assert step(env, tmp_path).returncode == 0
    assert outputs(tmp_path)["exit-code"] == "0"
    manifest = (
        tmp_path / "runner" / "temp" / "hotato" / "artifacts" / "refund" / "conversation.json"
    )
    assert json.loads(manifest.read_text())["created_at"] == "2026-01-01T00:00:00Z"


def test_a_refused_run_says_why_in_the_summary(tmp_path: Path) -> None:
    env = runner_env(tmp_path, HOTATO_SUITE="no-such-suite", HOTATO_AGENT="a")
    assert step(env, tmp_path).returncode == 0
    assert outputs(tmp_path)["exit-code"] == "2"
    summary = (tmp_path / "runner" / "step_summary").read_text()
    assert "### hotato: the run was refused (exit 2)" in summary
    assert "no-such-suite" in summary


def test_missing_inputs_are_refused(tmp_path: Path) -> None:
    env = runner_env(tmp_path, HOTATO_AGENT="a")
    env.pop("HOTATO_SUITE", None)
    ran = step(env, tmp_path)
    assert ran.returncode != 0 and "HOTATO_SUITE" in ran.stderr


def test_the_composite_action_runs_the_script_and_fails_on_a_fail() -> None:
    action = yaml.safe_load((REPO / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    run = next(s for s in steps if s.get("id") == "run")
    assert "scripts/ci/github-action.sh" in run["run"]
    assert set(run["env"]) == {"HOTATO_SUITE", "HOTATO_AGENT", "HOTATO_ARGS"}
    upload = next(s for s in steps if "upload-artifact" in s.get("uses", ""))
    assert upload["if"] == "always()"
    assert steps.index(upload) < len(steps) - 1
    assert steps[-1]["if"] == "steps.run.outputs.exit-code != '0'"
    for name in ("suite", "agent"):
        assert action["inputs"][name]["required"] is True
