"""http_result: did the trace record an HTTP exchange with this outcome? hotato never sends it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from heapq import merge
from operator import attrgetter, itemgetter
from typing import Any

import msgspec

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._payloads import Payloads
from hotato.kinds._regex import matching_lines, pattern_problems
from hotato.kinds._trace_util import EVIDENCE_LIMIT, as_object, derived, span_ids
from hotato.model.evidence import Span, Trace
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
    as plain values, indexed by method, by status and by URL; bodies decoded when first
    compared. Each distinct question (method, statuses, URL pattern) is answered once."""

    def __init__(self, trace: Trace) -> None:
        self.spans = trace.by_type.get("http_exchange", [])
        self.methods: list[str] = []
        self.statuses: list[int | None] = []
        self.by_method: dict[str, list[int]] = {}
        self.by_status: dict[int | None, list[int]] = {}
        self.by_url: dict[str, list[int]] = {}
        for i, span in enumerate(self.spans):
            if span.attributes_raw:  # the fields may sit under attributes, under other names
                method, url, code = span.read("method"), span.read("url"), _status(span)
            else:  # only the span's own fields: what the field reader would find, read directly
                method, url, code = span.method, span.url, span.status_code
                if code is None and type(span.status) is int:
                    code = span.status
            method = str(method or "").upper()
            self.methods.append(method)
            self.statuses.append(code)
            self.by_method.setdefault(method, []).append(i)
            self.by_status.setdefault(code, []).append(i)
            self.by_url.setdefault(str(url or ""), []).append(i)
        self.urls = list(self.by_url)

    def with_body(self, trace: Trace, expected: dict[str, Any]) -> set[int]:
        """The exchanges whose response contains `expected`, once per distinct body asked:
        the responses' raw bytes are searched for what a match must hold (kinds._payloads)."""

        def bodies() -> Payloads:
            spans = self.spans
            # the field reader's response: `response`, else (absent or null) the `result`
            raws = [s.response_raw or s.result_raw for s in spans]
            # decoded, not searched: a null response (the result is read), or none at the top
            # level beside attributes (which may hold `response` or `response_body` first)
            loose = [
                i
                for i, s in enumerate(spans)
                if (s.response_raw and s.result_raw) or (s.attributes_raw and not s.response_raw)
            ]
            return Payloads(spans, raws, _body, _READS_BODY, (), loose)

        found = derived(trace, "http_bodies", bodies)
        key = ("http_body", msgspec.json.encode(expected))
        return derived(trace, key, lambda: set(found.matching(expected)))

    def with_url(self, trace: Trace, pattern: str) -> set[int]:
        """The exchanges whose URL matches `pattern`: the pattern runs once per run over the
        distinct URLs (joined, as transcript turns are), however many assertions share it."""

        def build() -> set[int]:
            hits = matching_lines(trace, "http_urls", self.urls, pattern)
            return {i for u in hits for i in self.by_url[self.urls[u]]}

        return derived(trace, ("http_url", pattern), build)

    def matching(
        self, trace: Trace, method: str | None, wanted: list[int] | None, url: str | None
    ) -> list[int]:
        """The exchanges with this method, one of these statuses and a URL matching `url`
        (each None: any), ascending: read from the narrowest index, held to the others."""

        def build() -> list[int]:
            urls = self.with_url(trace, url) if url is not None else None
            codes = None if wanted is None else set(wanted)
            # (size, pool): a pool is built only when it is the narrowest
            pools: list[tuple[int, Callable[[], Iterable[int]]]] = []
            if method is not None:
                mine = self.by_method.get(method, [])
                pools.append((len(mine), lambda: mine))
            if codes is not None:
                lists = [self.by_status.get(c, []) for c in codes]
                pools.append((sum(map(len, lists)), lambda: merge(*lists)))
            if urls is not None:
                pools.append((len(urls), lambda: sorted(urls)))
            pool = min(pools, key=itemgetter(0))[1]() if pools else range(len(self.spans))
            methods, statuses = self.methods, self.statuses
            return [
                i
                for i in pool
                if (method is None or methods[i] == method)
                and (codes is None or statuses[i] in codes)
                and (urls is None or i in urls)
            ]

        key = ("http_match", method, None if wanted is None else tuple(wanted), url)
        return derived(trace, key, build)


_READS_BODY = attrgetter("response_raw", "result_raw", "attributes_raw")  # what _body reads


def _body(span: Span) -> Any:
    return as_object(span.read("response"))


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
    found = ex.matching(trace, method, wanted, spec.url_matches)
    if spec.response_subset is not None:
        with_body = ex.with_body(trace, spec.response_subset)
        if len(with_body) < len(found):
            among = set(found)
            found = sorted(i for i in with_body if i in among)
        else:
            found = [i for i in found if i in with_body]
    if found:
        first = [ex.spans[i] for i in found[:EVIDENCE_LIMIT]]
        return Verdict.passed(f"{len(found)} recorded exchange(s) match", evidence=span_ids(first))
    total = len(ex.spans)
    return Verdict.failed(f"none of the {total} recorded HTTP exchange(s) match", observed=total)
