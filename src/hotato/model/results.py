"""What a check says, and what a run reports."""

from __future__ import annotations

from typing import Any

import msgspec

from hotato.model.status import Status


class Verdict(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A kind's answer for one assertion, before the engine stamps id, kind and dimension."""

    status: Status
    reason: str = ""
    observed: Any = msgspec.UNSET
    evidence: list[str] = []  # span ids (`s_3`) and turn ids (`t_2`) the verdict rests on
    details: dict[str, Any] = {}
    skipped: bool = False

    @classmethod
    def passed(cls, reason: str = "", **kw: Any) -> Verdict:
        return cls(status=Status.PASS, reason=reason, **kw)

    @classmethod
    def failed(cls, reason: str, **kw: Any) -> Verdict:
        return cls(status=Status.FAIL, reason=reason, **kw)

    @classmethod
    def inconclusive(cls, reason: str, **kw: Any) -> Verdict:
        return cls(status=Status.INCONCLUSIVE, reason=reason, **kw)


class Result(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One assertion's graded result as it appears in every output."""

    id: str
    kind: str
    deterministic: bool
    status: Status
    reason: str = ""
    dimension: str | None = None
    skipped: bool = False
    observed: Any = msgspec.UNSET
    evidence: list[str] = []
    details: dict[str, Any] = {}
