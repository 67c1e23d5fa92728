"""`hotato state`: read systems of record outside a run (before snapshots for state_change)."""

from __future__ import annotations

import json
from typing import Any

import click

from hotato.model.errors import InputError


@click.group("state")
def state_group() -> None:
    """Read a system of record: capture before snapshots for state_change."""


def _filter(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise InputError.one(f"--filter {text!r}: expected KEY=VALUE")
    try:
        value = json.loads(raw)
    except ValueError:
        return key, raw  # not JSON: the text itself (so 02139 stays the string "02139")
    if isinstance(value, dict | list):
        return key, raw
    return key, value


@state_group.command("snapshot")
@click.option(
    "--state",
    "source",
    required=True,
    metavar="SOURCE",
    help="The system of record: a JSON sandbox, a SQLite file, a postgresql:// or "
    "mysql:// URL, or an adapter file.",
)
@click.option("--resource", required=True, metavar="R", help="The table or mapped resource.")
@click.option(
    "--filter",
    "filters",
    multiple=True,
    metavar="KEY=VALUE",
    help="A column equality (repeatable). VALUE is read as JSON when it is a JSON "
    "number, true, false, null or a quoted string, else as text: id=42 is the number "
    "42, 'id=\"42\"' and zip=02139 are strings.",
)
@click.option(
    "--out",
    required=True,
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Where to write the snapshot (replaced atomically).",
)
@click.option(
    "--append",
    is_flag=True,
    help="Add this capture to the snapshot already in --out instead of replacing it.",
)
def snapshot_cmd(
    source: str, resource: str, filters: tuple[str, ...], out: str, append: bool
) -> None:
    """Capture one record now, before the call, for `--state-before FILE`.

    The file is a JSON sandbox ({resource: [records]}) with a `_meta` header listing each
    question asked and its answer. A later state_change over a question the snapshot did not
    ask is INCONCLUSIVE, never "unchanged". When the system of record cannot be read, the
    failure is recorded in the snapshot (a state_change over it is then INCONCLUSIVE with the
    cause) and a warning is printed; the exit code stays 0.

    \b
    Example:
      hotato state snapshot --state shop.db --resource orders \\
        --filter order_id=A-1001 --out before.json
    """
    from hotato._io import read_json_file
    from hotato.adapters import open_state
    from hotato.adapters.snapshot import META_KEY, capture, snapshot_document, write_snapshot

    wanted = dict(_filter(f) for f in filters)
    earlier = None
    if append and _exists(out):
        earlier = read_json_file(out, "snapshot")
        if not isinstance(earlier, dict) or not isinstance(earlier.get(META_KEY), dict):
            raise InputError.one(
                "--append: not a snapshot written by hotato state snapshot", file=out
            )
    with open_state(source) as state:
        if earlier is not None and earlier[META_KEY].get("source") not in (None, state.description):
            raise InputError.one(
                f"--append: this snapshot was taken from "
                f"{earlier[META_KEY].get('source')}, not {state.description}",
                file=out,
            )
        taken, record = capture(state.after, resource, wanted)
        write_snapshot(out, snapshot_document(state.description, [(taken, record)], earlier))
    if taken.error is not None:
        click.echo(
            f"hotato: warning: could not read {resource} {wanted} "
            f"({taken.error.cause}): {taken.error.message}; recorded in {out}, a "
            "state_change over it will be INCONCLUSIVE",
            err=True,
        )
        return
    found = "1 record" if taken.found else "no matching record"
    click.echo(f"{resource} {json.dumps(wanted)}: {found}; wrote {out}")


def _exists(path: str) -> bool:
    from pathlib import Path

    return Path(path).exists()
