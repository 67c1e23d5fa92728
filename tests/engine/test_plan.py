"""Planning: references (`when`, formula ids, outcome parts) graded first, in linear time; an
unknown id or a cycle refused (exit 2) before any evidence is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato

from hotato._documents import Document
from hotato.engine.evaluate import Sources, evaluate
from hotato.engine.loader import AssertionSet, decode_assertion_document
from hotato.engine.plan import plan
from hotato.kinds import REGISTRY
from hotato.kinds._decode import decode_assertion_list
from hotato.kinds._formula import MAX_NESTING
from hotato.model.errors import InputError, UsageError
from hotato.model.evidence import Span, Trace
from hotato.model.status import Status


def specs_of(*items: dict[str, object]) -> AssertionSet:
    return decode_assertion_document(Document({"version": 1, "assertions": list(items)}, "t.yaml"))


def unchecked(*items: dict[str, object]) -> AssertionSet:
    """Specs decoded one by one, without the file's reference check: what plan() meets when a
    set was assembled in code (the decoder reports these problems itself; see below)."""
    doc = Document({"version": 1, "assertions": list(items)}, "t.yaml")
    specs, problems = decode_assertion_list(list(items), "$.assertions", doc, REGISTRY)
    assert not problems
    return AssertionSet(specs, None, "t.yaml", {sp.id: "t.yaml" for sp in specs})


def tool(ident: str, name: str = "x", **extra: object) -> dict[str, object]:
    return {"id": ident, "kind": "tool_call", "name": name, **extra}


def trace_with(*names: str) -> Trace:
    spans = [Span(type="tool_call", name=n, index=i) for i, n in enumerate(names)]
    return Trace(meta={}, spans=spans)


def test_references_come_first_and_results_keep_document_order() -> None:
    aset = specs_of(
        {"id": "f", "kind": "formula", "expr": "a and b"},
        tool("b", when=["a"]),
        {"id": "o", "kind": "outcome", "all_of": [{"assertion": "f"}]},
        tool("a"),
    )
    order = [s.id for s in plan(aset.specs)]
    assert order.index("a") < order.index("b") < order.index("f") < order.index("o")
    results = evaluate(aset.specs, Sources(trace=trace_with("x")))
    assert [r.id for r in results] == ["f", "b", "o", "a"]
    assert all(r.status is Status.PASS for r in results)


def test_independent_assertions_keep_document_order_in_the_plan() -> None:
    aset = specs_of(tool("c"), tool("a"), tool("b"))
    assert [s.id for s in plan(aset.specs)] == ["c", "a", "b"]


@pytest.mark.slow  # a chain thousands of links long
def test_a_long_chain_plans_without_recursion() -> None:
    # a_i `when` a_{i+1}, written in the worst order: 20,000 links, planned iteratively.
    n = 20_000
    items = [tool(f"a{i}", when=[f"a{i + 1}"]) for i in range(n - 1)] + [tool(f"a{n - 1}")]
    aset = specs_of(*items)
    order = plan(aset.specs)
    assert order[0].id == f"a{n - 1}" and order[-1].id == "a0"
    results = evaluate(aset.specs, Sources(trace=trace_with("x")))
    assert results[0].status is Status.PASS


@pytest.mark.slow  # thousands of ids planned and graded
def test_a_formula_over_thousands_of_ids_runs() -> None:
    ids = [f"a{i}" for i in range(3000)]
    aset = specs_of(
        *(tool(i) for i in ids),
        {"id": "all", "kind": "formula", "expr": " and ".join(ids)},
        {"id": "sum", "kind": "formula", "expr": " + ".join(ids) + " >= 3000"},
    )
    results = evaluate(aset.specs, Sources(trace=trace_with("x")))
    assert results[-2].status is Status.PASS
    assert results[-1].status is Status.PASS


def _nested(depth: int) -> str:
    return "(" * depth + "a" + ")" * depth


def test_nesting_up_to_the_limit_runs() -> None:
    aset = specs_of(
        tool("a"),
        {"id": "f", "kind": "formula", "expr": _nested(MAX_NESTING)},
        {"id": "g", "kind": "formula", "expr": "not " * MAX_NESTING + "a"},
    )
    results = evaluate(aset.specs, Sources(trace=trace_with("x")))
    assert results[1].status is Status.PASS
    assert results[2].status is Status.PASS  # an even number of nots


@pytest.mark.parametrize("expr", [_nested(MAX_NESTING + 1), _nested(5000), "not " * 5000 + "a"])
def test_deeper_nesting_is_a_usage_error_not_a_crash(expr: str) -> None:
    with pytest.raises(InputError) as refused:
        specs_of(tool("a"), {"id": "f", "kind": "formula", "expr": expr})
    assert "nested more than" in str(refused.value)


def test_unknown_ids_are_all_reported_with_their_assertion() -> None:
    aset = unchecked(
        tool("a", when=["ghost"]), {"id": "f", "kind": "formula", "expr": "a or phantom"}
    )
    with pytest.raises(UsageError) as refused:
        plan(aset.specs, aset.origins)
    text = str(refused.value)
    assert "unknown assertion id 'ghost'" in text and "unknown assertion id 'phantom'" in text
    assert "t.yaml" in text  # the file the referring assertion came from
    assert len(refused.value.problems) == 2


def test_a_cycle_names_its_members() -> None:
    aset = unchecked(
        tool("a", when=["c"]), tool("b", when=["a"]), tool("c", when=["b"]), tool("free")
    )
    with pytest.raises(UsageError) as refused:
        plan(aset.specs)
    text = str(refused.value)
    assert "reference cycle" in text
    assert "'a'" in text and "'b'" in text and "'c'" in text and "free" not in text


def test_a_cycle_through_formula_and_outcome() -> None:
    aset = unchecked(
        {"id": "f", "kind": "formula", "expr": "o"},
        {"id": "o", "kind": "outcome", "all_of": [{"assertion": "f"}]},
    )
    with pytest.raises(UsageError, match="reference cycle"):
        plan(aset.specs)


CYCLE = """\
version: 1
assertions:
  - {id: a, kind: formula, expr: "b"}
  - {id: b, kind: tool_call, name: x, when: [a]}
"""


@pytest.mark.parametrize(
    "body,message",
    [
        (CYCLE, "reference cycle"),
        (
            "version: 1\nassertions:\n  - {id: a, kind: tool_call, name: x, when: [nope]}\n",
            "unknown assertion id 'nope'",
        ),
    ],
)
def test_refused_before_any_evidence_is_read(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "a.yaml").write_text(body)
    # The evidence files do not exist: a refusal about them would mean they were read first.
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--trace",
        "missing.jsonl",
        "--transcript",
        "missing.json",
        "--state",
        "missing-state.json",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert ran.code == 2
    assert message in ran.err
    assert "missing" not in ran.err
    assert ran.out == ""  # nothing partial
    assert "Traceback" not in ran.err


def test_planning_happens_once_in_the_cli_output_order(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n"
        "  - {id: later, kind: tool_call, name: b, when: [first]}\n"
        "  - {id: first, kind: tool_call, name: a}\n"
    )
    (tmp_path / "t.jsonl").write_text(
        '{"_meta": true, "schema": "hotato.voice_trace.v1"}\n'
        '{"type": "tool_call", "name": "a"}\n{"type": "tool_call", "name": "b"}\n'
    )
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--trace",
        "t.jsonl",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert ran.code == 0, ran.err
    assert [r["id"] for r in json.loads(ran.out)["results"]] == ["later", "first"]


def test_the_file_reports_reference_problems_located_with_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "version: 1\n"
        "assertions:\n"
        "  - {id: a, kind: formula, expr: b and c}\n"  # line 3
        "  - {id: b, kind: tool_call, name: x, when: a}\n"
        "  - {id: c, kind: phrase, regex: x, when: [c]}\n"  # line 5
        "  - {id: d, kind: tool_call, name: y, when: [e, nope]}\n"
        "  - {id: e, kind: formula, expr: d or missing}\n"  # line 7
        "  - {id: f, kind: phrase, regex: x, position: middle}\n"
    )
    ran = hotato("assert", "run", "--assertions", "a.yaml", cwd=tmp_path)
    assert ran.code == 2
    lines = ran.err.splitlines()[1:]
    assert lines == [
        "  a.yaml:8:47 $.assertions[5].position (phrase 'f'): Invalid enum value 'middle'",
        "  a.yaml:5:44 $.assertions[2].when[0] (phrase 'c'): references itself",
        "  a.yaml:6:49 $.assertions[3].when[1] (tool_call 'd'): references unknown assertion "
        "id 'nope'",
        "  a.yaml:7:34 $.assertions[4].expr (formula 'e'): references unknown assertion id "
        "'missing'",
        "  a.yaml:3:34 $.assertions[0].expr: reference cycle: a -> b -> a; 'when' and formula "
        "references must not loop",
        "  a.yaml:6:46 $.assertions[3].when[0]: reference cycle: d -> e -> d; 'when' and formula "
        "references must not loop",
    ]


def test_a_conversation_test_reports_reference_problems_located(tmp_path: Path) -> None:
    from hotato.conversation.testfile import load_test

    (tmp_path / "t.yaml").write_text(
        "kind: hotato.conversation-test\nversion: 1\nid: t\nagent: a\n"
        "assertions:\n  deterministic:\n"
        "    - {id: a, kind: tool_call, name: x, when: b}\n"
        "    - {id: b, kind: tool_call, name: y, when: a}\n"
        "  rubric: []\n"
    )
    with pytest.raises(InputError) as refused:
        load_test(tmp_path / "t.yaml")
    assert "t.yaml:7:47 $.assertions.deterministic[0].when: reference cycle: a -> b -> a" in str(
        refused.value
    )
