"""`hotato claims extract | check | packs`: exact exit codes, JSON shape, located refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato

META = {"_meta": True, "schema": "hotato.voice_trace.v1", "call_id": "c1"}
TURNS = [
    {
        "role": "caller",
        "text": "I was charged twice, order four four seven one nine.",
        "start": 0,
        "end": 1,
    },
    {"role": "agent", "text": "I'll refund forty two fifty, okay?", "start": 1, "end": 2},
    {"role": "caller", "text": "Yes.", "start": 2, "end": 3},
    {
        "role": "agent",
        "text": "Done, I've issued a refund of forty two fifty.",
        "start": 3,
        "end": 4,
    },
]


def write(folder: Path, spans: list[dict[str, object]] | None) -> tuple[str, str | None]:
    (folder / "turns.json").write_text(json.dumps(TURNS), encoding="utf-8")
    if spans is None:
        return "turns.json", None
    lines = [json.dumps(META)] + [json.dumps(s) for s in spans]
    (folder / "trace.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return "turns.json", "trace.jsonl"


def refund(amount: object) -> dict[str, object]:
    return {
        "type": "tool_call",
        "name": "issue_refund",
        "arguments": {"amount": amount},
        "time_sec": 3.5,
    }


def test_extract_json_lists_claims_with_turn_span_type_polarity_entities(tmp_path: Path) -> None:
    transcript, _ = write(tmp_path, None)
    ran = hotato("claims", "extract", "--transcript", transcript, "--format", "json", cwd=tmp_path)
    assert ran.code == 0, ran.err
    doc = json.loads(ran.out)
    assert [(c["turn"], c["type"], c["polarity"]) for c in doc["claims"]] == [
        (1, "refund_issued", "negated"),
        (3, "refund_issued", "done"),
    ]
    done = doc["claims"][1]
    assert TURNS[3]["text"][done["span"][0] : done["span"][1]] == done["text"]
    assert done["entities"][0]["kind"] == "amount" and done["entities"][0]["value"] == "42.50"
    assert doc["summary"]["by_polarity"] == {"done": 1, "failed": 0, "promised": 0, "negated": 1}


def test_check_passes_when_the_refund_ran_with_the_said_amount(tmp_path: Path) -> None:
    transcript, trace = write(tmp_path, [refund(42.5)])
    assert trace is not None
    ran = hotato(
        "claims",
        "check",
        "--transcript",
        transcript,
        "--trace",
        trace,
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert ran.code == 0, ran.out + ran.err
    doc = json.loads(ran.out)
    assert list(doc) == ["schema", "exit_code", "inconclusive_policy", "packs", "claims", "summary"]
    claim = doc["claims"][1]
    assert list(claim)[:9] == [
        "turn",
        "span",
        "text",
        "type",
        "polarity",
        "entities",
        "status",
        "reason",
        "evidence",
    ]
    assert claim["status"] == "PASS" and "s_0" in claim["evidence"]
    assert doc["summary"]["graded"] == {"pass": 1, "fail": 0, "inconclusive": 0}


def test_check_fails_with_exit_1_and_says_what_ran(tmp_path: Path) -> None:
    transcript, trace = write(tmp_path, [refund("24.00")])
    assert trace is not None
    ran = hotato("claims", "check", "--transcript", transcript, "--trace", trace, cwd=tmp_path)
    assert ran.code == 1
    assert "said 'forty two fifty', executed amount=24.00" in ran.out


def test_check_fails_when_only_other_tools_ran(tmp_path: Path) -> None:
    lookup = {"type": "tool_call", "name": "lookup_order", "time_sec": 0.5}
    transcript, trace = write(tmp_path, [lookup])
    assert trace is not None
    ran = hotato(
        "claims",
        "check",
        "--transcript",
        transcript,
        "--trace",
        trace,
        "--format",
        "junit",
        cwd=tmp_path,
    )
    assert ran.code == 1
    assert '<failure message="refund_issued (done)' in ran.out
    assert "no refund_issued action ran: no tool that changes anything had succeeded" in ran.out
    assert "(tools seen: lookup_order)" in ran.out


def test_check_without_a_trace_is_inconclusive_and_the_policy_decides(tmp_path: Path) -> None:
    transcript, _ = write(tmp_path, None)
    ran = hotato("claims", "check", "--transcript", transcript, cwd=tmp_path)
    assert ran.code == 0
    assert "INCONCLUSIVE" in ran.out and "no trace was supplied (--trace)" in ran.out
    gated = hotato(
        "claims", "check", "--transcript", transcript, "--inconclusive-policy", "fail", cwd=tmp_path
    )
    assert gated.code == 1
    refused = hotato(
        "claims",
        "check",
        "--transcript",
        transcript,
        "--inconclusive-policy",
        "refuse",
        cwd=tmp_path,
    )
    assert refused.code == 2


def test_byte_stable(tmp_path: Path) -> None:
    transcript, trace = write(tmp_path, [refund(42.5)])
    assert trace is not None
    args = ("claims", "check", "--transcript", transcript, "--trace", trace, "--format", "json")
    assert hotato(*args, cwd=tmp_path).out == hotato(*args, cwd=tmp_path).out


def test_unknown_type_and_missing_file_are_refused(tmp_path: Path) -> None:
    transcript, _ = write(tmp_path, None)
    ran = hotato("claims", "check", "--transcript", transcript, "--type", "refnd", cwd=tmp_path)
    assert ran.code == 2 and "unknown claim type(s) refnd" in ran.err
    missing = hotato("claims", "extract", "--transcript", "nope.json", cwd=tmp_path)
    assert missing.code == 2 and "nope.json" in missing.err


def test_a_team_pack_adds_its_own_type(tmp_path: Path) -> None:
    (tmp_path / "team.yaml").write_text(
        "name: team\nversion: 0.1.0\ndescription: Loyalty points.\n"
        "types:\n  points_added:\n    description: Loyalty points were added.\n"
        "    trigger: ['\\bpoints?\\b']\n    tools: 'add_points|award'\n"
        "    agree: {count: 'points|amount'}\n    overrides: [account_updated]\n",
        encoding="utf-8",
    )
    (tmp_path / "turns.json").write_text(
        json.dumps([{"role": "agent", "text": "I've added 500 points to your account."}]),
        encoding="utf-8",
    )
    (tmp_path / "trace.jsonl").write_text(
        json.dumps(META)
        + "\n"
        + json.dumps({"type": "tool_call", "name": "add_points", "arguments": {"points": 500}})
        + "\n",
        encoding="utf-8",
    )
    ran = hotato(
        "claims",
        "check",
        "--transcript",
        "turns.json",
        "--trace",
        "trace.jsonl",
        "--packs",
        "team.yaml",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert ran.code == 0, ran.out + ran.err
    (claim,) = json.loads(ran.out)["claims"]
    assert claim["type"] == "points_added" and claim["status"] == "PASS"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "name: t\nversion: one\ndescription: d\ntypes:\n  x: {description: d, trigger: ['a'], "
            "tools: 'b'}\n",
            "$.version: 'version' must be semver",
        ),
        (
            "name: t\nversion: 1.0.0\ndescription: d\ntypes:\n  x: {description: d, trigger: "
            "['(?=a)'], tools: 'b'}\n",
            "$.types.x.trigger[0]: pattern cannot run on RE2",
        ),
        (
            "name: t\nversion: 1.0.0\ndescription: d\ntypes:\n  x: {description: d, trigger: ['a']}"
            "\n",
            "a type needs 'tools', 'spans', 'state' or 'align'",
        ),
        (
            "name: t\nversion: 1.0.0\ndescription: d\ntypes:\n  x: {description: d, "
            "trigger: ['a'], tools: 'b', tool: 'c'}\n",
            "Object contains unknown field `tool`",
        ),
    ],
)
def test_a_bad_pack_is_refused_with_its_place(tmp_path: Path, body: str, message: str) -> None:
    transcript, _ = write(tmp_path, None)
    (tmp_path / "bad.yaml").write_text(body, encoding="utf-8")
    ran = hotato(
        "claims", "extract", "--transcript", transcript, "--packs", "bad.yaml", cwd=tmp_path
    )
    assert ran.code == 2
    assert "bad.yaml:" in ran.err and message in ran.err


def test_packs_lists_the_bundled_packs() -> None:
    ran = hotato("claims", "packs", "--format", "json")
    assert ran.code == 0
    (core,) = json.loads(ran.out)["packs"]
    assert core["name"] == "core" and "refund_issued" in core["types"]


def test_assert_init_from_transcript_drafts_assertions_that_run(tmp_path: Path) -> None:
    transcript, trace = write(tmp_path, [refund(42.5)])
    assert trace is not None
    ran = hotato(
        "assert",
        "init",
        "--from-transcript",
        transcript,
        "--from-trace",
        trace,
        "--out",
        "a.yaml",
        cwd=tmp_path,
    )
    assert ran.code == 0, ran.err
    text = (tmp_path / "a.yaml").read_text(encoding="utf-8")
    assert "kind: claims" in text and "name: issue_refund" in text
    graded = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--transcript",
        transcript,
        "--trace",
        trace,
        cwd=tmp_path,
    )
    assert graded.code == 0, graded.out
    nothing = tmp_path / "empty.json"
    nothing.write_text(json.dumps([{"role": "agent", "text": "Hello!"}]), encoding="utf-8")
    none = hotato("assert", "init", "--from-transcript", "empty.json", cwd=tmp_path)
    assert none.code == 2 and "no claim" in none.err
    neither = hotato("assert", "init", cwd=tmp_path)
    assert neither.code == 2


STATE_PACK = """\
name: refunds-ledger
version: 1.0.0
description: Refunds, checked in the ledger too.
types:
  refund_issued:
    description: A refund was issued, and the ledger shows it.
    trigger: ['\\brefund(?:ed)?\\b']
    overrides: [payment_taken]
    tools: 'refund'
    agree: {amount: 'amount'}
    state:
      resource: refunds
      filters: {order_id: $arg.order_id}
      expect: {status: issued}
"""


@pytest.mark.parametrize(
    ("rows", "code", "status", "reason"),
    [
        ([{"order_id": "A1", "status": "issued"}], 0, "PASS", "the refunds record agrees"),
        ([{"order_id": "A1", "status": "pending"}], 1, "FAIL", "does not show"),
        ([], 1, "FAIL", "no refunds record matches"),
        (None, 0, "INCONCLUSIVE", "(resource 'refunds') and no state was supplied (--state)"),
    ],
)
def test_a_pack_state_check_reads_the_system_of_record(
    tmp_path: Path, rows: list[dict[str, str]] | None, code: int, status: str, reason: str
) -> None:
    (tmp_path / "pack.yaml").write_text(STATE_PACK, encoding="utf-8")
    (tmp_path / "turns.json").write_text(
        json.dumps([{"role": "agent", "text": "I've refunded twenty dollars."}]), encoding="utf-8"
    )
    span = {
        "type": "tool_call",
        "name": "issue_refund",
        "arguments": {"order_id": "A1", "amount": 20},
    }
    (tmp_path / "trace.jsonl").write_text(
        json.dumps(META) + "\n" + json.dumps(span) + "\n", encoding="utf-8"
    )
    args = [
        "claims",
        "check",
        "--transcript",
        "turns.json",
        "--trace",
        "trace.jsonl",
        "--packs",
        "pack.yaml",
        "--format",
        "json",
    ]
    if rows is not None:
        (tmp_path / "state.json").write_text(json.dumps({"refunds": rows}), encoding="utf-8")
        args += ["--state", "state.json"]
    ran = hotato(*args, cwd=tmp_path)
    assert ran.code == code, ran.out + ran.err
    (claim,) = json.loads(ran.out)["claims"]
    assert claim["status"] == status and reason in claim["reason"]
