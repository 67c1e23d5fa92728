"""Do a tool span's arguments agree with what was said? Typed comparisons per entity kind, and
names (titles, devices, places) that must have been spoken somewhere in the call."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from hotato.claims.entities import Entity
from hotato.claims.pack import ClaimType

_ISO_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::\d{2})?\s*([ap]\.?m\.?)?$", re.IGNORECASE)
_NUMBER = re.compile(r"^[$£€]?\s*(-?\d+(?:,\d{3})*(?:\.\d+)?)$")
_FOLD = re.compile(r"[^a-z0-9]+")
_BOOLISH = {"true", "false", "yes", "no", "none", "null", ""}


def fold(text: str) -> str:
    """Lower case, letters and digits only, single spaces: how names are compared."""
    return " " + _FOLD.sub(" ", text.lower()).strip() + " "


def flat_args(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Arguments as (dotted key, scalar value), one level of nesting deep and lists' items."""
    if isinstance(value, dict):
        for k, v in value.items():
            key = f"{prefix}{k}"
            if isinstance(v, dict) and not prefix:
                yield from flat_args(v, key + ".")
            elif isinstance(v, list):
                for item in v[:20]:
                    if not isinstance(item, dict | list):
                        yield key, item
            elif not isinstance(v, dict):
                yield key, v


def read_value(kind: str, value: Any) -> Any:
    """An argument's value as the entity kind's value, or None when it is not one."""
    if isinstance(value, bool) or value is None:
        return None
    text = str(value).strip()
    if kind == "count":
        if isinstance(value, int) or text.isdigit():
            return int(text)
        return None
    if kind == "amount":
        m = _NUMBER.match(text)
        if not m:
            return None
        try:
            return Decimal(m.group(1).replace(",", "")).quantize(Decimal("0.01"))
        except InvalidOperation:
            return None
    if kind == "date":
        m = _ISO_DATE.match(text)
        return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
    if kind == "time":
        m = _CLOCK.match(text) or _CLOCK.match(text.split("T")[-1][:8])
        if not m:
            return None
        hour = int(m.group(1))
        if m.group(3):
            hour = hour % 12 + (12 if m.group(3).lower().startswith("p") else 0)
        return (hour, int(m.group(2)))
    if kind == "id":
        folded = re.sub(r"[^A-Za-z0-9]", "", text).upper()
        return folded or None
    return None


def same(kind: str, said: Entity, executed: Any) -> bool:
    v = said.value
    if kind == "count":
        return v == executed
    if kind == "amount":
        return Decimal(str(v)) == executed
    if kind == "date":
        parts = str(v).lstrip("-").split("-")
        y, m, d = executed
        if str(v).startswith("---"):
            return int(parts[0]) == d
        if str(v).startswith("--"):
            return (int(parts[0]), int(parts[1])) == (m, d)
        return (int(parts[0]), int(parts[1]), int(parts[2])) == (y, m, d)
    if kind == "time":
        h, mi = (int(x) for x in str(v).split(":"))
        if said.ambiguous:
            return (h % 12, mi) == (executed[0] % 12, executed[1])
        return (h, mi) == executed
    if kind == "id":
        return str(executed).endswith(str(v)) or str(v).endswith(str(executed))
    return False


def comparable(said: Entity) -> bool:
    return not said.relative


def show(kind: str, value: Any) -> str:
    if kind == "time":
        return f"{value[0]:02d}:{value[1]:02d}"
    if kind == "date":
        return f"{value[0]:04d}-{value[1]:02d}-{value[2]:02d}"
    return str(value)


def disagreements(
    ctype: ClaimType,
    arguments: Any,
    said: dict[str, list[Entity]],
    spoken: str,
    context: str = "",
    known: dict[str, set[str]] | None = None,
    earlier: Sequence[str] = (),
    last: str = "",
) -> list[dict[str, Any]]:
    """What the span executed that contradicts what was said: one entry per argument.

    `said` holds the entities stated for this claim, by kind; `spoken` is every turn of the
    call, folded (see `fold`), for the names check: a name the span acted on must have been
    said, and when the last read-back (`context`) names another value this argument takes
    elsewhere in the trace (`known`, by argument name) and not the executed one, it disagrees;
    so it does when an `earlier` read-back said the executed value where the last one says
    something else (see `replaced_in`)."""
    args = list(flat_args(arguments))
    out: list[dict[str, Any]] = []
    for kind, pattern in ctype.agree.items():
        stated = [e for e in said.get(kind, []) if comparable(e)]
        if not stated or pattern is None:
            continue
        keyed = [
            (k, read_value(kind, v))
            for k, v in args
            if pattern.search(k.lower().encode()) and read_value(kind, v) is not None
        ]
        if not keyed or any(same(kind, e, got) for e in stated for _, got in keyed):
            continue
        key, got = keyed[0]
        out.append(
            {
                "argument": key,
                "kind": kind,
                "said": [e.text for e in stated],
                "executed": show(kind, got),
            }
        )
    if ctype.names is not None:
        for key, value in args:
            if not isinstance(value, str) or not ctype.names.search(key.lower().encode()):
                continue
            folded = fold(value)
            if folded.strip() in _BOOLISH or not any(c.isalpha() for c in value):
                continue
            if folded not in spoken:
                out.append(
                    {
                        "argument": key,
                        "kind": "name",
                        "said": [],
                        "executed": value,
                        "note": "never said in the call",
                    }
                )
            elif (
                context and folded not in context and (other := replaced_in(folded, earlier, last))
            ):
                out.append(
                    {
                        "argument": key,
                        "kind": "name",
                        "said": [other],
                        "executed": value,
                        "note": "read back earlier, then replaced",
                    }
                )
            elif context and folded not in context and known:
                rivals = sorted(
                    v
                    for v in known.get(key, set())
                    if fold(v) != folded and fold(v) in context and len(fold(v)) > 3
                )
                if rivals:
                    out.append(
                        {
                            "argument": key,
                            "kind": "name",
                            "said": rivals[:3],
                            "executed": value,
                            "note": "the read-back named another",
                        }
                    )
    return out


def replaced_in(value: str, earlier: Sequence[str], last: str, width: int = 2) -> str | None:
    """What the last read-back says where an earlier one said `value` (all folded): the words
    around `value` in the earlier read-back, found in the last one around other words. "play
    lookalike on tv" then "play lookalike on kitchen speaker": "kitchen speaker". None when no
    earlier read-back said it, or the last one does not say that part again in the same frame
    (words before and after, or before and the end)."""
    for text in reversed(earlier):
        at = text.find(value)
        if at < 0:
            continue
        before = text[:at].split()[-width:]
        after = text[at + len(value) :].split()[:width]
        if len(before) < width:
            continue
        anchor = " " + " ".join(before) + " "
        where = last.find(anchor)
        if where < 0:
            continue
        rest = last[where + len(anchor) :].split()
        if after:
            tail = " ".join(after)
            ends = [i for i in range(1, 5) if " ".join(rest[i : i + len(after)]) == tail]
            if not ends:
                continue
            other = " ".join(rest[: ends[0]])
        else:
            if not 1 <= len(rest) <= 4:
                continue
            other = " ".join(rest)
        if other and fold(other) != value and not any(c.isdigit() for c in other):
            return other  # words, not a count or a date said in the same place
    return None


def describe(ctype: ClaimType, mismatch: dict[str, Any]) -> str:
    if mismatch["kind"] == "name" and not mismatch["said"]:
        return f"{mismatch['argument']}={mismatch['executed']!r} {mismatch['note']}"
    said = " or ".join(repr(s) for s in mismatch["said"])
    return f"said {said}, executed {mismatch['argument']}={mismatch['executed']}"
