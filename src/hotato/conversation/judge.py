"""The quarantined model judge: an advisory opinion for `judge_rubric` criteria, never an authority.

A judge answers over an OpenAI-compatible chat completions endpoint (a local Ollama, vLLM or
llama.cpp server) at temperature 0, in a strict JSON answer format. Every result carries
`deterministic: false` and provenance (model, prompt digest, input digest, cached). Verdicts are
cached on disk by content digest, so a rerun replays them instead of asking again.

Outcomes, one meaning each:
- PASS / FAIL: the judge's answer, parsed strictly.
- INCONCLUSIVE: no model was asked (a human_rubric, missing evidence, no judge configured,
  evidence over the size limit), or the judge itself said the evidence does not settle it.
- ERROR: the judge could not be asked or answered nonsense (down, hung, HTTP error, not the
  format). ERROR is not FAIL: it says nothing about the call.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import msgspec

from hotato.model.errors import InputError, UsageError

if TYPE_CHECKING:
    import httpx

PROMPT_VERSION = "hotato.judge.v1"

SYSTEM_PROMPT = (
    "You grade one criterion about a recorded phone call between a caller and a voice agent. "
    "Judge only from the evidence given; do not assume anything it does not show. Answer with "
    "exactly one JSON object and nothing else, in this form: "
    '{"verdict": "pass" | "fail" | "inconclusive", "rationale": "<one or two sentences that '
    'cite the evidence>"}. Answer "inconclusive" when the evidence does not settle the criterion.'
)


class JudgeStatus(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"
    ERROR = "ERROR"  # the judge could not be asked or answered nonsense; never a FAIL


class Provenance(msgspec.Struct, kw_only=True):
    model: str
    prompt_sha256: str
    input_sha256: str
    cached: bool


class RubricResult(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One criterion's result in the rubric lane. Never counted with the deterministic results."""

    id: str
    kind: str
    deterministic: bool  # always False; required so it is always written
    status: JudgeStatus
    reason: str
    human_required: bool
    dimension: str | None = None
    rationale: str | None = None
    provenance: Provenance | None = None


class Rubric(msgspec.Struct, frozen=True, kw_only=True):
    """A rubric assertion as the judge reads it. Other keys of the spec are ignored."""

    id: str
    kind: Literal["judge_rubric", "human_rubric"]
    criterion: str
    evidence: tuple[Literal["transcript", "trace"], ...] = ("transcript",)
    examples: tuple[Any, ...] = ()
    dimension: str | None = None


class _Answer(msgspec.Struct, forbid_unknown_fields=True):
    verdict: Literal["pass", "fail", "inconclusive"]
    rationale: str


class _CacheEntry(msgspec.Struct, forbid_unknown_fields=True):
    model: str
    prompt_sha256: str
    input_sha256: str
    verdict: Literal["pass", "fail", "inconclusive"]
    rationale: str


_ANSWER_STATUS = {
    "pass": JudgeStatus.PASS,
    "fail": JudgeStatus.FAIL,
    "inconclusive": JudgeStatus.INCONCLUSIVE,
}


# -- configuration --------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeConfig:
    """Where the judge lives and how it is asked. Checked when made: a bad config is exit 2."""

    endpoint: str
    model: str
    cache_dir: Path | None = None  # None: neither read nor write the cache
    egress_opt_in: bool = False  # a non-loopback endpoint needs it (and HTTPS)
    timeout: float = 30.0  # seconds, per connect / read / write
    api_key_env: str | None = None  # the NAME of an environment variable holding a bearer token
    max_input_bytes: int = 256_000  # larger evidence is INCONCLUSIVE, never silently cut

    def __post_init__(self) -> None:
        parts = urlsplit(self.endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError.one(f"judge endpoint {self.endpoint!r} is not an http(s) URL")
        if parts.username or parts.password:
            raise UsageError.one(
                "the judge endpoint carries credentials; put the key in an environment variable "
                "and name it instead"
            )
        if not _is_loopback(parts.hostname):
            if not self.egress_opt_in:
                raise UsageError.one(
                    f"judge endpoint {parts.hostname} is not on this machine; transcripts would "
                    "leave it. Pass --judge-egress-opt-in to allow that"
                )
            if parts.scheme != "https":
                raise UsageError.one("a judge endpoint off this machine must use https")
        if not self.model.strip():
            raise UsageError.one("the judge needs a model name (--judge-model)")
        if not self.timeout > 0:
            raise UsageError.one("the judge timeout must be a positive number of seconds")
        if self.api_key_env and self.api_key_env not in os.environ:
            raise UsageError.one(
                f"the environment variable {self.api_key_env} named for the judge's key is not set"
            )

    @property
    def url(self) -> str:
        base = self.endpoint.rstrip("/")
        if base.endswith("/chat/completions"):
            return base
        if base.endswith("/v1"):
            return base + "/chat/completions"
        return base + "/v1/chat/completions"


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# -- the judge ------------------------------------------------------------------------------------


@dataclass
class Judge:
    """Asks one configured judge about rubric criteria. One instance per run.

    Once the endpoint is found down or hung, the rest of the run's criteria are ERROR at once
    instead of each waiting out the timeout again.
    """

    config: JudgeConfig | None
    _unavailable: str | None = field(default=None, init=False)

    def evaluate(
        self,
        rubric: Rubric | Mapping[str, Any] | msgspec.Struct,
        transcript: Sequence[Any] | None,
        trace: Sequence[Mapping[str, Any]] | None,
    ) -> RubricResult:
        spec = as_rubric(rubric)
        result = _Builder(spec)
        if spec.kind == "human_rubric":
            return result.inconclusive(
                "human-judged criterion: only a signed human label settles it"
            )
        missing = [
            name
            for name, value in (("transcript", transcript), ("trace", trace))
            if name in spec.evidence and value is None
        ]
        if missing:
            return result.inconclusive(
                f"no {' or '.join(missing)} supplied; the criterion needs it, so no judge was asked"
            )
        if self.config is None:
            return result.inconclusive(
                "no judge configured (--judge-endpoint URL --judge-model NAME); advisory lane"
            )
        evidence = _evidence(spec, transcript, trace)
        evidence_bytes = _canonical(evidence)
        if len(evidence_bytes) > self.config.max_input_bytes:
            return result.inconclusive(
                f"the evidence is {len(evidence_bytes)} bytes, over the judge's limit of "
                f"{self.config.max_input_bytes}; no judge was asked"
            )
        prompt = {
            "version": PROMPT_VERSION,
            "system": SYSTEM_PROMPT,
            "criterion": spec.criterion,
            "examples": list(spec.examples),
        }
        prov = Provenance(
            model=self.config.model,
            prompt_sha256=_sha256(_canonical(prompt)),
            input_sha256=_sha256(evidence_bytes),
            cached=False,
        )
        cached = _cache_read(self.config.cache_dir, prov)
        if cached is not None:
            prov.cached = True
            return result.answered(cached.verdict, cached.rationale, prov)
        if self._unavailable is not None:
            return result.error(self._unavailable, prov)
        answer = self._ask(spec, evidence, prov)
        if isinstance(answer, str):
            return result.error(answer, prov)
        _cache_write(self.config.cache_dir, prov, answer)
        return result.answered(answer.verdict, answer.rationale, prov)

    def _ask(self, spec: Rubric, evidence: dict[str, Any], prov: Provenance) -> _Answer | str:
        """The judge's parsed answer, or why there is none."""
        import httpx

        assert self.config is not None
        config = self.config
        body = {
            "model": config.model,
            "temperature": 0,
            "stream": False,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": _user_message(spec, evidence)},
            ],
        }
        headers = {"content-type": "application/json"}
        if config.api_key_env:
            headers["authorization"] = f"Bearer {os.environ.get(config.api_key_env, '')}"
        try:
            response = httpx.post(
                config.url,
                content=msgspec.json.encode(body),
                headers=headers,
                timeout=httpx.Timeout(config.timeout),
                follow_redirects=False,
            )
        except httpx.TimeoutException:
            self._unavailable = f"the judge did not answer within {config.timeout:g}s"
            return self._unavailable
        except httpx.HTTPError as exc:
            self._unavailable = f"the judge at {_host(config.url)} is unreachable ({_why(exc)})"
            return self._unavailable
        return _parse(response)


def evaluate_rubrics(
    rubrics: Iterable[Rubric | Mapping[str, Any] | msgspec.Struct],
    transcript: Sequence[Any] | None,
    trace: Sequence[Mapping[str, Any]] | None,
    config: JudgeConfig | None,
) -> list[RubricResult]:
    """The runner's entry point: every rubric criterion of a test, in order."""
    judge = Judge(config)
    return [judge.evaluate(r, transcript, trace) for r in rubrics]


def as_rubric(value: Rubric | Mapping[str, Any] | msgspec.Struct) -> Rubric:
    """A rubric from a dict or a decoded spec (`kinds.rubric.JudgeRubric` and the like)."""
    if isinstance(value, Rubric):
        return value
    data = msgspec.to_builtins(value) if isinstance(value, msgspec.Struct) else dict(value)
    try:
        return msgspec.convert(data, Rubric)
    except msgspec.ValidationError as exc:
        raise InputError.one(f"not a rubric criterion ({exc})", path="$", kind="rubric") from None


@dataclass(frozen=True)
class _Builder:
    spec: Rubric

    def _make(self, status: JudgeStatus, reason: str, **kw: Any) -> RubricResult:
        return RubricResult(
            id=self.spec.id,
            kind=self.spec.kind,
            deterministic=False,
            status=status,
            reason=reason,
            human_required=self.spec.kind == "human_rubric",
            dimension=self.spec.dimension,
            **kw,
        )

    def inconclusive(self, reason: str) -> RubricResult:
        return self._make(JudgeStatus.INCONCLUSIVE, reason)

    def error(self, reason: str, prov: Provenance) -> RubricResult:
        return self._make(JudgeStatus.ERROR, reason, provenance=prov)

    def answered(self, verdict: str, rationale: str, prov: Provenance) -> RubricResult:
        status = _ANSWER_STATUS[verdict]
        reason = {
            JudgeStatus.PASS: "the judge found the criterion met (advisory)",
            JudgeStatus.FAIL: "the judge found the criterion not met (advisory)",
            JudgeStatus.INCONCLUSIVE: "the judge said the evidence does not settle it",
        }[status]
        return self._make(status, reason, rationale=rationale, provenance=prov)


# -- prompt and answer ----------------------------------------------------------------------------


def _evidence(
    spec: Rubric, transcript: Sequence[Any] | None, trace: Sequence[Mapping[str, Any]] | None
) -> dict[str, Any]:
    """Only the sources the criterion names: a transcript-only rubric never sends the trace."""
    evidence: dict[str, Any] = {}
    if "transcript" in spec.evidence and transcript is not None:
        evidence["transcript"] = [_turn(t) for t in getattr(transcript, "turns", transcript)]
    if "trace" in spec.evidence and trace is not None:
        evidence["trace"] = [dict(span) for span in trace]
    return evidence


def _turn(turn: Any) -> dict[str, str]:
    if isinstance(turn, Mapping):
        return {"role": str(turn.get("role", "")), "text": str(turn.get("text", ""))}
    return {"role": str(turn.role), "text": str(turn.text)}


def _user_message(spec: Rubric, evidence: dict[str, Any]) -> str:
    parts = [f"Criterion: {spec.criterion}"]
    if spec.examples:
        parts.append("Graded examples (JSON):\n" + _canonical(list(spec.examples)).decode())
    parts.append("Evidence (JSON):\n" + _canonical(evidence).decode())
    return "\n\n".join(parts)


def _parse(response: httpx.Response) -> _Answer | str:
    if response.status_code != 200:
        return f"the judge answered HTTP {response.status_code}"
    try:
        content = msgspec.json.decode(response.content)["choices"][0]["message"]["content"]
    except (msgspec.DecodeError, KeyError, IndexError, TypeError):
        return "the judge's response is not a chat completion"
    if not isinstance(content, str):
        return "the judge's response is not a chat completion"
    try:
        answer = msgspec.json.decode(content.strip(), type=_Answer)
    except msgspec.DecodeError as exc:
        return f"the judge's answer is not the required JSON {{verdict, rationale}} ({exc})"
    if not answer.rationale.strip():
        return "the judge gave a verdict without a rationale"
    return answer


# -- cache ----------------------------------------------------------------------------------------


def _cache_path(cache_dir: Path, prov: Provenance) -> Path:
    key = _sha256(
        _canonical(
            {
                "version": PROMPT_VERSION,
                "model": prov.model,
                "temperature": 0,
                "prompt_sha256": prov.prompt_sha256,
                "input_sha256": prov.input_sha256,
            }
        )
    )
    return cache_dir / f"{key}.json"


def _cache_read(cache_dir: Path | None, prov: Provenance) -> _CacheEntry | None:
    if cache_dir is None:
        return None
    try:
        entry = msgspec.json.decode(_cache_path(cache_dir, prov).read_bytes(), type=_CacheEntry)
    except (OSError, msgspec.DecodeError):
        return None  # absent or unreadable: ask again (the cache is a convenience, not evidence)
    same = (entry.model, entry.prompt_sha256, entry.input_sha256) == (
        prov.model,
        prov.prompt_sha256,
        prov.input_sha256,
    )
    return entry if same else None


def _cache_write(cache_dir: Path | None, prov: Provenance, answer: _Answer) -> None:
    if cache_dir is None:
        return
    entry = _CacheEntry(
        model=prov.model,
        prompt_sha256=prov.prompt_sha256,
        input_sha256=prov.input_sha256,
        verdict=answer.verdict,
        rationale=answer.rationale,
    )
    target = _cache_path(cache_dir, prov)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        tmp.write_bytes(msgspec.json.encode(entry) + b"\n")
        os.replace(tmp, target)
    except OSError as exc:
        raise InputError.one(
            f"cannot write the judge cache: {exc.strerror}", file=str(cache_dir)
        ) from None


# -- helpers --------------------------------------------------------------------------------------


def _canonical(value: Any) -> bytes:
    return msgspec.json.encode(value, order="sorted")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _host(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)


def _why(exc: Exception) -> str:
    return type(exc).__name__ if not str(exc) else f"{type(exc).__name__}: {exc}"


__all__ = [
    "Judge",
    "JudgeConfig",
    "JudgeStatus",
    "Provenance",
    "Rubric",
    "RubricResult",
    "as_rubric",
    "evaluate_rubrics",
]
