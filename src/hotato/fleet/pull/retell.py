"""Retell: `POST /v3/list-calls` with filter_criteria (start_timestamp in epoch ms), a limit and
the pagination_key of the previous answer; it answers {items, has_more, pagination_key}."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from hotato.fleet.pull._http import Http
from hotato.fleet.pull._source import Called, Source, call_id_of
from hotato.model.errors import InputError


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def pages(http: Http, since: datetime, until: datetime | None, limit: int) -> Iterator[list[Any]]:
    window: dict[str, Any] = (
        {"op": "bt", "type": "range", "value": [_ms(since), _ms(until)]}
        if until is not None
        else {"op": "ge", "type": "number", "value": _ms(since)}
    )
    body: dict[str, Any] = {
        "filter_criteria": {"start_timestamp": window},
        "limit": limit,
        "sort_order": "ascending",
    }
    keys: set[str] = set()
    while True:
        answer = http.call("POST", "/v3/list-calls", json=body)
        if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
            raise InputError.one("POST /v3/list-calls: expected {items, has_more, ...}")
        if answer["items"]:
            yield answer["items"]
        key = answer.get("pagination_key")
        if not answer.get("has_more") or not key:
            return
        if str(key) in keys:  # a key given before would page through the same calls forever
            raise InputError.one(
                "POST /v3/list-calls: the API gave a pagination_key it gave before; stopping "
                "rather than paging forever (the calls written so far are kept)"
            )
        keys.add(str(key))
        body["pagination_key"] = key


def identify(call: dict[str, Any]) -> Called:
    start = call.get("start_timestamp")
    started = None
    if isinstance(start, int | float) and not isinstance(start, bool):
        try:
            started = datetime.fromtimestamp(start / 1000, UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):  # not a time: the call keeps no start
            started = None
    return Called(call_id_of(call.get("call_id")), call.get("agent_id"), started)


RETELL = Source("retell", "https://api.retellai.com", "RETELL_API_KEY", pages, identify)
