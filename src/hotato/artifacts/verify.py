"""`conversation verify`: re-hash every bound child, refuse on any doubt. Reads only inside the
artifact folder and follows no links."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import msgspec

from hotato.artifacts.bundle import CHUNK, MANIFEST

STATE_KINDS = frozenset({"state", "state_change"})


@dataclass
class Report:
    verified: list[str] = field(default_factory=list)
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unbound: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    manifest: dict[str, Any] | None = None
    manifest_bytes: bytes | None = None  # the one read: a signature is checked against these
    evidence_only: bool = False  # binds evidence and no evaluated results (see _evidence_only)

    @property
    def refused(self) -> bool:
        return bool(self.mismatches or self.missing or self.unbound or self.problems)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": not self.refused,
            "refused": self.refused,
            "verified": self.verified,
            "mismatches": self.mismatches,
            "missing": self.missing,
            "unbound": self.unbound,
            "problems": self.problems,
            **({"evidence_only": EVIDENCE_ONLY} if self.evidence_only else {}),
        }


class _Refused(Exception):
    """A child that must not be read: a link, not a regular file, or linked elsewhere."""


def open_inside(base: Path, parts: tuple[str, ...]) -> int:
    """A read-only descriptor for `base/parts...`, opened one component at a time relative to
    a directory handle: no component may be a link, the last must be a regular file with one
    name (a hard link would bind a file outside the artifact), and a FIFO never blocks."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    directory = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for part in parts[:-1]:
            step = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
            os.close(directory)
            directory = step
        fd = os.open(parts[-1], flags, dir_fd=directory)
    finally:
        os.close(directory)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise _Refused("is not a regular file")
    if info.st_nlink != 1:
        os.close(fd)
        raise _Refused("has other names (a hard link to a file that may be outside it)")
    os.set_blocking(fd, True)
    return fd


def read_child(base: Path, parts: tuple[str, ...]) -> bytes:
    """The whole of one file inside the artifact, opened as `open_inside` opens it."""
    fd = open_inside(base, parts)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _hash(fd: int, expected_size: Any) -> tuple[str | None, int]:
    """sha256 and size; a file whose size differs from the manifest's is not read at all."""
    size = os.fstat(fd).st_size
    if size != expected_size:
        return None, size
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb", closefd=False) as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest(), size


def _safe_child(base: Path, rel: Any) -> tuple[Path | None, str | None]:
    if not isinstance(rel, str) or not rel:
        return None, "child path must be a non-empty string"
    pure = PurePosixPath(rel)
    if pure.is_absolute() or rel.startswith("\\") or (len(rel) > 1 and rel[1] == ":"):
        return None, f"child path {rel!r} is absolute"
    if ".." in pure.parts:
        return None, f"child path {rel!r} leaves the artifact folder"
    if not pure.parts:  # "." or "./": the folder itself, not a file in it
        return None, f"child path {rel!r} names the artifact folder, not a file in it"
    if "\x00" in rel:
        return None, f"child path {rel!r} holds a NUL byte"
    path = base.joinpath(*pure.parts)
    probe = base
    try:
        for part in pure.parts:
            probe = probe / part
            if probe.is_symlink():
                return None, f"child path {rel!r} is a link; refusing to follow it"
    except OSError as exc:
        return None, f"child path {rel!r} cannot be read ({exc.strerror})"
    return path, None


def _read_manifest(base: Path, report: Report) -> dict[str, Any] | None:
    if base.is_symlink():
        report.problems.append("the artifact folder is a link; refusing to follow it")
        return None
    if not base.is_dir():
        report.problems.append("the artifact folder does not exist")
        return None
    try:
        data = read_child(base, (MANIFEST,))
    except FileNotFoundError:
        report.missing.append(MANIFEST)
        return None
    except _Refused as exc:
        report.problems.append(f"{MANIFEST} {exc}")
        return None
    except OSError as exc:
        link = exc.errno == errno.ELOOP
        report.problems.append(
            f"{MANIFEST} is a link (a symbolic link); refusing to follow it"
            if link
            else f"{MANIFEST} cannot be read ({exc.strerror})"
        )
        return None
    report.manifest_bytes = data
    try:
        manifest = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        report.problems.append(f"{MANIFEST} is not valid JSON ({exc})")
        return None
    except RecursionError:
        report.problems.append(f"{MANIFEST} is nested too deeply to be a manifest")
        return None
    if not isinstance(manifest, dict) or manifest.get("kind") not in (
        "hotato.conversation",
        "hotato.conversation.v1",
    ):
        report.problems.append(f"{MANIFEST} is not a hotato.conversation manifest")
        return None
    if not isinstance(manifest.get("artifacts"), dict):
        report.problems.append(f"{MANIFEST} has no 'artifacts' mapping")
        return None
    return manifest


# Children that are evidence, not results: what a simulation (hotato 1.x `simulate`) binds.
EVIDENCE_CHILDREN = frozenset({"trace", "transcript", "state", "timing", "audio"})
EVIDENCE_ONLY = "the manifest binds evidence and no evaluated results"


def _evidence_only(manifest: dict[str, Any], children: dict[str, Any]) -> bool:
    """An artifact that holds only evidence, as it says it does: it binds at least one
    evidence child and nothing else, and names no test (a test run's manifest always binds
    its results, so one that names a test and binds none has lost them)."""
    return (
        bool(children)
        and EVIDENCE_CHILDREN.issuperset(children)
        and manifest.get("test_id") is None
    )


def verify_artifact(folder: str | os.PathLike[str]) -> Report:
    base = Path(folder)
    report = Report()
    manifest = _read_manifest(base, report)
    if manifest is None:
        return report
    report.manifest = manifest
    children: dict[str, Any] = manifest["artifacts"]
    if "assertions" not in children:
        if _evidence_only(manifest, children):
            report.evidence_only = True
        else:
            report.unbound.append("assertions: the manifest binds no evaluated results")
    for name, entry in sorted(children.items()):
        malformed = _malformed(entry)
        if malformed:
            report.problems.append(
                f"artifacts.{name} is malformed: {malformed} (an entry needs path, sha256, bytes)"
            )
            continue
        path, why = _safe_child(base, entry.get("path"))
        if path is None:
            report.problems.append(f"artifacts.{name}: {why}")
            continue
        try:
            fd = open_inside(base, PurePosixPath(entry["path"]).parts)
        except _Refused as exc:
            report.problems.append(f"artifacts.{name} {exc}")
            continue
        except FileNotFoundError:
            report.missing.append(name)
            continue
        except OSError as exc:  # a link (ELOOP), a folder, unreadable, ...
            why = (
                "is a link or not a file"
                if exc.errno in (errno.ELOOP, errno.ENOTDIR)
                else (f"cannot be read ({exc.strerror})")
            )
            report.problems.append(f"artifacts.{name} {why}")
            continue
        try:
            sha, size = _hash(fd, entry.get("bytes"))
        finally:
            os.close(fd)
        if sha != entry["sha256"] or size != entry.get("bytes"):
            report.mismatches.append(
                {
                    "name": name,
                    "path": entry["path"],
                    "expected": {"sha256": entry["sha256"], "bytes": entry.get("bytes")},
                    "actual": {"sha256": sha, "bytes": size},
                }
            )
            continue
        report.verified.append(name)
    if "assertions" in report.verified:
        _check_state_bound(base, children, report)
    return report


def _malformed(entry: Any) -> str:
    """What is wrong with a manifest entry's shape, or "" when nothing is: an entry without
    its digest or its size cannot be checked, so neither is a mismatch."""
    if not isinstance(entry, dict):
        return f"it is {type(entry).__name__}, not a mapping"
    wrong = []
    for key, ok in (
        ("path", isinstance(entry.get("path"), str)),
        ("sha256", isinstance(entry.get("sha256"), str)),
        ("bytes", isinstance(entry.get("bytes"), int) and not isinstance(entry.get("bytes"), bool)),
    ):
        if not ok:
            wrong.append(f"{key!r} is {'missing' if key not in entry else 'not valid'}")
    return ", ".join(wrong)


def _check_state_bound(base: Path, children: dict[str, Any], report: Report) -> None:
    """A determinate state verdict must have its read bound beside it: a `state` child that
    verified and holds an entry for that assertion id."""
    doc = _decode_child(base, children["assertions"], "assertions", report)
    determinate = [
        r
        for r in _results(doc)
        if r.get("kind") in STATE_KINDS and r.get("status") in ("PASS", "FAIL")
    ]
    if not determinate:
        return
    if "state" not in children:
        for result in determinate:
            report.unbound.append(
                f"state: {result.get('id')!r} is {result.get('status')} but no "
                "state evidence is bound"
            )
        return
    if "state" not in report.verified:
        return  # already refused: mismatched, missing or malformed
    evidence = _decode_child(base, children["state"], "state", report)
    entries = evidence.get("entries") if isinstance(evidence, dict) else None
    if not isinstance(entries, list):
        entries = []
    ids = {e.get("id") for e in entries if isinstance(e, dict)}
    for result in determinate:
        if result.get("id") not in ids:
            report.unbound.append(
                f"state: {result.get('id')!r} is {result.get('status')} but the bound "
                "state evidence holds no read for it"
            )


def _decode_child(base: Path, entry: dict[str, Any], name: str, report: Report) -> Any:
    path, _ = _safe_child(base, entry.get("path"))
    if path is None:
        return None
    try:
        return msgspec.json.decode(read_child(base, PurePosixPath(entry["path"]).parts))
    except (msgspec.DecodeError, RecursionError):
        report.problems.append(f"the bound {name} child is not valid JSON")
        return None
    except (OSError, _Refused) as exc:
        report.problems.append(f"the bound {name} child cannot be read ({exc})")
        return None


def _results(doc: Any) -> list[dict[str, Any]]:
    if isinstance(doc, dict):
        if isinstance(doc.get("results"), list):
            return [r for r in doc["results"] if isinstance(r, dict)]
        inner = doc.get("assertions")
        if isinstance(inner, dict):
            return _results(inner)
    return []
