"""http_result: did the trace record an HTTP exchange with this outcome? hotato never sends it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._regex import matching_lines, pattern_problems
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


class Exchanges:
    """Every recorded exchange, its fields read once: method (upper case), URL and status code
    as plain values, indexed by method and by URL; bodies decoded when first compared."""

    def __init__(self, trace: Trace) -> None:
        self.spans = trace.by_type.get("http_exchange", [])
        self.methods: list[str] = []
        self.statuses: list[int | None] = []
        self.by_method: dict[str, list[int]] = {}
        self.by_url: dict[str, list[int]] = {}
        for i, span in enumerate(self.spans):
            method = str(span.read("method") or "").upper()
            url = str(span.read("url") or "")
            self.methods.append(method)
            self.statuses.append(_status(span))
            self.by_method.setdefault(method, []).append(i)
            self.by_url.setdefault(url, []).append(i)
        self.urls = list(self.by_url)
        self._bodies: dict[int, Any] = {}

    def body(self, i: int) -> Any:
        if i not in self._bodies:
            self._bodies[i] = as_object(self.spans[i].read("response"))
        return self._bodies[i]

    def with_url(self, trace: Trace, pattern: str) -> set[int]:
        """The exchanges whose URL matches `pattern`: the pattern runs once per run over the
        distinct URLs (joined, as transcript turns are), however many assertions share it."""

        def build() -> set[int]:
            hits = matching_lines(trace, "http_urls", self.urls, pattern)
            return {i for u in hits for i in self.by_url[self.urls[u]]}

        return derived(trace, ("http_url", pattern), build)


def _status(span: Span) -> int | None:
    code = span.read("status_code")
    if code is None and isinstance(span.status, int):
        code = span.status
    return code if isinstance(code, int) and not isinstance(code, bool) else None


@kind(HttpResult, reads={Source.TRACE}, validate=_validate)
def check(spec: HttpResult, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    trace = ev.trace
    ex = derived(trace, "http_exchanges", lambda: Exchanges(trace))
    method = spec.method.upper() if spec.method is not None else None
    wanted = (
        None
        if spec.status is None
        else (spec.status if isinstance(spec.status, list) else [spec.status])
    )
    # Start from the narrowest index the spec names, then hold each candidate to the rest.
    urls = ex.with_url(trace, spec.url_matches) if spec.url_matches is not None else None
    pool: Sequence[int] = range(len(ex.spans))
    if method is not None:
        pool = ex.by_method.get(method, [])
    if urls is not None and len(urls) < len(pool):
        pool = sorted(urls)
    matched = [
        ex.spans[i]
        for i in pool
        if (method is None or ex.methods[i] == method)
        and (urls is None or i in urls)
        and (wanted is None or ex.statuses[i] in wanted)
        and (spec.response_subset is None or subset(spec.response_subset, ex.body(i)))
    ]
    if matched:
        return Verdict.passed(
            f"{len(matched)} recorded exchange(s) match", evidence=span_ids(matched)
        )
    total = len(ex.spans)
    return Verdict.failed(f"none of the {total} recorded HTTP exchange(s) match", observed=total)
