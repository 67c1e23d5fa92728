"""http_result: did the trace record an HTTP exchange with this outcome? hotato never sends it."""

from __future__ import annotations

from typing import Any

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._regex import compile_pattern, encoded, pattern_problems
from hotato.kinds._trace_util import as_object, span_ids
from hotato.model.evidence import Span
from hotato.model.match import subset
from hotato.model.results import Verdict
from hotato.model.status import Source


class HttpResult(Spec, tag="http_result", frozen=True):
    """Reads `http_exchange` spans recorded in the trace.

    Passes when an exchange matches `method`, `url_matches` (a pattern), `status` (one code or a
    list) and carries a response containing `response_subset`.
    Fails when the trace was read and no recorded exchange matches.
    Inconclusive when no trace was supplied.

    Example:
        - id: crm-updated
          kind: http_result
          method: POST
          url_matches: "/v1/tickets$"
          status: [200, 201]
          response_subset: {state: open}
    """

    method: str | None = None
    url_matches: str | None = None
    status: int | list[int] | None = None
    response_subset: dict[str, Any] | None = None


def _validate(spec: HttpResult) -> list[str]:
    return pattern_problems(spec.url_matches)


def _status(span: Span) -> int | None:
    if span.status_code is not None:
        return span.status_code
    if isinstance(span.status, int):
        return span.status
    code = span.attributes().get("http.response.status_code")
    return code if isinstance(code, int) else None


def _matches(spec: HttpResult, span: Span) -> bool:
    method = span.method or span.attributes().get("http.request.method")
    if spec.method is not None and (method or "").upper() != spec.method.upper():
        return False
    if spec.url_matches is not None:
        url = span.url or span.attributes().get("url.full") or ""
        if not compile_pattern(spec.url_matches).search(encoded(str(url))):
            return False
    if spec.status is not None:
        wanted = spec.status if isinstance(spec.status, list) else [spec.status]
        if _status(span) not in wanted:
            return False
    if spec.response_subset is not None:
        body = span.response() if span.response_raw else span.result()
        if not subset(spec.response_subset, as_object(body)):
            return False
    return True


@kind(HttpResult, reads={Source.TRACE}, validate=_validate)
def check(spec: HttpResult, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    exchanges = ev.trace.by_type.get("http_exchange", [])
    matched = [s for s in exchanges if _matches(spec, s)]
    if matched:
        return Verdict.passed(
            f"{len(matched)} recorded exchange(s) match", evidence=span_ids(matched)
        )
    return Verdict.failed(
        f"none of the {len(exchanges)} recorded HTTP exchange(s) match", observed=len(exchanges)
    )
