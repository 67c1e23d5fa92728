"""Vapi: `GET /call` returns a JSON array of Call objects, newest first, `limit` at a time.

The next page asks for calls created at or before the oldest one seen (`createdAtLe`), and
leaves out the calls of that instant already seen: calls sharing a `createdAt` across a page
boundary are all listed (asking for calls strictly older skipped them). A full page holding
no call not seen before (more calls at one instant than a page holds, or a server ignoring
the cursor) stops the pull rather than paging forever."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any, NoReturn

from hotato.fleet.pull._http import Http
from hotato.fleet.pull._source import Called, Source, call_id_of
from hotato.model.errors import InputError


def _iso(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def _created(call: Any) -> str:
    return str(call.get("createdAt", "")) if isinstance(call, dict) else ""


def _id(call: Any) -> Any:
    return call.get("id") if isinstance(call, dict) else None


def pages(http: Http, since: datetime, until: datetime | None, limit: int) -> Iterator[list[Any]]:
    at: str | None = None  # the cursor: the oldest createdAt seen
    seen_at: set[Any] = set()  # ids of the calls created at that instant, already listed
    while True:
        params: dict[str, Any] = {"limit": limit, "createdAtGe": _iso(since)}
        if at is not None:
            params["createdAtLe"] = at
        elif until is not None:
            params["createdAtLt"] = _iso(until)
        page = http.call("GET", "/call", params=params)
        if not isinstance(page, list):
            raise InputError.one("GET /call: expected a JSON array of calls")
        if not page:
            return
        if at is not None and max(_created(c) for c in page) > at:
            _stuck(limit, at)  # a call newer than the cursor: createdAtLe was ignored
        new = [c for c in page if not (_created(c) == at and _id(c) in seen_at)]
        if new:
            yield new
        oldest = min(_created(c) for c in page)
        if len(page) < limit or not oldest:
            return
        if not new:
            _stuck(limit, at)
        here = {_id(c) for c in page if _created(c) == oldest}
        seen_at = seen_at | here if oldest == at else here
        at = oldest


def _stuck(limit: int, at: str | None) -> NoReturn:
    raise InputError.one(
        f"GET /call: the next page was not older than the last and held no call not "
        f"seen before (more than {limit} calls created at {at}, or createdAtLe "
        "ignored); stopping rather than paging forever (pull again with a larger "
        "--page-size; the calls written so far are kept)"
    )


def identify(call: dict[str, Any]) -> Called:
    return Called(call_id_of(call.get("id")), call.get("assistantId"), call.get("startedAt"))


VAPI = Source("vapi", "https://api.vapi.ai", "VAPI_API_KEY", pages, identify)
