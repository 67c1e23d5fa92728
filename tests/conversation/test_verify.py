"""`hotato conversation verify`: a fresh artifact verifies; any edit, missing child, malformed
manifest, escaping path, link or unbound state verdict is refused with exit 2."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import Ran, hotato
from tests.conversation.conftest import (
    DISCLOSED,
    NEVER_CANCELLED,
    RECORDED,
    REFUND_RAN,
    edit_manifest,
    evidence_args,
    rehash,
    write_call,
    write_test,
)

from hotato.artifacts.verify import verify_artifact

KEYS = {"ok", "refused", "verified", "mismatches", "missing", "unbound"}
CHILDREN = ["assertions", "audio", "state", "trace", "transcript"]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One artifact, made once, with every kind of child; each test edits its own copy."""
    root = tmp_path_factory.mktemp("pristine")
    call = write_call(root / "call", audio=b"RIFF" + bytes(64))
    test = write_test(root / "t.json", [REFUND_RAN, DISCLOSED, RECORDED, NEVER_CANCELLED])
    ran = hotato(
        "test", "run", str(test), "--agent", "support-v3", *evidence_args(call),
        "--audio", str(call / "audio.wav"), "--out", str(root / "art"),
        "--created-at", "2026-01-01T00:00:00Z",
    )  # fmt: skip
    assert ran.code == 1, ran.err  # NEVER_CANCELLED fails: a FAIL verdict worth forging
    return root / "art"


@pytest.fixture
def art(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "art"
    shutil.copytree(pristine, copy)
    return copy


def verify(folder: Path, *extra: str) -> tuple[Ran, dict[str, Any]]:
    ran = hotato("conversation", "verify", str(folder), "--format", "json", *extra)
    doc = json.loads(ran.out)
    assert set(doc) >= KEYS
    assert doc["ok"] is not doc["refused"]
    assert ran.code == (2 if doc["refused"] else 0)
    return ran, doc


def refused(folder: Path) -> dict[str, Any]:
    ran, doc = verify(folder)
    assert ran.code == 2
    assert doc["refused"] is True and doc["ok"] is False
    return doc


def test_a_fresh_artifact_verifies(art: Path) -> None:
    ran, doc = verify(art)
    assert ran.code == 0
    assert doc["verified"] == CHILDREN
    assert (doc["mismatches"], doc["missing"], doc["unbound"]) == ([], [], [])
    text = hotato("conversation", "verify", str(art))
    assert text.code == 0
    assert text.out.splitlines()[-1] == "verified"
    for name in CHILDREN:
        assert f"  ok        {name}" in text.out
    assert "integrity only" in text.out  # without --trust, it says what it did not check


def test_a_changed_byte_is_a_digest_mismatch(art: Path) -> None:
    path = art / "transcript.json"
    data = path.read_bytes()
    path.write_bytes(data.replace(b"recorded", b"recordex"))  # same size, new digest
    doc = refused(art)
    [mismatch] = doc["mismatches"]
    assert mismatch["name"] == "transcript"
    assert mismatch["path"] == "transcript.json"
    assert mismatch["expected"]["bytes"] == mismatch["actual"]["bytes"] == len(data)
    assert mismatch["expected"]["sha256"] != mismatch["actual"]["sha256"]
    assert "transcript" not in doc["verified"]


def test_a_refused_artifact_does_not_claim_its_digests_match(art: Path) -> None:
    (art / "audio.wav").write_bytes(b"edited")
    doc = refused(art)
    assert "note" not in doc
    assert "digests match" not in hotato("conversation", "verify", str(art)).out


def test_an_appended_byte_is_a_mismatch(art: Path) -> None:
    with open(art / "trace.jsonl", "ab") as handle:
        handle.write(b"\n")
    [mismatch] = refused(art)["mismatches"]
    assert mismatch["name"] == "trace"
    assert mismatch["actual"]["bytes"] == mismatch["expected"]["bytes"] + 1


def test_a_recorded_size_that_differs_is_a_mismatch(art: Path) -> None:
    edit_manifest(art, lambda m: m["artifacts"]["audio"].update(bytes=1))
    [mismatch] = refused(art)["mismatches"]
    assert mismatch["name"] == "audio"
    # sizes are compared first: a child of the wrong size is never read (a huge sparse file
    # cannot hold verify), so no digest is reported for it
    assert mismatch["actual"]["sha256"] is None and mismatch["actual"]["bytes"] != 1


def test_a_missing_child_is_refused(art: Path) -> None:
    (art / "audio.wav").unlink()
    doc = refused(art)
    assert doc["missing"] == ["audio"]
    text = hotato("conversation", "verify", str(art))
    assert "  MISSING   audio" in text.out
    assert text.out.splitlines()[-1] == "refused"


def test_a_missing_manifest_is_refused(art: Path) -> None:
    (art / "conversation.json").unlink()
    assert refused(art)["missing"] == ["conversation.json"]


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        (b"{not json", "is not valid JSON"),
        (b"", "is not valid JSON"),
        (b"[]", "is not a hotato.conversation manifest"),
        (b'{"kind": "hotato.assert", "version": 1, "artifacts": {}}', "not a hotato.conversation"),
        (b'{"kind": "hotato.conversation", "version": 1}', "has no 'artifacts' mapping"),
        (b'{"kind": "hotato.conversation", "artifacts": []}', "has no 'artifacts' mapping"),
        (
            b'{"kind": "hotato.conversation", "artifacts": {"assertions": {"path": "a"}}}',
            "artifacts.assertions is malformed",
        ),
        (
            b'{"kind": "hotato.conversation", "artifacts": {"assertions": "assertions.json"}}',
            "artifacts.assertions is malformed",
        ),
    ],
)
def test_a_malformed_manifest_is_refused(art: Path, manifest: bytes, problem: str) -> None:
    (art / "conversation.json").write_bytes(manifest)
    doc = refused(art)
    assert any(problem in p for p in doc["problems"]), doc


def test_a_manifest_binding_no_assertions_is_refused(art: Path) -> None:
    edit_manifest(art, lambda m: m["artifacts"].pop("assertions"))
    doc = refused(art)
    assert doc["unbound"] == ["assertions: the manifest binds no evaluated results"]
    assert doc["verified"] == ["audio", "state", "trace", "transcript"]


def test_an_empty_artifacts_mapping_is_refused(art: Path) -> None:
    edit_manifest(art, lambda m: m.update(artifacts={}))
    assert refused(art)["unbound"]


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/etc/hostname", "is absolute"),
        ("\\windows\\x", "is absolute"),
        ("C:\\x", "is absolute"),
        ("../call/trace.jsonl", "leaves the artifact folder"),
        ("sub/../../call/trace.jsonl", "leaves the artifact folder"),
        ("", "must be a non-empty string"),
    ],
)
def test_a_child_path_outside_the_folder_is_refused(art: Path, path: str, why: str) -> None:
    edit_manifest(art, lambda m: m["artifacts"]["trace"].update(path=path))
    doc = refused(art)
    assert any(p.startswith("artifacts.trace") and why in p for p in doc["problems"]), doc


def test_a_child_path_that_is_not_a_string_is_refused(art: Path) -> None:
    edit_manifest(art, lambda m: m["artifacts"]["trace"].update(path=["trace.jsonl"]))
    assert any("artifacts.trace" in p for p in refused(art)["problems"])


def test_a_symlinked_child_is_refused_even_with_the_right_bytes(art: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    shutil.copy(art / "trace.jsonl", outside)
    (art / "trace.jsonl").unlink()
    (art / "trace.jsonl").symlink_to(outside)
    doc = refused(art)
    assert any("is a link" in p for p in doc["problems"])
    assert "trace" not in doc["verified"]


def test_a_child_under_a_symlinked_folder_is_refused(art: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.move(art / "trace.jsonl", outside / "trace.jsonl")
    (art / "sub").symlink_to(outside)
    edit_manifest(art, lambda m: m["artifacts"]["trace"].update(path="sub/trace.jsonl"))
    assert any("is a link" in p for p in refused(art)["problems"])


def test_a_child_that_is_a_folder_is_refused(art: Path) -> None:
    (art / "audio.wav").unlink()
    (art / "audio.wav").mkdir()
    assert any("not a regular file" in p for p in refused(art)["problems"])


def test_a_symlinked_manifest_is_refused(art: Path, tmp_path: Path) -> None:
    outside = tmp_path / "manifest.json"
    shutil.move(art / "conversation.json", outside)
    (art / "conversation.json").symlink_to(outside)
    assert any("is a link" in p for p in refused(art)["problems"])


def test_a_symlinked_artifact_folder_is_refused(art: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(art)
    doc = refused(link)
    assert any("artifact folder is a link" in p for p in doc["problems"])
    assert doc["verified"] == []


def test_a_missing_artifact_folder_is_refused(tmp_path: Path) -> None:
    refused(tmp_path / "nope")


def test_a_determinate_state_verdict_without_bound_state_evidence_is_unbound(art: Path) -> None:
    """Drop the state child from the manifest and from the bound results, re-hashing the
    assertions child consistently: every digest matches, and the verdict is still refused."""
    (art / "state-evidence.json").unlink()
    edit_manifest(art, lambda m: m["artifacts"].pop("state"))
    bound = json.loads((art / "assertions.json").read_text())
    bound.pop("state_evidence", None)
    (art / "assertions.json").write_text(json.dumps(bound, indent=2))
    rehash(art, "assertions")
    doc = refused(art)
    assert doc["mismatches"] == [] and doc["missing"] == []
    assert doc["unbound"] == [
        "state: 'refund-recorded' is PASS but no state evidence is bound",
    ]
    text = hotato("conversation", "verify", str(art))
    assert "  UNBOUND   state: 'refund-recorded' is PASS" in text.out


def test_state_evidence_emptied_and_rehashed_is_unbound(art: Path) -> None:
    """A state child still bound, but holding no read for the verdict, binds nothing."""
    path = art / "state-evidence.json"
    evidence = json.loads(path.read_text())
    evidence["entries"] = []
    path.write_text(json.dumps(evidence))
    rehash(art, "state")
    doc = refused(art)
    assert doc["verified"] == CHILDREN
    assert doc["unbound"] == [
        "state: 'refund-recorded' is PASS but the bound state evidence holds no read for it"
    ]


def test_an_inconclusive_state_verdict_needs_no_state_evidence(tmp_path: Path) -> None:
    call = write_call(tmp_path / "call")
    test = write_test(tmp_path / "t.json", [RECORDED])
    out = tmp_path / "art"
    ran = hotato(
        "test", "run", str(test), "--agent", "a", *evidence_args(call, state=False),
        "--out", str(out),
    )  # fmt: skip
    assert ran.code == 1
    manifest = json.loads((out / "conversation.json").read_text())
    assert "state" not in manifest["artifacts"]
    ran, doc = verify(out)
    assert ran.code == 0, doc


def test_a_forged_verdict_rehashed_passes_integrity_only(art: Path) -> None:
    """A FAIL edited to PASS and re-hashed matches every digest: integrity alone cannot tell
    who wrote the manifest, and verify says so. (`--trust` with a signed manifest refuses it.)"""
    path = art / "assertions.json"
    path.write_text(path.read_text().replace('"FAIL"', '"PASS"'))
    _, tampered = verify(art)
    assert tampered["refused"] is True  # not re-hashed yet: refused
    rehash(art, "assertions")
    ran, doc = verify(art)
    assert ran.code == 0
    assert "without --trust" in doc["note"]


def test_an_extra_file_in_the_folder_is_not_bound_and_not_refused(art: Path) -> None:
    (art / "notes.txt").write_text("added later")
    ran, doc = verify(art)
    assert ran.code == 0
    assert "notes" not in " ".join(doc["verified"])


def test_several_problems_are_all_reported(art: Path) -> None:
    (art / "audio.wav").unlink()
    with open(art / "trace.jsonl", "ab") as handle:
        handle.write(b" ")
    edit_manifest(art, lambda m: m["artifacts"]["transcript"].update(path="/etc/hostname"))
    doc = refused(art)
    assert doc["missing"] == ["audio"]
    assert [m["name"] for m in doc["mismatches"]] == ["trace"]
    assert any("artifacts.transcript" in p for p in doc["problems"])
    assert doc["verified"] == ["assertions", "state"]


PATHS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "assertions.json",
            "trace.jsonl",
            "../x",
            "/etc/hostname",
            "a\x00b",
            "x" * 5000,
            "d/" * 3000 + "x",
            "state-evidence.json/",
            "C:\\x",
            ".",
            "",
        ]
    ),
)
ENTRY = st.one_of(
    st.fixed_dictionaries(
        {"path": PATHS, "sha256": st.text(max_size=64)},
        optional={"bytes": st.integers(-1, 10**6) | st.booleans() | st.none()},
    ),
    st.none(),
    st.integers(),
    st.text(max_size=5),
)
MANIFEST = st.fixed_dictionaries(
    {"kind": st.sampled_from(["hotato.conversation", "hotato.conversation.v1", "x"])},
    optional={
        "artifacts": st.dictionaries(
            st.sampled_from(CHILDREN) | st.text(max_size=5), ENTRY, max_size=6
        )
        | st.lists(st.integers(), max_size=2),
        "version": st.integers(0, 2),
    },
)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MANIFEST)
def test_verify_never_crashes_on_a_manifest(pristine: Path, manifest: dict[str, Any]) -> None:
    """Whatever the manifest says, verify gives a report (a refusal, exit 2), never an error."""
    folder = Path(tempfile.mkdtemp())
    try:
        shutil.copytree(pristine, folder / "art")
        (folder / "art" / "conversation.json").write_text(json.dumps(manifest))
        report = verify_artifact(folder / "art")
        assert report.refused or set(report.verified) == set(manifest["artifacts"])
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize(
    ("drop", "said"),
    [
        ("bytes", "artifacts.trace is malformed: 'bytes' is missing"),
        ("sha256", "artifacts.trace is malformed: 'sha256' is missing"),
        ("path", "artifacts.trace is malformed: 'path' is missing"),
    ],
)
def test_an_entry_missing_a_field_is_malformed_whichever_field(
    art: Path, drop: str, said: str
) -> None:
    # Without its size or its digest an entry cannot be checked: malformed, never a mismatch.
    edit_manifest(art, lambda m: m["artifacts"]["trace"].pop(drop))
    doc = refused(art)
    assert doc["mismatches"] == []
    assert [p for p in doc["problems"] if p.startswith("artifacts.trace")] == [
        said + " (an entry needs path, sha256, bytes)"
    ]


def test_an_entry_with_a_size_that_is_not_a_number_is_malformed(art: Path) -> None:
    edit_manifest(art, lambda m: m["artifacts"]["trace"].update(bytes="12"))
    doc = refused(art)
    assert doc["mismatches"] == []
    assert any("artifacts.trace is malformed: 'bytes' is not valid" in p for p in doc["problems"])


@pytest.mark.parametrize("rel", [".", "./", "./."])
def test_a_child_path_naming_the_folder_itself_is_a_refusal(pristine: Path, rel: str) -> None:
    folder = pristine.parent / f"copy-{len(rel)}"
    shutil.copytree(pristine, folder)
    manifest = json.loads((folder / "conversation.json").read_text())
    manifest["artifacts"]["assertions"]["path"] = rel
    (folder / "conversation.json").write_text(json.dumps(manifest))
    report = verify_artifact(folder)
    assert any("names the artifact folder" in p for p in report.problems), report.problems


# --- an evidence-only artifact (hotato 1.x `simulate`) -------------------------------------------

SIMULATED_1X = Path(__file__).resolve().parent / "data" / "hotato-1.20-simulate"


def _simulated(tmp_path: Path) -> Path:
    art = tmp_path / "sim"
    shutil.copytree(SIMULATED_1X, art)
    (art / "README.md").unlink()  # ours, not the artifact's
    return art


def test_an_intact_1x_simulate_artifact_verifies_and_says_it_binds_no_results(
    tmp_path: Path,
) -> None:
    art = _simulated(tmp_path)
    ran = hotato("conversation", "verify", str(art), "--format", "json")
    assert ran.code == 0, ran.out
    doc = json.loads(ran.out)
    assert doc["ok"] is True and doc["verified"] == ["trace", "transcript"]
    assert doc["evidence_only"] == "the manifest binds evidence and no evaluated results"
    text = hotato("conversation", "verify", str(art))
    assert text.code == 0
    assert "evidence only: the manifest binds evidence and no evaluated results" in text.out


def test_a_tampered_1x_simulate_artifact_is_refused(tmp_path: Path) -> None:
    art = _simulated(tmp_path)
    (art / "transcript.json").write_text("[]")
    assert hotato("conversation", "verify", str(art)).code == 2


def test_a_test_run_manifest_that_lost_its_results_is_still_refused(tmp_path: Path) -> None:
    # naming a test, it would have bound its results: evidence-only it is not
    art = _simulated(tmp_path)
    edit_manifest(art, lambda m: m.update(test_id="refund-flow"))
    doc = refused(art)
    assert doc["unbound"] == ["assertions: the manifest binds no evaluated results"]
