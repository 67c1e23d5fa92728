"""Every kind answers from per-run indexes shared by all the assertions of a run (built once, on
the trace or transcript object). These properties hold the indexed answers to the plain
definition: on generated traces and transcripts, a random mix of assertions graded together
(sharing every index, the second asker reading what the first built) gives exactly the results
each assertion gets alone on fresh evidence; and the kinds indexed here give what a plain scan
of every span or turn gives."""

from __future__ import annotations

import copy
import re
import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.kinds import placement_reference as reference

from hotato.engine.evaluate import Sources, evaluate, grade
from hotato.kinds import REGISTRY
from hotato.kinds._base import Spec
from hotato.kinds._pii_detect import DETECTORS, cues_in, scan
from hotato.model.evidence import TERMINATION_TYPES, Span, Trace, Transcript, Turn
from hotato.model.match import dotted, missing, subset
from hotato.model.status import Status

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOOLS = ["a", "b", "c"]
times = st.one_of(st.none(), st.sampled_from([0.0, 1.0, 1.0, 2.0, 3.5]))
payloads = st.sampled_from(
    [
        None,
        {"ok": True},
        {"ok": False},
        {"ok": 1},
        {"s": "x"},
        {"s": "x", "ok": True},
        {"s": {"t": 1}},
        {"refund": {"id": 7}},
        '{"s": "x"}',
        [1],
        "plain",
        {"n": 1.0},
        {"n": 1},
    ]
)


@st.composite
def span_items(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                "tool_call",
                "tool_call",
                "tool_call",
                "http_exchange",
                "dtmf",
                "handoff",
                "call_ended",
                "hangup",
                "tool_timeout",
                "caller_audio_active",
            ]
        )
    )
    item: dict[str, Any] = {"type": kind}
    t = draw(times)
    if t is not None:
        item["start_sec" if draw(st.booleans()) else "time_sec"] = t
    if kind in ("tool_call", "tool_timeout"):
        item["name"] = draw(st.sampled_from(TOOLS))
        for key in ("arguments", "result"):
            if draw(st.booleans()):
                item[key] = draw(payloads)
        if draw(st.integers(0, 5)) == 0:
            item["error"] = draw(st.sampled_from([{"type": "Timeout"}, "refused 503", {}]))
        if draw(st.integers(0, 5)) == 0:
            item["status"] = "error"
    elif kind == "http_exchange":
        item["method"] = draw(st.sampled_from(["GET", "post", None]))
        item["url"] = draw(st.sampled_from(["https://x/v1/a", "https://x/v2/b", None]))
        item["status_code"] = draw(st.sampled_from([200, 404, None]))
        item["response"] = draw(st.sampled_from([None, {"state": "open"}, {"state": "shut"}]))
    elif kind == "dtmf":
        item["digits"] = draw(st.sampled_from(["1", "2", "12"]))
    elif kind == "handoff":
        item["to"] = draw(st.sampled_from(["billing", "Billing", None]))
    elif kind in TERMINATION_TYPES:
        item["by"] = draw(st.sampled_from(["caller", "agent", None]))
        item["reason"] = draw(st.sampled_from(["completed", "Timeout", None]))
    if draw(st.integers(0, 2)) == 0:  # hotato 1.x traces keep fields under attributes too
        item["attributes"] = draw(attribute_sets)
    kept = ("arguments", "result", "response")  # a recorded null differs from none
    return {k: v for k, v in item.items() if v is not None or k in kept}


attribute_sets = st.dictionaries(
    st.sampled_from(
        [
            "arguments",
            "result",
            "ok",
            "error",
            "status",
            "http.method",
            "http.url",
            "http.status_code",
            "response",
            "response_body",
            "latency_ms",
            "target",
            "digit",
            "terminated_by",
            "other",
        ]
    ),
    payloads | st.sampled_from(["GET", "error", "failed", 200, 404, 5, "billing", "x", "\u0078"]),
    max_size=3,
)


def trace_of(items: list[dict[str, Any]]) -> Trace:
    spans = []
    for i, item in enumerate(items):
        span = msgspec.json.decode(msgspec.json.encode(item), type=Span)
        span.index = i
        spans.append(span)
    return Trace(meta={}, spans=spans)


TEXTS = [
    "my card is 4111 1111 1111 1111",
    "call me at five five five one two one two",
    "what's your social?",
    "123 45 6789",
    "123-45-6789",
    "mail jo@example.com",
    "refund was issued",
    "this call may be recorded",
    "no thanks",
    "order A-7 please",
    "email?",
    "jo at example dot com",
    "",
    "A-7 refund issued",
]
turns = st.lists(
    st.tuples(st.sampled_from(["agent", "caller", "supervisor"]), st.sampled_from(TEXTS)),
    max_size=12,
)
PATTERNS = ["refund (was|has been) issued", "recorded", "A-7", "^no", "issued$", r"\d+", "zzz"]
roles = st.sampled_from([None, "agent", "caller", "any"])


def transcript_of(pairs: list[tuple[str, str]]) -> Transcript:
    return Transcript([Turn(i, role, text) for i, (role, text) in enumerate(pairs)])


KINDS = [
    "tool_call",
    "tool_result",
    "tool_error",
    "http_result",
    "termination",
    "sequence",
    "pii",
    "phrase",
    "count",
    "order",
    "outcome",
    "handoff",
    "dtmf",
    "latency",
]


@st.composite
def spec_items(draw: st.DrawFn, ids: list[str], kinds: list[str]) -> dict[str, Any]:
    tool = st.sampled_from(TOOLS)
    subsets = st.sampled_from(
        [{}, {"ok": True}, {"ok": 1}, {"s": "x"}, {"s": {"t": 1}}, {"n": 1}, {"s": "x", "ok": True}]
    )
    pattern = st.sampled_from(PATTERNS)
    kind = draw(st.sampled_from(kinds))
    item: dict[str, Any] = {"kind": kind}
    if kind == "tool_call":
        item["name"] = draw(tool)
        if draw(st.booleans()):
            item["args_subset"] = draw(subsets)
    elif kind == "tool_result":
        item.update(name=draw(tool), result_subset=draw(subsets))
    elif kind == "tool_error":
        if draw(st.booleans()):
            item["name"] = draw(tool)
        if draw(st.booleans()):
            item["error_matches"] = draw(st.sampled_from(["time", "^refused", "error", "5"]))
        item["absent"] = draw(st.booleans())
    elif kind == "http_result":
        for key, values in (
            ("method", ["GET", "POST"]),
            ("url_matches", ["/v1/", "b$", "^h"]),
            ("status", [200, [200, 404]]),
            ("response_subset", [{"state": "open"}]),
        ):
            if draw(st.booleans()):
                item[key] = draw(st.sampled_from(values))
    elif kind == "termination":
        if draw(st.booleans()):
            item["by"] = draw(st.sampled_from(["caller", "agent"]))
        if draw(st.booleans()):
            item["reason"] = draw(st.sampled_from(["completed", "timeout"]))
        item["absent"] = draw(st.booleans())
    elif kind == "sequence":
        item["steps"] = draw(
            st.lists(
                st.one_of(
                    tool.map(lambda t: {"tool": t}),
                    st.sampled_from(["dtmf", "handoff", "tool_call"]).map(
                        lambda t: {"span_type": t}
                    ),
                ),
                min_size=1,
                max_size=4,
            )
        )
    elif kind == "pii":
        item["detectors"] = draw(
            st.lists(st.sampled_from(DETECTORS), min_size=1, max_size=4, unique=True)
        )
        if (role := draw(roles)) is not None:
            item["role"] = role
    elif kind == "phrase":
        item.update(regex=draw(pattern), absent=draw(st.booleans()))
        if (role := draw(roles)) is not None:
            item["role"] = role
    elif kind == "count":
        item.update(phrase=draw(pattern), count={"min": 1})
    elif kind == "order":
        item.update(before=draw(pattern), after=draw(pattern))
    elif kind == "outcome":
        parts = st.one_of(
            tool.map(lambda t: {"tool_called": t}),
            st.tuples(tool, subsets).map(lambda p: {"tool_called": p[0], "args_subset": p[1]}),
            st.tuples(tool, st.sampled_from(["ok", "s.t", "refund.id"])).map(
                lambda p: {"tool": p[0], "field_present": p[1]}
            ),
            pattern.map(lambda p: {"phrase": p}),
            *([st.sampled_from(ids).map(lambda i: {"assertion": i})] if ids else []),
        )
        item["all_of"] = draw(st.lists(parts, min_size=1, max_size=3))
        if draw(st.booleans()):
            item["any_of"] = draw(st.lists(parts, min_size=1, max_size=3))
    elif kind == "handoff":
        item["to"] = draw(st.sampled_from(["billing", "x"]))
    elif kind == "dtmf":
        item["digits"] = draw(st.sampled_from(["1", "12", "21"]))
    else:
        item.update(tool=draw(tool), max_ms=1500)
    if ids and draw(st.integers(0, 6)) == 0:
        item["when"] = [draw(st.sampled_from(ids))]
    return item


@st.composite
def mixes(draw: st.DrawFn) -> list[dict[str, Any]]:
    # A few kinds per mix, so one kind is asked several different questions in one run.
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=2, unique=True))
    items: list[dict[str, Any]] = []
    for i in range(draw(st.integers(2, 12))):
        item = draw(spec_items([it["id"] for it in items], kinds))
        items.append({"id": f"x{i}", **item})
    return items


def spec_of(item: dict[str, Any]) -> Spec:
    return msgspec.convert(item, REGISTRY[item["kind"]].spec)


def _outcome(result: Any) -> tuple[Any, ...]:
    return (
        result.id,
        result.status,
        result.reason,
        result.observed,
        result.evidence,
        result.details,
    )


@SETTINGS
@given(st.lists(span_items(), min_size=4, max_size=24), turns, mixes())
def test_a_mix_graded_together_equals_each_assertion_alone(
    items: list[dict[str, Any]], pairs: list[tuple[str, str]], mix: list[dict[str, Any]]
) -> None:
    specs = [spec_of(item) for item in mix]
    shared = evaluate(specs, Sources(trace=trace_of(items), transcript=transcript_of(pairs)))
    done = {r.id: r for r in shared}
    # Each alone: fresh evidence (no index built yet), the referenced results as graded.
    for spec, together in zip(specs, shared, strict=True):
        fresh = Sources(trace=trace_of(copy.deepcopy(items)), transcript=transcript_of(pairs))
        assert _outcome(grade(spec, fresh, done)) == _outcome(together)


# --- each index against the plain scan ---------------------------------------------------------


def run(
    item: dict[str, Any], trace: Trace | None = None, transcript: Transcript | None = None
) -> Any:
    return evaluate([spec_of({"id": "x", **item})], Sources(trace=trace, transcript=transcript))[0]


@SETTINGS
@given(
    st.lists(span_items(), max_size=14),
    st.sampled_from(TOOLS),
    st.sampled_from([{}, {"ok": True}, {"ok": 1}, {"s": "x"}, {"n": 1}, {"s": {"t": 1}}]),
)
def test_arguments_and_results_match_the_scan(
    items: list[dict[str, Any]], tool: str, wanted: dict[str, Any]
) -> None:
    from hotato.kinds._trace_util import as_object

    trace = trace_of(items)
    spans = trace.tool_calls.get(tool, [])
    # the plain definition: each call's payload as the field reader finds it (attributes too)
    by_args = [s.id for s in spans if subset(wanted, as_object(s.read("arguments")))]
    result = run({"kind": "tool_call", "name": tool, "args_subset": wanted}, trace)
    assert result.status is (Status.PASS if by_args else Status.FAIL)
    assert result.evidence == by_args[:20]
    # without a subset, any recorded result (null included) is a result
    by_result = [
        s.id
        for s in spans
        if s.has_result and (not wanted or subset(wanted, as_object(s.read("result"))))
    ]
    result = run({"kind": "tool_result", "name": tool, "result_subset": wanted}, trace)
    if by_result:
        assert result.status is Status.PASS and result.evidence == by_result[:20]
    else:
        assert result.status is not Status.PASS
        if spans and all(s.has_result for s in spans):
            assert result.observed == [as_object(s.read("result")) for s in spans][:5]


@SETTINGS
@given(
    st.lists(span_items(), max_size=14),
    st.sampled_from(TOOLS),
    st.sampled_from(["ok", "s", "s.t", "refund.id", "0"]),
)
def test_field_present_matches_the_scan(items: list[dict[str, Any]], tool: str, path: str) -> None:
    from hotato.kinds._trace_util import as_object

    trace = trace_of(items)
    spans = trace.tool_calls.get(tool, [])
    known = [as_object(s.read("result")) for s in spans if s.has_result]
    result = run({"kind": "outcome", "all_of": [{"tool": tool, "field_present": path}]}, trace)
    if not known:
        assert result.status is (Status.INCONCLUSIVE if spans else Status.FAIL)
    else:
        present = any(not missing(dotted(v, path)) for v in known)
        assert result.status is (Status.PASS if present else Status.FAIL)


@SETTINGS
@given(
    st.lists(span_items(), max_size=14),
    st.sampled_from([None, *TOOLS]),
    st.sampled_from([None, "time", "^refused", "error", "5"]),
)
def test_tool_error_text_matches_the_scan(
    items: list[dict[str, Any]], name: str | None, pattern: str | None
) -> None:
    from hotato.kinds._trace_util import error_text

    trace = trace_of(items)
    item: dict[str, Any] = {"kind": "tool_error"}
    if name is not None:
        item["name"] = name
    if pattern is not None:
        item["error_matches"] = pattern
    result = run(item, trace)
    raised = [
        s
        for s in trace.spans
        if (name is None or s.name == name)
        and ((s.type == "tool_call" and s.raised()) or s.type in ("tool_timeout", "tool_error"))
    ]
    if pattern is not None:
        raised = [s for s in raised if re.search(pattern, error_text(s), re.IGNORECASE)]
    assert result.status is (Status.PASS if raised else Status.FAIL)
    assert result.evidence == [s.id for s in raised][:20]


@SETTINGS
@given(
    st.lists(span_items(), max_size=14),
    st.sampled_from([None, {"state": "open"}, {"state": "shut"}, {}]),
)
def test_http_bodies_match_the_scan(items: list[dict[str, Any]], body: Any) -> None:
    trace = trace_of(items)
    item: dict[str, Any] = {"kind": "http_result", "method": "POST"}
    if body is not None:
        item["response_subset"] = body
    result = run(item, trace)
    matched = [
        s.id
        for s in trace.by_type.get("http_exchange", [])
        if (s.method or "").upper() == "POST" and (body is None or subset(body, s.response()))
    ]
    assert result.status is (Status.PASS if matched else Status.FAIL)
    assert result.evidence == matched[:20]


@SETTINGS
@given(
    st.lists(span_items(), max_size=14),
    st.sampled_from([None, "caller", "agent"]),
    st.sampled_from([None, "completed", "timeout"]),
    st.booleans(),
)
def test_termination_matches_the_scan(
    items: list[dict[str, Any]], by: str | None, reason: str | None, absent: bool
) -> None:
    trace = trace_of(items)
    item: dict[str, Any] = {"kind": "termination", "absent": absent}
    for key, value in (("by", by), ("reason", reason)):
        if value is not None:
            item[key] = value
    result = run(item, trace)
    ends = [s for s in trace.spans if s.type in TERMINATION_TYPES]

    def said(span: Span, field: str) -> str:  # whatever the span holds, as text
        value = span.read(field)
        return "" if value is None else str(value).lower()

    matched = [
        s.id
        for s in ends
        if (reason is None or said(s, "reason") == reason)
        and (by is None or said(s, "ended_by") == by)
    ]
    if matched:
        assert result.evidence == matched[:20]
    if absent:
        assert result.status is (Status.FAIL if matched else Status.PASS)
    else:
        assert result.status is (Status.PASS if matched else Status.FAIL)


@SETTINGS
@given(
    st.lists(span_items(), max_size=14),
    st.lists(
        st.one_of(
            st.sampled_from(TOOLS).map(lambda t: ("tool", t)),
            st.sampled_from(["dtmf", "handoff", "tool_call", "x"]).map(lambda t: ("span_type", t)),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_sequence_matches_the_scan(
    items: list[dict[str, Any]], steps: list[tuple[str, str]]
) -> None:
    trace = trace_of(items)
    result = run({"kind": "sequence", "steps": [{k: v} for k, v in steps]}, trace)

    def walk(ordered: list[Any]) -> list[str]:
        hits, at = [], 0
        for span in ordered:
            if at < len(steps):
                key, value = steps[at]
                if (
                    (span.type == "tool_call" and span.name == value)
                    if key == "tool"
                    else span.type == value
                ):
                    hits.append(span.id)
                    at += 1
        return hits

    assert reference.holds_in_every_order(
        trace, result.status, lambda ordered: len(walk(ordered)) == len(steps)
    )
    if not trace.unplaced:
        assert result.evidence == walk(reference.ordered(trace))[:20]


@SETTINGS
@given(turns, st.lists(st.sampled_from(DETECTORS), min_size=1, max_size=4, unique=True), roles)
def test_pii_matches_the_scan(
    pairs: list[tuple[str, str]], detectors: list[str], role: str | None
) -> None:
    transcript = transcript_of(pairs)
    item: dict[str, Any] = {"kind": "pii", "detectors": detectors}
    if role is not None:
        item["role"] = role
    result = run(item, transcript=transcript)
    chosen = tuple(d for d in DETECTORS if d in detectors)
    wanted = {t.index for t in transcript.of_role(role)}
    found, before = [], frozenset[str]()
    for turn in transcript.turns:
        here = cues_in(turn.text)
        if turn.index in wanted:
            found += [
                (d, turn.index, form) for d, form in scan(turn.text, chosen, here | before).items()
            ]
        before = here
    assert result.status is (Status.FAIL if found else Status.PASS)
    got = [(h["detector"], h["turn"], h["form"]) for h in (result.details or {}).get("hits", [])]
    assert got == found


# --- one kind asked different questions in one run: each its own answer ------------------------

RICH_TRACE = [
    {
        "type": "tool_call",
        "name": "a",
        "start_sec": 0.0,
        "arguments": {"s": "x"},
        "result": {"ok": True, "s": "x"},
    },
    {
        "type": "tool_call",
        "name": "a",
        "start_sec": 1.0,
        "arguments": {"s": "y"},
        "result": {"ok": False},
        "error": {"type": "Timeout"},
    },
    {
        "type": "tool_call",
        "name": "b",
        "start_sec": 2.0,
        "arguments": '{"s": "x"}',
        "result": {"refund": {"id": 7}},
        "status": "error",
    },
    {
        "type": "http_exchange",
        "method": "GET",
        "url": "https://x/v1/a",
        "status_code": 200,
        "time_sec": 0.5,
        "response": {"state": "open"},
    },
    {
        "type": "http_exchange",
        "method": "post",
        "url": "https://x/v2/b",
        "status_code": 404,
        "time_sec": 1.5,
        "response": {"state": "shut"},
    },
    {"type": "dtmf", "digits": "1", "time_sec": 1.2},
    {"type": "handoff", "to": "billing", "time_sec": 2.5},
    {"type": "call_ended", "by": "caller", "reason": "completed", "time_sec": 3.0},
]
RICH_TURNS = [
    ("agent", "this call may be recorded"),
    ("caller", "my card is 4111 1111 1111 1111"),
    ("agent", "refund was issued for order A-7"),
    ("caller", "mail jo@example.com"),
]
QUESTIONS: dict[str, list[dict[str, Any]]] = {
    "tool_call": [
        {"name": "a", "args_subset": {"s": "x"}},
        {"name": "a", "args_subset": {"s": "y"}},
        {"name": "b", "args_subset": {"s": "y"}},
        {"name": "b", "args_subset": {"s": "x"}},
    ],
    "tool_result": [
        {"name": "a", "result_subset": {"ok": True}},
        {"name": "a", "result_subset": {"ok": 2}},
        {"name": "b", "result_subset": {"ok": True}},
    ],
    "tool_error": [
        {"name": "a"},
        {"name": "b", "error_matches": "error"},
        {"name": "a", "error_matches": "error"},
        {"error_matches": "Time"},
    ],
    "http_result": [
        {"url_matches": "/v1/"},
        {"url_matches": "b$"},
        {"url_matches": "zz"},
        {"method": "POST"},
        {"method": "GET", "status": 404},
        {"response_subset": {"state": "shut"}},
    ],
    "termination": [{"by": "caller"}, {"by": "agent"}, {"reason": "COMPLETED"}],
    "sequence": [
        {"steps": [{"tool": "a"}, {"span_type": "dtmf"}]},
        {"steps": [{"span_type": "dtmf"}, {"tool": "a"}, {"tool": "b"}]},
        {"steps": [{"tool": "b"}, {"tool": "a"}]},
    ],
    "pii": [
        {"detectors": ["card_luhn"]},
        {"detectors": ["email"], "role": "agent"},
        {"detectors": ["email", "card_luhn"], "role": "caller"},
        {"role": "agent"},
    ],
    "phrase": [
        {"regex": "recorded"},
        {"regex": "recorded", "role": "caller"},
        {"regex": "refund", "absent": True},
        {"regex": "A-7", "role": "agent"},
    ],
    "outcome": [
        {"all_of": [{"tool": "a", "field_present": "ok"}]},
        {"all_of": [{"tool": "a", "field_present": "refund.id"}]},
        {"all_of": [{"tool": "b", "field_present": "refund.id"}]},
        {"all_of": [{"tool_called": "b", "args_subset": {"s": "x"}}]},
        {"all_of": [{"tool_called": "b", "args_subset": {"s": "y"}}]},
    ],
}


@pytest.mark.parametrize("kind", sorted(QUESTIONS))
def test_each_question_of_a_kind_gets_its_own_answer(kind: str) -> None:
    specs = [spec_of({"id": f"q{i}", "kind": kind, **q}) for i, q in enumerate(QUESTIONS[kind])]
    shared = evaluate(
        specs, Sources(trace=trace_of(RICH_TRACE), transcript=transcript_of(RICH_TURNS))
    )
    for spec, together in zip(specs, shared, strict=True):
        fresh = Sources(
            trace=trace_of(copy.deepcopy(RICH_TRACE)), transcript=transcript_of(RICH_TURNS)
        )
        assert _outcome(grade(spec, fresh, {})) == _outcome(together)
    assert len({r.status for r in shared}) == 2, [r.reason for r in shared]  # not one answer


# --- the loader's indexes ----------------------------------------------------------------------


def _loaded(items: list[dict[str, Any]], tmp: Path) -> Trace:
    """The trace as `load_trace` reads it from a file: its indexes built as each line is read."""
    from hotato.evidence.trace import load_trace

    path = tmp / "trace.jsonl"
    meta = {"_meta": True, "schema": "hotato.voice_trace.v1"}
    path.write_bytes(b"\n".join(msgspec.json.encode(x) for x in [meta, *items]) + b"\n")
    return load_trace(path)


@SETTINGS
@given(st.lists(span_items(), max_size=24))
def test_the_loaders_indexes_equal_the_computed_ones(items: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        seeded = _loaded(items, Path(tmp))
    fresh = Trace(meta={}, spans=seeded.spans)  # the same spans, every index computed on use
    for index in ("by_type", "tool_calls", "ordered", "unplaced", "tool_order", "with_attributes"):
        assert getattr(seeded, index) == getattr(fresh, index), index
    raised = [s for s in fresh.by_type.get("tool_call", []) if s.raised()]
    assert set(map(id, raised)) <= set(map(id, seeded.maybe_raised))


@SETTINGS
@given(st.lists(span_items(), min_size=4, max_size=24), turns, mixes())
def test_a_mix_graded_on_a_loaded_trace_equals_the_computed_indexes(
    items: list[dict[str, Any]], pairs: list[tuple[str, str]], mix: list[dict[str, Any]]
) -> None:
    specs = [spec_of(item) for item in mix]
    with tempfile.TemporaryDirectory() as tmp:
        loaded = _loaded(items, Path(tmp))
    fresh = Trace(meta={}, spans=copy.deepcopy(loaded.spans))
    a = evaluate(specs, Sources(trace=loaded, transcript=transcript_of(pairs)))
    b = evaluate(specs, Sources(trace=fresh, transcript=transcript_of(pairs)))
    assert [_outcome(r) for r in a] == [_outcome(r) for r in b]
