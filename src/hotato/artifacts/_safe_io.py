"""Reading a named file inside an artifact folder, never through a link."""

from __future__ import annotations

import os
from pathlib import Path

from hotato.model.errors import InputError


def read_inside(folder: str | os.PathLike[str], name: str, what: str) -> bytes:
    """`folder/name`; refused when missing, or when the folder or file is a link (DESIGN law 9)."""
    base = Path(folder)
    if base.is_symlink():
        raise InputError.one(
            "the artifact folder is a symbolic link; refusing to follow it", file=str(base)
        )
    if not base.is_dir():
        raise InputError.one("artifact folder does not exist", file=str(base))
    path = base / name
    if path.is_symlink():
        raise InputError.one(f"{what} is a symbolic link; refusing to follow it", file=str(path))
    if not path.is_file():
        raise InputError.one(f"{what} is missing", file=str(path))
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError.one(f"cannot read {what}: {exc.strerror}", file=str(path)) from None
