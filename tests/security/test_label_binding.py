"""A label stands for the artifact as it was written: `label verify --artifact` re-hashes the
artifact's files, so editing them after labelling is refused; and on a run, for the assertion as
graded and the state evidence it was graded against."""

from __future__ import annotations

import base64
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from tests.artifacts.conftest import make_artifact, write_keypair
from tests.conftest import hotato


def test_label_verify_refuses_an_artifact_whose_files_were_edited(tmp_path: Path) -> None:
    art = make_artifact(tmp_path / "art")
    keys = write_keypair(tmp_path / "keys")
    signed = hotato(
        "label", "sign", "--artifact", "art", "--assertion", "refund-tool-called",
        "--verdict", "pass", "--reviewer", "Ana", "--key", str(keys.private),
        "--out", "l.json", cwd=tmp_path,
    )  # fmt: skip
    assert signed.code == 0, signed.err
    args = ("label", "verify", "l.json", "--trust", str(keys.public), "--artifact", "art")
    assert hotato(*args, cwd=tmp_path).code == 0
    (art / "transcript.json").write_bytes(b'[{"role": "agent", "text": "No refund."}]\n')
    ran = hotato(*args, cwd=tmp_path)
    assert ran.code == 2
    assert "does not verify" in ran.err and "transcript" in ran.err


TEST = """\
kind: hotato.conversation-test
version: 1
id: zombie
agent: res-v1
assertions:
  deterministic:
    - id: landed
      kind: state
      resource: reservations
      filters: {guest: rivera}
      expect: {active: false}
success:
  required: [no_unresolved_inconclusive]
"""


def test_a_label_does_not_settle_an_assertion_edited_to_check_something_else(
    tmp_path: Path,
) -> None:
    from tests.conftest import CONFORMANCE

    for name in ("trace.jsonl", "transcript.json"):
        shutil.copy(CONFORMANCE / "fx-itc-zombie-assert-run" / name, tmp_path / name)
    (tmp_path / "t.yaml").write_text(TEST)
    keys = write_keypair(tmp_path / "keys")
    run = ("test", "run", "t.yaml", "--agent", "res-v1", "--trace", "trace.jsonl",
           "--transcript", "transcript.json")  # fmt: skip
    assert hotato(*run, "--out", "art", cwd=tmp_path).code == 1  # INCONCLUSIVE: no state
    signed = hotato(
        "label", "sign", "--artifact", "art", "--assertion", "landed", "--verdict", "pass",
        "--reviewer", "Ana", "--key", str(keys.private), "--out", "labels/l.json", cwd=tmp_path,
    )  # fmt: skip
    assert signed.code == 0, signed.err
    labelled = (*run, "--labels", "labels", "--trust", str(keys.public), "--format", "json")
    assert hotato(*labelled, cwd=tmp_path).code == 0  # the label settles it
    # Same id, now checking that the reservation is active: the person never judged that.
    (tmp_path / "t.yaml").write_text(TEST.replace("active: false", "active: true"))
    ran = hotato(*labelled, cwd=tmp_path)
    assert ran.code == 1
    doc = json.loads(ran.out)
    assert [r["code"] for r in doc["human"]["refused"]] == ["assertion_changed"]
    assert doc["success"]["conditions"]["no_unresolved_inconclusive"] is False


STATE_TEST = """\
kind: hotato.conversation-test
version: 1
id: zombie
agent: res-v1
assertions:
  deterministic:
    - id: on-file
      kind: state
      resource: reservations
      filters: {guest: rivera}
      expect: {guest: rivera}
    - id: cancelled
      kind: state_change
      resource: reservations
      filters: {guest: rivera}
      field: active
      from: true
      to: false
success:
  required: [no_unresolved_inconclusive]
"""


def _state(folder: Path, kind: str, active: bool) -> str:
    """The system of record after the call: one reservation, as JSON or as a SQLite file."""
    if kind == "json":
        path = folder / "state.json"
        path.write_text(json.dumps({"reservations": [{"guest": "rivera", "active": active}]}))
    else:
        path = folder / "state.db"
        path.unlink(missing_ok=True)
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE reservations (guest TEXT, active BOOLEAN)")
            db.execute("INSERT INTO reservations VALUES ('rivera', ?)", (active,))
        db.close()
    return path.name


@pytest.mark.parametrize("kind", ["json", "sqlite"])
def test_a_label_does_not_settle_a_run_against_other_state_evidence(
    tmp_path: Path, kind: str
) -> None:
    # No before snapshot: the change cannot be judged (INCONCLUSIVE), so a person looked at the
    # state the run read (`on-file` observed the reservation no longer active) and signed `pass`.
    # The same call graded against a system of record that says otherwise (`on-file` still
    # passes) must not be settled by that label.
    from tests.conftest import CONFORMANCE

    for name in ("trace.jsonl", "transcript.json"):
        shutil.copy(CONFORMANCE / "fx-itc-zombie-assert-run" / name, tmp_path / name)
    (tmp_path / "t.yaml").write_text(STATE_TEST)
    keys = write_keypair(tmp_path / "keys")
    state = _state(tmp_path, kind, active=False)
    run = ("test", "run", "t.yaml", "--agent", "res-v1", "--trace", "trace.jsonl",
           "--transcript", "transcript.json", "--state", state)  # fmt: skip
    assert hotato(*run, "--out", "art", cwd=tmp_path).code == 1  # INCONCLUSIVE: no snapshot
    signed = hotato(
        "label", "sign", "--artifact", "art", "--assertion", "cancelled", "--verdict", "pass",
        "--reviewer", "Ana", "--key", str(keys.private), "--out", "labels/l.json", cwd=tmp_path,
    )  # fmt: skip
    assert signed.code == 0, signed.err
    # what it binds is the artifact's state-evidence.json, as its manifest records it
    envelope = json.loads((tmp_path / "labels" / "l.json").read_text())
    manifest = json.loads((tmp_path / "art" / "conversation.json").read_text())
    payload = json.loads(base64.b64decode(envelope["payload"]))
    assert payload["state_sha256"] == manifest["artifacts"]["state"]["sha256"]
    labelled = (*run, "--labels", "labels", "--trust", str(keys.public))
    settled = hotato(*labelled, "--format", "json", cwd=tmp_path)
    assert settled.code == 0, settled.out  # against the state it was made on, the label settles
    assert json.loads(settled.out)["human"]["refused"] == []
    # The same call, graded against a system of record where the reservation is still active.
    _state(tmp_path, kind, active=True)
    ran = hotato(*labelled, "--format", "json", cwd=tmp_path)
    assert ran.code == 1
    doc = json.loads(ran.out)
    assert [r["code"] for r in doc["human"]["refused"]] == ["state_changed"]
    assert doc["human"]["verified"] == []
    assert doc["success"]["conditions"]["no_unresolved_inconclusive"] is False
    text = hotato(*labelled, cwd=tmp_path)  # the text report shows the refusal and its reason
    assert text.code == 1
    assert "REFUSED" in text.out and "other state evidence" in text.out
