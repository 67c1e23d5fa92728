"""Writing a `hotato.conversation` artifact: children hashed as they are written, the manifest
last, the whole folder built aside and renamed into place so a crash never leaves half of one."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import msgspec

from hotato.model.errors import InputError

MANIFEST = "conversation.json"
SIGNATURE = "conversation.dsse.json"  # the manifest's signature, when the run signs it
CHUNK = 1 << 20


@dataclass(frozen=True)
class Child:
    """One bound child: either bytes made by the run, or a file copied from the user's inputs."""

    name: str  # assertions, transcript, trace, state, timing, audio, ...
    filename: str
    data: bytes | None = None
    source: str | None = None


def check_out_dir(out: str | os.PathLike[str]) -> Path:
    """`--out` may be new, an empty folder, or an earlier artifact (replaced whole).

    Anything else is refused."""
    try:
        return _check_out_dir(Path(out))
    except OSError as exc:  # a name too long, a folder that cannot be listed, ...
        raise InputError.one(f"cannot use --out: {exc.strerror}", file=str(out)) from None


def _check_out_dir(target: Path) -> Path:
    out = str(target)
    here = Path.cwd().resolve()
    if target.name in ("", ".", "..") or target.resolve() in (here, *here.parents):
        # the artifact is swapped in by renaming its folder: never the folder a user stands in
        raise InputError.one(
            "--out is the current folder or one holding it; name a new folder for the "
            "artifact (for example --out ./artifact)",
            file=out,
        )
    if target.is_symlink():
        raise InputError.one(
            "--out is a symbolic link; refusing to write through it", file=str(out)
        )
    if target.exists():
        if not target.is_dir():
            raise InputError.one("--out exists and is not a folder", file=str(out))
        entries = list(target.iterdir())
        if entries and not _is_artifact(target):
            raise InputError.one(
                "--out exists, is not empty and is not a hotato artifact; "
                "refusing to write into it",
                file=str(out),
            )
    elif not target.parent.exists():
        raise InputError.one("the folder that would hold --out does not exist", file=str(out))
    return target


def _is_artifact(folder: Path) -> bool:
    """An earlier artifact, which may be replaced whole: a real `hotato.conversation` manifest
    and nothing beside it but the children it binds (and its signature). A folder holding any
    other file is not one, so replacing it would delete files hotato never wrote."""
    manifest = folder / MANIFEST
    if manifest.is_symlink() or not manifest.is_file():
        return False
    try:
        doc = msgspec.json.decode(manifest.read_bytes())
    except (OSError, msgspec.DecodeError, RecursionError):
        return False
    if not (
        isinstance(doc, dict)
        and doc.get("kind") in ("hotato.conversation", "hotato.conversation.v1")
        and isinstance(doc.get("artifacts"), dict)
    ):
        return False
    bound = {MANIFEST, SIGNATURE}
    for entry in doc["artifacts"].values():
        path = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(path, str) or not path:
            return False
        bound.add(PurePosixPath(path).parts[0])
    return all(entry.name in bound for entry in folder.iterdir())


def _copy_hashed(source: str, dest: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with open(source, "rb") as src, open(dest, "wb") as out:
        while block := src.read(CHUNK):
            digest.update(block)
            out.write(block)
            size += len(block)
    return digest.hexdigest(), size


Head = Callable[[dict[str, dict[str, Any]]], dict[str, Any]]
Signer = Callable[[bytes], bytes]  # manifest bytes -> signature envelope bytes


def write_artifact(
    out: str | os.PathLike[str],
    head: Head,
    children: list[Child],
    signer: Signer | None = None,
) -> dict[str, Any]:
    """Write children, then the manifest: `head(bound children)` fields, then `artifacts`;
    with `signer`, its signature too, all before the folder is swapped into place (a run that
    fails to sign leaves the earlier artifact as it was). Returns the manifest."""
    target = check_out_dir(out)
    try:
        return _write(target, head, children, signer)
    except OSError as exc:  # an unwritable or full file system: refused, nothing left behind
        raise InputError.one(
            f"cannot write the artifact: {exc.strerror or exc}", file=str(out)
        ) from None


def _write(
    target: Path, head: Head, children: list[Child], signer: Signer | None
) -> dict[str, Any]:
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        bound: dict[str, dict[str, Any]] = {}
        for child in children:
            dest = staging / child.filename
            if child.source is not None:
                sha, size = _copy_hashed(child.source, dest)
            else:
                data = child.data or b""
                dest.write_bytes(data)
                sha, size = hashlib.sha256(data).hexdigest(), len(data)
            bound[child.name] = {"path": child.filename, "sha256": sha, "bytes": size}
        ordered = dict(sorted(bound.items()))
        manifest = {**head(ordered), "artifacts": ordered}
        manifest_bytes = encode(manifest)
        (staging / MANIFEST).write_bytes(manifest_bytes)
        if signer is not None:
            (staging / SIGNATURE).write_bytes(signer(manifest_bytes))
        _swap_in(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return manifest


def _swap_in(staging: Path, target: Path) -> None:
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.rename(target, old)
    os.rename(staging, target)
    os.chmod(target, 0o755)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def encode(doc: Any) -> bytes:
    """Stable JSON bytes: 2-space indent, trailing newline."""
    return msgspec.json.format(msgspec.json.encode(doc), indent=2) + b"\n"
