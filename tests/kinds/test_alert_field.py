"""`alert: true` on an assertion: read by `hotato serve --alert`, and part of no digest, so a
file that does not use it keeps the run id and label bindings it had, and one that adds it
keeps them too."""

from __future__ import annotations

import pytest

from hotato.conversation.identity import assertion_digests
from hotato.runs.fleet import assertions_digest, decode_assertions

FILE = """\
version: 1
assertions:
  - id: refund-claimed
    kind: phrase
    regex: "refund (has been|was) issued"
    role: agent
  - id: refund-tool-ran
    kind: tool_call
    name: issue_refund
    args_subset: {order_id: "${call.order_id}"}
"""
# The digests hotato gave this file before assertions had an `alert` field.
RUN_DIGEST = "0f45562fd560dc3d852941f1f8a5909930b52cbb537458f07cc73ed2a09ce4b1"
LABEL_DIGESTS = {
    "refund-claimed": "640bb49d417a3e5599ac7ab050932084b39c056e0b1f9a7eec0cc81deb7660a1",
    "refund-tool-ran": "d06e8850b3590bec3cae62e91d36d520ef520f9c8593050f699f36b88ea72a64",
}


def _digests(text: str) -> tuple[str, dict[str, str]]:
    aset = decode_assertions("assertions", "a.yaml", text, ())
    return assertions_digest(aset), assertion_digests(list(aset.specs))


def test_a_file_without_alert_keeps_its_digests() -> None:
    assert _digests(FILE) == (RUN_DIGEST, LABEL_DIGESTS)


@pytest.mark.parametrize("value", ["true", "false"])
def test_alert_changes_no_digest(value: str) -> None:
    tool = "    name: issue_refund\n"
    marked = FILE.replace(tool, f"{tool}    alert: {value}\n")
    aset = decode_assertions("assertions", "a.yaml", marked, ())
    assert [s.alert for s in aset.specs] == [False, value == "true"]
    assert _digests(marked) == (RUN_DIGEST, LABEL_DIGESTS)


def test_alert_must_be_a_boolean() -> None:
    from hotato.model.errors import InputError

    with pytest.raises(InputError, match="alert"):
        decode_assertions("assertions", "a.yaml", FILE.replace("role: agent", "alert: yes-ish"), ())
