"""`hotato schema`: the JSON Schemas accept every file the loaders accept (the docs' examples,
the conformance corpus, the demo) and reject what the loaders reject on a sample of bad files;
real outputs validate against the result and artifact schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from tests.conftest import CONFORMANCE, REPO, hotato
from tests.conversation.conftest import REFUND_RAN, evidence_args, write_call, write_test
from tests.docrun import FileBlock, parse

from hotato.conversation.testfile import load_test
from hotato.engine.loader import load_assertions
from hotato.model.errors import InputError
from hotato.report.json_out import dumps
from hotato.runs.schema import NAMES, json_schema

LOADERS = {"assertions": load_assertions, "conversation-test": load_test}


def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json_schema(name))


VALIDATORS = {name: _validator(name) for name in NAMES}


def _which(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    if value.get("kind") == "hotato.conversation-test":
        return "conversation-test"
    if "assertions" in value and isinstance(value["assertions"], list):
        return "assertions"
    return None


def _examples() -> list[tuple[str, str, str]]:
    """(where, file name, text) of every assertions file or conversation test in the docs,
    the conformance corpus and the demo."""
    found = []
    for page in sorted((REPO / "docs").rglob("*.md")):
        for step in parse(page.read_text(encoding="utf-8")):
            if isinstance(step, FileBlock) and step.path.endswith((".yaml", ".yml", ".json")):
                found.append((f"{page.relative_to(REPO)}:{step.line}", step.path, step.content))
    for path in sorted(CONFORMANCE.glob("*/*")):
        if path.name in ("assertions.yaml", "test.json", "test.yaml"):
            found.append((str(path.relative_to(REPO)), path.name, path.read_text()))
    demo = REPO / "src" / "hotato" / "demo" / "assertions.yaml"
    found.append((str(demo.relative_to(REPO)), demo.name, demo.read_text()))
    return found


EXAMPLES = _examples()


def _accepted(tmp_path: Path) -> list[tuple[str, str, Any]]:
    out = []
    for where, name, text in EXAMPLES:
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        kind = _which(value)
        if kind is None:
            continue
        path = tmp_path / Path(name).name
        path.write_text(text)
        try:
            LOADERS[kind](path)
        except InputError:
            continue  # a page showing a refusal
        out.append((where, kind, json.loads(json.dumps(value, default=str))))
    return out


def test_every_accepted_example_validates(tmp_path: Path) -> None:
    accepted = _accepted(tmp_path)
    kinds = {kind for _, kind, _ in accepted}
    assert kinds == {"assertions", "conversation-test"} and len(accepted) >= 20, accepted
    wrong = []
    for where, kind, value in accepted:
        errors = [e.message for e in VALIDATORS[kind].iter_errors(value)]
        if errors:
            wrong.append(f"{where} ({kind}): {errors[:2]}")
    assert wrong == []


A = {"id": "refund-ran", "kind": "tool_call", "name": "issue_refund"}
T = {"kind": "hotato.conversation-test", "id": "t", "agent": "a", "assertions": {}}
BAD: list[tuple[str, str, dict[str, Any]]] = [
    ("unknown top key", "assertions", {"version": 1, "assertions": [A], "scores": 1}),
    ("unknown kind", "assertions", {"assertions": [{**A, "kind": "tool_calls"}]}),
    ("unknown field", "assertions", {"assertions": [{**A, "nmae": "x"}]}),
    ("missing id", "assertions", {"assertions": [{"kind": "tool_call", "name": "x"}]}),
    ("wrong type", "assertions", {"assertions": [{**A, "count": "two"}]}),
    ("bad version", "assertions", {"version": 2, "assertions": [A]}),
    ("bad policy", "assertions", {"inconclusive_policy": "ignore", "assertions": [A]}),
    ("bad dimension", "assertions", {"assertions": [{**A, "dimension": "vibes"}]}),
    ("not a list", "assertions", {"assertions": {"a": A}}),
    ("missing agent", "conversation-test", {k: v for k, v in T.items() if k != "agent"}),
    ("empty id", "conversation-test", {**T, "id": ""}),
    ("unknown key", "conversation-test", {**T, "owner": "me"}),
    ("bad condition", "conversation-test", {**T, "success": {"required": ["vibes"]}}),
    ("bad repetitions", "conversation-test", {**T, "repetitions": 0}),
    ("unknown lane", "conversation-test", {**T, "assertions": {"deterministc": [A]}}),
    (
        "rubric kind in the deterministic lane",
        "conversation-test",
        {
            **T,
            "assertions": {
                "deterministic": [{"id": "r", "kind": "judge_rubric", "criterion": "kind?"}]
            },
        },
    ),
]


@pytest.mark.parametrize(("name", "kind", "value"), BAD, ids=[b[0] for b in BAD])
def test_the_schema_rejects_what_the_loader_rejects(
    tmp_path: Path, name: str, kind: str, value: dict[str, Any]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(value))
    with pytest.raises(InputError):
        LOADERS[kind](path)
    assert not VALIDATORS[kind].is_valid(value), name


def test_outputs_validate_against_result_and_artifact(tmp_path: Path) -> None:
    call = write_call(tmp_path / "call")
    test = write_test(tmp_path / "t.json", [REFUND_RAN])
    outputs = [
        hotato(
            "test",
            "run",
            str(test),
            "--agent",
            "support-v3",
            *evidence_args(call),
            "--out",
            str(tmp_path / "art"),
            "--format",
            "json",
        ).out,
        hotato(
            "assert",
            "run",
            "--assertions",
            str(REPO / "src/hotato/demo/assertions.yaml"),
            "--trace",
            str(call / "trace.jsonl"),
            "--format",
            "json",
        ).out,
    ]
    for out in outputs:
        errors = [e.message for e in VALIDATORS["result"].iter_errors(json.loads(out))]
        assert errors == []
    manifest = json.loads((tmp_path / "art" / "conversation.json").read_text())
    assert VALIDATORS["artifact"].is_valid(manifest)
    assert not VALIDATORS["artifact"].is_valid({**manifest, "kind": "something-else"})


def test_the_command_prints_the_generated_schema() -> None:
    for name in NAMES:
        ran = hotato("schema", name)
        assert ran.code == 0 and ran.out == dumps(json_schema(name))
    ran = hotato("schema", "nope")
    assert ran.code == 2 and "nope" in ran.err


GOLDEN = REPO / "tests" / "cli" / "golden" / "test-run"


@pytest.mark.parametrize("name", ["replays.json", "rubric.json", "saydo.json"])
def test_pinned_test_run_outputs_validate_against_the_result_schema(name: str) -> None:
    document = json.loads((GOLDEN / name).read_text())
    assert [e.message for e in VALIDATORS["result"].iter_errors(document)] == []
    assert not VALIDATORS["result"].is_valid({**document, "exit_code": "zero"})


def test_the_result_schema_is_the_result_types() -> None:
    """Generated from the very structs hotato encodes (hotato.model.reports): every field of
    each is a property of its schema, and the required ones are required."""
    import msgspec

    from hotato.model.reports import AssertRun, HumanLabels, TestRun, TestSuite

    defs = json_schema("result")["$defs"]
    for tp in (AssertRun, TestRun, TestSuite, HumanLabels):
        fields = msgspec.structs.fields(tp)
        shape = defs[tp.__name__]
        tag = tp.__struct_config__.tag_field
        assert set(shape["properties"]) == {f.encode_name for f in fields} | ({tag} - {None})
        assert {f.encode_name for f in fields if f.required} <= set(shape["required"])


def test_an_adapter_file_is_held_to_the_state_adapter_schema() -> None:
    check = VALIDATORS["state-adapter"]
    sql = {"adapter": "sql", "url": "sqlite:///shop.db", "resources": {"o": {"table": "orders"}}}
    http = {
        "adapter": "http",
        "base_url": "https://api.example.com",
        "egress_opt_in": True,
        "resources": {"orders": {"path": "/orders/{order_id}"}},
    }
    assert check.is_valid(sql) and check.is_valid(http)
    assert check.is_valid({"adapter": "sql", "url": "sqlite:///shop.db"})  # every table
    assert not check.is_valid({"adapter": "ftp", "url": "ftp://x"})
    assert not check.is_valid({**sql, "resources": {"o": {"tabel": "orders"}}})
    assert not check.is_valid({k: v for k, v in http.items() if k != "resources"})
