"""Is this artifact what the run wrote? Every child re-hashed; with trusted keys, the manifest's
signature checked too (`hotato conversation verify`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SUBJECT = ("conversation_id", "test_id", "agent_id", "created_at")  # what was verified
INTEGRITY_ONLY = (
    "integrity only: digests match the manifest, but without --trust nothing "
    "shows who wrote the manifest"
)


@dataclass
class Verification:
    """The verdict on one artifact folder. `document` is what `--format json` prints."""

    folder: str
    document: dict[str, Any]

    @property
    def ok(self) -> bool:
        return bool(self.document["ok"])

    @property
    def exit_code(self) -> int:
        """0 when every digest, size and (with trust) the signature hold; 2 when refused."""
        return 0 if self.ok else 2

    def to_json(self) -> str:
        from hotato.report.json_out import dumps

        return dumps(self.document)


def verify_conversation_artifact(
    folder: str | os.PathLike[str], trust: Sequence[str | os.PathLike[str]] = ()
) -> Verification:
    """Re-hash every child the manifest binds; with `trust` (public keys or folders of them),
    a manifest that was rewritten and re-hashed is refused too. A refusal is a verdict here,
    not an exception: look at `.ok`."""
    from hotato.artifacts.verify import verify_artifact

    report = verify_artifact(folder)  # reads the manifest once: report.manifest_bytes
    signature: dict[str, object] = {"checked": False}
    if trust and not report.refused and report.manifest_bytes is not None:
        signature = _check_signature(
            os.fspath(folder), report.manifest_bytes, [os.fspath(t) for t in trust], report.problems
        )
    doc = {
        **report.as_dict(),
        "refused": report.refused,
        "ok": not report.refused,
        "signature": signature,
    }
    if not trust and not report.refused:
        doc["note"] = INTEGRITY_ONLY
    if not report.refused and report.manifest is not None:
        doc["subject"] = {k: report.manifest.get(k) for k in SUBJECT}
    return Verification(os.fspath(folder), doc)


def _check_signature(
    folder: str, manifest: bytes, trust: list[str], problems: list[str]
) -> dict[str, object]:
    from hotato.artifacts.manifest_sig import verify_manifest_bytes
    from hotato.artifacts.signing import load_trust
    from hotato.model.errors import InputError

    try:
        result = verify_manifest_bytes(folder, manifest, load_trust(trust))
    except InputError as exc:
        problems.append(f"manifest signature: {exc}")
        return {"checked": True, "ok": False}
    return {"checked": True, "ok": True, "key_id": getattr(result, "key_id", None)}
