"""Errors that carry a place. Every user-facing refusal is one of these (exit 2)."""

from __future__ import annotations

import msgspec


class Problem(msgspec.Struct, frozen=True):
    """One thing wrong with an input, and where: `file:line:col $.path (kind): message`."""

    message: str
    file: str | None = None
    line: int | None = None  # 1-based
    col: int | None = None  # 1-based
    path: str | None = None  # JSON path, `$.assertions[3].count`
    kind: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.col is not None:
                    where += f":{self.col}"
        parts = [p for p in (where, self.path) if p]
        if self.kind:
            parts.append(f"({self.kind})")
        head = " ".join(parts)
        return f"{head}: {self.message}" if head else self.message


class InputError(Exception):
    """Malformed or unusable input. Exit 2, nothing written."""

    def __init__(self, problems: list[Problem] | None = None) -> None:
        self.problems: list[Problem] = [] if problems is None else problems

    @classmethod
    def one(cls, message: str, **where: object) -> InputError:
        return cls([Problem(message, **where)])  # type: ignore[arg-type]

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


class UsageError(InputError):
    """A request hotato cannot honour (unknown pack, cycle, unsupported regex)."""
