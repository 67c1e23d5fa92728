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

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import msgspec

from hotato._net import Overdue, TooLarge, fetch, is_loopback
from hotato._secrets import credential_keys, value_problem
from hotato.conversation import _judge_cache as cache
from hotato.conversation._judge_prompt import (
    SYSTEM_PROMPT,
    Answer,
    canonical,
    evidence_doc,
    parse_completion,
    prompt_digest,
    sha256,
    user_message,
)
from hotato.kinds.rubric import RubricEvidence, evidence_sources
from hotato.model.errors import InputError, UsageError
from hotato.model.rubric import JudgeStatus, Provenance, RubricResult

if TYPE_CHECKING:
    import httpx

default_cache_dir = cache.default_cache_dir  # where verdicts are kept unless told otherwise


class Rubric(msgspec.Struct, frozen=True, kw_only=True):
    """A rubric assertion as the judge reads it. Other keys of the spec are ignored."""

    id: str
    kind: Literal["judge_rubric", "human_rubric"]
    criterion: str
    evidence: tuple[RubricEvidence, ...] = ("transcript",)
    examples: tuple[Any, ...] = ()
    dimension: str | None = None


RubricLike = Rubric | Mapping[str, Any] | msgspec.Struct


@dataclass(frozen=True)
class JudgeConfig:
    """Where the judge lives and how it is asked. Checked when made: a bad config is exit 2."""

    endpoint: str
    model: str
    cache_dir: Path | None = None  # None: neither read nor write the cache
    egress_opt_in: bool = False  # a non-loopback endpoint needs it (and HTTPS)
    timeout: float = 30.0  # seconds: one deadline for the whole request
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
        if secret_keys := credential_keys(parts.query):
            raise UsageError.one(
                f"the judge endpoint carries a credential in its query ({', '.join(secret_keys)}); "
                "put the key in an environment variable and name it (--judge-api-key-env)"
            )
        if not is_loopback(parts.hostname):
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
        if self.api_key_env and (
            why := value_problem(self.api_key_env, os.environ[self.api_key_env])
        ):
            raise UsageError.one(why)

    @property
    def url(self) -> str:
        base = self.endpoint.rstrip("/")
        if base.endswith("/chat/completions"):
            return base
        if base.endswith("/v1"):
            return base + "/chat/completions"
        return base + "/v1/chat/completions"


@dataclass
class Judge:
    """Asks one configured judge about rubric criteria. One instance per run.

    Once the endpoint is found down or hung, the rest of the run's criteria are ERROR at once
    instead of each waiting out the timeout again. One HTTP client serves the run (making one
    costs ~0.1 s); `close()` it, or use the Judge as a context manager.
    """

    config: JudgeConfig | None
    _unavailable: str | None = field(default=None, init=False)
    _client: httpx.Client | None = field(default=None, init=False)

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def evaluate(self, rubric: RubricLike, transcript: Any, trace: Any) -> RubricResult:
        """One criterion. `transcript`: a list of `{role, text}` or a hotato Transcript;
        `trace`: a list of span dicts or a hotato Trace; None means not supplied."""
        spec = as_rubric(rubric)
        result = _Results(spec)
        if spec.kind == "human_rubric":
            return result.inconclusive("only a signed human label settles this criterion")
        wanted = evidence_sources(spec.evidence)
        missing = [
            name
            for name, value in (("transcript", transcript), ("trace", trace))
            if name in wanted and value is None
        ]
        if missing:
            return result.inconclusive(
                f"no {' or '.join(missing)} supplied; the criterion needs it, so no judge was asked"
            )
        config = self.config
        if config is None:
            return result.inconclusive(
                "no judge configured (--judge-endpoint URL --judge-model NAME); advisory lane"
            )
        evidence = evidence_doc(
            transcript if "transcript" in wanted else None,
            trace if "trace" in wanted else None,
        )
        evidence_bytes = canonical(evidence)
        if len(evidence_bytes) > config.max_input_bytes:
            return result.inconclusive(
                f"the evidence is {len(evidence_bytes)} bytes, over the judge's limit of "
                f"{config.max_input_bytes}; no judge was asked"
            )
        prov = Provenance(
            model=config.model,
            prompt_sha256=prompt_digest(spec.criterion, spec.examples),
            input_sha256=sha256(evidence_bytes),
            cached=False,
        )
        key = (config.url, config.model, prov.prompt_sha256, prov.input_sha256)
        if config.cache_dir is not None and (hit := cache.read(config.cache_dir, *key)):
            prov.cached = True
            return result.answered(hit, prov)
        if self._unavailable is not None:
            return result.error(self._unavailable, prov)
        answer = self._ask(config, user_message(spec.criterion, spec.examples, evidence))
        if isinstance(answer, str):
            return result.error(answer, prov)
        if config.cache_dir is not None:
            cache.write(config.cache_dir, *key, answer)
        return result.answered(answer, prov)

    def _ask(self, config: JudgeConfig, message: str) -> Answer | str:
        """The judge's parsed answer, or why there is none."""
        import httpx

        body = {
            "model": config.model,
            "temperature": 0,
            "stream": False,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": message},
            ],
        }
        headers = {"content-type": "application/json"}
        if config.api_key_env:
            headers["authorization"] = f"Bearer {os.environ.get(config.api_key_env, '')}"
        if self._client is None:
            # The environment's proxies and .netrc are never consulted: the host the transcript
            # goes to is the endpoint's host, the one the egress rule was checked against.
            self._client = httpx.Client(
                timeout=httpx.Timeout(config.timeout), trust_env=False, follow_redirects=False
            )
        try:
            response = fetch(
                self._client,
                "POST",
                config.url,
                deadline_s=config.timeout,
                content=msgspec.json.encode(body),
                headers=headers,
            )
        except (httpx.TimeoutException, Overdue):
            self._unavailable = f"the judge did not answer within {config.timeout:g}s"
            return self._unavailable
        except TooLarge as exc:
            return f"the judge's answer is too large ({exc})"
        except httpx.HTTPError as exc:
            where = urlsplit(config.url).netloc
            self._unavailable = f"the judge at {where} is unreachable ({type(exc).__name__})"
            return self._unavailable
        return parse_completion(response.status_code, response.content)


def evaluate_rubrics(
    rubrics: Iterable[RubricLike], transcript: Any, trace: Any, config: JudgeConfig | None
) -> list[RubricResult]:
    """Every rubric criterion of a test, in document order, with one Judge for the run."""
    with Judge(config) as judge:
        return [judge.evaluate(r, transcript, trace) for r in rubrics]


def rubric_lane(config: JudgeConfig | None) -> Callable[[Any, Any], list[RubricResult]]:
    """A rubric lane for the runner: `lane(test, sources)` judges `test.rubric` over
    `sources.transcript` and `sources.trace`."""

    def lane(test: Any, sources: Any) -> list[RubricResult]:
        return evaluate_rubrics(test.rubric, sources.transcript, sources.trace, config)

    return lane


def as_rubric(value: RubricLike) -> Rubric:
    """A rubric from a dict or a decoded spec (`kinds.rubric.JudgeRubric` and the like)."""
    if isinstance(value, Rubric):
        return value
    data = msgspec.to_builtins(value) if isinstance(value, msgspec.Struct) else dict(value)
    try:
        return msgspec.convert(data, Rubric)
    except msgspec.ValidationError as exc:
        raise InputError.one(f"not a rubric criterion ({exc})", path="$", kind="rubric") from None


@dataclass(frozen=True)
class _Results:
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

    def answered(self, answer: Answer, prov: Provenance) -> RubricResult:
        status, reason = _ANSWERED[answer.verdict]
        return self._make(status, reason, rationale=answer.rationale, provenance=prov)


_ANSWERED = {
    "pass": (JudgeStatus.PASS, "the judge found the criterion met (advisory)"),
    "fail": (JudgeStatus.FAIL, "the judge found the criterion not met (advisory)"),
    "inconclusive": (JudgeStatus.INCONCLUSIVE, "the judge said the evidence does not settle it"),
}


__all__ = [
    "Judge",
    "JudgeConfig",
    "JudgeStatus",
    "Provenance",
    "Rubric",
    "RubricResult",
    "as_rubric",
    "evaluate_rubrics",
    "rubric_lane",
]
