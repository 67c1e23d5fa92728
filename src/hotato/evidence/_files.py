"""Opening input files with refusals that name the file."""

from __future__ import annotations

import os
from pathlib import Path

from hotato.model.errors import InputError


def check_readable(path: str | os.PathLike[str], what: str) -> Path:
    p = Path(path)
    if not p.exists():
        raise InputError.one(f"{what} file does not exist", file=str(path))
    if p.is_dir():
        raise InputError.one(f"{what} is a folder, expected a file", file=str(path))
    return p


def read_bytes(path: str | os.PathLike[str], what: str) -> bytes:
    p = check_readable(path, what)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError.one(f"cannot read {what}: {exc.strerror}", file=str(path)) from exc
