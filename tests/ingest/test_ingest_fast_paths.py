"""The OTLP path's shortcuts give exactly what the plain rules they stand in for give.

- A tool span's body, laid out by `Emitter.tool_call` itself (its first-class types checked by
  class, not by a conversion), equals the generic builder's (`Emitter.span`), refusals included.
- A payload string that opens an object or array, decoded as written, equals the stripped rule.
- A time written as a digit string, read inline, equals the checked reader's (`_int`).
- Grading an export directly (`load_call`) holds the very spans that decoding the ingested lines
  gives, in the native loader's store.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.ingest.test_otlp_document_stream import SPAN, _document

from hotato.evidence.ingest import ingest, load_call
from hotato.evidence.ingest._emit import ABSENT, Emitter, Options
from hotato.evidence.ingest._otlp import _Bad, _int, _Span, _span
from hotato.evidence.ingest._values import (
    _NUM,
    destination,
    digits,
    jsonish,
    latency_ms,
    tool_effect,
)
from hotato.evidence.trace import load_trace
from hotato.model.errors import InputError

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
PAYLOAD = st.just(ABSENT) | JSON
NAMES = st.sampled_from(["lookup", "transferCall", "send_dtmf", "", None, 7])
TIMES = st.none() | st.integers(0, 10**12)


def _reference_tool_call(em: Emitter, name: Any, **kw: Any) -> None:
    """`Emitter.tool_call` as every field went through the generic builder (the rule it keeps)."""
    start, end, error, ok = kw["start"], kw["end"], kw["error"], kw["ok"]
    failed = bool(error) or ok is False
    status = "error" if failed else ("ok" if ok else None)
    if failed and not error:
        error = True
    seq, effect_seq = em.col.reserve(), em.col.reserve()
    em.span(
        "tool_call",
        start=start,
        end=end,
        seq=seq,
        attributes=kw["attributes"],
        name=name,
        latency_ms=latency_ms(start, end),
        status=status,
        arguments=kw["arguments"],
        result=kw["result"],
        error=error if failed else None,
    )
    effect = None if failed else tool_effect(name)
    target = destination(kw["arguments"]) or em.transfer_to
    if effect == "handoff" and (target or not em.tool_handoff_needs_target):
        em.handoff(target, seq=effect_seq, attributes={"via_tool": name}, at=start)
    elif effect == "dtmf":
        em.dtmf(digits(kw["arguments"]), by="agent", seq=effect_seq, at=start)


def _outcome(call: Any, em: Emitter) -> tuple[list[bytes], str | None]:
    try:
        call(em)
    except InputError as exc:
        return [], str(exc)
    return list(em.col.lines()), None


@settings(SETTINGS, max_examples=100)  # effects (handoff, dtmf) need a few draws
@given(
    st.lists(
        st.tuples(
            NAMES,
            TIMES,
            TIMES,
            PAYLOAD,
            PAYLOAD,
            st.none() | st.none() | JSON,
            st.sampled_from([None, True, True, False]),
            st.none() | st.dictionaries(st.sampled_from(["text", "span_id", "x"]), JSON),
        ),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
    st.sampled_from([None, "+15550100"]),
    st.booleans(),
)
@example(  # a transfer tool that implies a handoff, and a keypad tool that implies a dtmf
    [
        ("transferCall", 5, 9, {"to": "+15550100"}, ABSENT, None, True, None),
        ("send_dtmf", 10, None, {"digits": "42"}, "sent", None, None, {"text": "x"}),
    ],
    False,
    None,
    False,
)
def test_a_tool_span_is_built_as_the_generic_builder_builds_it(
    calls: list[tuple[Any, ...]], include: bool, transfer_to: str | None, needs_target: bool
) -> None:
    opts = Options(include_text=include, include_identifiers=include)

    def run(reference: bool) -> Any:
        def emit(em: Emitter) -> None:
            for name, start, end, arguments, result, error, ok, attributes in calls:
                kw = dict(
                    start=start,
                    end=end,
                    arguments=arguments,
                    result=result,
                    error=error,
                    ok=ok,
                    attributes=attributes,
                )
                if reference:
                    _reference_tool_call(em, name, **kw)
                else:
                    em.tool_call(name, **kw)

        em = Emitter(opts, transfer_to=transfer_to, tool_handoff_needs_target=needs_target)
        try:
            return _outcome(emit, em)
        finally:
            em.col.close()

    assert run(reference=False) == run(reference=True)


TIME_TEXT = st.text(st.sampled_from("0123456789+- _.e٣²x"), max_size=8) | st.integers(
    0, 2**63 - 1
).map(str)


@SETTINGS
@given(TIME_TEXT, TIME_TEXT)
def test_times_read_inline_equal_the_checked_reader(start: str, end: str) -> None:
    def checked() -> Any:
        try:
            return (
                _int(start, ".startTimeUnixNano") or None,
                _int(end, ".endTimeUnixNano") or None,
            )
        except _Bad as bad:
            return bad.where, bad.message

    try:
        span = _span(_Span(startTimeUnixNano=start, endTimeUnixNano=end), "", {})
    except _Bad as bad:
        assert checked() == (bad.where, bad.message)
    else:
        assert checked() == (span.start_ns, span.end_ns)


@SETTINGS
@given(st.lists(SPAN, min_size=1, max_size=6), st.sampled_from(["agent", "livekit.agents"]))
def test_graded_spans_equal_the_ingested_file_loaded(
    tmp_path_factory: pytest.TempPathFactory, spans: list[tuple[Any, ...]], scope: str
) -> None:
    tmp = tmp_path_factory.mktemp("graded")
    export = tmp / "export.jsonl"
    export.write_text(json.dumps(_document(spans, scope)) + "\n")
    out = tmp / "trace.jsonl"
    try:
        ingest(export, out=out)
    except InputError as exc:
        with pytest.raises(InputError) as graded:
            load_call(export)
        assert graded.value.problems == exc.problems
        return
    expected = load_trace(out).spans  # the ingested file, as the native loader reads it
    got = load_call(export).trace.spans
    encode = msgspec.json.encode
    assert [encode(s) for s in got] == [encode(s) for s in expected]
    assert [s.index for s in got] == list(range(len(expected)))


def _reference_jsonish(value: Any) -> Any:
    """The rule `jsonish` keeps: strip, then decode what looks like JSON."""
    if isinstance(value, str):
        stripped = value.strip()
        if (
            stripped[:1] in ("{", "[", '"')
            or stripped in ("true", "false", "null")
            or _NUM.match(stripped)
        ):
            try:
                return msgspec.json.decode(stripped)
            except msgspec.DecodeError:
                return value
    return value


SPACE = st.text(st.sampled_from(" \t\n\x0c\xa0\u2003"), max_size=2)
PAYLOAD_TEXT = st.one_of(
    st.text(st.sampled_from(' \t\n\x0c\xa0{}[]":,1a-e.'), max_size=10),
    st.tuples(SPACE, JSON.map(json.dumps), SPACE).map("".join),
)


@SETTINGS
@given(PAYLOAD_TEXT)
def test_payloads_decode_as_the_stripped_rule_decodes(text: str) -> None:
    got, expected = jsonish(text), _reference_jsonish(text)
    assert (type(got), msgspec.json.encode(got)) == (type(expected), msgspec.json.encode(expected))
