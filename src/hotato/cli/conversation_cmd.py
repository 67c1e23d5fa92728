"""`hotato conversation verify`: is this artifact what the run wrote?"""

from __future__ import annotations

import click

from hotato.cli._run import Exit


@click.group("conversation")
def conversation_group() -> None:
    """Check conversation artifacts written by `hotato test run --out`."""


@conversation_group.command("verify")
@click.argument("folder", metavar="DIR")
@click.option(
    "--trust",
    "trust",
    multiple=True,
    metavar="PUBKEY",
    help="A trusted public key (PEM or OpenSSH) or a folder of them; the manifest's "
    "signature must hold under one. Without it, only integrity is checked.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def verify_cmd(folder: str, trust: tuple[str, ...], fmt: str) -> None:
    """Re-hash every child the manifest binds.

    Exit 0 when every digest and size matches (an evidence-only artifact, such as a
    simulation's, verifies and says it binds no results). Exit 2 on a mismatch, a missing
    child, a malformed manifest, a manifest of a test run that binds no evaluated results, a
    child path that is
    absolute or leaves the folder, a link, or a determinate state verdict whose state
    evidence is not bound. With --trust, a manifest that was rewritten and re-hashed (a FAIL
    edited to PASS) is refused too.
    """
    from hotato.runs.verify import verify_conversation_artifact

    verdict = verify_conversation_artifact(folder, trust)
    doc = verdict.document
    if fmt == "json":
        from hotato.report.json_out import dumps

        click.echo(dumps(doc), nl=False)
    else:
        click.echo(_text(folder, doc))
    raise Exit(verdict.exit_code)


def _text(folder: str, doc: dict[str, object]) -> str:
    lines = [f"hotato conversation verify: {folder}"]
    subject = doc.get("subject")
    if isinstance(subject, dict):
        lines += [f"  {key:<16}{value}" for key, value in subject.items() if value is not None]
    for name in doc["verified"]:  # type: ignore[attr-defined]
        lines.append(f"  ok        {name}")
    for m in doc["mismatches"]:  # type: ignore[attr-defined]
        lines.append(f"  MISMATCH  {m['name']} ({m['path']}): digest or size differs")
    for name in doc["missing"]:  # type: ignore[attr-defined]
        lines.append(f"  MISSING   {name}")
    for item in doc["unbound"]:  # type: ignore[attr-defined]
        lines.append(f"  UNBOUND   {item}")
    for item in doc["problems"]:  # type: ignore[attr-defined]
        lines.append(f"  REFUSED   {item}")
    if "evidence_only" in doc:
        lines.append(f"  evidence only: {doc['evidence_only']}")
    sig = doc["signature"]
    if isinstance(sig, dict) and sig.get("checked"):
        lines.append(f"  signature {'holds under a trusted key' if sig.get('ok') else 'REFUSED'}")
    if "note" in doc:
        lines.append(f"  note: {doc['note']}")
    lines.append("refused" if doc["refused"] else "verified")
    return "\n".join(lines)
