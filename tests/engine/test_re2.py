"""Every user pattern runs on RE2 (law 9): linear time, a pattern RE2 cannot run is a usage
error that names the assertion, and catastrophic backtracking cannot happen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato

from hotato.kinds._regex import PatternError, compile_pattern, encoded

UNSUPPORTED = [
    "(?<=refund )issued",  # lookbehind
    "(?<!not )issued",  # negative lookbehind
    "refund(?= issued)",  # lookahead
    r"(a)\1",  # backreference
    "(?>atomic)",  # atomic group
    "a++",  # possessive
]


@pytest.mark.parametrize("pattern", UNSUPPORTED)
def test_patterns_re2_cannot_run_are_refused(pattern: str) -> None:
    with pytest.raises(PatternError, match="cannot run on RE2"):
        compile_pattern(pattern)


@pytest.mark.parametrize(
    "field,kind,extra",
    [
        ("regex", "phrase", {}),
        ("before", "order", {"after": "x"}),
        ("phrase", "count", {"count": 1}),
        ("error_matches", "tool_error", {}),
        ("url_matches", "http_result", {}),
    ],
)
def test_an_unsupported_pattern_is_a_usage_error_naming_the_assertion(
    tmp_path: Path, field: str, kind: str, extra: dict[str, object]
) -> None:
    spec = {"id": "said-it", "kind": kind, field: "(?<=refund )issued", **extra}
    doc = {"version": 1, "assertions": [{"id": "fine", "kind": "phrase", "regex": "ok"}, spec]}
    (tmp_path / "a.json").write_text(json.dumps(doc, indent=2))
    (tmp_path / "turns.json").write_text("[]")
    ran = hotato(
        "assert", "run", "--assertions", "a.json", "--transcript", "turns.json", cwd=tmp_path
    )
    assert ran.code == 2
    assert "Traceback" not in ran.err and ran.out == ""
    assert "'said-it'" in ran.err  # the assertion, by id
    assert "$.assertions[1]" in ran.err  # and by place
    assert "a.json:" in ran.err
    assert "cannot run on RE2" in ran.err and "(?<=" in ran.err


def test_every_bad_pattern_is_reported_at_once(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n"
        "  - {id: one, kind: phrase, regex: '(?<=a)b'}\n"
        "  - {id: two, kind: phrase, regex: '(unclosed'}\n"
        "  - {id: three, kind: order, before: 'ok', after: '[z-a]'}\n"
    )
    ran = hotato("assert", "run", "--assertions", "a.yaml", cwd=tmp_path)
    assert ran.code == 2
    for ident, line in (("one", 3), ("two", 4), ("three", 5)):
        assert f"a.yaml:{line}:" in ran.err and f"'{ident}'" in ran.err


def test_catastrophic_pattern_over_a_long_turn_runs(tmp_path: Path) -> None:
    # A backtracking engine takes exponential time here; RE2 is linear. No timing asserted.
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n"
        "  - {id: redos, kind: phrase, regex: '(a+)+$'}\n"
        "  - {id: redos-absent, kind: phrase, regex: '(a+)+$', absent: true}\n"
        "  - {id: nested, kind: count, phrase: '(a|aa)+$', count: 0}\n"
    )
    turn = {"role": "caller", "text": "a" * 100_000 + "!"}
    (tmp_path / "turns.json").write_text(json.dumps([turn]))
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--transcript",
        "turns.json",
        "--format",
        "json",
        cwd=tmp_path,
        timeout=60,
    )
    statuses = [r["status"] for r in json.loads(ran.out)["results"]]
    assert statuses == ["FAIL", "PASS", "PASS"]
    assert ran.code == 1


def test_the_same_pattern_without_the_bang_matches() -> None:
    assert compile_pattern("(a+)+$").search(encoded("a" * 100_000)) is not None


def test_case_is_ignored_unless_asked() -> None:
    assert compile_pattern("REFUND").search(encoded("your refund")) is not None
    assert compile_pattern("REFUND", True).search(encoded("your refund")) is None


def test_patterns_read_unicode_text() -> None:
    assert compile_pattern("café").search(encoded("un CAFÉ noir")) is not None
    assert compile_pattern(r"^\p{L}+$").search(encoded("日本語")) is not None
    # RE2's Perl classes are ASCII (docs/assertions.md says so): \w is [0-9A-Za-z_].
    assert compile_pattern(r"^\w+$").search(encoded("日本語")) is None
