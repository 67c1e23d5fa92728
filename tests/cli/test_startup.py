"""Start-up is part of every CI step: the modules a command never uses stay unimported.

Each test runs the command in a process of its own and reads `sys.modules` once it has
finished, then checks that heavy modules the command has no use for are absent. No timing is
asserted; bench/engine_bench.py measures that (the `small` scenario).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.cli.test_assert_run import ARGS

# Never needed to print help or the version: the libraries that read and grade evidence.
READERS = ["msgspec", "yaml", "re2", "hotato.model.errors", "hotato.runs", "hotato.kinds"]

# Never needed to grade a native trace and a transcript into JSON, with no pack and no state:
# a dataclass costs about half a millisecond to define (the types on this path are msgspec
# Structs), OpenSSL loads only to check a signed trace or digest a pack, and the pii detectors
# only when a pii check reads a transcript.
NOT_FOR_A_RUN = [
    "dataclasses",
    "hashlib",
    "_hashlib",
    "json",
    "email",
    "http",
    "importlib.metadata",
    "tempfile",
    "zoneinfo",
    "asyncio",
    "subprocess",
    "difflib",
    "traceback",
    "hotato.kinds._pii_detect",
    "hotato.adapters",
    "hotato.report.text",
    "hotato.api",
]


# `main(argv)` runs the command as `python -m hotato` does, but returns through SystemExit
# (argv given: no quick exit), so the modules it imported can be listed afterwards.
_PROBE = """
import sys
from hotato.cli.main import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
sys.stdout.flush()
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)))
sys.exit(code)
"""


def imported(
    *args: str, cwd: Path | None = None
) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The modules `hotato ARGS` imports in a process of its own, and how the process ended."""
    ran = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    _, found, names = ran.stderr.rpartition("\nMODULES ")
    assert found, ran.stderr[-2000:]
    return set(names.split()), ran


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_load_no_reader(flag: str) -> None:
    names, ran = imported(flag)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert sorted(names.intersection(READERS)) == []


def test_a_small_run_loads_only_what_it_uses(tmp_path: Path) -> None:
    (tmp_path / "assertions.yaml").write_text(
        "version: 1\n"
        "assertions:\n"
        "  - {id: looked-up, kind: tool_call, name: lookup_order}\n"
        "  - {id: said-refund, kind: phrase, regex: refund, role: agent}\n"
        "  - {id: no-ssn, kind: pii, detectors: [ssn], when: [looked-up]}\n"
    )
    (tmp_path / "trace.jsonl").write_text(
        '{"_meta": true, "schema": "hotato.voice_trace.v1"}\n'
        '{"type": "tool_call", "name": "issue_refund", "start_sec": 1.0}\n'
    )
    (tmp_path / "transcript.json").write_text(
        '[{"role": "agent", "text": "your refund is on its way", "start": 0.5}]'
    )
    names, ran = imported(*ARGS, "--format", "json", cwd=tmp_path)
    assert ran.returncode == 1, ran.stderr[-2000:]  # looked-up FAILs; no-ssn is skipped
    assert '"id": "said-refund"' in ran.stdout
    assert {"hotato.kinds.pii", "hotato.report.json_out"} <= names  # the run did run
    assert sorted(names.intersection(NOT_FOR_A_RUN)) == []
