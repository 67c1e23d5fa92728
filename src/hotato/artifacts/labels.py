"""Human labels: a person's signed verdict on one assertion of one artifact (the third authority).

A label is a DSSE envelope (payload type `application/vnd.hotato.label+json`). Everything it says
sits inside the signed payload: the artifact it is about (manifest sha256 and conversation id),
the assertion, the verdict, the reviewer, the time, the note and the signer's key id. Nothing
about the signer is taken from outside the signature.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import msgspec

from hotato._io import read_bytes
from hotato.artifacts._safe_io import read_inside
from hotato.artifacts.bundle import MANIFEST
from hotato.artifacts.manifest_sig import read_manifest
from hotato.artifacts.signing import (
    MalformedEnvelope,
    SignatureError,
    Tampered,
    Trust,
    key_id,
    sign,
    verify,
)
from hotato.model.errors import InputError, UsageError
from hotato.model.status import Status

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PAYLOAD_TYPE = "application/vnd.hotato.label+json"
KIND = "hotato.label"
VERDICTS = ("pass", "fail")

_SHA256 = re.compile(r"[0-9a-f]{64}")


class WrongArtifact(SignatureError):
    """A genuine label, made for another artifact than the one it is checked against."""

    code = "wrong_artifact"


class LabelPayload(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """The signed payload. Field order is the order written."""

    kind: str
    version: int
    conversation_id: str
    manifest_sha256: str
    assertion_id: str
    verdict: Literal["pass", "fail"]
    reviewer: str
    created_at: str
    note: str
    key_id: str
    # The digest of the assertion as graded (its spec), when the artifact recorded it: a label
    # then settles only that assertion, not a later edit that kept its id.
    assertion_sha256: str = ""
    # The digest of the state evidence the result was graded against (the artifact's
    # state-evidence.json child, or of nothing when the run read no state): the label then
    # settles the assertion only on a run whose state evidence is the same.
    state_sha256: str = ""


@dataclass(frozen=True)
class ArtifactRef:
    """What a label binds an artifact by."""

    conversation_id: str
    manifest_sha256: str

    @classmethod
    def from_manifest(cls, manifest: bytes, source: str | None = None) -> ArtifactRef:
        try:
            doc = msgspec.json.decode(manifest)
        except msgspec.DecodeError as exc:
            raise InputError.one(f"the manifest is not JSON ({exc})", file=source) from None
        conversation_id = doc.get("conversation_id") if isinstance(doc, dict) else None
        if not isinstance(conversation_id, str) or not conversation_id:
            raise InputError.one(
                "the manifest has no conversation_id to bind a label to",
                file=source,
                path="$.conversation_id",
            )
        return cls(conversation_id, hashlib.sha256(manifest).hexdigest())


def artifact_ref(artifact_dir: str | os.PathLike[str]) -> ArtifactRef:
    """Bind the artifact in `artifact_dir`: its children re-hashed against the manifest first
    (a label is about the artifact as it was written, not as it was edited since), then the
    manifest bytes that were checked, read once, inside the folder and never through a link."""
    from hotato.artifacts.verify import verify_artifact

    report = verify_artifact(artifact_dir)
    doubts = [
        *(f"{m['name']} differs from what the manifest binds" for m in report.mismatches),
        *(f"{name} is missing" for name in report.missing),
        *report.problems,
    ]
    if doubts or report.manifest_bytes is None:
        raise Tampered.one(
            "the artifact does not verify, so no label can stand for it: " + "; ".join(doubts),
            file=str(artifact_dir),
        )
    return ArtifactRef.from_manifest(report.manifest_bytes, str(Path(artifact_dir) / MANIFEST))


@dataclass(frozen=True)
class VerifiedLabel:
    """A label whose signature held under a trusted key: a human-confirmed verdict."""

    authority: ClassVar[str] = "human"

    path: str
    assertion_id: str
    verdict: str  # "pass" | "fail"
    reviewer: str
    created_at: str
    note: str
    key_id: str
    key_source: str
    conversation_id: str
    manifest_sha256: str
    assertion_sha256: str = ""  # empty for a label made before assertions were bound by content
    state_sha256: str = ""  # empty for a label made before state evidence was bound

    @property
    def status(self) -> Status:
        return Status.PASS if self.verdict == "pass" else Status.FAIL

    def to_dict(self) -> dict[str, str]:
        return {
            "authority": self.authority,
            "path": self.path,
            "assertion_id": self.assertion_id,
            "verdict": self.verdict,
            "status": self.status.value,
            "reviewer": self.reviewer,
            "created_at": self.created_at,
            "note": self.note,
            "key_id": self.key_id,
            "conversation_id": self.conversation_id,
            "manifest_sha256": self.manifest_sha256,
        }


@dataclass(frozen=True)
class RefusedLabel:
    """A label file that did not verify. It is listed, and never counts."""

    path: str
    code: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "code": self.code, "reason": self.reason}


# -- time -----------------------------------------------------------------------------------------


def utc_timestamp(text: str | None = None) -> str:
    """ISO 8601 UTC with `Z`: `text` normalised (it must carry an offset), or now, to the second."""
    if text is None:
        return datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError.one(
            f"--created-at {text!r} is not an ISO 8601 time (e.g. 2026-01-01T00:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        raise UsageError.one(f"--created-at {text!r} has no offset; add Z for UTC")
    moment = moment.astimezone(UTC)
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if moment.microsecond else "%Y-%m-%dT%H:%M:%SZ"
    return moment.strftime(fmt)


# -- signing --------------------------------------------------------------------------------------


def make_label(
    artifact: ArtifactRef,
    *,
    assertion_id: str,
    verdict: str,
    reviewer: str,
    private_key: Ed25519PrivateKey,
    note: str = "",
    created_at: str | None = None,
    assertion_sha256: str = "",
    state_sha256: str = "",
) -> bytes:
    """The label envelope's bytes. With `created_at` pinned, the same inputs give the same bytes."""
    verdict = verdict.lower()
    if verdict not in VERDICTS:
        raise UsageError.one(f"verdict must be pass or fail, not {verdict!r}")
    for name, value in (("assertion id", assertion_id), ("reviewer", reviewer)):
        if not value.strip():
            raise UsageError.one(f"the {name} must not be empty")
    payload = LabelPayload(
        kind=KIND,
        version=1,
        conversation_id=artifact.conversation_id,
        manifest_sha256=artifact.manifest_sha256,
        assertion_id=assertion_id,
        verdict=verdict,  # type: ignore[arg-type]  # checked against VERDICTS above
        reviewer=reviewer,
        created_at=utc_timestamp(created_at),
        note=note,
        key_id=key_id(private_key.public_key()),
        assertion_sha256=assertion_sha256,
        state_sha256=state_sha256,
    )
    return sign(msgspec.json.encode(payload), PAYLOAD_TYPE, private_key)


def sign_label(
    artifact_dir: str | os.PathLike[str],
    *,
    assertion_id: str,
    verdict: str,
    reviewer: str,
    private_key: Ed25519PrivateKey,
    note: str = "",
    created_at: str | None = None,
) -> bytes:
    """A label for the artifact in `artifact_dir` (its manifest read and hashed now).

    When the artifact binds its evaluated results, an assertion id it never graded is refused:
    such a label would settle nothing.
    """
    manifest = read_manifest(artifact_dir)
    ref = ArtifactRef.from_manifest(manifest, str(Path(artifact_dir) / MANIFEST))
    graded = graded_ids(artifact_dir, manifest)
    if graded is not None and assertion_id not in graded:
        raise UsageError.one(
            f"the artifact graded no assertion {assertion_id!r}; it has: {', '.join(graded)}",
            file=str(artifact_dir),
        )
    return make_label(
        ref,
        assertion_id=assertion_id,
        verdict=verdict,
        reviewer=reviewer,
        private_key=private_key,
        note=note,
        created_at=created_at,
        assertion_sha256=_bound_digests(artifact_dir, manifest, "assertion_digests").get(
            assertion_id, ""
        ),
        state_sha256=_bound_state(artifact_dir, manifest),
    )


def graded_ids(artifact_dir: str | os.PathLike[str], manifest: bytes) -> list[str] | None:
    """The assertion ids (both lanes) in the artifact's bound results, or None when it binds
    none hotato can read. `manifest` is the folder's conversation.json, already read."""
    doc = _bound_results(artifact_dir, manifest)
    lanes = [doc.get("assertions", {}), doc.get("rubric", {}), doc] if isinstance(doc, dict) else []
    ids = [
        r["id"]
        for lane in lanes
        if isinstance(lane, dict) and isinstance(lane.get("results"), list)
        for r in lane["results"]
        if isinstance(r, dict) and isinstance(r.get("id"), str)
    ]
    return ids or None


def _bound_digests(
    artifact_dir: str | os.PathLike[str], manifest: bytes, key: str
) -> dict[str, str]:
    """Per assertion id, a digest the artifact's bound results recorded under `key`
    (`assertion_digests`: the assertion as graded), or nothing when the artifact recorded none."""
    doc = _bound_results(artifact_dir, manifest)
    digests = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(digests, dict):
        return {}
    return {k: v for k, v in digests.items() if isinstance(k, str) and isinstance(v, str)}


def _bound_state(artifact_dir: str | os.PathLike[str], manifest: bytes) -> str:
    """The digest of the state evidence the results were graded against, when the artifact
    recorded it (`state_sha256`), else ""."""
    doc = _bound_results(artifact_dir, manifest)
    digest = doc.get("state_sha256") if isinstance(doc, dict) else None
    return digest if isinstance(digest, str) else ""


def _bound_results(artifact_dir: str | os.PathLike[str], manifest: bytes) -> Any:
    try:
        name = msgspec.json.decode(manifest)["artifacts"]["assertions"]["path"]
    except (msgspec.DecodeError, KeyError, TypeError, RecursionError):
        return None
    if not isinstance(name, str) or "/" in name or "\\" in name or name in ("", ".", ".."):
        return None
    try:
        return msgspec.json.decode(read_inside(artifact_dir, name, "the bound results"))
    except (InputError, msgspec.DecodeError, RecursionError):
        return None


# -- verifying ------------------------------------------------------------------------------------


def verify_label(
    path: str | os.PathLike[str],
    trust: Trust,
    artifact_dir: str | os.PathLike[str] | None = None,
    *,
    artifact: ArtifactRef | None = None,
) -> VerifiedLabel:
    """The label at `path`, when a trusted key signed it and (given an artifact) it is about it.

    Raises MalformedEnvelope, UntrustedKey, Tampered (including a payload key id that is not the
    signing key's) or WrongArtifact; all are InputErrors (exit 2).
    """
    if artifact is None and artifact_dir is not None:
        artifact = artifact_ref(artifact_dir)
    return verify_label_bytes(read_bytes(path, "label"), trust, artifact, source=str(path))


def verify_label_bytes(
    envelope: bytes, trust: Trust, artifact: ArtifactRef | None = None, *, source: str = "<label>"
) -> VerifiedLabel:
    """`verify_label` for a label already in memory; `source` names it in messages."""
    verified = verify(envelope, trust, payload_type=PAYLOAD_TYPE, source=source)
    label = _decode_payload(verified.payload, source)
    if label.key_id != verified.key_id:
        raise Tampered.one(
            f"the label names key {label.key_id[:16]}... but was signed by "
            f"{verified.key_id[:16]}...",
            file=source,
        )
    if artifact is not None:
        _check_artifact(label, artifact, source)
    return VerifiedLabel(
        path=source,
        assertion_id=label.assertion_id,
        verdict=label.verdict,
        reviewer=label.reviewer,
        created_at=label.created_at,
        note=label.note,
        key_id=label.key_id,
        key_source=verified.key_source,
        conversation_id=label.conversation_id,
        manifest_sha256=label.manifest_sha256,
        assertion_sha256=label.assertion_sha256,
        state_sha256=label.state_sha256,
    )


def load_labels(
    folder: str | os.PathLike[str], trust: Trust, artifact: ArtifactRef | None = None
) -> tuple[list[VerifiedLabel], list[RefusedLabel]]:
    """Every `*.json` label in `folder`, in name order: the verified ones and the refused ones.

    For a run: pass the run's artifact (`ArtifactRef.from_manifest(manifest_bytes)`) so a label
    made for another artifact is refused. A label that does not verify never counts.
    """
    base = Path(folder)
    if not base.is_dir():
        raise InputError.one("labels folder does not exist or is not a folder", file=str(folder))
    verified: list[VerifiedLabel] = []
    refused: list[RefusedLabel] = []
    for path in sorted(p for p in base.iterdir() if p.suffix == ".json" and p.is_file()):
        try:
            verified.append(verify_label(path, trust, artifact=artifact))
        except SignatureError as exc:
            refused.append(RefusedLabel(str(path), exc.code, _first(exc)))
        except InputError as exc:
            refused.append(RefusedLabel(str(path), "unreadable", _first(exc)))
    return verified, refused


def _decode_payload(payload: bytes, source: str) -> LabelPayload:
    try:
        label = msgspec.json.decode(payload, type=LabelPayload)
    except msgspec.DecodeError as exc:  # ValidationError included
        raise MalformedEnvelope.one(
            f"the signed payload is not a label ({exc})", file=source
        ) from None
    problem = _payload_problem(label)
    if problem:
        raise MalformedEnvelope.one(f"the signed payload is not a label: {problem}", file=source)
    return label


def _payload_problem(label: LabelPayload) -> str | None:
    if label.kind != KIND or label.version != 1:
        return f"kind {label.kind!r} version {label.version}, expected {KIND!r} version 1"
    if not _SHA256.fullmatch(label.manifest_sha256) or not _SHA256.fullmatch(label.key_id):
        return "manifest_sha256 and key_id must be sha256 hex"
    if not (label.conversation_id and label.assertion_id.strip() and label.reviewer.strip()):
        return "conversation_id, assertion_id and reviewer must not be empty"
    try:
        if utc_timestamp(label.created_at) != label.created_at:
            return f"created_at {label.created_at!r} is not ISO 8601 UTC with Z"
    except UsageError:
        return f"created_at {label.created_at!r} is not ISO 8601 UTC with Z"
    return None


def _check_artifact(label: LabelPayload, artifact: ArtifactRef, source: str) -> None:
    if label.manifest_sha256 != artifact.manifest_sha256:
        raise WrongArtifact.one(
            "the label is for another artifact: it binds manifest sha256 "
            f"{label.manifest_sha256[:16]}..., this artifact's is "
            f"{artifact.manifest_sha256[:16]}...",
            file=source,
        )
    if label.conversation_id != artifact.conversation_id:
        raise WrongArtifact.one(
            f"the label is for conversation {label.conversation_id!r}, this artifact is "
            f"{artifact.conversation_id!r}",
            file=source,
        )


def _first(exc: InputError) -> str:
    return exc.problems[0].message if exc.problems else str(exc)


__all__ = [
    "KIND",
    "PAYLOAD_TYPE",
    "ArtifactRef",
    "LabelPayload",
    "RefusedLabel",
    "VerifiedLabel",
    "WrongArtifact",
    "artifact_ref",
    "graded_ids",
    "load_labels",
    "make_label",
    "sign_label",
    "utc_timestamp",
    "verify_label",
    "verify_label_bytes",
]
