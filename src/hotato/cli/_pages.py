"""Writing the report page where the CLI is asked to: a target checked before any work, and
an atomic write."""

from __future__ import annotations

from pathlib import Path

from hotato.model.errors import InputError


def check_target(path: str | None, flag: str) -> None:
    """Refuse an output file that cannot be written before anything runs or is written."""
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise InputError.one(f"{flag} is a folder; give it a file name", file=path)
    if not target.parent.is_dir():
        raise InputError.one(f"the folder that would hold {flag} does not exist", file=path)


def write_page(path: str | None, text: str) -> None:
    if path is None:
        return
    from hotato._io import write_atomic

    write_atomic(path, text.encode())
