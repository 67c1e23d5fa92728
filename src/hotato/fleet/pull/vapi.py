"""Vapi: `GET /call` returns a JSON array of Call objects, newest first, `limit` at a time;
the next page asks for calls created before the oldest one seen (`createdAtLt`)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from hotato.fleet.pull._http import Http
from hotato.fleet.pull._source import Called, Source, call_id_of
from hotato.model.errors import InputError


def _iso(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def pages(http: Http, since: datetime, until: datetime | None, limit: int) -> Iterator[list[Any]]:
    before = _iso(until) if until is not None else None
    while True:
        params: dict[str, Any] = {"limit": limit, "createdAtGe": _iso(since)}
        if before is not None:
            params["createdAtLt"] = before
        page = http.call("GET", "/call", params=params)
        if not isinstance(page, list):
            raise InputError.one("GET /call: expected a JSON array of calls")
        if not page:
            return
        yield page
        oldest = min(str(c.get("createdAt", "")) for c in page)
        if len(page) < limit or not oldest:
            return
        if before is not None and oldest >= before:  # not older: the same page again, forever
            raise InputError.one(
                "GET /call: the next page was not older than the last (createdAtLt ignored?); "
                "stopping rather than paging forever (the calls written so far are kept)"
            )
        before = oldest


def identify(call: dict[str, Any]) -> Called:
    return Called(call_id_of(call.get("id")), call.get("assistantId"), call.get("startedAt"))


VAPI = Source("vapi", "https://api.vapi.ai", "VAPI_API_KEY", pages, identify)
