"""Do a tool span's arguments agree with what was said? Typed comparisons per entity kind, and
names (titles, devices, places) that must have been spoken somewhere in the call."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from hotato.claims.catalog import word_set
from hotato.claims.entities import Entity
from hotato.claims.pack import ClaimType

_ISO_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::\d{2})?\s*([ap]\.?m\.?)?$", re.IGNORECASE)
_NUMBER = re.compile(r"^[$£€]?\s*(-?\d+(?:,\d{3})*(?:\.\d+)?)$")
_FOLD = re.compile(r"[^a-z0-9]+")
_WORDS_ONLY = re.compile(r"^[A-Za-z -]+$")  # a value said in words, no digit or sign
_BOOLISH = {"true", "false", "yes", "no", "none", "null", ""}
_IDLIKE = re.compile(r"^[\w.@+-]*[_\d.@][\w.@+-]*$")  # lucca_sf, usr42, card_1, p.nair
_PERSON = re.compile(
    r"(?:^|[.])(?:first_?|last_?|full_?|customer_?|user_?|guest_?|caller_?|passenger_?)?name$"
)
_KEY_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
# Words that say nothing of an argument's role: "on March 5th", "the date".
_ROLELESS = frozenset(
    word_set(
        "a an the on at in for of by is are was and or it its your my to be will date "
        "time day dates times number amount total price cost"
    )
)
# A weekday said before its date ("Monday 3 August") is part of the value, not its role.
_TRAILING_DAY = re.compile(
    r"(?:\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|[\s,])+$"
)
# A value said after "from" starts a range; after "through", "until" or "to" it ends one.
_STARTS = frozenset({"from", "starting", "beginning"})
_ENDS = frozenset({"through", "thru", "until", "till", "to"})
START_ROLE = frozenset(
    ["start", "in", "pickup", "departure", "outbound", "checkin", "leaving", "begin", "from"]
)
END_ROLE = frozenset(["end", "out", "dropoff", "return", "inbound", "checkout", "until", "arrival"])
# A count argument never holds money, whatever its name shares with an amount's pattern.
_COUNTISH = re.compile(
    r"bag|number_of|num_|count|quantity|qty|travel|passeng|guest|people|person|seat|ticket|"
    r"room|night|adult|child|rider|size|party|points|miles"
)


def _role_set(parts: list[str]) -> set[str]:
    """Words and each adjacent pair run together ("drop off" and "dropoff")."""
    out = set(parts)
    out.update(a + b for a, b in itertools.pairwise(parts))
    return out - _ROLELESS


def key_words(key: str) -> set[str]:
    return _role_set([w.lower() for w in _KEY_WORD.findall(key)])


# Words before an amount that say it is what is left or owed, not what the action moved.
LEFT = frozenset({"remaining", "outstanding", "owed", "owing", "left"})
_PIECE = re.compile(r"[,;:]|\b(?:and|or|but|with|then|plus)\b")


def role_words(text: str, at: int, kind: str = "", own: str = "", width: int = 3) -> frozenset[str]:
    """The role a value is said in: for a count, its unit ("2 rooms"); else the words just
    before it in its phrase ("check out on March 14th": check, out, checkout), and the end of a
    range it closes or the start of one it opens."""
    if kind == "count":
        return frozenset(_role_set(re.findall(r"[a-z]+", own.lower())))
    before = _TRAILING_DAY.sub("", text[max(0, at - 40) : at].lower())
    pieces = _PIECE.split(before)
    clause = re.findall(r"[a-z]+", pieces[-1])[-width:]
    if not clause and len(pieces) > 1 and before.rstrip(" *_").endswith(":"):
        clause = re.findall(r"[a-z]+", pieces[-2])[-width:]  # a label: "- **Return:** May 4"
    if clause and clause[-1] in _ENDS:  # "from April 1 to April 30": the end, whatever before
        return END_ROLE
    if clause and clause[-1] in _STARTS:
        return START_ROLE
    return frozenset(_role_set(clause))


# Street words said whole or written short: "1450 Oak Avenue" is "1450 Oak Ave".
_STREET = {
    "avenue": "ave", "street": "st", "drive": "dr", "road": "rd", "boulevard": "blvd",
    "apartment": "apt", "suite": "ste", "lane": "ln", "court": "ct", "place": "pl",
    "highway": "hwy", "parkway": "pkwy", "terrace": "ter", "square": "sq", "circle": "cir",
}  # fmt: skip
_STREET_WORD = re.compile(r"\b(?:" + "|".join(_STREET) + r")\b")


def fold(text: str) -> str:
    """Lower case, letters and digits only, single spaces, street words short: how names are
    compared."""
    folded = _FOLD.sub(" ", text.lower()).strip()
    return " " + _STREET_WORD.sub(lambda m: _STREET[m.group(0)], folded) + " "


def flat_args(value: Any, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Arguments as (dotted key, scalar value), nested objects and lists' items included
    (`payment_methods[].amount`), four levels deep."""
    if not isinstance(value, dict) or depth > 4:
        return
    for k, v in value.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            yield from flat_args(v, key + ".", depth + 1)
        elif isinstance(v, list):
            for item in v[:20]:
                if isinstance(item, dict):
                    yield from flat_args(item, key + "[].", depth + 1)
                elif not isinstance(item, list):
                    yield key, item
        else:
            yield key, v


def read_value(kind: str, value: Any) -> Any:
    """An argument's value as the entity kind's value, or None when it is not one."""
    if isinstance(value, bool) or value is None:
        return None
    text = str(value).strip()
    if kind == "count":
        if (isinstance(value, int) or text.isdigit()) and int(text) <= 10_000:
            return int(text)
        return None  # not a number, or a number too large to count (an Rx number)
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
        said_value = Decimal(str(v))
        if said_value == executed:
            return True
        # "one fifty" said in words is $1.50 or $150: under ten, either reading
        return (
            said_value < 10
            and _WORDS_ONLY.match(said.text) is not None
            and (said_value * 100 == executed)
        )
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


def _holding(kind: str, pattern: Any, args: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The arguments named for an entity kind whose values read as that kind."""
    return [
        (k, _in_units(kind, k, got))
        for k, v in args
        if pattern.search(k.lower().encode())
        and (got := read_value(kind, v)) is not None
        and not (kind == "amount" and _COUNTISH.search(k.lower()))
    ]


_MINOR = re.compile(r"cents|minor|pence|_in_c\b")  # an amount in hundredths: amount_cents


def _in_units(kind: str, key: str, value: Any) -> Any:
    """An amount an argument holds in cents (`amount_cents`: 1799) as the $17.99 said."""
    if kind == "amount" and _MINOR.search(key.lower()):
        return (value / 100).quantize(Decimal("0.01"))
    return value


# Result fields that say when the record was written, not what was done.
_STAMP = re.compile(r"creat|updat|modif|stamp|now|expir|issued|submitted|received|_at$|^at$")
_RESULT_KINDS = ("date", "time", "count", "id")  # an id only from a field its words name
# Result fields that say what the action was for (when it takes place, for how many), not
# what may follow it (`expected_resolution_date`, `valid_from`, `due_date`).
_RESULT_ROLE = re.compile(
    r"^(?:new_)?(?:start|starts|start_time|begin|time|date|datetime|slot|when|day|nights|"
    r"quantity|qty|count|seats|tickets|guests|party_size)$"
)


def with_result(
    ctype: ClaimType,
    arguments: Any,
    result: Any,
    kinds: frozenset[str] = frozenset(),
    named: frozenset[str] = frozenset(),
) -> Any:
    """The arguments, and what the result says of a kind of value (of `kinds`, those the claim
    itself states) they do not hold: a booking made by `slot_id` whose result gives its
    `start` is compared on the time the claim says; so is a field the words before a stated
    value name (`named`: "the due date is April 28" meets `due_date`). Fields that stamp the
    record (`created_at`) are left out."""
    if not isinstance(result, dict):
        return arguments
    args = list(flat_args(arguments))
    missing = [
        kind
        for kind in _RESULT_KINDS
        if kind in kinds
        and (pattern := ctype.agree.get(kind)) is not None
        and not _holding(kind, pattern, args)
    ]
    kept = {
        k: v
        for k, v in result.items()
        if not _STAMP.search(k.lower())
        and any(
            (pattern := ctype.agree.get(kind)) is not None
            and _holding(kind, pattern, [(k, v)])
            and (key_words(k) & named or (kind != "id" and _RESULT_ROLE.search(k.lower())))
            for kind in missing
        )
    }
    if not kept:
        return arguments
    base = arguments if isinstance(arguments, dict) else {}
    return {**base, "result": kept}


def holds_amount(payload: Any, amount: Any) -> str | None:
    """The field of a call's arguments or result that holds this amount ($15.00 in
    `amount_cents: 1500`), or None."""
    for key, value in flat_args(payload):
        got = read_value("amount", value)
        if (
            got is not None
            and not _COUNTISH.search(key.lower())
            and _in_units("amount", key, got) == amount
        ):
            return key
    return None


_CHARGED = re.compile(r"charge|paid|fee|total|amount|refund|credit")


def charged_otherwise(
    ctype: ClaimType, arguments: Any, result: Any, amounts: Sequence[Any]
) -> list[dict[str, Any]]:
    """Amounts the claim's own sentence states ("$38.00 charged to your Visa") against what
    the result says was charged, when the call was given no amount of its own: the result
    holds amounts of the type's kind (`prorated_charge: 43.0`) and none of them is one said."""
    pattern = ctype.agree.get("amount")
    amounts = [a for a in amounts if a is not None and a >= 10]  # "one fifty": 1.50 or 150
    if pattern is None or not amounts or not isinstance(result, dict):
        return []
    if _holding("amount", pattern, list(flat_args(arguments))):
        return []  # the arguments hold the amount: compared there
    held = _holding("amount", pattern, list(flat_args(result)))
    if not held or any(holds_amount(result, a) for a in amounts):
        return []
    key, got = min(held, key=lambda kv: not _CHARGED.search(kv[0].lower()))
    return [
        {
            "argument": f"result.{key}",
            "kind": "amount",
            "said": [show("amount", a) for a in amounts],
            "executed": show("amount", got),
        }
    ]


def compared(ctype: ClaimType, arguments: Any, said: dict[str, list[Entity]]) -> list[str]:
    """The entity kinds a claim stated that the span's arguments hold: what "agrees" covers."""
    args = list(flat_args(arguments))
    return sorted(
        kind
        for kind, pattern in ctype.agree.items()
        if pattern is not None
        and any(comparable(e) for e in said.get(kind, []))
        and _holding(kind, pattern, args)
    )


def disagreements(
    ctype: ClaimType,
    arguments: Any,
    said: dict[str, list[Entity]],
    spoken: str,
    context: str = "",
    known: dict[str, set[str]] | None = None,
    earlier: Sequence[str] = (),
    last: str = "",
    roles: dict[int, frozenset[str]] | None = None,
    strict_codes: bool = False,
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
        if kind == "amount":  # "a remaining balance of $1437.56": what is left, not what ran
            stated = [e for e in stated if not (roles or {}).get(id(e), frozenset()) & LEFT]
        if not stated or pattern is None:
            continue
        keyed = _holding(kind, pattern, args)
        if kind == "count":
            keyed = _summed(keyed)
            # "four packs": a count whose unit names an argument is that argument's alone
            by_unit = [
                (e, hits)
                for e in stated
                if not e.text.lower().startswith(("a ", "an "))
                and (hits := _unit_named(e.text, args))
            ]
            for e, hits in by_unit:
                if not any(same(kind, e, got) for _, got in hits):
                    key, got = hits[0]
                    out.append({"argument": key, "kind": kind, "said": [e.text], "executed": got})
            stated = [e for e in stated if not any(e is n for n, _ in by_unit)]
            taken = {k for _, hits in by_unit for k, _ in hits}  # "1 guest" took `guests`
            keyed = [(k, v) for k, v in keyed if k not in taken]
        if kind == "id":  # a card's last four is no order number: codes meet codes of their shape
            stated = [e for e in stated if any(_akin(str(e.value), str(v)) for _, v in keyed)]
        if not keyed or not stated:
            continue
        if kind == "id" and strict_codes:  # each code the claim said against its own shape
            named = {k for k, _ in keyed}
            out.extend(_by_shape(stated, [(k, str(v)) for k, v in args if k in named], True))
        out.extend(_by_role(kind, stated, keyed, roles or {}))
        if any(m["kind"] == kind for m in out):
            continue
        roled = [e for e in stated if _role_keys(e, keyed, roles or {})]
        if roled:
            continue
        if any(same(kind, e, got) for e in stated for _, got in keyed):
            out.extend(_leftover(kind, stated, keyed))
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
    if "id" not in ctype.agree or (ctype.align and not any(m["kind"] == "id" for m in out)):
        out.extend(_by_shape(said.get("id", []), args, strict_codes))  # codes, by their shape
    if ctype.names is not None:
        for key, value in args:
            if not isinstance(value, str) or not ctype.names.search(key.lower().encode()):
                continue
            folded = fold(value)
            if folded.strip() in _BOOLISH or not any(c.isalpha() for c in value):
                continue
            if _IDLIKE.match(value) or _PERSON.search(key.lower()):
                continue  # an identifier or the caller's own name, not a thing said
            if not said_name(folded, spoken) and not _read_and_named(key, value, spoken, known):
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


_PLACE_WORDS = word_set(
    "the a an apartments apartment hotel hotels inn suites restaurant restaurants bar grill "
    "cafe inc llc ltd co company salon clinic center centre theater theatre station airport"
)


def _read_and_named(key: str, value: str, spoken: str, known: dict[str, set[str]] | None) -> bool:
    """A name the call read from the record under another field (the last order's `product`)
    that the call then names by its first word: "Acuvue Oasys" for "Acuvue Oasys 2-week"."""
    if not known or not any(value in values for k, values in known.items() if k != key):
        return False
    first = fold(value).split()[:1]
    return bool(first) and len(first[0]) >= 4 and f" {first[0]} " in spoken


def said_name(folded: str, spoken: str) -> bool:
    """A name the tool acted on was said in the call (both folded, see `fold`): whole, without
    the words that only say what kind of place it is ("One on Center" for "One on Center
    Apartments"), or by its first words when they are most of it."""
    if folded in spoken:
        return True
    words = folded.split()
    core = [w for w in words if w not in _PLACE_WORDS]
    if core and len(core) < len(words) and f" {' '.join(core)} " in spoken:
        return True
    least = max(2, -(-len(words) * 3 // 5))
    return any(f" {' '.join(words[:k])} " in spoken for k in range(len(words) - 1, least - 1, -1))


def _unit_named(text: str, args: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The numeric arguments the unit of a count names ("4 packs": `packs`), by the last word
    said with it."""
    unit = re.findall(r"[a-z]+", text.lower())[-1:]
    if not unit or len(unit[0]) < 3:
        return []
    head = unit[0].rstrip("s")
    return [
        (k, n)
        for k, v in args
        if (n := read_value("count", v)) is not None
        and head in {w.rstrip("s") for w in key_words(k.rsplit(".", 1)[-1])}
    ]


def _summed(keyed: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Counts of a list's items as one count, their sum: "two items" against a couch and a
    refrigerator of `qty` 1 each (a count held once is kept as it is)."""
    seen: dict[str, list[Any]] = {}
    for key, value in keyed:
        seen.setdefault(key, []).append(value)
    out = []
    for key, values in seen.items():
        numbers = [read_value("count", v) for v in values]
        if "[]" in key and len(values) > 1 and all(isinstance(n, int) for n in numbers):
            out.append((key, sum(numbers)))
        else:
            out.extend((key, v) for v in values)
    return out


def _role_keys(
    entity: Entity, keyed: list[tuple[str, Any]], roles: dict[int, frozenset[str]]
) -> list[tuple[str, Any]]:
    """The arguments whose names share a role word said before the value, when exactly the
    arguments of one role do ("check out on the 14th": check_out_date, not check_in_date)."""
    said = roles.get(id(entity))
    if not said:
        return []
    shared = [len(key_words(k) & said) for k, _ in keyed]
    best = max(shared)
    hits = [kv for kv, n in zip(keyed, shared, strict=True) if best and n == best]
    return hits if 0 < len(hits) < len(keyed) else []


def _leftover(
    kind: str, stated: list[Entity], keyed: list[tuple[str, Any]]
) -> list[dict[str, Any]]:
    """Values said without a role, against arguments of their kind: when the agent said at
    least as many distinct values as the span holds, each held value should be one of them. A
    held value none matches, beside a said value that matches none, disagrees ("leaves at
    12:30 pm, returns at 9 pm" against departure 10:30 and return 21:00)."""
    held = {show(kind, got): (k, got) for k, got in keyed}
    values = {str(e.value): e for e in stated}
    if len(values) < len(held):
        return []
    unsaid = [kg for kg in held.values() if not any(same(kind, e, kg[1]) for e in stated)]
    unheld = [e for e in values.values() if not any(same(kind, e, got) for _, got in keyed)]
    if not unsaid or not unheld:
        return []
    key, got = unsaid[0]
    return [
        {
            "argument": key,
            "kind": kind,
            "said": [e.text for e in unheld],
            "executed": show(kind, got),
        }
    ]


def _by_role(
    kind: str,
    stated: list[Entity],
    keyed: list[tuple[str, Any]],
    roles: dict[int, frozenset[str]],
) -> list[dict[str, Any]]:
    """A value said with its role that the argument of that role does not hold; the last
    thing said of a role wins (a read-back after a correction)."""
    last: dict[tuple[str, ...], tuple[Entity, list[tuple[str, Any]]]] = {}
    for e in stated:
        hits = _role_keys(e, keyed, roles)
        if hits:
            last[tuple(k for k, _ in hits)] = (e, hits)
    out = []
    for e, hits in last.values():
        if not any(same(kind, e, got) for _, got in hits):
            key, got = hits[0]
            out.append(
                {"argument": key, "kind": kind, "said": [e.text], "executed": show(kind, got)}
            )
    return out


_WORDY = re.compile(r"^(?!(?:true|false|yes|no|none|null)$)[A-Za-z][A-Za-z -]*$", re.IGNORECASE)


def by_enum(
    enums: Sequence[tuple[str, tuple[str, ...]]], arguments: Any, context: str
) -> list[dict[str, Any]]:
    """An argument the catalog lists the values of ("priority": low, medium, high) that ran
    with one value while the claim (or the read-back before it) named another of them and not
    that one. `context` is folded (see `fold`)."""
    out = []
    args = list(flat_args(arguments))
    for name, values in enums:
        leaf = name.replace(".", "[].")
        for key, value in args:
            if not isinstance(value, str) or value not in values:
                continue
            if key != name and key != leaf and not key.endswith("." + name.split(".")[-1]):
                continue
            if not _WORDY.match(value):
                continue  # a number or a flag is compared by its kind, not as a word
            said = [v for v in values if v != value and _WORDY.match(v) and fold(v) in context]
            if said and fold(value) not in context:
                out.append({"argument": key, "kind": "choice", "said": said, "executed": value})
    return out


def _akin(said: str, held: str) -> bool:
    """A code said and a code held could be the same thing: one ends the other, or they have
    one shape (see `_shape`)."""
    return held.endswith(said) or said.endswith(held) or _shape(said) == _shape(held)


def _shape(value: str) -> str:
    """A code's shape: its letters as A and digits as 9 when it is letters then digits (a
    flight HAT318: AAA999) or digits then letters; a code that mixes them (a booking ZT4M8C)
    only by its length, since such codes are drawn at random; capital words joined by dashes
    (a plan UNL-PLUS) by their first word and their number of dashes."""
    if LABEL.fullmatch(value):
        return f"{value.split('-')[0]}-{value.count('-')}"
    if re.fullmatch(r"[A-Z]*\d*|\d*[A-Z]*", value):
        return re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", value))
    return f"mixed{len(value)}"


LABEL = re.compile(r"[A-Z]{2,8}(?:-[A-Z]{2,10}){1,3}")  # a code of capital words: UNL-PLUS
_CODE_KEY = re.compile(r"account|card|iban|routing|number|(?:^|_|\.)id$|code|ref")


def _by_shape(
    stated: list[Entity], args: list[tuple[str, Any]], strict: bool = False
) -> list[dict[str, Any]]:
    """Codes said (a flight HAT318, a booking ZT4M8C) against the arguments holding codes of the
    same shape: when some do and none is one that was said, the code disagrees; with `strict`
    (the claim's own sentence said the codes), so does any code said that none holds."""
    out = []
    said = {str(e.value): e for e in stated}
    shapes = {_shape(v) for v in said}
    for shape in sorted(shapes):
        digits = shape.isdigit() or set(shape) == {"9"}
        held = [
            (k, code)
            for k, v in args
            if isinstance(v, str)
            and v.upper() == v
            and _shape(code := v if LABEL.fullmatch(v) else re.sub(r"[^A-Z0-9]", "", v)) == shape
            # bare digits (an account's last four) only against an argument named for a code
            and (not digits or _CODE_KEY.search(k.lower()))
        ]
        codes = {v for _, v in held}
        missing = [v for v in said if _shape(v) == shape and v not in codes]
        if held and (not any(v in said for _, v in held) or (strict and missing)):
            key, value = held[0]
            texts = [e.text for v, e in said.items() if _shape(v) == shape]
            out.append({"argument": key, "kind": "id", "said": texts, "executed": value})
    return out


# A compound code a claim can state: words and numbers joined by dashes or dots, or letters and
# digits run together (e2-standard-4, s-4vcpu-8gb, 2BR-deluxe, x86_64): a size, a plan, a model.
_COMPOUND = re.compile(
    r"(?<![\w@./-])(?=[\w.-]*[a-z])(?=[\w.-]*\d)[a-z0-9]+(?:[-_.][a-z0-9]+)+(?![\w@-])"
)


def skeleton(code: str) -> str:
    """A compound code with its numbers and short letter runs blanked, by its pieces:
    e2-standard-4 and e2-standard-2 share one, so do s-4vcpu-8gb and g-4vcpu-16gb. Empty when
    no piece has a word of three letters (a1-b2 says nothing of what it names)."""
    pieces = [re.sub(r"\d+", "", p) for p in re.split(r"[-_.]", code.lower())]
    shown = [p if len(p) > 2 else "~" for p in pieces]
    return "-".join(shown) if any(p != "~" for p in shown) else ""


def by_skeleton(text: str, arguments: Any) -> list[dict[str, Any]]:
    """Compound codes the claim states (see `_COMPOUND`) against an argument holding a code of
    the same skeleton that the claim never states: "resized to e2-standard-2" when the call
    ran with machine_type=e2-standard-4."""
    said = {m.group(0).lower().strip(".") for m in _COMPOUND.finditer(text.lower())}
    if not said:
        return []
    out = []
    for key, value in flat_args(arguments):
        if not isinstance(value, str) or not _COMPOUND.fullmatch(value.lower()):
            continue
        held = value.lower()
        shape = skeleton(held)
        rivals = sorted(c for c in said if shape and skeleton(c) == shape and c != held)
        if rivals and held not in said:
            out.append({"argument": key, "kind": "id", "said": rivals, "executed": value})
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
    if mismatch["kind"] == "result":
        return f"its {mismatch['argument']} is false"
    if mismatch["kind"] == "outcome":
        return f"its {mismatch['argument']} is {mismatch['executed']!r}"
    if mismatch["kind"] == "record":
        return f"it never touched {' or '.join(repr(s) for s in mismatch['said'])}"
    if mismatch["kind"] == "partial":
        return f"its {mismatch['argument']} lists {mismatch['executed']} part(s) not done"
    if mismatch["kind"] == "name" and not mismatch["said"]:
        return f"{mismatch['argument']}={mismatch['executed']!r} {mismatch['note']}"
    said = " or ".join(repr(s) for s in mismatch["said"])
    return f"said {said}, executed {mismatch['argument']}={mismatch['executed']}"
