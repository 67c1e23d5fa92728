"""The use cases the fleet and the live service grade through, so neither reaches past this
floor into the engine, the kinds, the state adapters or the conversation modules.

    decode_assertions  an assertions file or a conversation test's text, decoded as
                       `assert run` or `test run` reads it, packs merged, order checked
    assertions_digest  the digest of decoded assertions, part of every fleet call's key
    check_state        a state source opened and closed once, read-only, so a bad one is
                       refused before any call is graded
    grader_for         the Grader (`hotato.runs.grader`) that grades each call of a job
    call_files         the evidence files a call folder holds
    wilson             a Wilson score interval (95 %), as every other report states one
    ingest_export      a stack's export converted into a call folder's trace and transcript
                       (`fleet pull`)
    hex_id             an OTLP trace or span id as lowercase hex (`serve`'s OTLP receiver)

`AssertionSet` and `Spec` are the types these speak in."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from hotato.conversation.calls import CallFiles, call_files
from hotato.conversation.reliability import wilson
from hotato.engine.loader import AssertionSet
from hotato.kinds._base import Spec

if TYPE_CHECKING:
    from hotato.runs.grader import Grader

__all__ = [
    "AssertionSet",
    "CallFiles",
    "Spec",
    "assertions_digest",
    "call_files",
    "check_state",
    "decode_assertions",
    "grader_for",
    "hex_id",
    "ingest_export",
    "wilson",
]


def decode_assertions(kind: str, name: str, text: str, packs: Sequence[str] = ()) -> AssertionSet:
    """`text` (the content of file `name`) as `assert run` (kind "assertions") or `test run`
    (kind "test": its deterministic assertions) reads it, with `packs` merged. Cycles and
    unknown ids are refused here, before any call (and the order is planned once)."""
    from hotato._documents import parse_document
    from hotato.engine.packs import merge_packs

    is_json = name.endswith(".json")
    if kind == "test":
        from hotato.conversation.testfile import decode_test

        test = decode_test(parse_document(text, name, "conversation test", is_json))
        aset = AssertionSet(
            list(test.deterministic),
            test.policy,
            name,
            {s.id: name for s in test.deterministic},
        )
    else:
        from hotato.engine.loader import decode_assertion_document

        aset = decode_assertion_document(parse_document(text, name, "assertions file", is_json))
    aset = merge_packs(aset, list(packs))
    _ = aset.order
    return aset


def assertions_digest(aset: AssertionSet) -> str:
    """The sha256 of the policy and the decoded assertions: equal files, equal digests."""
    from hotato.kinds._base import identity_doc

    return hashlib.sha256(
        msgspec.json.encode([aset.policy, [identity_doc(s) for s in aset.specs]])
    ).hexdigest()


def check_state(state: str, before: str | None = None) -> None:
    """Open and close the state source once (and read the before snapshot), so a bad one is
    refused with an InputError before any call is graded."""
    from hotato.adapters.open import open_reader
    from hotato.adapters.sandbox import read_sandbox

    reader = open_reader(state)[0]
    close = getattr(reader, "close", None)
    if close is not None:
        close()
    if before is not None:
        read_sandbox(before)


def grader_for(
    aset: AssertionSet, state: str | None, state_before: str | None, policy: str | None
) -> Grader:
    """The Grader every call of one fleet job goes through: the door `assert run` uses."""
    from hotato.runs.grader import Grader

    return Grader(aset, state=state, state_before=state_before, inconclusive_policy=policy)


def ingest_export(export: str, vendor: str, trace_out: str, transcript_out: str) -> None:
    """Convert the `vendor` export in file `export` into a trace and a transcript, as
    `hotato trace ingest` does (an InputError for a malformed export; nothing partial)."""
    from hotato.evidence.ingest import ingest

    ingest(export, fmt=vendor, out=trace_out, transcript_out=transcript_out)


def otlp_attributes(kvs: Any) -> dict[str, Any]:
    """A protobuf OTLP span's or resource's attributes as JSON values, read as `hotato trace
    ingest` reads them."""
    from hotato.evidence.ingest._otlp import proto_attributes

    return proto_attributes(kvs)


def hex_id(value: str | bytes) -> str:
    """A trace or span id as lowercase hex, from hex, base64 or raw bytes."""
    from hotato.evidence.ingest._otlp import hex_id as as_hex

    return as_hex(value)
