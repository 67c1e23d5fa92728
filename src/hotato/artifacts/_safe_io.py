"""Reading a named file inside an artifact folder (never through a link), and atomic writes."""

from __future__ import annotations

import os
import secrets
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


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write through a temporary file and rename, so a crash never leaves half a file."""
    target = Path(path)
    parent = target.parent
    if not parent.is_dir():
        raise InputError.one("the folder to write into does not exist", file=str(parent))
    tmp = parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
    # os.open (not mkstemp) so the file gets the usual umask permissions, not 0600.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target
