"""The authorities wired into runs: signed traces, signed manifests and human labels.

Every step runs the real CLI, with real Ed25519 keys made by `hotato label keygen`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from tests.conftest import CONFORMANCE, hotato

CALL = CONFORMANCE / "fx-itc-zombie-assert-run"

TEST = """\
kind: hotato.conversation-test
version: 1
id: zombie
agent: res-v1
assertions:
  deterministic:
    - {id: caller-stated-need, kind: phrase, regex: "under Rivera", role: caller}
    - id: landed
      kind: state
      resource: reservations
      filters: {guest: rivera}
      expect: {active: false}
  rubric:
    - {id: tone, kind: human_rubric, criterion: "Was the apology adequate?"}
success:
  required: [no_deterministic_fail, no_unresolved_inconclusive]
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("trace.jsonl", "transcript.json"):
        shutil.copy(CALL / name, tmp_path / name)
    (tmp_path / "t.yaml").write_text(TEST)
    for who in ("me", "stranger"):
        assert hotato("label", "keygen", "--out", who, cwd=tmp_path).code == 0
    return tmp_path


def _run(work: Path, *extra: str) -> tuple[int, dict, str]:
    ran = hotato(
        "test",
        "run",
        "t.yaml",
        "--agent",
        "res-v1",
        "--transcript",
        "transcript.json",
        "--trace",
        "trace.jsonl",
        "--format",
        "json",
        *extra,
        cwd=work,
    )
    return ran.code, (json.loads(ran.out) if ran.out.strip() else {}), ran.err


# --- signed traces ---------------------------------------------------------------------------


def test_a_signed_trace_is_authenticated_and_says_so(work: Path) -> None:
    assert hotato("trace", "sign", "trace.jsonl", "--key", "me/signing.key", cwd=work).code == 0
    code, doc, _ = _run(work, "--trace-key", "me/signing.pub", "--require-signed-trace")
    assert code in (0, 1)
    assert doc["trace_auth"]["authenticated"] is True
    assert doc["trace_authenticated"] is True


def test_an_unsigned_trace_is_refused_when_a_signature_is_required(work: Path) -> None:
    code, _, err = _run(work, "--trace-key", "me/signing.pub", "--require-signed-trace")
    assert code == 2 and "trace.jsonl" in err


def test_an_unsigned_trace_runs_unauthenticated_when_not_required(work: Path) -> None:
    code, doc, _ = _run(work, "--trace-key", "me/signing.pub")
    assert code in (0, 1)
    assert doc["trace_auth"]["authenticated"] is False


@pytest.mark.parametrize("command", ["assert", "test"])
def test_an_edited_signed_trace_is_refused_before_any_check_reads_it(
    work: Path, command: str
) -> None:
    assert hotato("trace", "sign", "trace.jsonl", "--key", "me/signing.key", cwd=work).code == 0
    with (work / "trace.jsonl").open("a") as handle:
        handle.write('{"type": "tool_call", "name": "book_table"}\n')
    if command == "assert":
        (work / "a.yaml").write_text(
            "version: 1\nassertions:\n  - {id: t, kind: tool_call, name: book_table}\n"
        )
        ran = hotato(
            "assert",
            "run",
            "--assertions",
            "a.yaml",
            "--trace",
            "trace.jsonl",
            "--trace-key",
            "me/signing.pub",
            cwd=work,
        )
        code, err = ran.code, ran.err
    else:
        code, _, err = _run(work, "--trace-key", "me/signing.pub")
    assert code == 2 and "Traceback" not in err


def test_a_trace_signed_by_an_untrusted_key_is_refused(work: Path) -> None:
    assert (
        hotato("trace", "sign", "trace.jsonl", "--key", "stranger/signing.key", cwd=work).code == 0
    )
    code, _, _ = _run(work, "--trace-key", "me/signing.pub")
    assert code == 2


# --- signed artifacts ----------------------------------------------------------------------


def test_a_signed_artifact_verifies_under_trust_and_a_rehashed_edit_is_refused(work: Path) -> None:
    code, _, _ = _run(
        work, "--out", "art", "--sign", "me/signing.key", "--created-at", "2026-01-01T00:00:00Z"
    )
    assert code in (0, 1)
    art = work / "art"
    assert (art / "conversation.dsse.json").is_file()
    ok = hotato(
        "conversation", "verify", "art", "--trust", "me/signing.pub", "--format", "json", cwd=work
    )
    assert ok.code == 0 and json.loads(ok.out)["signature"]["ok"] is True

    # the forger's move: edit a verdict, then re-hash the child so integrity alone still holds
    results = json.loads((art / "assertions.json").read_text())
    for r in results["assertions"]["results"]:
        if r["kind"] == "phrase":
            r["status"] = "PASS" if r["status"] == "FAIL" else "FAIL"
    data = json.dumps(results).encode()
    (art / "assertions.json").write_bytes(data)
    manifest = json.loads((art / "conversation.json").read_text())
    manifest["artifacts"]["assertions"].update(
        sha256=hashlib.sha256(data).hexdigest(), bytes=len(data)
    )
    (art / "conversation.json").write_text(json.dumps(manifest, indent=2))
    integrity_only = hotato("conversation", "verify", "art", cwd=work)
    assert integrity_only.code == 0 and "integrity only" in integrity_only.out
    trusted = hotato("conversation", "verify", "art", "--trust", "me/signing.pub", cwd=work)
    assert trusted.code == 2


def test_a_bad_signing_key_writes_nothing(work: Path) -> None:
    (work / "junk.key").write_text("not a key")
    code, _, _err = _run(work, "--out", "art", "--sign", "junk.key")
    assert code == 2 and not (work / "art").exists()


# --- human labels in a run -----------------------------------------------------------------


def _label(work: Path, assertion: str, verdict: str, key: str, out: str) -> None:
    ran = hotato(
        "label",
        "sign",
        "--artifact",
        "art",
        "--assertion",
        assertion,
        "--verdict",
        verdict,
        "--reviewer",
        "Ana",
        "--key",
        f"{key}/signing.key",
        "--out",
        out,
        cwd=work,
    )
    assert ran.code == 0, ran.err


def test_a_verified_pass_label_settles_an_inconclusive_without_rewriting_it(work: Path) -> None:
    code, doc, _ = _run(work, "--out", "art")
    landed = next(r for r in doc["assertions"]["results"] if r["id"] == "landed")
    assert landed["status"] == "INCONCLUSIVE"  # no --state: the data was not read
    assert doc["success"]["conditions"]["no_unresolved_inconclusive"] is False
    assert code == 1
    _label(work, "landed", "pass", "me", "labels/landed.json")

    code, doc, _ = _run(work, "--labels", "labels", "--trust", "me/signing.pub")
    assert doc["success"]["conditions"]["no_unresolved_inconclusive"] is True
    assert code == 0 and doc["success"]["passed"] is True
    landed = next(r for r in doc["assertions"]["results"] if r["id"] == "landed")
    assert landed["status"] == "INCONCLUSIVE"  # a person confirmed it; the machine still could not
    (label,) = doc["human"]["verified"]
    assert label["authority"] == "human" and label["reviewer"] == "Ana"
    assert label["verdict"] == "pass" and label["created_at"]


@pytest.mark.parametrize("fmt", ["json", "text", "junit"])
def test_a_persons_fail_label_fails_the_run(work: Path, fmt: str) -> None:
    """A verified FAIL never settles an INCONCLUSIVE as success: exit 1 in every format, and the
    JUnit human suite counts it as a failure."""
    _run(work, "--out", "art")
    _label(work, "landed", "fail", "me", "labels/landed.json")
    ran = hotato(
        "test",
        "run",
        "t.yaml",
        "--agent",
        "res-v1",
        "--transcript",
        "transcript.json",
        "--trace",
        "trace.jsonl",
        "--labels",
        "labels",
        "--trust",
        "me/signing.pub",
        "--format",
        fmt,
        cwd=work,
    )
    assert ran.code == 1, ran.err
    if fmt == "json":
        doc = json.loads(ran.out)
        assert doc["success"]["passed"] is False
        assert doc["success"]["conditions"]["no_unresolved_inconclusive"] is False
        assert doc["success"]["human_failures"] == ["landed"]
    elif fmt == "text":
        assert "landed: a person's signed label says FAIL" in ran.out
    else:
        import xml.etree.ElementTree as ET

        human = next(s for s in ET.fromstring(ran.out) if s.get("name", "").endswith(".human"))
        assert human.get("failures") == "1"
        assert human.find("testcase/failure") is not None


def test_labels_that_do_not_verify_are_listed_and_never_count(work: Path) -> None:
    _run(work, "--out", "art")
    _label(work, "landed", "pass", "stranger", "labels/untrusted.json")
    _code, doc, _ = _run(work, "--labels", "labels", "--trust", "me/signing.pub")
    assert doc["human"]["verified"] == []
    assert [r["code"] for r in doc["human"]["refused"]] == ["untrusted_key"]
    assert doc["success"]["conditions"]["no_unresolved_inconclusive"] is False


def test_a_label_for_another_call_is_refused(work: Path) -> None:
    _run(work, "--out", "art")
    _label(work, "landed", "pass", "me", "labels/landed.json")
    # a different recording of the call is a different conversation
    with (work / "transcript.json").open("r+") as handle:
        doc = json.load(handle)
        doc[0]["text"] += " (again)"
        handle.seek(0)
        handle.truncate()
        json.dump(doc, handle)
    _code, out, _ = _run(work, "--labels", "labels", "--trust", "me/signing.pub")
    assert [r["code"] for r in out["human"]["refused"]] == ["wrong_conversation"]


def test_conflicting_labels_settle_nothing(work: Path) -> None:
    _run(work, "--out", "art")
    _label(work, "landed", "pass", "me", "labels/a.json")
    _label(work, "landed", "fail", "me", "labels/b.json")
    _code, doc, _ = _run(work, "--labels", "labels", "--trust", "me/signing.pub")
    assert doc["human"]["conflicts"] == ["landed"]
    assert doc["success"]["conditions"]["no_unresolved_inconclusive"] is False


def test_labels_without_trust_are_refused(work: Path) -> None:
    (work / "labels").mkdir()
    code, _, err = _run(work, "--labels", "labels")
    assert code == 2 and "--trust" in err


def test_a_verified_label_settles_its_human_rubric_on_the_rubric_shelf(work: Path) -> None:
    code, doc, _ = _run(work, "--out", "art")
    (tone,) = doc["rubric"]["results"]
    assert tone["status"] == "INCONCLUSIVE" and "authority" not in tone
    _label(work, "tone", "pass", "me", "labels/tone.json")

    code, doc, _ = _run(work, "--labels", "labels", "--trust", "me/signing.pub")
    assert code == 1  # 'landed' is still unsettled: the shelf changes no exit code by itself
    (tone,) = doc["rubric"]["results"]
    assert tone["status"] == "PASS" and tone["authority"] == "human"
    assert "signed human label" in tone["reason"]
    ran = hotato(
        "test",
        "run",
        "t.yaml",
        "--agent",
        "res-v1",
        "--transcript",
        "transcript.json",
        "--trace",
        "trace.jsonl",
        "--labels",
        "labels",
        "--trust",
        "me/signing.pub",
        cwd=work,
    )
    assert any(
        line.split()[:2] == ["PASS", "tone"] and line.endswith("(authority: human)")
        for line in ran.out.splitlines()
    ), ran.out


def test_an_untrusted_label_settles_nothing_on_the_rubric_shelf(work: Path) -> None:
    _run(work, "--out", "art")
    _label(work, "tone", "fail", "stranger", "labels/tone.json")
    _, doc, _ = _run(work, "--labels", "labels", "--trust", "me/signing.pub")
    (tone,) = doc["rubric"]["results"]
    assert tone["status"] == "INCONCLUSIVE" and "authority" not in tone
