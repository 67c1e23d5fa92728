"""A label stands for the artifact as it was written: `label verify --artifact` re-hashes the
artifact's files, so editing them after labelling is refused."""

from __future__ import annotations

from pathlib import Path

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
    import json
    import shutil

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
