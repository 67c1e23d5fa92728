"""The quarantined judge: strict answers, ERROR apart from FAIL, no call without evidence."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from hotato.conversation.judge import (
    Judge,
    JudgeConfig,
    JudgeStatus,
    RubricResult,
    as_rubric,
    evaluate_rubrics,
)
from hotato.model.errors import InputError, UsageError

from .conftest import FakeJudge

RUBRIC: dict[str, Any] = {
    "id": "was-empathetic",
    "kind": "judge_rubric",
    "criterion": "Did the agent acknowledge the caller's frustration before proposing a fix?",
    "evidence": ["transcript"],
    "dimension": "conversation",
}
TRANSCRIPT = [
    {"role": "caller", "text": "My order arrived broken and I am furious."},
    {"role": "agent", "text": "I am so sorry, that is frustrating. Let me fix it."},
]
TRACE = [{"type": "tool_call", "name": "issue_refund", "arguments": {"order": "A-1001"}}]


def _config(url: str, **kw: Any) -> JudgeConfig:
    return JudgeConfig(endpoint=url, model="llama3.1:8b", **kw)


def _judge(url: str, **kw: Any) -> Judge:
    return Judge(_config(url, **kw))


# -- answers --------------------------------------------------------------------------------------


def test_a_well_formed_pass(fake_judge: FakeJudge) -> None:
    result = _judge(fake_judge.url).evaluate(RUBRIC, TRANSCRIPT, TRACE)
    assert result.status is JudgeStatus.PASS
    assert result.deterministic is False and result.human_required is False
    assert result.rationale == "The agent apologised first (turn 2)."
    assert result.dimension == "conversation"
    prov = result.provenance
    assert prov is not None and prov.model == "llama3.1:8b" and prov.cached is False
    assert len(prov.prompt_sha256) == len(prov.input_sha256) == 64
    # What was sent: temperature 0, the model, the criterion, and only the evidence named.
    (request,) = fake_judge.requests
    assert request["path"] == "/v1/chat/completions"
    body = request["body"]
    assert body["temperature"] == 0 and body["model"] == "llama3.1:8b"
    system, user = body["messages"]
    assert system["role"] == "system" and '"verdict"' in system["content"]
    assert RUBRIC["criterion"] in user["content"] and "furious" in user["content"]
    assert "issue_refund" not in user["content"]  # a transcript-only rubric never sends the trace


@pytest.mark.parametrize(
    ("verdict", "status"),
    [
        ("fail", JudgeStatus.FAIL),
        ("inconclusive", JudgeStatus.INCONCLUSIVE),
    ],
)
def test_fail_and_the_judges_own_inconclusive(
    fake_judge: FakeJudge, verdict: str, status: JudgeStatus
) -> None:
    fake_judge.answer(verdict)
    result = _judge(fake_judge.url).evaluate(RUBRIC, TRANSCRIPT, None)
    assert result.status is status and result.rationale == "Grounded in turn 1."


def test_trace_evidence_is_sent_when_named(fake_judge: FakeJudge) -> None:
    rubric = {**RUBRIC, "evidence": ["transcript", "trace"]}
    _judge(fake_judge.url).evaluate(rubric, TRANSCRIPT, TRACE)
    assert "issue_refund" in fake_judge.requests[0]["body"]["messages"][1]["content"]


@pytest.mark.parametrize(
    ("suffix", "path"),
    [("", "/v1/chat/completions"), ("/v1", "/v1/chat/completions"),
     ("/api/chat/completions", "/api/chat/completions")],
)  # fmt: skip
def test_endpoint_forms(fake_judge: FakeJudge, suffix: str, path: str) -> None:
    _judge(fake_judge.url + suffix).evaluate(RUBRIC, TRANSCRIPT, None)
    assert fake_judge.requests[0]["path"] == path


def test_an_api_key_is_read_from_the_named_variable(
    fake_judge: FakeJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_TOKEN", "s3cret-token")
    result = _judge(fake_judge.url, api_key_env="JUDGE_TOKEN").evaluate(RUBRIC, TRANSCRIPT, None)
    headers = {k.lower(): v for k, v in fake_judge.requests[0]["headers"].items()}
    assert headers["authorization"] == "Bearer s3cret-token"
    assert b"s3cret" not in msgspec.json.encode(result)


# -- garbage, down, hung --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "payload", "reason"),
    [
        ("raw", b"<html>bad gateway</html>", "not a chat completion"),
        ("raw", b'{"choices": []}', "not a chat completion"),
        ("raw", b'{"choices": [{"message": {"content": 7}}]}', "not a chat completion"),
        ("answer", "Sure! The agent was empathetic.", "not the required JSON"),
        ("answer", '```json\n{"verdict": "pass", "rationale": "x"}\n```', "not the required JSON"),
        ("answer", '{"verdict": "maybe", "rationale": "x"}', "not the required JSON"),
        ("answer", '{"verdict": "pass", "rationale": "x", "score": 0.9}', "not the required JSON"),
        ("answer", '{"verdict": "pass"}', "not the required JSON"),
        ("answer", '{"verdict": "pass", "rationale": "  "}', "without a rationale"),
    ],
)
def test_garbage_is_an_error_not_a_fail(
    fake_judge: FakeJudge, tmp_path: Path, mode: str, payload: Any, reason: str
) -> None:
    fake_judge.mode = mode
    if mode == "raw":
        fake_judge.raw = payload
    else:
        fake_judge.content = payload
    judge = _judge(fake_judge.url, cache_dir=tmp_path / "cache")
    result = judge.evaluate(RUBRIC, TRANSCRIPT, None)
    assert result.status is JudgeStatus.ERROR and reason in result.reason
    assert result.rationale is None
    # Nonsense is never cached: the next run asks again.
    judge.evaluate(RUBRIC, TRANSCRIPT, None)
    assert len(fake_judge.requests) == 2
    assert not list((tmp_path / "cache").glob("*.json"))


def test_an_http_error_is_an_error(fake_judge: FakeJudge) -> None:
    fake_judge.mode, fake_judge.status = "status", 500
    result = _judge(fake_judge.url).evaluate(RUBRIC, TRANSCRIPT, None)
    assert result.status is JudgeStatus.ERROR and "HTTP 500" in result.reason


def test_a_down_judge_is_an_error(closed_port: str) -> None:
    result = _judge(closed_port).evaluate(RUBRIC, TRANSCRIPT, None)
    assert result.status is JudgeStatus.ERROR and "unreachable" in result.reason
    assert result.deterministic is False


def test_a_hung_judge_times_out_and_the_run_does_not_wait_again(fake_judge: FakeJudge) -> None:
    fake_judge.mode = "hang"
    judge = _judge(fake_judge.url, timeout=0.3)
    started = time.monotonic()
    first = judge.evaluate(RUBRIC, TRANSCRIPT, None)
    second = judge.evaluate({**RUBRIC, "id": "second"}, TRANSCRIPT, None)
    elapsed = time.monotonic() - started
    assert first.status is second.status is JudgeStatus.ERROR
    assert "did not answer within 0.3s" in first.reason and second.reason == first.reason
    assert elapsed < 3
    assert len(fake_judge.requests) == 1


# -- no model call --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("evidence", "transcript", "trace", "missing"),
    [
        (["transcript"], None, TRACE, "no transcript supplied"),
        (["trace"], TRANSCRIPT, None, "no trace supplied"),
        (["transcript", "trace"], None, None, "no transcript or trace supplied"),
    ],
)
def test_missing_evidence_is_inconclusive_without_a_call(
    fake_judge: FakeJudge, evidence: list[str], transcript: Any, trace: Any, missing: str
) -> None:
    result = _judge(fake_judge.url).evaluate({**RUBRIC, "evidence": evidence}, transcript, trace)
    assert result.status is JudgeStatus.INCONCLUSIVE and missing in result.reason
    assert result.provenance is None
    assert fake_judge.requests == []


def test_an_empty_trace_is_evidence(fake_judge: FakeJudge) -> None:
    # A trace that was read and holds no spans is evidence (DESIGN law 2), unlike no trace.
    result = _judge(fake_judge.url).evaluate({**RUBRIC, "evidence": ["trace"]}, None, [])
    assert result.status is JudgeStatus.PASS and len(fake_judge.requests) == 1


def test_a_human_rubric_never_calls_a_model(fake_judge: FakeJudge) -> None:
    rubric = {"id": "tone", "kind": "human_rubric", "criterion": "Was the tone right?"}
    result = _judge(fake_judge.url).evaluate(rubric, TRANSCRIPT, TRACE)
    assert result.status is JudgeStatus.INCONCLUSIVE and result.human_required
    assert "signed human label" in result.reason
    assert fake_judge.requests == []


def test_no_judge_configured_is_inconclusive() -> None:
    result = Judge(None).evaluate(RUBRIC, TRANSCRIPT, TRACE)
    assert result.status is JudgeStatus.INCONCLUSIVE and "no judge configured" in result.reason


def test_evidence_over_the_limit_is_inconclusive(fake_judge: FakeJudge) -> None:
    big = [{"role": "agent", "text": "x" * 5000}]
    result = _judge(fake_judge.url, max_input_bytes=1000).evaluate(RUBRIC, big, None)
    assert result.status is JudgeStatus.INCONCLUSIVE and "over the judge's limit" in result.reason
    assert fake_judge.requests == []


# -- cache ----------------------------------------------------------------------------------------


def test_a_rerun_replays_the_cached_verdict(fake_judge: FakeJudge, tmp_path: Path) -> None:
    cache = tmp_path / "judge-cache"
    fake_judge.answer("fail", "No acknowledgement before the fix.")
    first = _judge(fake_judge.url, cache_dir=cache).evaluate(RUBRIC, TRANSCRIPT, None)
    fake_judge.answer("pass")  # the model would now say otherwise; the cache replays
    second = _judge(fake_judge.url, cache_dir=cache).evaluate(RUBRIC, TRANSCRIPT, None)
    assert len(fake_judge.requests) == 1
    assert first.status is second.status is JudgeStatus.FAIL
    assert second.rationale == first.rationale
    assert first.provenance is not None and second.provenance is not None
    assert (first.provenance.cached, second.provenance.cached) == (False, True)
    assert first.provenance.input_sha256 == second.provenance.input_sha256
    # New evidence is a new question.
    changed = [*TRANSCRIPT, {"role": "agent", "text": "Anything else?"}]
    third = _judge(fake_judge.url, cache_dir=cache).evaluate(RUBRIC, changed, None)
    assert third.status is JudgeStatus.PASS and len(fake_judge.requests) == 2


def test_a_cached_verdict_replays_even_when_the_judge_is_down(
    fake_judge: FakeJudge, tmp_path: Path, closed_port: str
) -> None:
    cache = tmp_path / "cache"
    _judge(fake_judge.url, cache_dir=cache).evaluate(RUBRIC, TRANSCRIPT, None)
    fake_judge.mode, fake_judge.status = "status", 503  # the same endpoint, now failing
    replay = _judge(fake_judge.url, cache_dir=cache).evaluate(RUBRIC, TRANSCRIPT, None)
    assert replay.status is JudgeStatus.PASS and replay.provenance is not None
    assert replay.provenance.cached and len(fake_judge.requests) == 1
    # A cached verdict is bound to its endpoint: another server is never answered from it.
    other = _judge(closed_port, cache_dir=cache).evaluate(RUBRIC, TRANSCRIPT, None)
    assert other.status is JudgeStatus.ERROR


def test_a_corrupt_cache_entry_is_asked_again(fake_judge: FakeJudge, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _judge(fake_judge.url, cache_dir=cache).evaluate(RUBRIC, TRANSCRIPT, None)
    (entry,) = cache.glob("*.json")
    entry.write_text("{")
    result = _judge(fake_judge.url, cache_dir=cache).evaluate(RUBRIC, TRANSCRIPT, None)
    assert result.status is JudgeStatus.PASS and len(fake_judge.requests) == 2


def test_without_a_cache_every_run_asks(fake_judge: FakeJudge) -> None:
    for _ in range(2):
        _judge(fake_judge.url).evaluate(RUBRIC, TRANSCRIPT, None)
    assert len(fake_judge.requests) == 2


def test_digests_are_stable_and_separate(fake_judge: FakeJudge) -> None:
    a = _judge(fake_judge.url).evaluate(RUBRIC, TRANSCRIPT, None).provenance
    b = _judge(fake_judge.url).evaluate(RUBRIC, TRANSCRIPT, None).provenance
    other = {**RUBRIC, "criterion": "Did the agent confirm the order number?"}
    c = _judge(fake_judge.url).evaluate(other, TRANSCRIPT, None).provenance
    assert a is not None and b is not None and c is not None
    assert (a.prompt_sha256, a.input_sha256) == (b.prompt_sha256, b.input_sha256)
    assert c.prompt_sha256 != a.prompt_sha256 and c.input_sha256 == a.input_sha256


# -- configuration --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "kw", "message"),
    [
        ("https://judge.example.com", {}, "--judge-egress-opt-in"),
        ("http://10.0.0.5:8000", {}, "--judge-egress-opt-in"),
        ("http://judge.example.com", {"egress_opt_in": True}, "must use https"),
        ("https://user:pw@judge.example.com", {"egress_opt_in": True}, "carries credentials"),
        ("ftp://127.0.0.1", {}, "not an http(s) URL"),
        ("127.0.0.1:11434", {}, "not an http(s) URL"),
        ("http://127.0.0.1:11434", {"timeout": 0}, "timeout"),
        ("http://127.0.0.1:11434", {"api_key_env": "HOTATO_TEST_UNSET_VAR"}, "is not set"),
    ],
)
def test_configuration_refusals(endpoint: str, kw: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as refused:
        _config(endpoint, **kw)
    assert message in str(refused.value)


def test_a_judge_needs_a_model() -> None:
    with pytest.raises(UsageError, match="--judge-model"):
        JudgeConfig(endpoint="http://127.0.0.1:1", model=" ")


@pytest.mark.parametrize(
    "endpoint",
    ["http://127.0.0.1:11434", "http://localhost:8000/v1", "http://[::1]:8000", "http://127.0.0.9"],
)
def test_loopback_endpoints_need_no_opt_in(endpoint: str) -> None:
    assert _config(endpoint).endpoint == endpoint


def test_an_opted_in_https_endpoint_is_accepted() -> None:
    config = _config("https://judge.example.com/v1", egress_opt_in=True)
    assert config.url == "https://judge.example.com/v1/chat/completions"


# -- inputs and the runner's entry point ----------------------------------------------------------


def test_a_decoded_rubric_spec_is_accepted(fake_judge: FakeJudge) -> None:
    from hotato.kinds.rubric import JudgeRubric

    spec = msgspec.convert({k: v for k, v in RUBRIC.items() if k != "kind"}, JudgeRubric)
    rubric = as_rubric(spec)
    assert (rubric.kind, rubric.evidence) == ("judge_rubric", ("transcript",))


def test_a_rubric_that_is_not_one_is_refused() -> None:
    with pytest.raises(InputError, match="not a rubric criterion"):
        as_rubric({"id": "x", "kind": "phrase", "criterion": "c"})


def test_evaluate_rubrics_keeps_document_order(fake_judge: FakeJudge) -> None:
    rubrics = [
        {"id": "tone", "kind": "human_rubric", "criterion": "Tone?"},
        RUBRIC,
        {**RUBRIC, "id": "needs-trace", "evidence": ["trace"]},
    ]
    results = evaluate_rubrics(rubrics, TRANSCRIPT, None, _config(fake_judge.url))
    assert [(r.id, r.status) for r in results] == [
        ("tone", JudgeStatus.INCONCLUSIVE),
        ("was-empathetic", JudgeStatus.PASS),
        ("needs-trace", JudgeStatus.INCONCLUSIVE),
    ]
    doc = json.loads(msgspec.json.encode(results))
    assert all(r["deterministic"] is False for r in doc)
    assert list(doc[1]) == [
        "id", "kind", "deterministic", "status", "reason", "human_required", "dimension",
        "rationale", "provenance",
    ]  # fmt: skip
    assert isinstance(results[0], RubricResult)


def test_hotato_turns_are_accepted(fake_judge: FakeJudge) -> None:
    from hotato.evidence.transcript import parse_transcript

    transcript = parse_transcript(TRANSCRIPT)
    result = _judge(fake_judge.url).evaluate(RUBRIC, transcript, None)
    assert result.status is JudgeStatus.PASS
    assert "furious" in fake_judge.requests[0]["body"]["messages"][1]["content"]


def test_the_runner_lane_reads_hotato_sources(fake_judge: FakeJudge, tmp_path: Path) -> None:
    from types import SimpleNamespace

    from hotato.conversation.judge import rubric_lane
    from hotato.evidence.trace import load_trace
    from hotato.evidence.transcript import parse_transcript
    from hotato.kinds.rubric import HumanRubric, JudgeRubric

    trace_file = tmp_path / "call.jsonl"
    trace_file.write_text(
        '{"_meta": true, "schema": "hotato.voice_trace.v1"}\n'
        '{"type": "tool_call", "name": "issue_refund", "arguments": {"order": "A-1001"},'
        ' "start_sec": 1.0}\n'
    )
    test = SimpleNamespace(
        rubric=[
            msgspec.convert(
                {"id": "refund-explained", "criterion": "Was the refund explained?",
                 "evidence": ["transcript", "trace"]},
                JudgeRubric,
            ),
            msgspec.convert({"id": "tone", "criterion": "Tone?"}, HumanRubric),
        ]
    )  # fmt: skip
    sources = SimpleNamespace(transcript=parse_transcript(TRANSCRIPT), trace=load_trace(trace_file))
    judged, human = rubric_lane(_config(fake_judge.url))(test, sources)
    assert (judged.status, human.status) == ("PASS", "INCONCLUSIVE")
    assert judged.deterministic is False and human.human_required is True
    sent = fake_judge.requests[0]["body"]["messages"][1]["content"]
    evidence = json.loads(sent.split("Evidence (JSON):\n", 1)[1])
    assert evidence["trace"] == [
        {"id": "s_0", "type": "tool_call", "name": "issue_refund", "start_sec": 1.0,
         "arguments": {"order": "A-1001"}}
    ]  # fmt: skip
    assert evidence["transcript"][0]["role"] == "caller"
