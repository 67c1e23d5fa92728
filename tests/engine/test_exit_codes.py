"""Exit codes have one meaning each: 0 pass, 1 a FAIL, 2 refused, 3 a bug in hotato. A bug
never exits 1 (that would read as a FAIL) and prints no traceback unless HOTATO_DEBUG is set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from tests.conftest import hotato

from hotato.cli.main import main
from hotato.kinds import REGISTRY
from hotato.model.status import ExitCode

ONE_PASS = "version: 1\nassertions:\n  - {id: ran, kind: tool_call, name: a}\n"
TRACE = '{"_meta": true, "schema": "hotato.voice_trace.v1"}\n{"type": "tool_call", "name": "a"}\n'


@pytest.fixture
def call(tmp_path: Path) -> Path:
    (tmp_path / "t.jsonl").write_text(TRACE)
    (tmp_path / "a.yaml").write_text(ONE_PASS)
    return tmp_path


def run_in_process(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(
            [
                "assert",
                "run",
                "--assertions",
                str(folder / "a.yaml"),
                "--trace",
                str(folder / "t.jsonl"),
            ]
        )
    captured = capsys.readouterr()
    return int(done.value.code or 0), captured.out, captured.err


def test_exit_0_when_everything_passes(call: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_in_process(call, capsys)
    assert code == ExitCode.OK
    assert "PASS" in out


def test_exit_1_on_a_fail(call: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (call / "a.yaml").write_text("version: 1\nassertions:\n  - {id: r, kind: tool_call, name: b}\n")
    code, _, _ = run_in_process(call, capsys)
    assert code == ExitCode.FAILED


def test_exit_2_on_malformed_input(call: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (call / "a.yaml").write_text("version: 1\nassertions: [\n")
    code, out, err = run_in_process(call, capsys)
    assert code == ExitCode.REFUSED
    assert out == "" and "a.yaml" in err


def boom(spec: Any, ev: Any) -> Any:
    raise RuntimeError("simulated bug in a kind")


def break_tool_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Swap the registered tool_call check for one that raises, in this process only."""
    broken = msgspec.structs.replace(REGISTRY["tool_call"], check=boom)
    monkeypatch.setitem(REGISTRY._loaded, "tool_call", broken)  # the registry's loaded kinds


def test_exit_3_on_an_internal_error_without_a_traceback(
    call: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOTATO_DEBUG", raising=False)
    break_tool_call(monkeypatch)
    code, out, err = run_in_process(call, capsys)
    assert code == ExitCode.INTERNAL  # never 1: a bug must not read as a FAIL
    assert "internal error" in err and "simulated bug in a kind" in err
    assert "Traceback" not in err
    assert "HOTATO_DEBUG" in err  # it says how to get the traceback
    assert out == ""  # nothing partial


def test_hotato_debug_prints_the_traceback(
    call: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOTATO_DEBUG", "1")
    break_tool_call(monkeypatch)
    code, _, err = run_in_process(call, capsys)
    assert code == ExitCode.INTERNAL
    assert "Traceback" in err and "RuntimeError" in err


def test_a_bug_while_loading_evidence_is_exit_3(
    call: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import hotato.engine.sources as sources

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("simulated loader bug")

    monkeypatch.setattr(sources, "open_call", broken)
    code, _, err = run_in_process(call, capsys)
    assert code == ExitCode.INTERNAL
    assert "KeyError" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv,code",
    [
        (["--version"], 0),
        (["--help"], 0),
        (["no-such-command"], 2),
        (["assert", "run"], 2),  # --assertions is required
        (["assert", "run", "--assertions", "a.yaml", "--format", "xml"], 2),
    ],
)
def test_usage_errors_exit_2(call: Path, argv: list[str], code: int) -> None:
    ran = hotato(*argv, cwd=call)
    assert ran.code == code, ran.err
    assert "Traceback" not in ran.err


def test_exit_codes_are_documented_in_help() -> None:
    ran = hotato("assert", "run", "--help")
    assert ran.code == 0
    text = " ".join(ran.out.split())
    for fragment in ("0 no FAIL", "1 a FAIL", "2 refused", "3 internal error"):
        assert fragment in text
