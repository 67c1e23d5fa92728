"""What was said for one claim: the values its own sentence states, what the agent read back
before it and what the caller answered, each with the words that give its role."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from hotato.claims.agree import fold, role_words
from hotato.claims.entities import Entity, extract_entities
from hotato.claims.extract import Claim
from hotato.claims.pack import PackSet
from hotato.model.evidence import Turn

# A claim that introduces a list ("I've submitted your request:" then "- Dates: ...") states
# the list's values too.
_LIST_AFTER = re.compile(r"[*_ \t]*:?[*_ \t]*\n\s*(?:[-*•]|\d+[.)])\s")


# The kinds of value a claim states in the sentences after it, up to the next claim of its turn
# ("Done. Jordan's checkup is now Wednesday the 18th at 3:30"): when it takes place. A code or
# an amount said after it is as often another thing's (a bill's number, a balance).
_TRAILING = frozenset({"date", "time"})

# Where the sentences that go on with a claim end: at a blank line, unless a list follows it
# that the claim's paragraph introduces ("You're booked!" then "- When: Thu at 7 PM"), and at a
# summary's heading.
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_BULLETS = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")
_HEADING = re.compile(r"\n\W*(?:summary|recap|to recap|to summari[sz]e)\b", re.IGNORECASE)


def _trail_end(text: str, start: int) -> int:
    """Where the values said after a claim stop being its own (see `_TRAILING`)."""
    end = len(text)
    if (heading := _HEADING.search(text, start)) is not None:
        end = heading.start()
    if (gap := _PARAGRAPH.search(text, start, end)) is not None:
        rest = _PARAGRAPH.search(text, gap.end(), end)
        listed = _BULLETS.match(text, gap.end()) is not None
        end = (rest.start() if rest else end) if listed else gap.start()
    return end


def _asked(turns: Sequence[Turn], at: int) -> bool:
    """The caller's last turn before turn `at` asks a question."""
    for turn in reversed(turns[:at]):
        if turn.role != "agent":
            return "?" in turn.text
    return False


READBACK_WINDOW = 12  # turns before a claim searched for the agent's read-backs


@dataclass
class Said:
    """What was stated for one claim: entities by kind, the turns they came from, and the folded
    text of the read-backs (to tell a name read back last from one it replaced)."""

    entities: dict[str, list[Entity]]
    turns: list[int]
    context: str = ""  # folded text of the last read-back, the caller's answers and the claim
    earlier: tuple[str, ...] = ()  # folded text of each earlier read-back
    last: str = ""  # folded text of the last read-back
    roles: dict[int, frozenset[str]] = field(default_factory=dict)  # id(entity) -> role words
    own: frozenset[str] = frozenset()  # the entity kinds the claim's own sentence states
    text: str = ""  # the claim's sentence and those that go on with it (see `_trail_end`)

    def named(self) -> frozenset[str]:
        """The role words said before the values of the kinds the claim itself states."""
        return frozenset().union(
            *(self.roles.get(id(e), frozenset()) for k in self.own for e in self.entities[k])
        )


# The caller's answer that accepts what the agent just said ("Yes, that's right.").
_AFFIRMED = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|correct|right|exactly|sure|ok(?:ay)?|sounds (?:good|great|fine)|"
    r"(?:that(?:'s| is)|it(?:'s| is)) (?:right|correct|fine|good|perfect)|perfect|please do|"
    r"go ahead|do it|confirm(?:ed)?)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=512)
def _entities(text: str) -> tuple[Entity, ...]:
    """A turn's entities, read once: a read-back is read again for every claim after it."""
    return tuple(extract_entities(text))


def _is_readback(turns: Sequence[Turn], i: int, packs: PackSet) -> bool:
    """An agent turn that asks, that asks for confirmation, or that the caller then affirms."""
    return (turns[i].role == "agent" and "?" in turns[i].text) or confirmed(turns, i, packs)


def confirmed(turns: Sequence[Turn], i: int, packs: PackSet) -> bool:
    """An agent turn that asks the caller to confirm, or that the caller then affirms."""
    turn = turns[i]
    if turn.role != "agent":
        return False
    if packs.confirm is not None and packs.confirm.search(turn.text.lower().encode()) is not None:
        return True
    after = turns[i + 1] if i + 1 < len(turns) else None
    return after is not None and after.role != "agent" and _AFFIRMED.match(after.text) is not None


def said_for(
    claim: Claim, turns: Sequence[Turn], previous: int, packs: PackSet, after: int = 0
) -> Said:
    """The entities stated for a claim, by kind: those of its own turn from `after` (the end of
    the claim before it in the turn) to its end first, then what the agent read back since the
    previous claim of its type and what the caller answered, in the order they were said (a
    later read-back or correction replacing an earlier one, kind by kind)."""
    own: dict[str, list[Entity]] = {}
    roles: dict[int, frozenset[str]] = {}
    claim_text = turns[claim.turn].text
    listed = _LIST_AFTER.match(turns[claim.turn].text, claim.span[1]) is not None
    trail = _trail_end(claim_text, claim.span[1])
    if _asked(turns, claim.turn):  # what follows the claim may answer the caller's question
        trail = claim.span[1]
    stated_text = claim_text[max(after, claim.span[0]) : trail]
    for e in claim.entities:  # since the claim before it, and a list it introduces
        if (
            after <= e.span[0] < claim.span[1]
            or (listed and e.span[0] >= after)
            or (e.span[0] < trail and e.kind in _TRAILING)
        ):
            own.setdefault(e.kind, []).append(e)
            roles[id(e)] = role_words(claim_text, e.span[0], e.kind, e.text)
    sentence = claim.entities[0].span[0] if claim.entities else claim.span[0]
    before: dict[str, list[Entity]] = {}  # "table for two at eight. okay, you're booked"
    for e in _entities(claim_text[: min(sentence, claim.span[0])]):
        if e.span[0] >= after:
            before.setdefault(e.kind, []).append(e)
            roles[id(e)] = role_words(claim_text, e.span[0], e.kind, e.text)
    floor = max(previous, claim.turn - READBACK_WINDOW - 1)
    readbacks = [i for i in range(floor + 1, claim.turn) if _is_readback(turns, i, packs)]
    own_text = fold(turns[claim.turn].text)
    if not readbacks:  # what the turn said before the claim is its read-back
        for kind, entities in before.items():
            own.setdefault(kind, entities)
        return Said(own, [claim.turn], own_text, roles=roles, own=frozenset(own), text=stated_text)
    context: dict[str, list[Entity]] = {}
    last = readbacks[-1]
    sources = [
        i for i in range(readbacks[0], claim.turn) if i in readbacks or turns[i].role != "agent"
    ]
    for i in sources:  # in order: a later read-back, or the caller's correction, replaces
        found: dict[str, list[Entity]] = {}
        for e in _entities(turns[i].text):
            found.setdefault(e.kind, []).append(e)
            roles[id(e)] = role_words(turns[i].text, e.span[0], e.kind, e.text)
        context.update(found)
    stated = frozenset(own)
    for kind, entities in context.items():
        own.setdefault(kind, entities)
    recent = " ".join(turns[i].text for i in range(last, claim.turn + 1))
    earlier = tuple(fold(turns[i].text) for i in readbacks[:-1])
    return Said(
        own,
        [*sources, claim.turn],
        fold(recent),
        earlier,
        fold(turns[last].text),
        roles,
        stated,
        stated_text,
    )
