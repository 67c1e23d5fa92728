"""Property tests over the loaders: whatever the bytes, a loader returns evidence or raises
InputError (exit 2). Nothing else escapes, so no input can turn into exit 3 or a traceback.

The loaders are called in-process for speed; a few examples go through the real CLI too.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.conftest import hotato

from hotato._documents import Document, load_document
from hotato.engine.evaluate import Sources, evaluate
from hotato.engine.loader import decode_assertion_document, load_assertions
from hotato.engine.plan import plan
from hotato.engine.sources import open_trace
from hotato.evidence.trace import SCHEMA, load_trace
from hotato.evidence.transcript import load_transcript, parse_transcript
from hotato.kinds import REGISTRY
from hotato.kinds._decode import field_names
from hotato.model.errors import InputError
from hotato.model.evidence import Span, Trace, Transcript, Turn
from hotato.model.state import StateSource, StateUnavailable

META = json.dumps({"_meta": True, "schema": SCHEMA}).encode() + b"\n"
SETTINGS = settings(
    deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def only_input_errors(load: Callable[[], Any]) -> Any:
    """Run a loader: its value, or None when it refused with an InputError (exit 2)."""
    try:
        return load()
    except InputError as exc:
        assert exc.problems, "a refusal says what is wrong"
        assert all(p.message for p in exc.problems)
        return None


def _file(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


# --- traces ---------------------------------------------------------------------------------


@SETTINGS
@given(st.binary(max_size=600))
@example(b"\xef\xbb\xbf" + META)  # a byte-order mark before the meta line
@example(META + b"\x00\x01\x02\n")
@example(META + b"\n\n   \n")
def test_trace_loader_random_bytes(folder: Path, data: bytes) -> None:
    path = _file(folder, "t.jsonl", data)
    only_input_errors(lambda: load_trace(path))
    only_input_errors(lambda: open_trace(str(path)))  # what the CLI calls: detection first


@SETTINGS
@given(st.binary(max_size=400))
def test_trace_loader_random_bytes_after_a_meta_line(folder: Path, data: bytes) -> None:
    path = _file(folder, "t.jsonl", META + data)
    only_input_errors(lambda: load_trace(path))
    only_input_errors(lambda: open_trace(str(path)))


@SETTINGS
@given(st.lists(json_values, max_size=6))
def test_trace_loader_random_json_lines(folder: Path, lines: list[Any]) -> None:
    body = META + b"".join(msgspec.json.encode(v) + b"\n" for v in lines)
    path = _file(folder, "t.jsonl", body)
    trace = only_input_errors(lambda: load_trace(path))
    if trace is not None:
        assert [s.index for s in trace.spans] == list(range(len(trace.spans)))
    only_input_errors(lambda: open_trace(str(path)))


span_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["tool_call", "http_exchange", "dtmf", "handoff", "call_ended"])},
    optional={
        k: json_values
        for k in (
            "name",
            "start_sec",
            "end_sec",
            "time_sec",
            "latency_ms",
            "status",
            "to",
            "by",
            "reason",
            "digits",
            "method",
            "url",
            "status_code",
            "arguments",
            "result",
            "error",
            "attributes",
            "response",
        )
    },
)


@SETTINGS
@given(st.lists(span_like, max_size=6))
def test_trace_loader_span_shaped_objects(folder: Path, spans: list[dict[str, Any]]) -> None:
    body = META + b"".join(msgspec.json.encode(s) + b"\n" for s in spans)
    path = _file(folder, "t.jsonl", body)
    only_input_errors(lambda: load_trace(path))
    only_input_errors(lambda: open_trace(str(path)))


# --- transcripts ----------------------------------------------------------------------------


@SETTINGS
@given(st.binary(max_size=600))
def test_transcript_loader_random_bytes(folder: Path, data: bytes) -> None:
    path = _file(folder, "turns.json", data)
    only_input_errors(lambda: load_transcript(path))


@SETTINGS
@given(json_values)
def test_transcript_loader_random_json(folder: Path, value: Any) -> None:
    only_input_errors(lambda: parse_transcript(value, "turns.json"))
    path = _file(folder, "turns.json", msgspec.json.encode(value))
    only_input_errors(lambda: load_transcript(path))


turn_like = st.fixed_dictionaries(
    {},
    optional={
        k: json_values | st.text(max_size=10)
        for k in ("role", "speaker", "text", "content", "start", "end")
    },
)


@SETTINGS
@given(st.lists(turn_like, max_size=5), st.sampled_from(["list", "segments", "nested"]))
def test_transcript_loader_turn_shaped_objects(folder: Path, turns: list[Any], shape: str) -> None:
    doc: Any = {
        "list": turns,
        "segments": {"segments": turns},
        "nested": {"transcript": {"segments": turns}},
    }[shape]
    path = _file(folder, "turns.json", json.dumps(doc, indent=1).encode())
    loaded = only_input_errors(lambda: load_transcript(path))
    if loaded is not None:
        assert len(loaded.turns) == len(turns)


well_typed_turn = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["agent", "User", "assistant", "supervisor", ""]) | json_values,
        "speaker": st.sampled_from(["caller", "bot"]),
        "text": st.text(max_size=10),
        "content": st.text(max_size=10),
        "start": st.none() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False),
        "end": st.none() | st.integers(0, 10) | st.booleans(),
        "extra": json_values,
    },
)


@SETTINGS
@given(
    st.lists(turn_like | well_typed_turn, max_size=5),
    st.sampled_from(["list", "segments", "nested", "nested list", "both"]),
)
def test_the_typed_transcript_path_reads_as_the_generic_one(
    folder: Path, turns: list[Any], shape: str
) -> None:
    """A transcript is decoded straight into typed turns when it can be; whenever it is, the
    transcript is the one the generic reading (`parse_transcript`) gives, and a file it cannot
    take is read, and refused, the generic way."""
    from hotato.evidence.transcript import _typed

    doc: Any = {
        "list": turns,
        "segments": {"segments": turns},
        "nested": {"transcript": {"segments": turns}},
        "nested list": {"transcript": turns},
        "both": {"segments": turns, "transcript": {"segments": []}},
    }[shape]
    data = msgspec.json.encode(doc)  # valid JSON (no `Infinity`): one document for both readers
    generic = only_input_errors(lambda: parse_transcript(json.loads(data), "turns.json"))
    typed = _typed(data, "turns.json")
    assert typed is None or typed == generic
    if typed is None:
        path = _file(folder, "turns.json", data)
        loaded = only_input_errors(lambda: load_transcript(path))
        # the same turns, or the same refusal; a loaded file names its own path
        assert (loaded and loaded.turns) == (generic and generic.turns)


# --- assertion files ------------------------------------------------------------------------


@SETTINGS
@given(st.binary(max_size=600), st.sampled_from(["a.yaml", "a.json"]))
def test_assertions_loader_random_bytes(folder: Path, data: bytes, name: str) -> None:
    path = _file(folder, name, data)
    only_input_errors(lambda: load_assertions(path))


@SETTINGS
@given(st.text(max_size=300), st.sampled_from(["a.yaml", "a.json"]))
@example("version: 1\nassertions:\n  - &a {id: x, kind: phrase, regex: y}\n  - *a\n", "a.yaml")
@example("!!python/object:os.system {}", "a.yaml")
@example("version: !!binary aGk=\nassertions: []\n", "a.yaml")
@example("{1: 2, [3]: 4}", "a.yaml")
@example("? [a, b]\n: c\n", "a.yaml")
def test_assertions_loader_random_text(folder: Path, text: str, name: str) -> None:
    path = _file(folder, name, text.encode("utf-8", "surrogatepass"))
    only_input_errors(lambda: load_assertions(path))


@SETTINGS
@given(json_values)
def test_assertions_loader_random_yaml_documents(folder: Path, value: Any) -> None:
    path = _file(folder, "a.yaml", yaml.safe_dump(value).encode())
    only_input_errors(lambda: load_assertions(path))
    path = _file(folder, "a.json", msgspec.json.encode(value))
    only_input_errors(lambda: load_assertions(path))


KINDS = sorted(REGISTRY)
ALL_KEYS = sorted({k for kdef in REGISTRY.values() for k in field_names(kdef.spec)})


@st.composite
def assertion_like(draw: st.DrawFn) -> dict[str, Any]:
    """Objects that look like assertions: a real kind, real keys, values of any type."""
    kind = draw(st.sampled_from(KINDS))
    own = [k for k in field_names(REGISTRY[kind].spec) if k not in ("id", "kind")]
    keys = draw(st.lists(st.sampled_from(own + ALL_KEYS), max_size=5, unique=True))
    item: dict[str, Any] = {"id": draw(st.sampled_from(["a", "b", "c", ""])), "kind": kind}
    for key in keys:
        item[key] = draw(
            json_values
            | st.sampled_from(
                ["a", "b", "(a+)+$", "(?<=x)y", "a and b", "not c", "0.5*a + 0.5*b >= 0.5"]
            )
        )
    return item


REGEXES = ["a", "b", "(a+)+$", "^a", "(?i)B$", "(?<=x)y", "[", ""]
FORMULAS = ["a", "a and b", "not c", "a or (b and not c)", "0.5*a + 0.5*b >= 0.5", "a -", "d"]


def typed(t: msgspec.inspect.Type, field: str = "") -> st.SearchStrategy[Any]:
    """Values of (mostly) the declared type, so most documents decode and reach the kinds."""
    inspect = msgspec.inspect
    if isinstance(t, inspect.StrType):
        if field == "expr":
            return st.sampled_from(FORMULAS)
        if field in ("regex", "phrase", "before", "after", "error_matches", "url_matches"):
            return st.sampled_from(REGEXES)
        return st.sampled_from(["a", "b", "c", "orders", "1-2", "x y"]) | st.text(max_size=4)
    if isinstance(t, inspect.BoolType):
        return st.booleans()
    if isinstance(t, inspect.IntType):
        return st.integers(-1, 4)
    if isinstance(t, inspect.FloatType):
        return st.floats(-1, 5000, allow_nan=False)
    if isinstance(t, inspect.NoneType):
        return st.none()
    if isinstance(t, inspect.LiteralType):
        return st.sampled_from(list(t.values))
    if isinstance(t, inspect.UnionType):
        return st.one_of([typed(u, field) for u in t.types])
    if isinstance(t, inspect.VarTupleType | inspect.ListType):
        return st.lists(typed(t.item_type, field), max_size=3)
    if isinstance(t, inspect.DictType):
        return st.dictionaries(
            st.sampled_from(["a", "b", "status", "x.y"]), json_values, max_size=2
        )
    if isinstance(t, inspect.StructType):
        required = {f.encode_name: typed(f.type, f.name) for f in t.fields if f.required}
        optional = {f.encode_name: typed(f.type, f.name) for f in t.fields if not f.required}
        return st.fixed_dictionaries(required, optional=optional)
    return json_values


@st.composite
def typed_assertion(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(KINDS))
    info = msgspec.inspect.type_info(REGISTRY[kind].spec)
    assert isinstance(info, msgspec.inspect.StructType)
    item: dict[str, Any] = draw(typed(info))
    item["kind"] = kind
    item["id"] = draw(st.sampled_from(["a", "b", "c"]))
    return item


TRACE = Trace(
    meta={},
    spans=[
        Span(type="tool_call", name="a", start_sec=1.0, index=0),
        Span(type="dtmf", digits="12", time_sec=2.0, index=1),
        Span(type="call_ended", by="caller", time_sec=3.0, index=2),
    ],
)
TURNS = Transcript([Turn(0, "agent", "a b c"), Turn(1, "caller", "b")])


class Reader:
    """A tiny system of record: `orders` has a row, `a` is empty, anything else is unreadable."""

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        if resource == "orders":
            return {"a": 1, "status": "x", "x": {"y": [1]}}
        if resource == "a":
            return None
        raise StateUnavailable("unknown_resource", f"no {resource!r}")


STATE = StateSource(after=Reader(), before=Reader())


@SETTINGS
@given(
    st.lists(assertion_like(), max_size=4),
    st.sampled_from([None, "report", "fail", "refuse", "other", 3]),
)
def test_assertion_shaped_documents_decode_plan_and_run(
    items: list[dict[str, Any]], policy: Any
) -> None:
    doc: dict[str, Any] = {"version": 1, "assertions": items}
    if policy is not None:
        doc["inconclusive_policy"] = policy
    aset = only_input_errors(lambda: decode_assertion_document(Document(doc, "a.yaml")))
    if aset is None:
        return
    if only_input_errors(lambda: plan(aset.specs)) is None:
        return
    for sources in (
        Sources(),
        Sources(trace=TRACE, transcript=TURNS, state=STATE),
        Sources(trace=Trace(meta={}, spans=[]), transcript=Transcript([])),
    ):
        results = evaluate(aset.specs, sources)  # decoded and planned: grading never raises
        assert [r.id for r in results] == [s.id for s in aset.specs]


@SETTINGS
@given(st.lists(typed_assertion(), min_size=1, max_size=4))
def test_typed_assertions_decode_plan_and_run(items: list[dict[str, Any]]) -> None:
    """The same, with values of the declared types: most decode, so every kind's check runs
    against no evidence, a small call, and a read-but-empty call."""
    test_assertion_shaped_documents_decode_plan_and_run.hypothesis.inner_test(items, None)


# --- a few through the real CLI: the exit code is 0, 1 or 2, never a traceback ---------------


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(min_size=1, max_size=300), st.sampled_from(["assertions", "trace", "transcript"]))
def test_random_bytes_through_the_cli(folder: Path, data: bytes, which: str) -> None:
    files = {"assertions": "a.yaml", "trace": "t.jsonl", "transcript": "turns.json"}
    (folder / "a.yaml").write_text("version: 1\nassertions:\n  - {id: x, kind: phrase, regex: a}\n")
    (folder / "t.jsonl").write_bytes(META)
    (folder / "turns.json").write_text("[]")
    (folder / files[which]).write_bytes(data)
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--trace",
        "t.jsonl",
        "--transcript",
        "turns.json",
        cwd=folder,
    )
    assert ran.code in (0, 1, 2), ran.err
    assert "Traceback" not in ran.err
    if ran.code == 2:
        assert ran.out == "" and files[which] in ran.err


def test_documents_keep_their_marks() -> None:
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / "a.yaml"
        path.write_text("version: 1\nassertions:\n  - id: x\n    kind: phrase\n")
        doc = load_document(path, "assertions file")
    assert doc.where("$.assertions[0].kind") == (4, 11)
    assert doc.where("$.assertions[0].nope") == (3, 5)  # the nearest marked parent
