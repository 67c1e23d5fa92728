"""Malformed input through the real CLI: exit 2, a message that names the place (file, line,
JSON path), every problem at once, nothing written to stdout, never a traceback."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.conftest import hotato

META = '{"_meta": true, "schema": "hotato.voice_trace.v1", "call_id": "c1"}\n'
GOOD_TRACE = META + '{"type": "tool_call", "name": "lookup_order", "start_sec": 1.0}\n'
GOOD_TURNS = '[{"role": "agent", "text": "hello"}]'
GOOD_ASSERTIONS = (
    "version: 1\nassertions:\n"
    "  - {id: looked-up, kind: tool_call, name: lookup_order}\n"
    "  - {id: greeted, kind: phrase, regex: hello}\n"
)


@dataclass
class Bad:
    """One malformed input: the files of the call, which one is bad, what the refusal says."""

    name: str
    files: dict[str, str | bytes]
    says: list[str]
    flags: list[str] = field(
        default_factory=lambda: ["--trace", "t.jsonl", "--transcript", "turns.json"]
    )
    assertions: str = "a.yaml"


def case(
    name: str,
    says: list[str],
    *,
    assertions: str | bytes | None = None,
    trace: str | bytes | None = None,
    turns: str | bytes | None = None,
    assertions_name: str = "a.yaml",
) -> Bad:
    files: dict[str, str | bytes] = {
        assertions_name: GOOD_ASSERTIONS if assertions is None else assertions,
        "t.jsonl": GOOD_TRACE if trace is None else trace,
        "turns.json": GOOD_TURNS if turns is None else turns,
    }
    return Bad(name, files, says, assertions=assertions_name)


NO_META = '{"type": "tool_call", "name": "a"}\n{"type": "tool_call", "name": "b"}\n'
BINARY = bytes(range(256)) * 8 + b"\x00\xff\xfe" * 100

CASES = [
    # --- assertions files ---------------------------------------------------------------------
    case(
        "yaml-syntax",
        ["a.yaml:4:", "not valid YAML"],
        assertions="version: 1\nassertions: [\n  {id: a, kind: phrase\n",
    ),
    case(
        "json-syntax",
        ["a.json:1:", "not valid JSON"],
        assertions='{"version": 1, "assertions": [}',
        assertions_name="a.json",
    ),
    case(
        "wrong-type",
        ["a.yaml:3:", "$.assertions[0].count", "(tool_call 'x')", "got `str`"],
        assertions="version: 1\nassertions:\n  - {id: x, kind: tool_call, name: a, count: two}\n",
    ),
    case(
        "unknown-kind",
        [
            "a.yaml:3:",
            "$.assertions[0].kind",
            "unknown kind 'tool_cal'",
            "did you mean 'tool_call'?",
        ],
        assertions="version: 1\nassertions:\n  - {id: x, kind: tool_cal, name: a}\n",
    ),
    case(
        "unknown-key",
        ["a.yaml:5:", "$.assertions[0].reggex", "did you mean 'regex'?"],
        assertions="version: 1\nassertions:\n  - id: x\n    kind: phrase\n    reggex: hi\n",
    ),
    case(
        "unknown-top-key",
        ["a.yaml:1:1", "$.asertions", "did you mean 'assertions'?"],
        assertions="asertions: []\n",
    ),
    case(
        "bad-regex",
        ["a.yaml:3:", "(phrase 'x')", "cannot run on RE2"],
        assertions="version: 1\nassertions:\n  - {id: x, kind: phrase, regex: '(?<=a)b'}\n",
    ),
    case(
        "duplicate-yaml-key",
        ["a.yaml:6:5", "$.assertions[0]", "duplicate key 'name'"],
        assertions="version: 1\nassertions:\n  - id: x\n    kind: tool_call\n    name: a\n"
        "    name: b\n",
    ),
    case(
        "duplicate-json-key",
        ["a.json:3:", "duplicate key 'name'"],
        assertions='{"version": 1, "assertions": [\n {"id": "x", "kind": "tool_call",\n'
        '  "name": "a", "name": "b"}]}\n',
        assertions_name="a.json",
    ),
    case(
        "duplicate-id",
        ["a.yaml:4:", "duplicate id 'x'"],
        assertions="version: 1\nassertions:\n  - {id: x, kind: tool_call, name: a}\n"
        "  - {id: x, kind: tool_call, name: b}\n",
    ),
    case("not-a-mapping", ["a.yaml:1:1", "must be a mapping"], assertions="- 1\n- 2\n"),
    case(
        "assertions-not-a-list",
        ["a.yaml:2:", "'assertions' must be a list"],
        assertions="version: 1\nassertions: {id: x}\n",
    ),
    case(
        "assertion-not-a-mapping",
        ["a.yaml:3:", "$.assertions[0]", "must be a mapping"],
        assertions="version: 1\nassertions:\n  - just a string\n",
    ),
    case(
        "missing-id",
        ["$.assertions[0]", "'id' is required"],
        assertions="version: 1\nassertions:\n  - {kind: tool_call, name: a}\n",
    ),
    case(
        "missing-required",
        ["$.assertions[0]", "'regex' is required"],
        assertions="version: 1\nassertions:\n  - {id: x, kind: phrase}\n",
    ),
    case(
        "wrong-version",
        ["$.version", "unsupported version 2"],
        assertions="version: 2\nassertions: []\n",
    ),
    case(
        "overall-score",
        ["$.overall_score", "'overall_score' is refused"],
        assertions="version: 1\noverall_score: 0.9\nassertions: []\n",
    ),
    case("empty", ["a.yaml", "empty"], assertions=""),
    case("binary", ["a.yaml", "not UTF-8"], assertions=BINARY),
    case("nul-bytes", ["a.yaml", "binary"], assertions="version: 1\x00\nassertions: []\n"),
    case(
        "yaml-merge-key",
        ["a.yaml:", "merge keys"],
        assertions="version: 1\nbase: &b {kind: phrase}\nassertions:\n  - {<<: *b, id: x}\n",
    ),
    case(
        "huge-single-line",
        ["a.json:1:", "not valid JSON"],
        assertions='{"version": 1, "assertions": [' + '{"id": "x"},' * 200_000 + "]",
        assertions_name="a.json",
    ),
    # --- traces -------------------------------------------------------------------------------
    case(
        "span-not-an-object",
        ["t.jsonl:2", "must be a JSON object, got array", "s_0"],
        trace=META + "[1, 2, 3]\n",
    ),
    case(
        "span-a-string",
        ["t.jsonl:3", "must be a JSON object, got str", "s_1"],
        trace=GOOD_TRACE + '"tool_call"\n',
    ),
    case(
        "span-wrong-type",
        ["t.jsonl:3", "$.name", "Expected `str | null`, got `int`", "s_1"],
        trace=GOOD_TRACE + '{"type": "tool_call", "name": 42}\n',
    ),
    case(
        "span-wrong-time",
        ["t.jsonl:2", "$.start_sec", "s_0"],
        trace=META + '{"type": "tool_call", "name": "a", "start_sec": "soon"}\n',
    ),
    case(
        "span-without-type",
        ["t.jsonl:2", "missing required field `type`"],
        trace=META + '{"name": "a"}\n',
    ),
    case("span-line-not-json", ["t.jsonl:3", "not JSON"], trace=GOOD_TRACE + "{oops\n"),
    case(
        "every-bad-span-at-once",
        ["t.jsonl:2", "t.jsonl:4", "t.jsonl:5"],
        trace=META + '{"type": 1}\n{"type": "ok"}\n[]\n{"type": "tool_call", "name": []}\n',
    ),
    case("no-meta-line", ["t.jsonl:1", "meta object"], trace=NO_META),
    case(
        "wrong-schema",
        ["t.jsonl"],
        trace='{"_meta": true, "schema": "something.else.v9"}\n{"type": "tool_call"}\n',
    ),
    case("empty-trace", ["t.jsonl", "empty"], trace=""),
    case("binary-trace", ["t.jsonl"], trace=BINARY),
    case(
        "huge-single-line-trace",
        ["t.jsonl"],
        trace=META + '{"type": "tool_call", "name": "' + "x" * 5_000_000,
    ),
    # --- transcripts --------------------------------------------------------------------------
    case(
        "numeric-turn-text",
        ["turns.json:3:", "$[1].text", "'text' must be a string, got int"],
        turns='[\n {"role": "agent", "text": "hi"},\n {"role": "caller", "text": 12}\n]',
    ),
    case(
        "turn-not-an-object",
        ["turns.json:1:", "$[0]", "a turn must be an object"],
        turns='["hello"]',
    ),
    case(
        "turn-without-role",
        ["$.segments[0]", "'role' must be a non-empty string"],
        turns='{"segments": [{"text": "hi"}]}',
    ),
    case(
        "turn-bad-start",
        ["$[0].start", "'start' must be a number"],
        turns='[{"role": "agent", "text": "hi", "start": "0:01"}]',
    ),
    case(
        "transcript-shape",
        ["turns.json:1:1", "unrecognised transcript shape"],
        turns='{"turns": []}',
    ),
    case(
        "transcript-syntax",
        ["turns.json:2:", "not valid JSON"],
        turns='[{"role": "agent",\n  "text": oops}]',
    ),
    case("transcript-binary", ["turns.json", "not valid JSON"], turns=BINARY),
    case(
        "transcript-huge-line",
        ["turns.json:1:", "not valid JSON"],
        turns='[{"role": "agent", "text": "' + "y" * 5_000_000,
    ),
    case(
        "every-bad-turn-at-once",
        ["$[0].text", "$[2]", "$[3].end"],
        turns='[{"role": "a", "text": 1}, {"role": "a", "text": "ok"}, 7,'
        ' {"role": "a", "text": "x", "end": []}]',
    ),
]


def _write(folder: Path, files: dict[str, str | bytes]) -> None:
    for name, body in files.items():
        path = folder / name
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")


def refused(folder: Path, *argv: str) -> str:
    ran = hotato(*argv, cwd=folder)
    assert ran.code == 2, (ran.code, ran.out, ran.err)
    assert "Traceback" not in ran.err
    assert ran.out == ""  # nothing partial
    assert ran.err.startswith("hotato: refused:"), ran.err[:500]
    assert len(ran.err) < 20_000, "a refusal stays short however large the input"
    return ran.err


@pytest.mark.parametrize(
    "bad", CASES, ids=[getattr(c, "name", None) or c.values[0].name for c in CASES]
)
def test_malformed_input_is_refused_with_its_place(tmp_path: Path, bad: Bad) -> None:
    _write(tmp_path, bad.files)
    err = refused(tmp_path, "assert", "run", "--assertions", bad.assertions, *bad.flags)
    for text in bad.says:
        assert text in err, f"{text!r} not in {err!r}"


@pytest.mark.parametrize(
    "flag,what",
    [("--assertions", "assertions"), ("--trace", "trace"), ("--transcript", "transcript")],
)
def test_a_missing_file_is_named(tmp_path: Path, flag: str, what: str) -> None:
    _write(tmp_path, {"a.yaml": GOOD_ASSERTIONS})
    argv = ["assert", "run", "--assertions", "a.yaml", flag, "nowhere.json"]
    if flag == "--assertions":
        argv = ["assert", "run", "--assertions", "nowhere.json"]
    err = refused(tmp_path, *argv)
    assert "nowhere.json" in err and "does not exist" in err and what in err


@pytest.mark.parametrize("flag", ["--assertions", "--trace", "--transcript"])
def test_a_folder_instead_of_a_file(tmp_path: Path, flag: str) -> None:
    _write(tmp_path, {"a.yaml": GOOD_ASSERTIONS})
    (tmp_path / "folder").mkdir()
    argv = ["assert", "run", "--assertions", "a.yaml", flag, "folder"]
    if flag == "--assertions":
        argv = ["assert", "run", "--assertions", "folder"]
    err = refused(tmp_path, *argv)
    assert "folder" in err and "is a folder" in err


def test_no_meta_line_is_refused_when_the_trace_is_named_native(tmp_path: Path) -> None:
    _write(tmp_path, {"a.yaml": GOOD_ASSERTIONS, "t.jsonl": NO_META})
    err = refused(
        tmp_path,
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--trace",
        "t.jsonl",
        "--trace-format",
        "native",
    )
    assert "t.jsonl:1" in err and "meta" in err


def test_every_problem_in_an_assertions_file_is_reported_at_once(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "a.yaml": (
                "version: 1\n"
                "inconclusive_policy: sometimes\n"
                "assertions:\n"
                "  - {id: a, kind: tool_cal, name: x}\n"
                "  - {id: b, kind: phrase, regex: '(?<=x)y'}\n"
                "  - {id: c, kind: tool_call, name: x, count: many}\n"
                "  - {id: d, kind: order, befor: x, after: y}\n"
            )
        },
    )
    err = refused(tmp_path, "assert", "run", "--assertions", "a.yaml")
    for line in (2, 4, 5, 6, 7):
        assert f"a.yaml:{line}:" in err
    assert "unknown key 'befor'" in err and "'before' is required" in err


def test_valid_evidence_still_runs(tmp_path: Path) -> None:
    _write(tmp_path, {"a.yaml": GOOD_ASSERTIONS, "t.jsonl": GOOD_TRACE, "turns.json": GOOD_TURNS})
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--trace",
        "t.jsonl",
        "--transcript",
        "turns.json",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert ran.code == 0, ran.err
    assert [r["status"] for r in json.loads(ran.out)["results"]] == ["PASS", "PASS"]
