"""OpenTelemetry: OTLP/JSON lines or documents, OTLP protobuf, and the earlier bridge JSONL.

Each span is offered to the stack conventions first (LiveKit, Pipecat), then to the generic
rules here:

- GenAI tool execution: `gen_ai.operation.name = execute_tool` (or a span named
  `execute_tool <tool>`): `gen_ai.tool.name`, `gen_ai.tool.call.id`,
  `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` (objects or JSON strings). A span
  without a result attribute has an unknown result, so `result` stays absent. Errors come from
  `error.type`, an `exception` event or an ERROR status.
- HTTP client spans (`http.request.method` + `url.full`, or the older `http.method` +
  `http.url`) are `http_exchange` spans with `status_code`.
- Spans named `handoff` / `agent_handoff` / `transfer*` (target in `handoff.to`, `transfer.to`,
  `to`, `destination` or `gen_ai.agent.name`), `dtmf` (`dtmf.digits`), `call_ended` /
  `hangup` / `termination` (`call.ended_reason`, `call.ended_by`), and `user_speaking` /
  `agent_speaking` (audio activity).
- A span with a `hotato.type` attribute is taken as a native span: `hotato.<field>` attributes
  become its fields (for in-house stacks that instrument with hotato's own vocabulary).

Other spans are counted in `input_span_count` and not written.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from hotato.evidence.formats import TraceReader
from hotato.evidence.ingest import _bridge, livekit, pipecat
from hotato.evidence.ingest._emit import Emitter
from hotato.evidence.ingest._fork import can_fork, in_two
from hotato.evidence.ingest._otel_common import (
    first,
    first_token,
    ids,
    payload,
    span_error,
    span_ok,
    text,
)
from hotato.evidence.ingest._otlp import (
    OSpan,
    is_traces_doc,
    spans_from_line,
    spans_from_protobuf,
    spans_from_value,
)
from hotato.evidence.ingest._values import party
from hotato.evidence.ingest.detect import Sniffed, traces_docs, value_of
from hotato.model.errors import InputError

_HANDOFF = frozenset({"handoff", "agent_handoff", "transfer", "call_transfer", "transfer_call"})
_DTMF = frozenset({"dtmf", "dtmf_input", "dtmf_received", "send_dtmf", "dtmf_output"})
_ENDED = frozenset({"call_ended", "hangup", "termination", "call_end"})
_AUDIO = {
    "user_speaking": "caller",
    "agent_speaking": "agent",
    "caller_audio_active": "caller",
    "agent_audio_active": "agent",
}
# GenAI conventions first; Google ADK writes its own names (`gcp.vertex.agent.*`)
_TOOL_ARGS = ("gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args")
_TOOL_RESULT = ("gen_ai.tool.call.result", "gcp.vertex.agent.tool_response")
_NATIVE_FIELDS = (
    "name",
    "to",
    "by",
    "reason",
    "digits",
    "method",
    "url",
    "status_code",
    "status",
    "attempt",
    "latency_ms",
)


def detect(sn: Sniffed) -> bool:
    """OTLP (protobuf, or JSON documents), or the earlier bridge JSONL's meta line."""
    if sn.shape == "protobuf" or traces_docs(sn):
        return True
    value = value_of(sn)
    return (
        sn.shape == "lines"
        and isinstance(value, dict)
        and ("deployment" in value or "call_id" in value)
    )


def read_otel(sn: Sniffed, em: Emitter) -> None:
    read(sn, em, "otel")


def read_pipecat(sn: Sniffed, em: Emitter) -> None:
    read(sn, em, "pipecat")


def read_livekit(sn: Sniffed, em: Emitter) -> None:
    """A LiveKit session report (or an uploaded chat history), or LiveKit's OTLP spans."""
    if sn.shape == "document" and livekit.is_session_report(sn.doc):
        livekit.read_session_report(sn.doc, sn.path, em)
        return
    read(sn, em, "livekit")


def read(sn: Sniffed, em: Emitter, stack: str) -> None:
    """Any OpenTelemetry-shaped input. `stack` labels the deployment (otel, livekit, pipecat)."""
    if sn.shape == "lines" and isinstance(sn.first, dict) and not is_traces_doc(sn.first):
        _bridge.read(sn.path, em)
        return
    em.deployment.stack = stack
    forking = can_fork()  # halves are found only for a process that can convert them apart
    halves: tuple[Iterable[OSpan], Iterable[OSpan]] | None = None
    if sn.shape == "protobuf":
        em.source_format = "otlp-protobuf"
        spans: Iterable[OSpan] = spans_from_protobuf(sn.data, sn.path)
    elif sn.shape == "lines":
        em.source_format = "otlp-json-lines"
        if sn.otlp is not None:
            spans = sn.otlp.spans()
            halves = sn.otlp.halves(_SPLIT_SPANS) if forking else None
        else:
            spans = _lines(sn.path)
            halves = _line_halves(sn.path) if forking else None
    else:
        em.source_format = "otlp-json"
        if sn.otlp is not None:
            spans = sn.otlp.spans()
            halves = sn.otlp.halves(_SPLIT_SPANS) if forking else None
        else:
            spans = _document(sn)
    mapper = _Mapper(em, stack)

    def convert(spans: Iterable[OSpan]) -> None:
        observe, map_span = em.col.observe, mapper.map
        try:
            for s in spans:
                em.input_count += 1
                observe(s.start_ns)
                map_span(s)
        except InputError:
            if sn.otlp is not None:  # read whole, a document's own refusal comes first
                sn.otlp.check()
            raise

    if halves is None:
        convert(spans)
    else:
        first, second = halves
        in_two(em, lambda: convert(first), lambda: convert(second))
    em.flush_tools()


# An export smaller than this is converted on one core: forking and merging would cost more.
_SPLIT_BYTES = 32 << 20
_SPLIT_SPANS = 60_000


def _lines(name: str, start: int = 0, stop: int | None = None, lineno: int = 1) -> Iterator[OSpan]:
    return chain.from_iterable(_line_batches(name, start, stop, lineno))  # no step per span


def _line_batches(name: str, start: int, stop: int | None, first: int) -> Iterator[list[OSpan]]:
    """The spans of the lines from byte `start` (a line's first byte, on line `first`) to
    `stop` (a line's first byte, or the end)."""
    try:
        handle = open(name, "rb")  # noqa: SIM115 - closed below; a generator owns it
    except OSError as exc:
        raise InputError.one(f"cannot read trace: {exc.strerror}", file=name) from exc
    with handle:
        handle.seek(start)
        at = start
        for lineno, raw in enumerate(handle, start=first):
            if stop is not None and at >= stop:
                break
            at += len(raw)
            line = raw.strip()
            if lineno == 1:
                line = line.removeprefix(codecs.BOM_UTF8)
            if line:
                yield spans_from_line(line, name, lineno)


def _line_halves(name: str) -> tuple[Iterator[OSpan], Iterator[OSpan]] | None:
    """The file's lines in two runs split at the line nearest its middle, for `in_two`; None
    for a file too small to be worth it."""
    try:
        size = os.path.getsize(name)
        if size < _SPLIT_BYTES:
            return None
        with open(name, "rb") as handle:
            handle.seek(size // 2)
            handle.readline()
            middle = handle.tell()
            if middle >= size:  # the middle is on the last line: split where that line starts
                start = max(0, size // 2 - (1 << 20))
                handle.seek(start)
                last = handle.read(size // 2 - start).rfind(b"\n")
                middle = start + last + 1 if last >= 0 else 0
    except OSError:
        return None  # the serial read tells what is wrong
    if not 0 < middle < size:
        return None
    return _lines(name, 0, middle), _second_half(name, middle)


def _second_half(name: str, middle: int) -> Iterator[OSpan]:
    """The lines from byte `middle` on, numbered as in the whole file (counted when first read,
    which is in the child, beside the first half's conversion)."""
    lines_before = 0
    with open(name, "rb") as handle:
        while (left := middle - handle.tell()) > 0:
            chunk = handle.read(min(left, 1 << 20))
            if not chunk:
                break
            lines_before += chunk.count(b"\n")
    yield from _lines(name, middle, None, lines_before + 1)


def _document(sn: Sniffed) -> Iterator[OSpan]:
    doc = sn.doc
    if isinstance(doc, list):
        for i, part in enumerate(doc):
            yield from spans_from_value(part, sn.path, f"$[{i}]")
    elif is_traces_doc(doc):
        yield from spans_from_value(doc, sn.path)
    else:
        raise InputError.one(
            "not OpenTelemetry data: expected OTLP/JSON with `resourceSpans`",
            file=sn.path,
            path="$",
        )


class _Mapper:
    def __init__(self, em: Emitter, stack: str) -> None:
        self.em = em
        self.stack = stack
        self._resource: dict[str, Any] | None = None

    def map(self, s: OSpan) -> None:
        em = self.em
        if s.resource is not self._resource:  # spans of one export batch share their resource
            self._deployment(s)
        if "hotato.type" in s.attributes:
            _native(em, s)
            return
        if pipecat.claims(s, self.stack) and pipecat.map_otel_span(em, s):
            return
        if livekit.claims(s) and livekit.map_otel_span(em, s):
            return
        _generic(em, s)

    def _deployment(self, s: OSpan) -> None:
        r, dep = s.resource, self.em.deployment
        self._resource = r
        dep.git_sha = dep.git_sha or first(r, "vcs.ref.head.revision", "hotato.git_sha")
        dep.config_hash = dep.config_hash or first(r, "hotato.config_hash")
        self.em.identify(None, first(r, "hotato.agent_id"))


def _generic(em: Emitter, s: OSpan) -> None:
    a = s.attributes
    name = s.name
    low = name.lower()
    if em.call_id is None or em.deployment.agent_id is None:
        call_id = first(a, "gen_ai.conversation.id", "session.id")
        agent_id = a.get("gen_ai.agent.id")
        if call_id is not None or agent_id is not None:
            em.identify(call_id, agent_id)
    operation = a.get("gen_ai.operation.name")
    if (
        operation == "execute_tool"
        or low.startswith("execute_tool")
        or ("gen_ai.tool.name" in a and operation is None)
    ):
        em.tool_call(
            a.get("gen_ai.tool.name") or name.partition(" ")[2].strip() or None,
            start=s.start_ns,
            end=s.end_ns,
            arguments=payload(a, *_TOOL_ARGS),
            result=payload(a, *_TOOL_RESULT),
            error=span_error(s),
            ok=span_ok(s),
            hint=a.get("gen_ai.tool.type"),
            attributes=ids(em, s, tool_call_id=a.get("gen_ai.tool.call.id"))
            if em.opts.include_identifiers
            else None,
        )
        return
    method = first(a, "http.request.method", "http.method")
    url = first(a, "url.full", "http.url")
    if isinstance(method, str) and isinstance(url, str):
        code = first(a, "http.response.status_code", "http.status_code")
        body = payload(a, "http.response.body")
        error = span_error(s)
        em.span(
            "http_exchange",
            start=s.start_ns,
            end=s.end_ns,
            method=method.upper(),
            url=url,
            status_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
            response=body,
            error=error,
            status="error" if error else None,
            attributes=ids(em, s),
        )
        return
    if low in _HANDOFF or low.startswith(("handoff", "transfer")):
        to = text(
            a,
            "handoff.to",
            "transfer.to",
            "to",
            "destination",
            "gen_ai.agent.name",
            "lk.new_agent_id",
        )
        em.handoff(
            to,
            start=s.start_ns,
            end=s.end_ns,
            attributes={"from": text(a, "handoff.from", "transfer.from", "from")},
        )
        return
    keys = first(a, "dtmf.digits", "dtmf.digit", "dtmf.button")
    if low in _DTMF or keys is not None:
        by = "agent" if low in ("send_dtmf", "dtmf_output") else str(a.get("dtmf.by") or "caller")
        em.dtmf(str(keys) if keys is not None else None, by=by, at=s.start_ns)
        return
    reason = text(a, "call.ended_reason", "hangup.reason", "termination.reason")
    if low in _ENDED or reason is not None:
        ended_by = text(a, "call.ended_by", "hangup.by", "termination.by") or party(reason)
        em.termination(reason, ended_by, at=s.end_ns or s.start_ns)
        return
    if low in _AUDIO:
        em.speech(_AUDIO[low], start=s.start_ns, end=s.end_ns, text=text(a, "transcript", "text"))
        return
    if operation in ("chat", "text_completion", "generate_content"):
        first_token(em, s, a.get("gen_ai.response.time_to_first_chunk"))


def _native(em: Emitter, s: OSpan) -> None:
    """A span instrumented with hotato's own field names (`hotato.type`, `hotato.name`, ...)."""
    a = s.attributes
    fields: dict[str, Any] = {k: a[f"hotato.{k}"] for k in _NATIVE_FIELDS if f"hotato.{k}" in a}
    for key in ("arguments", "result", "response"):
        fields[key] = payload(a, f"hotato.{key}")
    error = a.get("hotato.error") or span_error(s)
    fields["error"] = error
    em.span(str(a["hotato.type"]), start=s.start_ns, end=s.end_ns, attributes=ids(em, s), **fields)


OTEL = TraceReader(detect, read_otel)
PIPECAT = TraceReader(pipecat.detect, read_pipecat)
LIVEKIT = TraceReader(livekit.detect, read_livekit)
