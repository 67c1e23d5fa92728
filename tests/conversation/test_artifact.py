"""`test run --out`: the `hotato.conversation` artifact, its manifest, byte-reproducibility, and
refusals that write nothing."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from tests.conftest import Ran, hotato
from tests.conversation.conftest import (
    DISCLOSED,
    RECORDED,
    REFUND_RAN,
    evidence_args,
    sha256,
    write_call,
    write_test,
)

PINNED = "2026-01-01T00:00:00Z"
AUDIO = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(range(256)) * 4


@pytest.fixture
def call(tmp_path: Path) -> Path:
    return write_call(tmp_path / "call", audio=AUDIO)


@pytest.fixture
def test_file(tmp_path: Path) -> Path:
    return write_test(
        tmp_path / "t.json",
        [REFUND_RAN, DISCLOSED, RECORDED],
        simulator={"model_id": "caller-sim-1", "scenario_id": "refund", "seed": 7},
    )


def run_out(test_file: Path, call: Path, out: Path, *extra: str) -> Ran:
    return hotato(
        "test", "run", str(test_file), "--agent", "support-v3", *evidence_args(call),
        "--audio", str(call / "audio.wav"), "--out", str(out), "--format", "json", *extra,
    )  # fmt: skip


def listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def no_staging_left(parent: Path) -> bool:
    return not [p for p in parent.iterdir() if p.name.startswith(".")]


def test_the_manifest_shape(tmp_path: Path, test_file: Path, call: Path) -> None:
    out = tmp_path / "art"
    ran = run_out(test_file, call, out, "--created-at", PINNED)
    assert ran.code == 0, ran.err
    manifest = json.loads((out / "conversation.json").read_text())
    assert list(manifest)[:7] == [
        "kind",
        "version",
        "conversation_id",
        "test_id",
        "agent_id",
        "created_at",
        "origin",
    ]
    assert manifest["kind"] == "hotato.conversation"
    assert manifest["version"] == 1
    assert re.fullmatch(r"conv_[0-9a-f]{20}", manifest["conversation_id"])
    assert manifest["test_id"] == "refund-flow"
    assert manifest["agent_id"] == "support-v3"
    assert manifest["created_at"] == PINNED
    assert manifest["origin"] == {"kind": "real"}
    assert set(manifest["artifacts"]) == {"assertions", "audio", "state", "trace", "transcript"}
    for name, entry in manifest["artifacts"].items():
        assert list(entry) == ["path", "sha256", "bytes"], name
        child = out / entry["path"]
        assert child.is_file()
        assert entry["sha256"] == sha256(child)
        assert entry["bytes"] == child.stat().st_size
    assert sorted(p.name for p in out.iterdir()) == [
        "assertions.json",
        "audio.wav",
        "conversation.json",
        "state-evidence.json",
        "trace.jsonl",
        "transcript.json",
    ]
    assert json.loads(ran.out)["artifact"]["manifest"] == manifest


def test_the_children(tmp_path: Path, test_file: Path, call: Path) -> None:
    out = tmp_path / "art"
    doc = json.loads(run_out(test_file, call, out).out)
    for name in ("transcript.json", "trace.jsonl"):
        assert (out / name).read_bytes() == (call / name).read_bytes()  # bound as given
    assert (out / "audio.wav").read_bytes() == AUDIO
    bound = json.loads((out / "assertions.json").read_text())
    assert bound["kind"] == "hotato.test-run"
    assert bound["assertions"]["results"] == doc["assertions"]["results"]
    assert bound["success"] == doc["success"]
    state = json.loads((out / "state-evidence.json").read_text())
    assert state["kind"] == "hotato.state-evidence"
    assert state["version"] == 1
    [entry] = state["entries"]
    assert {k: entry[k] for k in ("id", "kind", "resource", "filters", "expect", "observed")} == {
        "id": "refund-recorded",
        "kind": "state",
        "resource": "orders",
        "filters": {"order_id": "A-1001"},
        "expect": {"refund_status": "refunded"},
        "observed": {"order_id": "A-1001", "refund_status": "refunded"},
    }


def test_created_at_pins_a_byte_identical_artifact(
    tmp_path: Path, test_file: Path, call: Path
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    assert run_out(test_file, call, first, "--created-at", PINNED).code == 0
    assert run_out(test_file, call, second, "--created-at", PINNED).code == 0
    assert listing(first) == listing(second)  # every file, byte for byte
    # And again over the first artifact, which is replaced whole.
    assert run_out(test_file, call, first, "--created-at", PINNED).code == 0
    assert listing(first) == listing(second)


def test_without_created_at_the_time_is_now(tmp_path: Path, test_file: Path, call: Path) -> None:
    run_out(test_file, call, tmp_path / "art")
    manifest = json.loads((tmp_path / "art" / "conversation.json").read_text())
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", manifest["created_at"])


def test_a_bad_created_at_is_refused_with_nothing_written(
    tmp_path: Path, test_file: Path, call: Path
) -> None:
    ran = run_out(test_file, call, tmp_path / "art", "--created-at", "last tuesday")
    assert ran.code == 2
    assert "not an ISO 8601 time" in ran.err
    assert not (tmp_path / "art").exists()


def test_origin_simulated_records_the_simulator(
    tmp_path: Path, test_file: Path, call: Path
) -> None:
    assert run_out(test_file, call, tmp_path / "art", "--origin", "simulated").code == 0
    manifest = json.loads((tmp_path / "art" / "conversation.json").read_text())
    assert manifest["origin"] == {
        "kind": "simulated",
        "simulator": {"model_id": "caller-sim-1", "scenario_id": "refund", "seed": 7},
    }


def test_origin_fixture(tmp_path: Path, test_file: Path, call: Path) -> None:
    assert run_out(test_file, call, tmp_path / "art", "--origin", "fixture").code == 0
    manifest = json.loads((tmp_path / "art" / "conversation.json").read_text())
    assert manifest["origin"] == {"kind": "fixture"}


def test_origin_simulated_without_a_simulator_block_is_refused(tmp_path: Path, call: Path) -> None:
    plain = write_test(tmp_path / "plain.json", [REFUND_RAN])
    ran = run_out(plain, call, tmp_path / "art", "--origin", "simulated")
    assert ran.code == 2
    assert "needs the test's 'simulator' block" in ran.err
    assert not (tmp_path / "art").exists()
    assert no_staging_left(tmp_path)


def test_a_missing_audio_file_is_refused_with_nothing_written(
    tmp_path: Path, test_file: Path, call: Path
) -> None:
    (call / "audio.wav").unlink()
    ran = run_out(test_file, call, tmp_path / "art")
    assert ran.code == 2
    assert "audio file does not exist" in ran.err
    assert not (tmp_path / "art").exists()
    assert no_staging_left(tmp_path)


def test_an_out_that_is_not_an_artifact_is_refused_with_nothing_written(
    tmp_path: Path, test_file: Path, call: Path
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.txt").write_text("precious")
    ran = run_out(test_file, call, out)
    assert ran.code == 2
    assert "is not a hotato artifact" in ran.err
    assert listing(out) == {"thesis.txt": b"precious"}
    assert no_staging_left(tmp_path)


def test_an_unrelated_conversation_json_does_not_make_an_artifact(
    tmp_path: Path, test_file: Path, call: Path
) -> None:
    """Only a real manifest marks a folder that may be replaced whole."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "conversation.json").write_text('{"chat": "log"}')
    (out / "thesis.txt").write_text("precious")
    ran = run_out(test_file, call, out)
    assert ran.code == 2
    assert listing(out) == {"conversation.json": b'{"chat": "log"}', "thesis.txt": b"precious"}


def test_an_out_that_is_a_file_is_refused(tmp_path: Path, test_file: Path, call: Path) -> None:
    out = tmp_path / "art"
    out.write_text("x")
    ran = run_out(test_file, call, out)
    assert ran.code == 2
    assert out.read_text() == "x"


def test_an_out_that_is_a_link_is_refused(tmp_path: Path, test_file: Path, call: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "art").symlink_to(real)
    ran = run_out(test_file, call, tmp_path / "art")
    assert ran.code == 2
    assert "symbolic link" in ran.err
    assert list(real.iterdir()) == []


def test_an_out_under_a_missing_folder_is_refused(
    tmp_path: Path, test_file: Path, call: Path
) -> None:
    ran = run_out(test_file, call, tmp_path / "no" / "art")
    assert ran.code == 2
    assert not (tmp_path / "no").exists()


def test_an_empty_out_folder_is_used(tmp_path: Path, test_file: Path, call: Path) -> None:
    out = tmp_path / "art"
    out.mkdir()
    assert run_out(test_file, call, out).code == 0
    assert (out / "conversation.json").is_file()


def test_an_existing_artifact_is_replaced_whole(
    tmp_path: Path, test_file: Path, call: Path
) -> None:
    out = tmp_path / "art"
    assert run_out(test_file, call, out).code == 0
    assert (out / "audio.wav").exists()
    # Run again without audio or state: the old children must not survive. (A file the artifact
    # does not bind makes the folder no artifact: see tests/security/test_out_dir.py.)
    ran = hotato(
        "test", "run", str(test_file), "--agent", "support-v3",
        *evidence_args(call, state=False), "--out", str(out),
    )  # fmt: skip
    assert ran.code == 1  # the state check is INCONCLUSIVE now
    assert sorted(p.name for p in out.iterdir()) == [
        "assertions.json",
        "conversation.json",
        "trace.jsonl",
        "transcript.json",
    ]
    manifest = json.loads((out / "conversation.json").read_text())
    assert set(manifest["artifacts"]) == {"assertions", "trace", "transcript"}
    assert hotato("conversation", "verify", str(out)).code == 0
    assert no_staging_left(tmp_path)


def test_the_artifact_folder_is_readable(tmp_path: Path, test_file: Path, call: Path) -> None:
    run_out(test_file, call, tmp_path / "art")
    assert os.stat(tmp_path / "art").st_mode & 0o777 == 0o755


def test_an_unknown_audio_suffix_is_kept(tmp_path: Path, test_file: Path, call: Path) -> None:
    mp3 = tmp_path / "call.mp3"
    mp3.write_bytes(b"ID3" + bytes(100))
    ran = hotato(
        "test", "run", str(test_file), "--agent", "a", *evidence_args(call),
        "--audio", str(mp3), "--out", str(tmp_path / "art"),
    )  # fmt: skip
    assert ran.code == 0
    manifest = json.loads((tmp_path / "art" / "conversation.json").read_text())
    assert manifest["artifacts"]["audio"]["path"] == "audio.mp3"


def test_the_conversation_id_depends_on_the_evidence(
    tmp_path: Path, test_file: Path, call: Path
) -> None:
    run_out(test_file, call, tmp_path / "a", "--created-at", PINNED)
    other = write_call(tmp_path / "other", audio=AUDIO + b"x")
    run_out(test_file, other, tmp_path / "b", "--created-at", PINNED)
    ids = [
        json.loads((tmp_path / n / "conversation.json").read_text())["conversation_id"]
        for n in ("a", "b")
    ]
    assert ids[0] != ids[1]


def test_an_out_name_too_long_is_refused(tmp_path: Path, test_file: Path, call: Path) -> None:
    ran = run_out(test_file, call, tmp_path / ("x" * 300))
    assert ran.code == 2
    assert "cannot use --out" in ran.err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_an_out_that_cannot_be_written_is_refused(test_file: Path, call: Path) -> None:
    ran = run_out(test_file, call, Path("/proc/hotato-artifact"))
    assert ran.code == 2
    assert "cannot write the artifact" in ran.err


@pytest.mark.parametrize("junit", ["folder", "missing/report.xml"])
def test_a_bad_junit_path_is_refused_before_the_artifact_is_written(
    tmp_path: Path, test_file: Path, call: Path, junit: str
) -> None:
    (tmp_path / "folder").mkdir()
    ran = run_out(test_file, call, tmp_path / "art", "--junit", str(tmp_path / junit))
    assert ran.code == 2
    assert "--junit" in ran.err
    assert not (tmp_path / "art").exists()
