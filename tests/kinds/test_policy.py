"""The policy kind: one verdict over a pack's rules, graded the way the engine grades them."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from hotato._documents import Document
from hotato.engine.evaluate import Sources, evaluate
from hotato.engine.loader import decode_assertion_document
from hotato.evidence.trace import SCHEMA, load_trace
from hotato.kinds import REGISTRY
from hotato.kinds._base import MISSING_REASON, Evidence, Spec
from hotato.kinds.policy import PolicyPack, check
from hotato.model.errors import InputError
from hotato.model.evidence import Trace, Transcript, Turn
from hotato.model.status import Source, Status

CLEAN = [
    ("agent", "Hi, I'm a virtual assistant. This call may be recorded."),
    ("caller", "What's my balance?"),
    ("agent", "First, can you verify your date of birth?"),
    ("caller", "Sure."),
    ("agent", "Thanks. Your balance is 40 dollars."),
]


def transcript(*turns: tuple[str, str]) -> Transcript:
    return Transcript([Turn(i, role, text) for i, (role, text) in enumerate(turns)])


def trace(tmp_path: Path, *tools: str) -> Trace:
    path = tmp_path / "trace.jsonl"
    lines = [json.dumps({"_meta": True, "schema": SCHEMA, "call_id": "c"})]
    lines += [
        json.dumps({"type": "tool_call", "name": n, "start_sec": float(i)})
        for i, n in enumerate(tools)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_trace(path)


def decode(*items: dict[str, object]) -> list[Spec]:
    doc = Document({"version": 1, "assertions": list(items)}, "a.yaml")
    return list(decode_assertion_document(doc).specs)


def test_every_readable_source_has_a_missing_reason() -> None:
    assert set(Source) - {Source.RESULTS} == set(MISSING_REASON)


def test_a_rule_with_a_missing_source_reads_as_the_engine_would_grade_it() -> None:
    kdef = REGISTRY["policy"]
    spec = PolicyPack(
        id="p", pack="identity-before-account", rule_ids=("verify-before-get-balance",)
    )
    [alone] = evaluate(
        decode({"id": "x", "kind": "tool_call", "never_before": {"tool": "a", "until": "b"}}),
        Sources(),
    )
    verdict = kdef.check(spec, Evidence())
    assert verdict.status is Status.INCONCLUSIVE
    assert verdict.details["rules"][0]["reason"] == alone.reason


def test_registered_partial_and_deterministic() -> None:
    kdef = REGISTRY["policy"]
    assert kdef is check and kdef.partial and kdef.deterministic


@pytest.mark.parametrize(
    ("spec", "sources"),
    [
        (PolicyPack(id="p"), {Source.TRANSCRIPT}),
        (PolicyPack(id="p", pack="pii-leak"), {Source.TRANSCRIPT}),
        (PolicyPack(id="p", pack="identity-before-account"), {Source.TRACE, Source.TRANSCRIPT}),
        (
            PolicyPack(
                id="p",
                pack="identity-before-account",
                rule_ids=("verify-before-lookup-account",),
            ),
            {Source.TRACE},
        ),
    ],
)
def test_reads_are_the_union_of_the_rules_sources(spec: PolicyPack, sources: set[Source]) -> None:
    assert REGISTRY["policy"].sources(spec) == frozenset(sources)


def test_every_rule_is_listed_with_its_status(tmp_path: Path) -> None:
    spec = PolicyPack(id="p", pack="identity-before-account")
    verdict = check(
        spec,
        Evidence(
            trace=trace(tmp_path, "verify_identity", "lookup_account"),
            transcript=transcript(*CLEAN),
        ),
    )
    assert verdict.status is Status.PASS
    assert [(r["id"], r["status"]) for r in verdict.details["rules"]] == [
        ("verify-before-lookup-account", "PASS"),
        ("verify-before-get-account", "PASS"),
        ("verify-before-get-balance", "PASS"),
        ("verification-before-account-details", "PASS"),
    ]
    assert verdict.details["pack"] == "identity-before-account"
    assert verdict.details["version"] == "1.0.0"
    assert verdict.observed == {"pass": 4, "fail": 0, "inconclusive": 0}


def test_fail_wins_over_inconclusive_and_inconclusive_over_pass(tmp_path: Path) -> None:
    spec = PolicyPack(id="p", pack="identity-before-account")
    early = transcript(("agent", "Your balance is 40 dollars."), ("agent", "Please verify."))
    assert check(spec, Evidence(transcript=early)).status is Status.FAIL  # no trace: 3 unknown
    assert check(spec, Evidence(transcript=transcript(*CLEAN))).status is Status.INCONCLUSIVE
    done = Evidence(trace=trace(tmp_path, "verify_identity"), transcript=transcript(*CLEAN))
    assert check(spec, done).status is Status.PASS


def test_a_pii_failure_never_carries_the_number() -> None:
    said = transcript(("caller", "it's 4111 1111 1111 1111, and 123-45-6789, jane@example.com"))
    [result] = evaluate([PolicyPack(id="p", pack="pii-leak")], Sources(transcript=said))
    assert result.status is Status.FAIL
    body = msgspec.json.encode(result).decode()
    for secret in ("4111", "6789", "jane", "example.com"):
        assert secret not in body


def test_same_pack_same_evidence_same_bytes() -> None:
    said = Sources(transcript=transcript(*CLEAN))
    specs = decode({"id": "p", "kind": "policy"}, {"id": "q", "kind": "policy", "pack": "pii-leak"})
    first = msgspec.json.encode(evaluate(specs, said))
    again = msgspec.json.encode(evaluate(specs, said))
    assert first == again


def test_a_pack_file_by_path(tmp_path: Path) -> None:
    path = tmp_path / "house.yaml"
    path.write_text(
        "name: house\nversion: 0.3.1\ndescription: House rules.\nchecks: [no refunds promised]\n"
        "assertions:\n"
        "  - {id: no-refund-promise, kind: phrase, regex: 'refund is guaranteed', role: agent,"
        " absent: true}\n",
        encoding="utf-8",
    )
    [spec] = decode({"id": "p", "kind": "policy", "pack_path": str(path)})
    promised = transcript(("agent", "Your refund is guaranteed."))
    [result] = evaluate([spec], Sources(transcript=promised))
    assert result.status is Status.FAIL
    assert result.reason.startswith("pack house@0.3.1: 1 fail")


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"pack": "defualt"}, "did you mean 'default'"),
        ({"pack": "nope"}, "bundled packs: default"),
        ({"pack": "./mine.yaml"}, "pack_path"),
        ({"pack_path": "/nonexistent/p.yaml"}, "does not exist"),
        ({"pack": "default", "pack_path": "x.yaml"}, "not both"),
        ({"rule_ids": ["no-profanty"]}, "did you mean 'no-profanity'"),
        ({"rule_ids": []}, "at least one id"),
    ],
)
def test_bad_references_are_located_problems(item: dict[str, object], message: str) -> None:
    with pytest.raises(InputError) as refused:
        decode({"id": "p", "kind": "policy", **item})
    [problem] = refused.value.problems
    assert message in problem.message
    assert problem.path == "$.assertions[0]" and "policy" in str(problem.kind)


def test_a_broken_pack_file_names_its_own_lines(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(
        "name: b\nversion: '1'\ndescription: d\nchecks: [c]\nassertions:\n"
        "  - {id: a, kind: phrase, regex: '('}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as refused:
        decode({"id": "p", "kind": "policy", "pack_path": str(path)})
    text = str(refused.value)
    assert f"{path}:2:" in text and "semver" in text
    assert f"{path}:6:" in text and "RE2" in text
