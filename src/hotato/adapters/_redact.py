"""Credentials never reach output: scrub their values from any text that may be shown."""

from __future__ import annotations

from collections.abc import Iterable

_MASK = "***"


def scrub(text: str, secrets: Iterable[str]) -> str:
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, _MASK)
    return text
