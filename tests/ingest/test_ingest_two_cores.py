"""A big export converted on two cores (its second half in a forked child) gives byte for byte
what converting it on one core gives: the trace, the transcript, the meta line, the counts, and
every refusal.

Exports come from the real OpenTelemetry SDK (tests.ingest.test_otlp_document_stream): generic
spans, LiveKit-scoped ones, and Pipecat tool calls whose result is a later span, so a call can
be opened in the first half and closed in the second (then the halves are not independent and
the second is converted again on this core). Each example is written as OTLP/JSON lines, as a
pretty document and as a one-line document; the size thresholds are lowered so every example
splits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.trace import StatusCode
from tests.ingest.test_otlp_document_stream import SPAN, _document

from hotato.evidence.ingest import _fork, ingest, load_call, otel
from hotato.model.errors import InputError

SETTINGS = settings(
    deadline=None,
    max_examples=25,
    # `split` only lowers thresholds and records forks; each example clears the record
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

TOOL_CALL = st.builds(
    lambda n, args: ("llm_tool_call", {"tool.call_id": f"c{n}", **args}, StatusCode.UNSET, []),
    st.integers(0, 3),
    st.fixed_dictionaries(
        {"tool.function_name": st.sampled_from(["lookup", "transfer_call"])},
        optional={"tool.arguments": st.sampled_from(['{"to": "billing"}', '{"n": 1}'])},
    ),
)
TOOL_RESULT = st.builds(
    lambda n, status: (
        "llm_tool_result",
        {"tool.call_id": f"c{n}", "tool.result": '{"ok": true}', "tool.result_status": status},
        StatusCode.UNSET,
        [],
    ),
    st.integers(0, 3),
    st.sampled_from(["success", "error"]),
)
SPANS = st.lists(SPAN | TOOL_CALL | TOOL_RESULT, min_size=2, max_size=12)
SHAPES = ("lines", "pretty", "one-line")


def _export(tmp: Path, spans: list[tuple[Any, ...]], scope: str, shape: str) -> Path:
    doc = _document(spans, scope)
    path = tmp / f"export-{shape}.json"
    if shape == "lines":  # one OTLP/JSON document per span, as the Collector's file exporter
        lines = []
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    one = {**rs, "scopeSpans": [{**ss, "spans": [span]}]}
                    lines.append(json.dumps({"resourceSpans": [one]}))
        path.write_text("\n".join(lines) + "\n")
    else:
        path.write_text(json.dumps(doc, indent=2 if shape == "pretty" else None))
    return path


@dataclass
class Forks:
    made: int = 0  # forks in this process
    taken: list[bool] = field(default_factory=list)  # per finished child: its half was taken

    def clear(self) -> None:
        self.made = 0
        self.taken.clear()


@pytest.fixture
def split(monkeypatch: pytest.MonkeyPatch) -> Forks:
    """Every export splits; records the forks and whether each child's half was taken."""
    monkeypatch.setattr(otel, "_SPLIT_BYTES", 0)
    monkeypatch.setattr(otel, "_SPLIT_SPANS", 0)
    monkeypatch.delenv(_fork.SERIAL_ENV, raising=False)
    # Other tests in this worker may leave a server thread running, and a threaded process does
    # not fork; the child here runs only the conversion, which takes none of their locks.
    monkeypatch.setattr(_fork.threading, "active_count", lambda: 1)
    forks = Forks()
    absorb, fork = _fork._absorb, os.fork

    def absorbed(*args: Any) -> bool:
        forks.taken.append(absorb(*args))
        return forks.taken[-1]

    def forked() -> int:
        pid = fork()
        if pid:
            forks.made += 1
        return pid

    monkeypatch.setattr(_fork, "_absorb", absorbed)
    monkeypatch.setattr(_fork.os, "fork", forked)
    return forks


def _outputs(path: Path, out: Path, serial: bool) -> tuple[Any, ...]:
    previous = os.environ.get(_fork.SERIAL_ENV)
    os.environ[_fork.SERIAL_ENV] = "1" if serial else "0"
    try:
        try:
            result = ingest(path, out=out / "t.jsonl", transcript_out=out / "c.json")
        except InputError as exc:
            if "no spoken text" not in str(exc):
                return ("refused", exc.problems)
            result = ingest(path, out=out / "t.jsonl")
        written = (out / "t.jsonl").read_bytes()
        transcript = (out / "c.json").read_bytes() if result.transcript_out else None
        call = load_call(path)
        return (
            written,
            transcript,
            result.meta,
            result.span_types,
            result.turn_count,
            result.empty,
            call.trace.spans,
            call.transcript.turns if call.transcript else None,
            call.empty,
        )
    finally:
        if previous is None:
            os.environ.pop(_fork.SERIAL_ENV)
        else:
            os.environ[_fork.SERIAL_ENV] = previous


@pytest.mark.slow  # exports big enough to be split, converted twice
@SETTINGS
@given(SPANS, st.sampled_from(["agent", "livekit.agents", "pipecat"]), st.sampled_from(SHAPES))
def test_two_cores_give_what_one_gives(
    tmp_path_factory: pytest.TempPathFactory,
    split: Forks,
    spans: list[tuple[Any, ...]],
    scope: str,
    shape: str,
) -> None:
    split.clear()
    tmp = tmp_path_factory.mktemp("two")
    path = _export(tmp, spans, scope, shape)
    (tmp / "one").mkdir()
    (tmp / "two").mkdir()
    one = _outputs(path, tmp / "one", serial=True)
    assert split.made == 0  # HOTATO_SERIAL: no fork
    two = _outputs(path, tmp / "two", serial=False)
    assert split.made > 0
    assert two == one


def test_independent_halves_are_taken_from_the_child(tmp_path: Path, split: Forks) -> None:
    spans = [
        ("execute_tool lookup_order", {"gen_ai.tool.name": "lookup"}, StatusCode.OK, []),
        ("user_speaking", {"text": "hello"}, StatusCode.UNSET, []),
        ("POST", {"http.request.method": "POST", "url.full": "https://x.test/"}, StatusCode.OK, []),
        ("execute_tool issue_refund", {"gen_ai.tool.name": "refund"}, StatusCode.ERROR, []),
    ]
    for shape in SHAPES:
        path = _export(tmp_path, spans, "agent", shape)
        (tmp_path / shape).mkdir()
        split.clear()
        _outputs(path, tmp_path / shape, serial=False)
        assert split.made == 2 and split.taken == [True, True], shape  # ingest, then load_call


def test_a_call_open_across_the_middle_is_converted_again(tmp_path: Path, split: Forks) -> None:
    spans = [
        ("llm_tool_call", {"tool.call_id": "c1", "tool.function_name": "lookup"}),
        ("llm_tool_call", {"tool.call_id": "c2", "tool.function_name": "lookup"}),
        ("llm_tool_result", {"tool.call_id": "c1", "tool.result": "{}"}),
        ("llm_tool_result", {"tool.call_id": "c2", "tool.result": "{}"}),
    ]
    spans = [(name, attributes, StatusCode.UNSET, []) for name, attributes in spans]
    path = _export(tmp_path, spans, "pipecat", "pretty")
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one = _outputs(path, tmp_path / "one", serial=True)
    two = _outputs(path, tmp_path / "two", serial=False)
    assert split.made > 0 and split.taken == []  # the first half left c1 and c2 open
    assert two == one
    assert one[3] == {"tool_call": 2}


@pytest.mark.parametrize("shape", ["lines", "pretty", "one-line"])
@pytest.mark.parametrize("where", ["first", "second"])
def test_a_refusal_in_either_half_is_the_serial_one(
    tmp_path: Path, split: Forks, shape: str, where: str
) -> None:
    bad = ("execute_tool x", {"gen_ai.tool.name": "x"}, StatusCode.OK, [])
    good = ("execute_tool y", {"gen_ai.tool.name": "y"}, StatusCode.OK, [])
    spans = [bad, good, good, good] if where == "first" else [good, good, good, bad]
    path = _export(tmp_path, spans, "agent", shape)
    # the tool's name becomes a number: the span's `name` has a wrong type, told located
    path.write_text(path.read_text().replace('"stringValue": "x"', '"intValue": "7"'))
    problems = [_refusal(path, tmp_path / "t.jsonl", serial) for serial in (True, False)]
    assert split.made == 1 and split.taken == []
    assert problems[0] == problems[1]
    assert not (tmp_path / "t.jsonl").exists()


def _refusal(path: Path, out: Path, serial: bool) -> Any:
    """The problems `ingest` refuses `path` with, on one core or (when it splits) on two."""
    os.environ[_fork.SERIAL_ENV] = "1" if serial else "0"
    try:
        with pytest.raises(InputError) as caught:
            ingest(path, out=out)
    finally:
        os.environ.pop(_fork.SERIAL_ENV)
    return caught.value.problems


def test_no_fork_when_turned_off_or_threaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_fork.SERIAL_ENV, "1")
    assert not _fork.can_fork()
    monkeypatch.setenv(_fork.SERIAL_ENV, "0")
    monkeypatch.setattr(_fork.threading, "active_count", lambda: 2)
    assert not _fork.can_fork()


def test_small_exports_do_not_fork(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spans = [("execute_tool lookup", {"gen_ai.tool.name": "lookup"}, StatusCode.OK, [])] * 3
    forks: list[int] = []
    real = os.fork
    monkeypatch.setattr(_fork.os, "fork", lambda: forks.append(1) or real())
    for shape in SHAPES:
        ingest(_export(tmp_path, spans, "agent", shape), out=tmp_path / f"{shape}.jsonl")
    assert forks == []


@pytest.mark.parametrize("shape", ["pretty", "one-line"])
def test_a_bad_resource_with_no_spans_is_refused_as_serial(
    tmp_path: Path, split: Forks, shape: str
) -> None:
    """A resource that holds no span is in neither half; its bad attributes are still told."""
    good = ("execute_tool y", {"gen_ai.tool.name": "y"}, StatusCode.OK, [])
    doc = _document([good] * 4, "agent")
    bad = {"attributes": [{"key": "n", "value": {"intValue": "twelve"}}]}
    doc["resourceSpans"].append({"resource": bad, "scopeSpans": []})
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc, indent=2 if shape == "pretty" else None))
    problems = [_refusal(path, tmp_path / "t.jsonl", serial) for serial in (True, False)]
    assert problems[0] == problems[1]
    assert split.made == 0  # the export is not split: the serial read refuses it first


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(2) is Linux's")
def test_the_child_ends_when_its_parent_does(tmp_path: Path) -> None:
    """A parent killed mid-conversion leaves no orphan: the child asked to die with it."""
    script = (
        "import os, sys, time\n"
        "from hotato.evidence.ingest import _fork\n"
        "parent = os.getpid()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    _fork._die_with(parent)\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print(pid, flush=True)\n"
        "time.sleep(0.5)\n"  # the child has asked by now
        "os._exit(0)\n"  # the parent ends; the kernel ends the child
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    child = int(ran.stdout.split()[0])
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended (it waits for init to reap it)


def test_every_emitter_field_has_a_rule_for_joining_halves() -> None:
    import dataclasses

    from hotato.evidence.ingest._emit import HALVES, Emitter

    assert sorted(HALVES) == sorted(f.name for f in dataclasses.fields(Emitter))
    assert set(HALVES.values()) <= {"own", "first", "sum", "extend", "any", "second"}
