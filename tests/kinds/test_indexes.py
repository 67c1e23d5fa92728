"""The kinds answer from indexes built once per trace (kinds._trace_util.derived): bisection over
tool positions, calls looked up by argument, exchanges grouped by URL. These properties hold
them to the plain definition, a scan of every span, on random traces: same status, same
evidence, same observed value."""

from __future__ import annotations

import math
from typing import Any
from unittest.mock import patch

import msgspec
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.kinds import placement_reference as reference

from hotato.engine.evaluate import Sources, evaluate
from hotato.kinds import REGISTRY
from hotato.kinds._base import Spec
from hotato.kinds.tool_call import calls
from hotato.model.evidence import Span, Trace
from hotato.model.match import subset
from hotato.model.status import Status

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ["a", "b", "c"]
# results in every failure shape of hotato.model.failure, and ones that are not failures
RESULTS = [
    {"ok": True},
    {"ok": False},
    {"s": "x"},
    {"success": False, "error": "declined"},
    {"success": True, "error": None, "status": 200},
    {"status": "failed"},
    {"statusCode": 503},
    {"error": {"code": 7}},
    "queued",
]
times = st.one_of(st.none(), st.sampled_from([0.0, 1.0, 1.0, 2.0, 3.5]))
scalars = st.one_of(
    st.sampled_from(["x", "y", "1"]),
    st.sampled_from([1, 2]),
    st.sampled_from([1.0, 2.5]),
    st.booleans(),
    st.none(),
)
arguments = st.one_of(
    st.none(),
    st.dictionaries(
        st.sampled_from(["k", "m"]), scalars | st.lists(scalars, max_size=2), max_size=2
    ),
    st.sampled_from(['{"k": "x"}', "[1]", "plain"]),
)


HAND_WRITTEN = [
    '{"k":"x"}',
    '{ "k" : "x" }',
    '{"k": "\\u0078"}',
    '{"k": "\\"q\\""}',
    '{"k": "a\\"b"}',
    '{"k": "\u00e9"}',
    '{"k": "\\u00e9"}',
    '{"k": "\u2028"}',
    '{"m": "x", "k": 1.0}',
    '"{\\"k\\": \\"x\\"}"',
    '{"k": ["x"]}',
    '{"k": {"x": 1}}',
    '{"k": true}',
    "[]",
]


@st.composite
def spans(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            ["tool_call", "tool_call", "http_exchange", "dtmf", "handoff", "caller_audio_active"]
        )
    )
    span: dict[str, Any] = {"type": kind}
    t = draw(times)
    if t is not None:
        span["start_sec" if draw(st.booleans()) else "time_sec"] = t
    if kind == "tool_call":
        span["name"] = draw(st.sampled_from(NAMES))
        if draw(st.booleans()):
            if (a := draw(arguments)) is not None:
                span["arguments"] = a
        else:
            span["arguments_json"] = draw(st.sampled_from(HAND_WRITTEN))
        if draw(st.booleans()):
            span["result"] = draw(st.sampled_from(RESULTS))
        if draw(st.booleans()):
            span["latency_ms"] = draw(st.sampled_from([10, 20, 20, 30]))
    elif kind == "http_exchange":
        span["method"] = draw(st.sampled_from(["GET", "post", None]))
        span["url"] = draw(st.sampled_from(["https://x/v1/a", "https://x/v2/b", None]))
        span["status_code"] = draw(st.sampled_from([200, 404, None]))
    elif kind == "dtmf":
        span["digits"] = draw(st.sampled_from(["1", "2", "12"]))
    elif kind == "handoff":
        span["to"] = draw(st.sampled_from(["billing", "Billing", None]))
    return {k: v for k, v in span.items() if v is not None}


def trace_of(items: list[dict[str, Any]]) -> Trace:
    out = []
    for i, item in enumerate(items):
        item = dict(item)
        raw = item.pop("arguments_json", None)  # arguments written by hand: escapes, spacing
        line = msgspec.json.encode(item)
        if raw is not None:
            line = line[:-1] + b', "arguments": ' + raw.encode() + b"}"
        span = msgspec.json.decode(line, type=Span)
        span.index = i
        out.append(span)
    return Trace(meta={}, spans=out)


def key(span: Span) -> tuple[float, int]:
    return (span.time if span.time is not None else math.inf, span.index)


def spec_of(item: dict[str, Any]) -> Spec:
    return msgspec.convert({"id": "x", **item}, REGISTRY[item["kind"]].spec)


def run(item: dict[str, Any], trace: Trace) -> Any:
    return evaluate([spec_of(item)], Sources(trace=trace))[0]


@SETTINGS
@given(st.lists(spans(), max_size=12))
def test_time_orders_match_the_sorts(items: list[dict[str, Any]]) -> None:
    trace = trace_of(items)
    assert trace.ordered == reference.ordered(trace)
    assert trace.unplaced == reference.unplaced(trace)
    assert trace.tool_order == [s for s in reference.ordered(trace) if s.type == "tool_call"]
    if all(s.time is not None for s in trace.spans):  # timed spans: by time, ties in line order
        assert trace.ordered == sorted(trace.spans, key=key)


@SETTINGS
@given(
    st.lists(spans(), max_size=12),
    st.sampled_from(NAMES),
    st.dictionaries(
        st.sampled_from(["k", "m"]),
        scalars
        | st.sampled_from(['"q"', 'a"b', "é", "\u2028", "x"])
        | st.lists(scalars, max_size=2),
        max_size=2,
    ),
)
def test_calls_by_argument_match_the_scan(
    items: list[dict[str, Any]], name: str, wanted: dict[str, Any]
) -> None:
    trace = trace_of(items)
    from hotato.kinds._trace_util import as_object

    scan = [s for s in trace.tool_calls.get(name, []) if subset(wanted, as_object(s.arguments()))]
    assert calls(trace, name, wanted) == scan


def _greedy(order: list[str], spans: list[Span]) -> list[str]:
    step, hits = 0, []
    for span in spans:
        if span.type == "tool_call" and step < len(order) and span.name == order[step]:
            hits.append(span.id)
            step += 1
    return hits


@SETTINGS
@given(st.lists(spans(), max_size=12), st.lists(st.sampled_from(NAMES), min_size=2, max_size=4))
def test_require_order_matches_the_scan(items: list[dict[str, Any]], order: list[str]) -> None:
    trace = trace_of(items)
    result = run({"kind": "tool_call", "require_order": order}, trace)
    assert reference.holds_in_every_order(
        trace, result.status, lambda spans: len(_greedy(order, spans)) == len(order)
    )
    if not trace.unplaced:
        hits = _greedy(order, reference.ordered(trace))
        assert result.evidence == hits[:20]


def _early(tool: str, until: str, spans: list[Span]) -> list[str]:
    early = []
    for span in spans:
        if span.type != "tool_call":
            continue
        if span.name == until:
            break
        if span.name == tool:
            early.append(span.id)
    return early


@SETTINGS
@given(st.lists(spans(), max_size=12), st.sampled_from(NAMES), st.sampled_from(NAMES))
def test_never_before_matches_the_scan(items: list[dict[str, Any]], tool: str, until: str) -> None:
    trace = trace_of(items)
    result = run({"kind": "tool_call", "never_before": {"tool": tool, "until": until}}, trace)
    assert reference.holds_in_every_order(
        trace, result.status, lambda spans: not _early(tool, until, spans)
    )
    if not trace.unplaced:
        assert result.evidence == _early(tool, until, reference.ordered(trace))[:20]


@SETTINGS
@given(
    st.lists(spans(), max_size=12),
    st.sampled_from([None, "GET", "POST"]),
    st.sampled_from([None, "/v1/", "v2/b$", "^https"]),
    st.sampled_from([None, 200, [200, 404]]),
)
def test_http_result_matches_the_scan(
    items: list[dict[str, Any]], method: str | None, url: str | None, status: Any
) -> None:
    import re

    trace = trace_of(items)
    item: dict[str, Any] = {"kind": "http_result"}
    for k, v in (("method", method), ("url_matches", url), ("status", status)):
        if v is not None:
            item[k] = v
    result = run(item, trace)
    wanted = None if status is None else (status if isinstance(status, list) else [status])
    matched = [
        s.id
        for s in trace.by_type.get("http_exchange", [])
        if (method is None or (s.method or "").upper() == method)
        and (url is None or re.search(url, s.url or "", re.IGNORECASE))
        and (wanted is None or s.status_code in wanted)
    ]
    assert result.status is (Status.PASS if matched else Status.FAIL)
    assert result.evidence == matched[:20]


@SETTINGS
@given(
    st.lists(spans(), max_size=12),
    st.sampled_from([None, "billing", "BILLING", "x"]),
    st.booleans(),
)
def test_handoff_matches_the_scan(
    items: list[dict[str, Any]], to: str | None, absent: bool
) -> None:
    trace = trace_of(items)
    item: dict[str, Any] = {"kind": "handoff", "absent": absent}
    if to is not None:
        item["to"] = to
    result = run(item, trace)
    found = [
        s.id
        for s in trace.spans
        if s.type == "handoff" and (to is None or (s.to or "").lower() == to.lower())
    ]
    assert result.status is (Status.PASS if bool(found) != absent else Status.FAIL)
    assert result.evidence == (found[:20] if bool(found) else [])


@SETTINGS
@given(st.lists(spans(), max_size=12), st.sampled_from(["1", "12", "21", "2"]), st.booleans())
def test_dtmf_matches_the_scan(items: list[dict[str, Any]], digits: str, absent: bool) -> None:
    trace = trace_of(items)
    result = run({"kind": "dtmf", "digits": digits, "absent": absent}, trace)

    def holds(spans: list[Span]) -> bool:
        present = digits in "".join(str(s.digits or "") for s in spans if s.type == "dtmf")
        return present != absent

    assert reference.holds_in_every_order(trace, result.status, holds)


@SETTINGS
@given(st.lists(spans(), max_size=12), st.sampled_from(NAMES), st.sampled_from([15, 20, 25]))
def test_latency_matches_the_scan(items: list[dict[str, Any]], tool: str, bound: int) -> None:
    trace = trace_of(items)
    result = run({"kind": "latency", "tool": tool, "max_ms": bound}, trace)
    measured = [
        (s.latency_ms, s) for s in trace.tool_calls.get(tool, []) if s.latency_ms is not None
    ]
    if not measured:
        assert result.status is Status.INCONCLUSIVE
        return
    worst, span = max(measured, key=lambda pair: pair[0])
    assert result.status is (Status.PASS if worst <= bound else Status.FAIL)
    assert result.observed == worst and result.evidence == [span.id]


@SETTINGS
@given(
    st.lists(spans(), max_size=12),
    st.sampled_from(NAMES),
    st.sampled_from([{"ok": True}, {"ok": False}, {}, {"s": "x"}]),
)
def test_tool_result_matches_the_scan(
    items: list[dict[str, Any]], name: str, wanted: dict[str, Any]
) -> None:
    trace = trace_of(items)
    result = run({"kind": "tool_result", "name": name, "result_subset": wanted}, trace)
    spans_ = trace.tool_calls.get(name, [])
    known = [s for s in spans_ if s.has_result]
    # without a subset, any recorded result is a result (a plain string too)
    matched = [s.id for s in known if not wanted or subset(wanted, s.result())]
    if not spans_:
        assert result.status is Status.FAIL
    elif matched:
        assert result.status is Status.PASS and result.evidence == matched[:20]
    elif len(known) < len(spans_):
        assert result.status is Status.INCONCLUSIVE
    else:
        assert result.status is Status.FAIL


@SETTINGS
@given(st.lists(spans(), max_size=12), st.sampled_from([None, "a", "b"]), st.booleans())
def test_tool_error_matches_the_scan(
    items: list[dict[str, Any]], name: str | None, absent: bool
) -> None:
    trace = trace_of(items)
    item: dict[str, Any] = {"kind": "tool_error", "absent": absent}
    if name is not None:
        item["name"] = name
    result = run(item, trace)
    raised = [
        s.id
        for s in trace.by_type.get("tool_call", [])
        if (name is None or s.name == name) and s.raised()
    ]
    assert result.status is (Status.PASS if bool(raised) != absent else Status.FAIL)


# --- transcripts: one pass per pattern over the joined turns, each hit confirmed --------------

ATOMS = [
    "a",
    "b",
    "ab",
    " ",
    ".",
    "\\n",
    "\\s",
    "\\w",
    "\\b",
    "\\B",
    "^",
    "$",
    "[^a]",
    "é",
    "(?s:.)",
    "(?i)A",
    "\\d",
    "x?",
    "(a|b)",
    "\\A",
    "\\z",
    "(?-m:^a)",
    "",
]
pattern_text = (
    st.lists(st.sampled_from(ATOMS), min_size=1, max_size=4)
    .map("".join)
    .flatmap(lambda p: st.sampled_from([p, p + "+", f"({p})*", f"^{p}", f"{p}$", f"{p}|b$"]))
)
TURN_PIECES = ["a", "b", "ab ", " ", "\n", "é", "x", "1", "A", "-"]
turn_text = st.lists(st.sampled_from(TURN_PIECES), max_size=6).map("".join)
# Turns holding no newline of their own: a hit inside one such turn is taken unconfirmed.
plain_turn_text = st.lists(st.sampled_from(TURN_PIECES[:4] + TURN_PIECES[5:]), max_size=6).map(
    "".join
)


def _valid(pattern: str) -> bool:
    from hotato.kinds._regex import PatternError, compile_pattern

    try:
        compile_pattern(pattern)
    except PatternError:
        return False
    return True


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(
    st.lists(st.tuples(st.sampled_from(["agent", "caller"]), turn_text), max_size=30)
    | st.lists(st.tuples(st.sampled_from(["agent", "caller"]), plain_turn_text), max_size=30),
    pattern_text.filter(_valid),
    st.sampled_from([None, "agent", "caller"]),
    st.booleans(),
)
# A turn's own newline: `^`/`$` there match in the joined text, not in the turn alone.
@example([("agent", "x"), ("agent", "a\nb"), ("caller", "b")], "^b", None, False)
@example([("agent", "a\nb"), ("agent", "ab")], "a$", "agent", False)
@example([("agent", "ab"), ("agent", "b a")], "b\\s", None, False)  # a hit across two turns
def test_matching_turns_is_a_search_of_every_turn(
    turns: list[tuple[str, str]], pattern: str, role: str | None, case: bool
) -> None:
    from hotato.kinds._regex import all_matching_turns, compile_pattern, encoded, matching_turns
    from hotato.model.evidence import Transcript, Turn

    def transcript() -> Transcript:
        return Transcript([Turn(i, r, t) for i, (r, t) in enumerate(turns)])

    compiled = compile_pattern(pattern, case)
    naive = [t.index for t in transcript().of_role(role) if compiled.search(encoded(t.text))]
    for join_at_least in (0, 64):  # the joined path however few turns, and turn by turn
        with patch("hotato.kinds._regex.JOIN_AT_LEAST", join_at_least):
            shared = transcript()
            first = next(matching_turns(shared, role, pattern, case), None)  # a reader stops
            assert ([first.index] if first else []) == naive[:1]
            assert [t.index for t in all_matching_turns(shared, role, pattern, case)] == naive
            # and again, from the search and joined text now kept on the transcript
            assert [t.index for t in matching_turns(shared, role, pattern, case)] == naive
            fresh = transcript()
            assert [t.index for t in all_matching_turns(fresh, role, pattern, case)] == naive


def test_calls_by_argument_read_escaped_arguments() -> None:
    from hotato.kinds._trace_util import as_object

    trace = trace_of(
        [{"type": "tool_call", "name": "a", "arguments_json": raw} for raw in HAND_WRITTEN]
    )
    for wanted in (
        {"k": "x"},
        {"k": '"q"'},
        {"k": 'a"b'},
        {"k": "é"},
        {"k": "\u2028"},
        {"m": "x", "k": 1},
        {"k": True},
        {"k": ["x"]},
    ):
        scan = [s for s in trace.tool_calls["a"] if subset(wanted, as_object(s.arguments()))]
        assert scan, wanted  # each is found somewhere above, escaped or not
        assert calls(trace, "a", wanted) == scan, wanted


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(pattern_text.filter(_valid), turn_text, st.integers(0, 8), st.booleans())
def test_span_finder_is_the_wrappers_search(pattern: str, text: str, pos: int, case: bool) -> None:
    from hotato.kinds._regex import compile_pattern, encoded, span_finder

    compiled = compile_pattern(pattern, case)
    data = encoded(text)
    pos = min(pos, len(data))
    hit = compiled.search(data, pos)
    assert span_finder(compiled)(data, pos) == (None if hit is None else hit.span())


def test_span_finder_falls_back_to_the_wrapper() -> None:
    from hotato.kinds._regex import compile_pattern, span_finder

    class Wrapped:  # a google-re2 release without the compiled object the fast path reads
        def __init__(self, compiled: Any) -> None:
            self.search = compiled.search

    find = span_finder(Wrapped(compile_pattern("b+")))
    assert find(b"abba", 0) == (1, 3) and find(b"abba", 3) is None


def test_an_integer_is_found_however_its_number_is_written() -> None:
    """`args_subset: {n: 12}` reads the calls whose arguments spell 12, and every call whose
    arguments hold a number written with a fraction or an exponent (`12.0`, `1.2e1`)."""
    written = ['{"n": 12}', '{"n": 120}', '{"n": 1.2e1}', '{"n": "12"}', '{"n": 12.0}']
    items = [{"type": "tool_call", "name": "a", "arguments_json": w} for w in written]
    items += [{"type": "tool_call", "name": "a", "arguments": {"n": 7}}] * 40
    trace = trace_of(items)
    assert [s.index for s in calls(trace, "a", {"n": 12})] == [0, 2, 4]
    assert [s.index for s in calls(trace, "a", {"n": 7})] == list(range(5, 45))
    assert calls(trace, "a", {"n": 1}) == []
