"""`hotato label` and `trace sign`, run as a user runs them: exit codes and messages."""

from __future__ import annotations

import base64
import json
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hotato.artifacts.signing import key_id, load_public_key

from .conftest import KeyFiles, make_artifact

Run = Callable[..., Any]  # the `cli` fixture: runs `python -m hotato ARGS`

PINNED = "2026-01-01T00:00:00Z"


def _sign(cli: Run, artifact: Path, key: Path, out: Path, *extra: str, cwd: Path) -> Any:
    return cli(
        "label", "sign", "--artifact", str(artifact), "--assertion", "refund-tool-called",
        "--verdict", "pass", "--reviewer", "Ana Ortiz", "--note", "confirmed by phone",
        "--key", str(key), "--out", str(out), "--created-at", PINNED, *extra, cwd=cwd,
    )  # fmt: skip


def _verify(cli: Run, label: Path, *args: str, cwd: Path) -> Any:
    return cli("label", "verify", str(label), *args, cwd=cwd)


def test_keygen_writes_a_private_key_only_its_owner_reads(cli: Run, tmp_path: Path) -> None:
    ran = cli("label", "keygen", "--out", "keys", cwd=tmp_path)
    assert ran.code == 0, ran.err
    private, public = tmp_path / "keys" / "signing.key", tmp_path / "keys" / "signing.pub"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    assert key_id(load_public_key(public)) in ran.out
    before = private.read_bytes()
    again = cli("label", "keygen", "--out", "keys", cwd=tmp_path)
    assert again.code == 2 and "refusing to overwrite" in again.err
    assert private.read_bytes() == before


def test_sign_and_verify_with_a_keygen_key(cli: Run, tmp_path: Path, artifact: Path) -> None:
    assert cli("label", "keygen", "--out", "keys", cwd=tmp_path).code == 0
    ran = _sign(cli, artifact, tmp_path / "keys" / "signing.key", tmp_path / "l.json", cwd=tmp_path)
    assert ran.code == 0, ran.err
    assert "signed: refund-tool-called = pass by Ana Ortiz" in ran.out
    # A trust folder: keygen's own folder works, its private key is not read as trust.
    for trust in ("keys/signing.pub", "keys"):
        ok = _verify(cli, tmp_path / "l.json", "--trust", trust, "--artifact", str(artifact),
                     cwd=tmp_path)  # fmt: skip
        assert ok.code == 0, ok.err
        assert "verified: refund-tool-called = pass by Ana Ortiz at 2026-01-01T00:00:00Z" in ok.out


@pytest.mark.parametrize("maker", ["ssh_keys", "openssl_keys"])
def test_keys_from_ssh_keygen_and_openssl(
    cli: Run, tmp_path: Path, artifact: Path, maker: str, request: pytest.FixtureRequest
) -> None:
    keys: KeyFiles = request.getfixturevalue(maker)
    ran = _sign(cli, artifact, keys.private, tmp_path / "l.json", cwd=tmp_path)
    assert ran.code == 0, ran.err
    ok = _verify(cli, tmp_path / "l.json", "--trust", str(keys.public), cwd=tmp_path)
    assert ok.code == 0, ok.err
    assert key_id(load_public_key(keys.public)) in ok.out


def test_a_pinned_label_is_the_same_bytes_every_time(
    cli: Run, tmp_path: Path, artifact: Path, keys: KeyFiles
) -> None:
    assert _sign(cli, artifact, keys.private, tmp_path / "a.json", cwd=tmp_path).code == 0
    assert _sign(cli, artifact, keys.private, tmp_path / "b.json", cwd=tmp_path).code == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def _forge(label: Path, **fields: Any) -> None:
    doc = json.loads(label.read_bytes())
    payload = json.loads(base64.b64decode(doc["payload"]))
    payload.update(fields)
    doc["payload"] = base64.b64encode(json.dumps(payload).encode()).decode()
    label.write_text(json.dumps(doc))


def test_verify_refuses_with_exit_2(
    cli: Run, tmp_path: Path, artifact: Path, keys: KeyFiles, other_keys: KeyFiles
) -> None:
    label = tmp_path / "l.json"
    assert _sign(cli, artifact, keys.private, label, cwd=tmp_path).code == 0
    trust = ("--trust", str(keys.public))

    untrusted = _verify(cli, label, "--trust", str(other_keys.public), cwd=tmp_path)
    assert untrusted.code == 2 and "not among the 1 trusted key" in untrusted.err

    other = make_artifact(tmp_path / "other", conversation_id="conv-0002")
    wrong = _verify(cli, label, *trust, "--artifact", str(other), cwd=tmp_path)
    assert wrong.code == 2 and "the label is for another artifact" in wrong.err

    forged = tmp_path / "forged.json"
    forged.write_bytes(label.read_bytes())
    _forge(forged, verdict="fail")
    tampered = _verify(cli, forged, *trust, cwd=tmp_path)
    assert tampered.code == 2 and "does not hold" in tampered.err

    junk = tmp_path / "junk.json"
    junk.write_text('{"payload": 1}')
    malformed = _verify(cli, junk, *trust, cwd=tmp_path)
    assert malformed.code == 2 and "not a DSSE envelope" in malformed.err

    missing = _verify(cli, tmp_path / "absent.json", *trust, cwd=tmp_path)
    assert missing.code == 2 and "does not exist" in missing.err

    no_trust = _verify(cli, label, cwd=tmp_path)
    assert no_trust.code == 2 and "--trust" in no_trust.err


def test_verify_json(
    cli: Run, tmp_path: Path, artifact: Path, keys: KeyFiles, other_keys: KeyFiles
) -> None:
    label = tmp_path / "l.json"
    assert _sign(cli, artifact, keys.private, label, cwd=tmp_path).code == 0
    ok = _verify(cli, label, "--trust", str(keys.public), "--format", "json", cwd=tmp_path)
    assert ok.code == 0
    doc = json.loads(ok.out)
    assert doc["ok"] is True
    assert doc["label"]["authority"] == "human" and doc["label"]["status"] == "PASS"
    assert doc["label"]["note"] == "confirmed by phone"
    bad = _verify(cli, label, "--trust", str(other_keys.public), "--format", "json", cwd=tmp_path)
    assert bad.code == 2
    assert json.loads(bad.out)["refused"]["code"] == "untrusted_key"


def test_sign_refuses_bad_requests(
    cli: Run, tmp_path: Path, artifact: Path, keys: KeyFiles
) -> None:
    label = tmp_path / "l.json"
    assert _sign(cli, artifact, keys.private, label, cwd=tmp_path).code == 0
    again = _sign(cli, artifact, keys.private, label, cwd=tmp_path)
    assert again.code == 2 and "refusing to overwrite a label" in again.err

    with_public = _sign(cli, artifact, keys.public, tmp_path / "x.json", cwd=tmp_path)
    assert with_public.code == 2 and "signing needs the private key" in with_public.err

    bad_time = _sign(cli, artifact, keys.private, tmp_path / "y.json", "--created-at", "noon",
                     cwd=tmp_path)  # fmt: skip
    assert bad_time.code == 2 and "ISO 8601" in bad_time.err

    no_artifact = _sign(cli, tmp_path / "nowhere", keys.private, tmp_path / "z.json", cwd=tmp_path)
    assert no_artifact.code == 2 and "artifact folder does not exist" in no_artifact.err
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "z.json").exists()

    bad_verdict = cli(
        "label", "sign", "--artifact", str(artifact), "--assertion", "a", "--verdict", "maybe",
        "--reviewer", "r", "--key", str(keys.private), "--out", "v.json", cwd=tmp_path,
    )  # fmt: skip
    assert bad_verdict.code == 2 and "maybe" in bad_verdict.err


# `trace sign` is attached to the `trace` group by trace_cmd.py; here it runs under the same
# exit-code contract (run_cli) on a group of its own.
_TRACE_SIGN = (
    "import sys, click\n"
    "from hotato.cli._run import run_cli\n"
    "from hotato.cli.trace_sign import trace_sign\n"
    "group = click.Group('trace', commands=[trace_sign])\n"
    "sys.exit(run_cli(group, sys.argv[1:]))\n"
)


@dataclass
class Ran:
    code: int
    out: str
    err: str


def _trace_sign(*args: str, cwd: Path) -> Ran:
    proc = subprocess.run(
        [sys.executable, "-c", _TRACE_SIGN, "sign", *args],
        cwd=cwd, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return Ran(proc.returncode, proc.stdout, proc.stderr)


def test_trace_sign(tmp_path: Path, ssh_keys: KeyFiles) -> None:
    from hotato.artifacts.signing import load_trust
    from hotato.artifacts.trace_auth import verify_trace

    trace = tmp_path / "call.jsonl"
    trace.write_text('{"_meta": true, "schema": "hotato.voice_trace.v1"}\n')
    ran = _trace_sign(str(trace), "--key", str(ssh_keys.private), cwd=tmp_path)
    assert ran.code == 0, ran.err
    assert "call.jsonl.dsse.json" in ran.out
    assert verify_trace(trace, load_trust([ssh_keys.public])).authenticated

    elsewhere = _trace_sign(str(trace), "--key", str(ssh_keys.private), "--out", "sig.json",
                            cwd=tmp_path)  # fmt: skip
    assert elsewhere.code == 0 and (tmp_path / "sig.json").is_file()

    missing = _trace_sign("absent.jsonl", "--key", str(ssh_keys.private), cwd=tmp_path)
    assert missing.code == 2 and "does not exist" in missing.err


def test_a_reviewer_settles_a_real_test_run_artifact(cli: Run, tmp_path: Path) -> None:
    """The whole path: `test run --out`, keygen, sign, verify; then the artifact is edited."""
    case = Path(__file__).resolve().parents[1] / "conformance/cases/fx-refund-conversation-test-run"
    ran = cli(
        "test", "run", str(case / "test.yaml"), "--agent", "support-v3",
        "--transcript", str(case / "transcript.json"), "--trace", str(case / "trace.jsonl"),
        "--out", "artifact", "--created-at", PINNED, cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assert cli("label", "keygen", "--out", "keys", cwd=tmp_path).code == 0
    signed = _sign(cli, tmp_path / "artifact", tmp_path / "keys/signing.key",
                   tmp_path / "labels/refund.json", cwd=tmp_path)  # fmt: skip
    assert signed.code == 0, signed.err
    typo = cli(
        "label", "sign", "--artifact", "artifact", "--assertion", "refund-tool-caled",
        "--verdict", "pass", "--reviewer", "Ana", "--key", "keys/signing.key",
        "--out", "labels/typo.json", cwd=tmp_path,
    )  # fmt: skip
    assert typo.code == 2 and "graded no assertion 'refund-tool-caled'" in typo.err
    trust = ("--trust", "keys", "--artifact", "artifact")
    assert _verify(cli, tmp_path / "labels/refund.json", *trust, cwd=tmp_path).code == 0
    # Any edit to the artifact's manifest makes it another artifact for the label.
    manifest = tmp_path / "artifact/conversation.json"
    manifest.write_bytes(manifest.read_bytes().replace(b"support-v3", b"support-v4"))
    edited = _verify(cli, tmp_path / "labels/refund.json", *trust, cwd=tmp_path)
    assert edited.code == 2 and "for another artifact" in edited.err
