"""Which conversation is this? An id from the test, the agent and the recorded call's bytes.

The same call graded by the same test gets the same id on every run, whatever the time, so a
human label signed for one run's artifact still finds its conversation when the call is graded
again. A different recording, test or agent is a different conversation.
"""

from __future__ import annotations

import hashlib
from typing import Any

from hotato._io import digest_file
from hotato.conversation.calls import CallFiles


def call_digests(files: CallFiles) -> dict[str, str]:
    out = {}
    for name in ("transcript", "trace", "audio"):
        path = getattr(files, name)
        if path is not None:
            out[name] = digest_file(path, name)[0]
    return out


def conversation_id(test_id: str, agent: str, digests: dict[str, str]) -> str:
    parts = [test_id, agent, *(f"{k}:{v}" for k, v in sorted(digests.items()))]
    return "conv_" + hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:20]


def assertion_digests(specs: list[Any]) -> dict[str, str]:
    """Per assertion id, the sha256 of the assertion as written (its decoded spec, encoded
    canonically): a label bound to it settles that assertion only, not a later edit that kept
    the id."""
    import msgspec

    from hotato.kinds._base import identity_doc

    return {
        spec.id: hashlib.sha256(
            msgspec.json.encode(
                identity_doc(spec) if hasattr(spec, "alert") else spec, order="sorted"
            )
        ).hexdigest()
        for spec in specs
    }
