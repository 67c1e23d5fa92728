"""Entities a turn states, normalised: amounts, dates, times, counts and ids.

The patterns run on a copy of the text with spoken numbers as digits (`spoken.rewrite`), so
"forty two fifty", "March third at seven pm" and "four seven two nine" read as their digit
forms; every entity's `span` and `text` are still those of the original words.

Values: amount "42.50" (two decimals) with `currency`; date "2026-03-03", "--03-03" without a
year, "---09" for a day alone, or a word (`today`, `tomorrow`, `friday`) marked `relative`; time
"19:30" (an hour said without am/pm is `ambiguous`); count an integer; id the characters said,
upper-cased, without spaces or dashes.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

import msgspec

from hotato.claims.spoken import Rewritten, rewrite

KINDS = ("amount", "date", "time", "count", "id")


class Entity(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    kind: str
    value: str | int
    text: str
    span: tuple[int, int]
    currency: str | None = None
    relative: bool = False  # a date said relative to the call ("tomorrow")
    ambiguous: bool = False  # a time said without am/pm


MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for m in names
}
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b\.?"
)
_DAYNUM = r"(\d{1,2})(?:st|nd|rd|th)?"
_WEEKDAY = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_CURRENCY_SIGN = {"$": "USD", "£": "GBP", "€": "EUR"}
_CURRENCY_WORD = {
    "dollar": "USD", "dollars": "USD", "bucks": "USD", "usd": "USD", "pound": "GBP",
    "pounds": "GBP", "gbp": "GBP", "euro": "EUR", "euros": "EUR", "eur": "EUR",
}  # fmt: skip
_MONEY_CUE = (
    r"(?:refund(?:ed)?|amount|charged?|payment|paid|pay|total|credit(?:ed)?|fee|balance|price|"
    r"cost|transferr?(?:ed)?|sent|back|deposit(?:ed)?|withdr[ae]wn?)"
)
_COUNT_UNIT = (
    r"(tickets?|seats?|people|persons?|guests?|adults?|children|kids|rooms?|nights?|"
    r"passengers?|travell?ers?|items?|bags?|units?|spots?|of us|licen[cs]es?|users?|lines?|"
    r"boxes|box|packs?|pairs?|bottles?|cans?|books?|devices?|drivers?|vehicles?|cards?|"
    r"payments|installments|instalments|tablets|pills|doses|refills|sessions|lessons|"
    r"day supply|days supply|day's supply|days' supply)"
)
_ID_CUE = (
    r"(?:confirmation|order|reference|booking|reservation|ticket|case|tracking|transaction|"
    r"claim|member|policy|invoice|account|card|record|return|rma|the number|your number|"
    r"[Vv]isa|VISA|[Mm]aster[Cc]ard|[Aa]mex|AMEX|[Dd]iscover)"
)

Build = Callable[["re.Match[str]", Rewritten], Entity | None]
I = re.IGNORECASE  # noqa: E741


def _span(m: re.Match[str], rw: Rewritten, group: int = 0) -> tuple[tuple[int, int], str]:
    s, e = rw.source(m.start(group), m.end(group))
    return (s, e), rw.original[s:e]


def _amount(whole: str, cents: str | None, currency: str | None) -> str:
    return f"{int(whole.replace(',', ''))}.{(cents or '0').ljust(2, '0')[:2]}"


def _money_sign(m: re.Match[str], rw: Rewritten) -> Entity:
    span, text = _span(m, rw)
    cents = m.group(3) or m.group(5)
    value = _amount(m.group(2), cents, None)
    return Entity(
        kind="amount", value=value, text=text, span=span, currency=_CURRENCY_SIGN[m.group(1)]
    )


def _money_word(m: re.Match[str], rw: Rewritten) -> Entity:
    span, text = _span(m, rw)
    cents = m.group(2) or m.group(4) or m.group(5)
    return Entity(
        kind="amount",
        value=_amount(m.group(1), cents, None),
        text=text,
        span=span,
        currency=_CURRENCY_WORD[m.group(3).lower()],
    )


def _money_code(m: re.Match[str], rw: Rewritten) -> Entity:
    span, text = _span(m, rw)
    return Entity(
        kind="amount",
        value=_amount(m.group(2), m.group(3), None),
        text=text,
        span=span,
        currency=_CURRENCY_WORD[m.group(1).lower()],
    )


def _money_pair(m: re.Match[str], rw: Rewritten) -> Entity:
    s, e = rw.source(m.start(2), m.end(3))
    span, text = (s, e), rw.original[s:e]
    return Entity(kind="amount", value=_amount(m.group(2), m.group(3), None), text=text, span=span)


def _clock(hour: int, minute: int, meridiem: str | None) -> tuple[str, bool] | None:
    if minute > 59 or hour > 24:
        return None
    if meridiem:
        if hour == 0 or hour > 12:
            return None
        said = meridiem.lower()
        pm = said[0] in "pe" or any(w in said for w in ("evening", "night", "afternoon"))
        hour = hour % 12 + (12 if pm else 0)
        return f"{hour:02d}:{minute:02d}", False
    return f"{hour % 24:02d}:{minute:02d}", hour <= 12 and hour != 0


def _time(m: re.Match[str], rw: Rewritten) -> Entity | None:
    got = _clock(int(m.group(1)), int(m.group(2) or 0), m.group(3))
    if got is None:
        return None
    span, text = _span(m, rw)
    return Entity(kind="time", value=got[0], text=text, span=span, ambiguous=got[1])


def _time_bare(m: re.Match[str], rw: Rewritten) -> Entity | None:
    """A time said without am/pm ("at 7", "by 7 30"); the span starts at the hour."""
    got = _clock(int(m.group(1)), int(m.group(2) or 0), None)
    if got is None:
        return None
    s, e = rw.source(m.start(1), m.end())
    return Entity(kind="time", value=got[0], text=rw.original[s:e], span=(s, e), ambiguous=got[1])


def _time_24(m: re.Match[str], rw: Rewritten) -> Entity | None:
    got = _clock(int(m.group(1)), int(m.group(2)), None)
    if got is None:
        return None
    span, text = _span(m, rw)
    return Entity(kind="time", value=got[0], text=text, span=span, ambiguous=got[1])


def _time_word(m: re.Match[str], rw: Rewritten) -> Entity:
    span, text = _span(m, rw)
    word = m.group(0).lower()
    return Entity(
        kind="time", value="00:00" if "midnight" in word else "12:00", text=text, span=span
    )


def _time_past(m: re.Match[str], rw: Rewritten) -> Entity | None:
    minutes = {"half": 30, "quarter": 15}.get(m.group(1).lower())
    minute = minutes if minutes is not None else int(m.group(1))
    hour = int(m.group(3))
    if m.group(2).lower() in ("to", "til", "till"):
        if minute not in (5, 10, 15, 20, 25):
            return None  # "eight to ten a m" is a range, not eight minutes to ten
        minute, hour = 60 - minute, hour - 1 if hour > 1 else 12
    got = _clock(hour, minute, m.group(4))
    if got is None:
        return None
    span, text = _span(m, rw)
    return Entity(kind="time", value=got[0], text=text, span=span, ambiguous=got[1])


def _date_value(year: str | None, month: int, day: int) -> str | None:
    if not 1 <= day <= 31:
        return None
    if year:
        y = int(year)
        y = y + 2000 if y < 100 else y
        return f"{y:04d}-{month:02d}-{day:02d}"
    return f"--{month:02d}-{day:02d}"


def _date_md(m: re.Match[str], rw: Rewritten) -> Entity | None:
    value = _date_value(m.group(3), MONTHS[m.group(1).lower()], int(m.group(2)))
    if value is None:
        return None
    span, text = _span(m, rw)
    return Entity(kind="date", value=value, text=text, span=span)


def _date_dm(m: re.Match[str], rw: Rewritten) -> Entity | None:
    value = _date_value(m.group(3), MONTHS[m.group(2).lower()], int(m.group(1)))
    if value is None:
        return None
    span, text = _span(m, rw)
    return Entity(kind="date", value=value, text=text, span=span)


def _date_iso(m: re.Match[str], rw: Rewritten) -> Entity | None:
    value = _date_value(m.group(1), int(m.group(2)), int(m.group(3)))
    if value is None or not 1 <= int(m.group(2)) <= 12:
        return None
    span, text = _span(m, rw)
    return Entity(kind="date", value=value, text=text, span=span)


def _date_slash(m: re.Match[str], rw: Rewritten) -> Entity | None:
    month = int(m.group(1))
    if not 1 <= month <= 12:
        return None
    value = _date_value(m.group(3), month, int(m.group(2)))
    if value is None:
        return None
    span, text = _span(m, rw)
    return Entity(kind="date", value=value, text=text, span=span)


def _date_day(m: re.Match[str], rw: Rewritten) -> Entity | None:
    day = int(m.group(1))
    if not 1 <= day <= 31:
        return None
    span, text = _span(m, rw)
    return Entity(kind="date", value=f"---{day:02d}", text=text, span=span)


def _date_relative(m: re.Match[str], rw: Rewritten) -> Entity:
    span, text = _span(m, rw)
    word = re.sub(r"\s+", " ", m.group(1).lower())
    return Entity(kind="date", value=word, text=text, span=span, relative=True)


def _count(m: re.Match[str], rw: Rewritten) -> Entity | None:
    n = int(m.group(1))
    if n <= 0 or n > 1000:
        return None
    span, text = _span(m, rw)
    return Entity(kind="count", value=n, text=text, span=span)


def _ident(m: re.Match[str], rw: Rewritten) -> Entity | None:
    raw = m.group(1)
    value = re.sub(r"[\s-]", "", raw).upper()
    if len(value) < 3 or not any(c.isdigit() for c in value):
        return None
    span, text = _span(m, rw, 1)
    return Entity(kind="id", value=value, text=text, span=span)


def _label(m: re.Match[str], rw: Rewritten) -> Entity:
    """A code of capital words joined by dashes ("UNL-PLUS"): kept as written, dashes and all."""
    span, text = _span(m, rw, 1)
    return Entity(kind="id", value=m.group(1), text=text, span=span)


# Tried in this order; an entity overlapping one found earlier is dropped.
PATTERNS: list[tuple[re.Pattern[str], Build]] = [
    (
        re.compile(
            _ID_CUE + r"(?: (?:number|no\.?|code|id|#|ending(?: in| with)?))?"
            r"(?: is| was| of|:|#)? ((?:[A-Z0-9](?:[ -]?(?=[A-Z0-9]))?){3,})\b"
        ),
        _ident,
    ),
    (re.compile(r"(?<![\w-])((?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*\d)[A-Z0-9]{5,10})(?![\w-])"), _ident),
    (  # a code with dashes: "HX-7001288", "P-77410", "TRF-558201"
        re.compile(
            r"(?<![\w-])((?=[A-Z0-9-]*[A-Z])(?=[A-Z0-9-]*\d)[A-Z0-9]{1,6}(?:-[A-Z0-9]{1,10}){1,3})(?![\w-])"
        ),
        _ident,
    ),
    (re.compile(r"(?<![\w-])([A-Z]{2,8}(?:-[A-Z]{2,10}){1,3})(?![\w-])"), _label),
    (
        re.compile(
            r"([$£€]) ?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2})|( and)? (\d{1,2}) cents?)?"
            r"(?!\d)",
            I,
        ),
        _money_sign,
    ),
    (
        re.compile(
            r"\b(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))? (dollars?|bucks|usd|pounds?|gbp|"
            r"euros?|eur)\b(?:(?: and)? (\d{1,2}) (?:cents?|pence|p)\b|"
            # "twelve dollars seventy-five": the cents said bare, as a whole two-digit number
            r" (\d{2})(?![\d:/-]|[.,]\d| ?(?:am|pm|a\.m|p\.m|minutes?|hours?|days?|weeks?|months?|"
            r"years?|percent|%|o'clock|in the|at night)))?",
            I,
        ),
        _money_word,
    ),
    (  # a currency code before the number, as invoices write it: "USD 8.30"
        re.compile(r"\b(usd|gbp|eur) ?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?(?![\d.,]\d)", I),
        _money_code,
    ),
    (
        re.compile(
            r"\b(" + _MONEY_CUE + r"(?: of| for| is| was| you| it| to)*"
            r" (\d{1,3}) (\d{2}))\b(?! ?(?:am|pm|a\.m|p\.m|o'clock|in the|at night))",
            I,
        ),
        _money_pair,
    ),
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), _date_iso),
    (re.compile(r"\b" + _MONTH + r" (?:the )?" + _DAYNUM + r"\b(?:,? (\d{4})\b)?", I), _date_md),
    (
        re.compile(r"\b(?:the )?" + _DAYNUM + r" (?:of )?" + _MONTH + r"(?:,? (\d{4})\b)?", I),
        _date_dm,
    ),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?\b"), _date_slash),
    (
        re.compile(
            r"\b(half|quarter|\d{1,2}) (past|after|to|til|till) (\d{1,2})"
            r"(?: ?(a\.? ?m\.?|p\.? ?m\.?|in the evening|in the morning))?",
            I,
        ),
        _time_past,
    ),
    (re.compile(r"\b(\d{1,2})(?:[:. ](\d{2}))? ?(a\.? ?m\.?|p\.? ?m\.?)(?!\w)", I), _time),
    (
        re.compile(
            r"\b(\d{1,2})(?:[:. ](\d{2}))?(?: o'? ?clock)? ?(?:in the )?"
            r"(morning|afternoon|evening|night|tonight)\b",
            I,
        ),
        _time,
    ),
    (re.compile(r"\b(\d{1,2}):(\d{2})\b"), _time_24),
    (re.compile(r"\b(\d{1,2})(?: (\d{2}))? ?o'? ?clock\b()", I), _time),
    (re.compile(r"\b(?:noon|midday|midnight)\b", I), _time_word),
    (
        re.compile(
            r"\b(today|tonight|tomorrow|the day after tomorrow|day after tomorrow|"
            r"(?:this|next) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
            r"week|weekend)|" + _WEEKDAY + r")\b",
            I,
        ),
        _date_relative,
    ),
    (  # "the 21st", not "the first attempt" or "the second one"
        re.compile(
            r"\bthe (\d{1,2})(?:st|nd|rd|th)\b(?! (?:attempt|time|try|one|ones|two|three|step|"
            r"option|thing|item|leg|payment|call|charge|transfer|request|line|page|person|"
            r"name|few|half|part|segment|passenger|ticket|order|flight|booking)s?\b)",
            I,
        ),
        _date_day,
    ),
    (re.compile(r"\b(\d{1,4}) " + _COUNT_UNIT + r"\b", I), _count),
    (
        re.compile(r"\bnumber of " + _COUNT_UNIT + r" (?:is|will be|of|:) ?(\d{1,4})\b", I),
        lambda m, rw: _count_after(m, rw),
    ),
    (
        re.compile(
            r"\b(?:table|reservation|booking|party|room|seating|group|ride|cab|taxi|"
            r"(?:it|that)(?:'s| is)|make it|just) (?:of|for) (\d{1,3})"
            r"\b(?![:.]\d)(?! ?(?:am|pm|a\.m|p\.m|o'clock))",
            I,
        ),
        _count,
    ),
    (
        re.compile(r"\b(?:a|one|just) (?:single )?(ticket|seat|room|night|person|guest)\b", I),
        lambda m, rw: _one(m, rw),
    ),
    (
        re.compile(
            r"\b(?:at|by) (\d{1,2})(?: (\d{2}))?( ?o'? ?clock)?\b(?![.:/,]?\d)"
            r"(?! ?(?:people|persons?|guests?|tickets?|seats?|of us|%|dollars?|days?|"
            r"weeks?|months?|years?|minutes?|hours?|business))",
            I,
        ),
        _time_bare,
    ),
]


def _count_after(m: re.Match[str], rw: Rewritten) -> Entity | None:
    """ "the number of tickets is 4": the count comes after its unit."""
    n = int(m.group(2))
    if n <= 0 or n > 1000:
        return None
    span, text = _span(m, rw)
    return Entity(kind="count", value=n, text=text, span=span)


def _one(m: re.Match[str], rw: Rewritten) -> Entity:
    span, text = _span(m, rw)
    return Entity(kind="count", value=1, text=text, span=span)


# Most patterns read digits: a turn with none (after spoken numbers became digits) skips them.
_NEEDS_DIGIT = [r"\d" in p.pattern for p, _ in PATTERNS]

# "thirty two eighty" with no money word beside it: an amount only in a sentence that speaks of
# money, and never right after a word that introduces a time.
_LOOSE_PAIR = re.compile(
    r"(?<![\w:.$£€])(?<!\bat )(?<!\bby )(?<!\bfrom )(?<!\buntil )(?<!\bbefore )(?<!\bafter )"
    r"(\d{1,3}) (\d{2})\b(?! ?(?:am|pm|a\.m|p\.m|o'clock|in the|at night|percent|%|minutes|"
    r"hours|days))",
    I,
)
_MONEY_SENTENCE = re.compile(
    r"[$£€]|\b(?:refund\w*|charge\w*|paid|pay|payment|dollars?|bucks|price|cost|total|fee|"
    r"balance|amount|credit\w*|deposit\w*)\b",
    I,
)
_STOPS = re.compile(r"[.!?;]\s|\n")


def _loose_pairs(rw: Rewritten) -> list[tuple[int, int, Entity]]:
    out = []
    begin = 0
    for end in [m.end() for m in _STOPS.finditer(rw.text)] + [len(rw.text)]:
        sentence = rw.text[begin:end]
        if _MONEY_SENTENCE.search(sentence):
            for m in _LOOSE_PAIR.finditer(rw.text, begin, end):
                s, e = rw.source(m.start(), m.end())
                value = _amount(m.group(1), m.group(2), None)
                out.append(
                    (
                        m.start(),
                        m.end(),
                        Entity(kind="amount", value=value, text=rw.original[s:e], span=(s, e)),
                    )
                )
        begin = end
    return out


class _Taken:
    """Disjoint character ranges already read as an entity, sorted: whether a new range
    overlaps one is a binary search, so a long turn is read in linear-logarithmic time."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, s: int, e: int) -> bool:
        i = bisect.bisect_left(self.starts, e) - 1
        return i >= 0 and self.ends[i] > s

    def add(self, s: int, e: int) -> None:
        i = bisect.bisect_left(self.starts, s)
        self.starts.insert(i, s)
        self.ends.insert(i, e)


def extract_entities(text: str, rw: Rewritten | None = None) -> list[Entity]:
    """Every entity stated in `text`, in the order they were said."""
    rw = rw if rw is not None else rewrite(text)
    taken = _Taken()
    found: list[Entity] = []
    digits = any(c.isdigit() for c in rw.text)
    for (pattern, build), needs_digit in zip(PATTERNS, _NEEDS_DIGIT, strict=True):
        if needs_digit and not digits:
            continue
        for m in pattern.finditer(rw.text):
            s, e = m.start(), m.end()
            if taken.overlaps(s, e):
                continue
            entity = build(m, rw)
            if entity is None:
                continue
            taken.add(s, e)
            found.append(entity)
    for s, e, entity in _loose_pairs(rw) if digits else ():
        if not taken.overlaps(s, e):
            taken.add(s, e)
            found.append(entity)
    found.sort(key=lambda x: x.span)
    return found
