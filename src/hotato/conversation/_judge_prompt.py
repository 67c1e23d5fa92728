"""What the judge is shown and how its answer must look: prompt, evidence, strict answer parsing."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from hotato.model.evidence import Span

PROMPT_VERSION = "hotato.judge.v1"

SYSTEM_PROMPT = (
    "You grade one criterion about a recorded phone call between a caller and a voice agent. "
    "Judge only from the evidence given; do not assume anything it does not show. Answer with "
    "exactly one JSON object and nothing else, in this form: "
    '{"verdict": "pass" | "fail" | "inconclusive", "rationale": "<one or two sentences that '
    'cite the evidence>"}. Answer "inconclusive" when the evidence does not settle the criterion.'
)

Verdict = Literal["pass", "fail", "inconclusive"]


class Answer(msgspec.Struct, forbid_unknown_fields=True):
    """The only answer accepted: no other keys, no prose around it, no code fence."""

    verdict: Verdict
    rationale: str


def canonical(value: Any) -> bytes:
    """JSON with sorted keys: the bytes digests are taken over."""
    return msgspec.json.encode(value, order="sorted")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def prompt_digest(criterion: str, examples: tuple[Any, ...]) -> str:
    """Everything the model is told except the evidence."""
    return sha256(
        canonical(
            {
                "version": PROMPT_VERSION,
                "system": SYSTEM_PROMPT,
                "criterion": criterion,
                "examples": list(examples),
            }
        )
    )


def evidence_doc(transcript: Any, trace: Any) -> dict[str, Any]:
    """The evidence as sent: `{"transcript": [{role, text}], "trace": [span, ...]}`, each only
    when given. Accepts plain lists of dicts or hotato's Transcript / Trace objects."""
    doc: dict[str, Any] = {}
    if transcript is not None:
        doc["transcript"] = [_turn(t) for t in getattr(transcript, "turns", transcript)]
    if trace is not None:
        doc["trace"] = [_span(s) for s in getattr(trace, "spans", trace)]
    return doc


def _turn(turn: Any) -> dict[str, str]:
    if isinstance(turn, Mapping):
        return {"role": str(turn.get("role", "")), "text": str(turn.get("text", ""))}
    return {"role": str(turn.role), "text": str(turn.text)}


_SPAN_PAYLOADS = {
    "arguments_raw": "arguments",
    "result_raw": "result",
    "error_raw": "error",
    "attributes_raw": "attributes",
    "response_raw": "response",
}


def _span(span: Any) -> dict[str, Any]:
    if not isinstance(span, Span):
        return dict(span)
    out: dict[str, Any] = {"id": span.id}
    for name in span.__struct_fields__:
        value = getattr(span, name)
        if name in _SPAN_PAYLOADS:
            if value:
                out[_SPAN_PAYLOADS[name]] = msgspec.json.decode(value)
        elif name != "index" and value is not None:
            out[name] = value
    return out


def user_message(criterion: str, examples: tuple[Any, ...], evidence: dict[str, Any]) -> str:
    parts = [f"Criterion: {criterion}"]
    if examples:
        parts.append("Graded examples (JSON):\n" + canonical(list(examples)).decode())
    parts.append("Evidence (JSON):\n" + canonical(evidence).decode())
    return "\n\n".join(parts)


def parse_completion(status_code: int, body: bytes) -> Answer | str:
    """The judge's answer from a chat completion response, or why it is not one."""
    if status_code != 200:
        return f"the judge answered HTTP {status_code}"
    try:
        content = msgspec.json.decode(body)["choices"][0]["message"]["content"]
    except (msgspec.DecodeError, KeyError, IndexError, TypeError):
        return "the judge's response is not a chat completion"
    if not isinstance(content, str):
        return "the judge's response is not a chat completion"
    try:
        answer = msgspec.json.decode(content.strip(), type=Answer)
    except msgspec.DecodeError as exc:
        return f"the judge's answer is not the required JSON {{verdict, rationale}} ({exc})"
    if not answer.rationale.strip():
        return "the judge gave a verdict without a rationale"
    return answer
