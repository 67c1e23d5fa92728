"""`hotato trace sign`: vouch for a trace file with an Ed25519 signature beside it."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("sign")
@click.argument("trace", type=click.Path(dir_okay=False, path_type=Path))
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
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the envelope (default: TRACE.dsse.json beside the trace).",
)
def trace_sign(trace: Path, key_path: Path, out_path: Path | None) -> None:
    """Sign TRACE's sha256 and size in a DSSE envelope.

    Runs given `--trace-key PUBKEY` verify it before any check reads the trace; with
    `--require-signed-trace` an unsigned or badly signed trace is refused (exit 2).
    """
    from hotato._io import make_folder
    from hotato.artifacts.signing import key_id, load_private_key
    from hotato.artifacts.trace_auth import sign_trace

    key = load_private_key(key_path)
    if out_path is not None:
        make_folder(out_path.parent)
    written = sign_trace(trace, key, out_path)
    click.echo(f"signed: {trace} -> {written} (key id {key_id(key.public_key())})")
