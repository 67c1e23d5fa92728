"""http_result: did the trace record an HTTP exchange with this outcome? hotato never sends it."""

from __future__ import annotations

from typing import Any

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._regex import compile_pattern, encoded, pattern_problems
from hotato.kinds._trace_util import as_object, derived, span_ids
from hotato.model.evidence import Span, Trace
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
    problems = pattern_problems(spec.url_matches)
    codes = spec.status if isinstance(spec.status, list) else [spec.status]
    if isinstance(spec.status, list) and not spec.status:
        problems.append("'status' lists no HTTP status; leave it out to accept any")
    bad = [c for c in codes if c is not None and not 100 <= c <= 599]
    if bad:
        problems.append(f"'status' must be HTTP statuses from 100 to 599, got {bad}")
    return problems


def _status(span: Span) -> int | None:
    code = span.read("status_code")
    if code is None and isinstance(span.status, int):
        code = span.status
    return code if isinstance(code, int) and not isinstance(code, bool) else None


Exchange = tuple[str, int | None, Span]  # method (upper case), status code, the span


def _by_url(trace: Trace) -> dict[str, list[Exchange]]:
    """Every recorded exchange, read once and grouped by URL: a check runs its URL pattern
    once per distinct URL, and reads method and status as plain values."""
    groups: dict[str, list[Exchange]] = {}
    for span in trace.by_type.get("http_exchange", []):
        method = span.read("method")
        url = span.read("url") or ""
        groups.setdefault(str(url), []).append((str(method or "").upper(), _status(span), span))
    return groups


def _body(span: Span) -> Any:
    return as_object(span.read("response"))


@kind(HttpResult, reads={Source.TRACE}, validate=_validate)
def check(spec: HttpResult, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    trace = ev.trace
    groups = derived(trace, "http_result", lambda: _by_url(trace))
    pattern = compile_pattern(spec.url_matches) if spec.url_matches is not None else None
    method = spec.method.upper() if spec.method is not None else None
    wanted = (
        None
        if spec.status is None
        else (spec.status if isinstance(spec.status, list) else [spec.status])
    )
    matched: list[Span] = []
    for url, exchanges in groups.items():
        if pattern is not None and not pattern.search(encoded(url)):
            continue
        matched += [
            span
            for got_method, status, span in exchanges
            if (method is None or got_method == method)
            and (wanted is None or status in wanted)
            and (spec.response_subset is None or subset(spec.response_subset, _body(span)))
        ]
    matched.sort(key=lambda s: s.index)
    if matched:
        return Verdict.passed(
            f"{len(matched)} recorded exchange(s) match", evidence=span_ids(matched)
        )
    total = sum(len(exchanges) for exchanges in groups.values())
    return Verdict.failed(f"none of the {total} recorded HTTP exchange(s) match", observed=total)
