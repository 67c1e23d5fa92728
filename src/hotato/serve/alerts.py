"""`--alert URL`: a JSON POST with a Slack-compatible `text` when a call FAILs an assertion named
by `--alert-on`, or when an assertion's failure rate over the last N graded calls reaches
`--alert-rate` (sent when it crosses, again only after it has fallen back under). The URL is a
secret of its own (a Slack webhook URL carries its token): it is never logged or shown."""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

log = logging.getLogger("hotato.serve")


class Alerter:
    def __init__(
        self,
        url: str,
        on: tuple[str, ...],
        rate: float | None,
        window: int,
        page: str | None = None,
    ) -> None:
        self.url = url
        self.on = frozenset(on)
        self.rate = rate
        self.window: deque[frozenset[str]] = deque(maxlen=window)
        self.over: set[str] = set()
        self.page = page

    def observe(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        """The alerts one graded call raises."""
        if row["status"] != "graded":
            return []
        failed = frozenset(row["failed"])
        out = []
        hit = sorted(failed & self.on)
        if hit:
            out.append(
                {
                    "text": f"hotato: call {row['call_id']} FAILED {', '.join(hit)}",
                    "call_id": row["call_id"],
                    "assertions": hit,
                    "kind": "call",
                }
            )
        if self.rate is not None:
            self.window.append(failed)
            if len(self.window) == self.window.maxlen:
                out += self._rates()
        return out

    def _rates(self) -> list[dict[str, Any]]:
        counts: dict[str, int] = {}
        for failed in self.window:
            for a in failed:
                counts[a] = counts.get(a, 0) + 1
        out = []
        n = len(self.window)
        for assertion in sorted(set(counts) | self.over):
            rate = counts.get(assertion, 0) / n
            assert self.rate is not None
            if rate >= self.rate and assertion not in self.over:
                self.over.add(assertion)
                out.append(
                    {
                        "text": f"hotato: {assertion} failed {rate:.0%} of the last {n} calls "
                        f"(threshold {self.rate:.0%})",
                        "assertions": [assertion],
                        "rate": rate,
                        "window": n,
                        "kind": "rate",
                    }
                )
            elif rate < self.rate:
                self.over.discard(assertion)
        return out

    async def send(self, client: Any, alert: dict[str, Any]) -> bool:
        try:
            answer = await client.post(self.url, json=alert, timeout=10.0)
        except Exception as exc:  # an unreachable receiver never stops grading
            log.warning("alert not delivered: %s", type(exc).__name__)
            return False
        if answer.status_code >= 300:
            log.warning("alert not delivered: the receiver answered %s", answer.status_code)
            return False
        return True
