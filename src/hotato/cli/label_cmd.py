"""`hotato label`: Ed25519 keys, and signing and verifying human labels."""

from __future__ import annotations

from pathlib import Path

import click
import msgspec

PRIVATE_NAME = "signing.key"
PUBLIC_NAME = "signing.pub"


@click.group("label")
def label_group() -> None:
    """Human labels: a reviewer's Ed25519-signed verdict on one assertion of one artifact.

    A verified label is the third authority, beside the trace and the system of record: it
    settles a call a machine could not. Anyone holding the public key can check it.
    """


@label_group.command("keygen")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to write signing.key (private, mode 0600) and signing.pub (public PEM) into.",
)
def keygen(out_dir: Path) -> None:
    """Write a new Ed25519 key pair. Never overwrites an existing key."""
    from hotato._io import write_new
    from hotato.artifacts.signing import (
        generate_private_key,
        key_id,
        private_key_pem,
        public_key_pem,
    )
    from hotato.model.errors import InputError

    private_path, public_path = out_dir / PRIVATE_NAME, out_dir / PUBLIC_NAME
    for path in (private_path, public_path):
        if path.exists() or path.is_symlink():
            raise InputError.one("a key is already there; refusing to overwrite it", file=str(path))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError.one(f"cannot make the folder: {exc.strerror}", file=str(out_dir)) from None
    key = generate_private_key()
    write_new(private_path, private_key_pem(key), 0o600)
    try:
        write_new(public_path, public_key_pem(key.public_key()), 0o644)
    except InputError:
        private_path.unlink(missing_ok=True)  # half a key pair is no key pair
        raise
    click.echo(f"private key: {private_path} (keep it secret)")
    click.echo(f"public key:  {public_path} (share it; verifiers pass it to --trust)")
    click.echo(f"key id:      {key_id(key.public_key())}")


@label_group.command("sign")
@click.option(
    "--artifact",
    "artifact_dir",
    required=True,
    type=click.Path(path_type=Path),
    help="The conversation artifact folder the label is about.",
)
@click.option(
    "--assertion", "assertion_id", required=True, help="The assertion id the verdict settles."
)
@click.option("--verdict", required=True, type=click.Choice(["pass", "fail"], case_sensitive=False))
@click.option("--reviewer", required=True, help="Who reviewed the call.")
@click.option("--note", default="", help="Why: what the reviewer heard or checked.")
@click.option(
    "--key",
    "key_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Ed25519 private key: PEM (PKCS8) or OpenSSH.",
)
@click.option(
    "--out",
    "out_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the label (a DSSE envelope, JSON).",
)
@click.option(
    "--created-at",
    default=None,
    help="Pin the label's time (ISO 8601 with an offset); default: now, UTC.",
)
def sign_cmd(
    artifact_dir: Path,
    assertion_id: str,
    verdict: str,
    reviewer: str,
    note: str,
    key_path: Path,
    out_path: Path,
    created_at: str | None,
) -> None:
    """Sign a reviewer's verdict on one assertion of an artifact."""
    from hotato._io import make_folder, write_atomic
    from hotato.artifacts.labels import sign_label
    from hotato.artifacts.signing import key_id, load_private_key
    from hotato.model.errors import InputError

    if out_path.exists() or out_path.is_symlink():
        raise InputError.one(
            "a file is already there; refusing to overwrite a label", file=str(out_path)
        )
    key = load_private_key(key_path)
    envelope = sign_label(
        artifact_dir,
        assertion_id=assertion_id,
        verdict=verdict,
        reviewer=reviewer,
        private_key=key,
        note=note,
        created_at=created_at,
    )
    make_folder(out_path.parent)
    write_atomic(out_path, envelope)
    click.echo(
        f"signed: {assertion_id} = {verdict.lower()} by {reviewer} -> {out_path} "
        f"(key id {key_id(key.public_key())})"
    )


@label_group.command("verify")
@click.argument("label", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--trust",
    "trust_paths",
    multiple=True,
    required=True,
    type=click.Path(path_type=Path),
    help="A trusted public key (PEM or OpenSSH .pub) or a folder of them; repeatable.",
)
@click.option(
    "--artifact",
    "artifact_dir",
    default=None,
    type=click.Path(path_type=Path),
    help="Also check that the label is about this artifact.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def verify_cmd(
    label: Path, trust_paths: tuple[Path, ...], artifact_dir: Path | None, fmt: str
) -> None:
    """Check a label's signature under trusted keys. Exit 0 when it holds, 2 when refused."""
    from hotato.artifacts.labels import verify_label
    from hotato.artifacts.signing import SignatureError, load_trust
    from hotato.cli._run import Exit
    from hotato.model.status import ExitCode

    trust = load_trust(list(trust_paths))
    try:
        verified = verify_label(label, trust, artifact_dir)
    except SignatureError as exc:
        if fmt != "json":
            raise
        reason = exc.problems[0].message if exc.problems else str(exc)
        refusal = {"path": str(label), "code": exc.code, "reason": reason}
        click.echo(msgspec.json.encode({"ok": False, "refused": refusal}).decode())
        raise Exit(ExitCode.REFUSED) from None
    if fmt == "json":
        click.echo(msgspec.json.encode({"ok": True, "label": verified.to_dict()}).decode())
        return
    note = f" - {verified.note}" if verified.note else ""
    click.echo(
        f"verified: {verified.assertion_id} = {verified.verdict} by {verified.reviewer} at "
        f"{verified.created_at}{note}"
    )
    click.echo(
        f"  conversation {verified.conversation_id}, manifest sha256 {verified.manifest_sha256}"
    )
    click.echo(f"  signed by key {verified.key_id} ({verified.key_source})")
    if artifact_dir is None:
        click.echo("  not checked against an artifact (pass --artifact DIR to check that too)")
