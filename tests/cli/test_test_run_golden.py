"""Golden `test run` output: every format, and the bytes an artifact binds, exactly as written
before the documents became typed structs (tests/cli/golden/test-run/). An artifact's
signature and digests rest on these bytes, so a change here is a change users can see."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.conftest import CONFORMANCE, hotato

GOLDEN = Path(__file__).parent / "golden" / "test-run"
EVIDENCE = ["--transcript", "transcript.json", "--trace", "trace.jsonl"]
JUDGE = ["--judge-endpoint", "http://127.0.0.1:9", "--no-store"]  # a closed port: ERROR
FORMATS = {"json": "json", "text": "txt", "markdown": "md", "junit": "junit.xml"}

# (golden name, conformance case, the run's flags after TEST --agent, expected exit code)
RUNS = [
    ("saydo", "fx-saydo-demo-test-run", [*EVIDENCE, "--state", "state.json", *JUDGE], 1),
    ("rubric", "fx-refund-conversation-test-run", [*EVIDENCE, *JUDGE], 0),
    (
        "replays",
        "fx-counterexample-refund-not-posted",
        [*EVIDENCE, "--state", "state.json", "--repetitions", "3"],
        1,
    ),
]
CASES = [
    (name, case, flags, code, fmt)
    for name, case, flags, code in RUNS
    for fmt in FORMATS
    if (GOLDEN / f"{name}.{FORMATS[fmt]}").exists()
]


def _case(tmp_path: Path, case: str) -> tuple[Path, str]:
    work = tmp_path / case
    shutil.copytree(CONFORMANCE / case, work)
    test = next(p.name for p in work.iterdir() if p.stem == "test")
    return work, test


@pytest.mark.parametrize(
    ("name", "case", "flags", "code", "fmt"),
    CASES,
    ids=[f"{c[0]}-{c[4]}" for c in CASES],
)
def test_every_format_is_as_it_was(
    tmp_path: Path, name: str, case: str, flags: list[str], code: int, fmt: str
) -> None:
    work, test = _case(tmp_path, case)
    ran = hotato(
        "test", "run", test, "--agent", "conformance-agent", *flags, "--format", fmt, cwd=work
    )
    assert ran.code == code, ran.err
    assert ran.out == (GOLDEN / f"{name}.{FORMATS[fmt]}").read_text(encoding="utf-8")


def test_an_artifact_binds_the_same_bytes(tmp_path: Path) -> None:
    work, test = _case(tmp_path, "fx-saydo-demo-test-run")
    flags = [*EVIDENCE, "--state", "state.json", "--out", "out"]
    ran = hotato(
        "test", "run", test, "--agent", "conformance-agent", *flags,
        "--created-at", "2026-01-01T00:00:00Z", *JUDGE, cwd=work,
    )  # fmt: skip
    assert ran.code == 1, ran.err
    for child in ("assertions.json", "state-evidence.json", "conversation.json"):
        golden = (GOLDEN / f"artifact-{child}").read_bytes()
        assert (work / "out" / child).read_bytes() == golden, child
