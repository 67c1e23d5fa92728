"""Reading input files, with refusals that name the file. Shared by every layer."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from hotato.model.errors import InputError


def check_readable(path: str | os.PathLike[str], what: str) -> Path:
    p = Path(path)
    if not p.exists():
        noun = what if what.endswith("file") else f"{what} file"
        raise InputError.one(f"{noun} does not exist", file=str(path))
    if p.is_dir():
        raise InputError.one(f"{what} is a folder, expected a file", file=str(path))
    return p


def read_bytes(path: str | os.PathLike[str], what: str) -> bytes:
    p = check_readable(path, what)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError.one(f"cannot read {what}: {exc.strerror}", file=str(path)) from exc


def read_json_file(path: str | os.PathLike[str], what: str) -> Any:
    """A whole JSON document, refused with the file named when it is not JSON."""
    data = read_bytes(path, what)
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise InputError.one(f"{what} is not valid JSON ({exc})", file=str(path)) from None


def digest_file(path: str | os.PathLike[str], what: str) -> tuple[str, int]:
    """sha256 hex and byte size of a file, streamed."""
    import hashlib

    p = check_readable(path, what)
    try:
        with p.open("rb") as handle:
            digest = hashlib.file_digest(handle, "sha256")
            size = os.fstat(handle.fileno()).st_size
    except OSError as exc:
        raise InputError.one(f"cannot read {what}: {exc.strerror}", file=str(path)) from None
    return digest.hexdigest(), size


def make_folder(path: str | os.PathLike[str], what: str = "--out") -> Path:
    """`mkdir -p path`; a failure (a parent that is a file, no permission, a name too long)
    is a refusal naming the path, never an internal error."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = exc.strerror or str(exc)
        if isinstance(exc, FileExistsError | NotADirectoryError):
            why = "a file is in the way of the folder (or of a folder holding it)"
        raise InputError.one(f"cannot make the {what} folder: {why}", file=str(path)) from None
    return folder


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write through a temporary file and rename, so a crash never leaves half a file."""
    target = Path(path)
    parent = target.parent
    if not parent.is_dir():
        raise InputError.one(
            "cannot write: the folder to write into does not exist", file=str(parent)
        )
    tmp = parent / f".{target.name}.{os.urandom(6).hex()}.tmp"
    # os.open (not mkstemp) so the file gets the usual umask permissions, not 0600.
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise InputError.one(f"cannot write: {exc.strerror}", file=str(target)) from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except OSError as exc:  # a full disk, a file-size limit, ...: refused, nothing left behind
        tmp.unlink(missing_ok=True)
        raise InputError.one(f"cannot write: {exc.strerror or exc}", file=str(target)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def write_new(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> Path:
    """Create `path` holding `data` with `mode` from the start, only if nothing is there. The
    bytes are written aside and linked into place whole, so a full disk or a file-size limit
    leaves no empty or partial file behind (one that would block the next attempt)."""
    target = Path(path)
    tmp = target.parent / f".{target.name}.{os.urandom(6).hex()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, mode)  # the umask may have narrowed it; 0600 stays 0600
            os.link(tmp, target)  # refuses an existing file, atomically
        finally:
            tmp.unlink(missing_ok=True)
    except FileExistsError:
        raise InputError.one(
            "a file is already there; refusing to overwrite it", file=str(target)
        ) from None
    except OSError as exc:
        raise InputError.one(f"cannot write: {exc.strerror or exc}", file=str(target)) from None
    return target


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a large input is read into many small objects
    that hold no cycles (a million spans): its passes over the growing heap cost about a fifth
    of the read, and find nothing to free."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
