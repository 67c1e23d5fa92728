"""Which of the agent's tools a claim speaks of.

A claim type names its tools by pattern (`tools`), by the types whose tools also do it (`also`:
a booking takes the payment) and by the arguments such a tool takes (`params`). Where none of
the catalog's tools answers to those, or the type is `align: true` (found without knowing the
action), the claim is aligned by its words: the overlap of the claim's sentence (and, more
weakly, the agent's turns before it) with each mutating tool's name, description and argument
names. Only a tool that is not known to be a read can back a claim that something was done.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hotato.claims.catalog import ACT_WORDS, STOP, Catalog, Tool, stem, word_set, words
from hotato.claims.pack import ClaimType, PackSet

_WORD = re.compile(r"[a-z]+")
# Words every tool and many sentences share: they align nothing.
_GENERIC = frozenset(
    stem(w)
    for w in (
        word_set(
            "date time name number id location city amount day type price total place "
            "details info user customer account status request value item items start "
            "end count confirm confirmation successful success done set all make made now "
            "just has been have will would like thank thanks great okay sure please help "
            "anything else need want today tomorrow also here there what which when where "
            "how monday tuesday wednesday thursday friday saturday sunday january february "
            "march april may june july august september october november december morning "
            "afternoon evening night week month year next last instead"
        )
    )
)
NAME_WEIGHT = 3  # a word of the tool's name counts three times a word of its description


def terms(text: str) -> frozenset[str]:
    """The content words of a text, stemmed."""
    return frozenset(
        s
        for w in _WORD.findall(text.lower())
        if len(w) > 2 and w not in STOP and (s := stem(w)) not in _GENERIC
    )


def may_act(tool: Tool, packs: PackSet) -> bool:
    """Not known to be a read: classed mutating, or unknown and not named like a read."""
    if tool.mutating is not None:
        return tool.mutating
    return not (packs.read_only is not None and packs.read_only.search(tool.name.lower().encode()))


def named_tools(
    ctype: ClaimType, catalog: Catalog, packs: PackSet, side_effects: bool = True
) -> list[str]:
    """The catalog's tools the type names: by its `tools` pattern, its `params` pattern, or
    (with `side_effects`) the patterns of the types in its `also`; reads left out."""
    also = ctype.also if side_effects else ()
    kinds = [ctype, *(packs.by_name[t] for t in also if t in packs.by_name)]
    out = []
    for tool in catalog.tools.values():
        if not may_act(tool, packs) or _undoes(tool, kinds):
            continue
        name = tool.name.lower().encode()
        if any(k.tools is not None and k.tools.search(name) for k in kinds) or (
            ctype.params is not None
            and any(ctype.params.search(p.lower().encode()) for p in tool.params)
        ):
            out.append(tool.name)
    return out


# Verbs that undo: a tool named by one (`void_purchase`) backs a claim of undoing, never the
# booking or purchase its name also holds.
_UNDOING = word_set("cancel void delete remove terminate unsubscribe revoke refund return")


def _undoes(tool: Tool, kinds: Sequence[ClaimType]) -> bool:
    first = words(tool.name)[:1]
    return (
        bool(first)
        and first[0] in _UNDOING
        and not any(k.tools is not None and k.tools.search(first[0].encode()) for k in kinds)
    )


def _score(tool: Tool, own: frozenset[str], before: frozenset[str]) -> tuple[int, int]:
    """What the claim's own sentence shares with the tool, then what the turns before it do:
    the claim's own words rank first, the turns before break ties."""
    named = {stem(w) for w in words(tool.name)} - _GENERIC
    other = tool.terms - named - _GENERIC
    return (
        NAME_WEIGHT * len(own & named) + len(own & other),
        NAME_WEIGHT * len(before & named) + len(before & other),
    )


def by_words(
    claim_text: str,
    context: Sequence[str],
    catalog: Catalog,
    packs: PackSet,
    reads: bool = False,
    loose: bool = False,
    generic: bool = False,
) -> list[str]:
    """The mutating tools whose words the claim shares, best first: what the claim's own
    sentence shares ranks first and the turns before it break ties; a word of the tool's name
    counts three times one of its description, arguments or the values they list. A tool must
    share a word of its name, or three others, with the claim or the turns before it; and a
    word with the claim's own sentence when it has words of its own, unless `generic` (a claim
    of no type, "Status: confirmed", whose action the turns before it name) or `loose`. With
    `reads`, the reading tools instead: which service the claim speaks of, when none of its
    actions ran."""
    own = terms(claim_text)
    before = terms(" ".join(context)) - own
    scored = []
    for tool in catalog.tools.values():
        if may_act(tool, packs) == reads:
            continue
        mine, theirs = _score(tool, own, before)
        shares = loose or not own or mine > 0 or (generic and bool(before & tool.terms))
        if mine + theirs >= NAME_WEIGHT and shares:
            scored.append(((-mine, -theirs), tool.name))
    scored.sort()
    if not scored:
        return []
    (best_own, best_before), _ = scored[0]
    if best_own == 0:  # named by the turns before alone: the best of them
        return [name for s, name in scored if s == (best_own, best_before)]
    # every tool the claim's own words name nearly as well as the best, best first: a side
    # effect ("your card has been blocked" by a fraud report) is one of them
    return [name for (own_score, _), name in scored if own_score <= best_own + NAME_WEIGHT - 1]


_ACT_STEMS = frozenset(stem(w) for w in ACT_WORDS)
# Verbs that say only that something changes: the arguments say what (`set_card_status`).
_WEAK = word_set("set update change modify manage handle make put turn switch apply edit adjust")


def _verb(tool: str) -> str | None:
    """The action a tool's name leads with (`cancel_pending_order`: cancel), stemmed; None for
    a weak verb that leaves the action to its arguments."""
    verb = next((w for w in words(tool) if w in ACT_WORDS), None)
    return None if verb is None or verb in _WEAK else stem(verb)


def speaks_of(claim_text: str, tool: Tool) -> bool:
    """The claim's own sentence speaks of the tool: it says the action the tool's name leads
    with ("wasn't able to get a jump start sent out": `roadside_dispatch`), or, when it says no
    action, shares a word with the tool's name, arguments or description. A claim that says
    another action ("not able to create new orders") does not speak of `cancel_pending_order`."""
    said = {stem(w) for w in _WORD.findall(claim_text.lower())}
    verb = _verb(tool.name)
    if verb is not None and verb in said:
        return True
    if verb is not None and said & _ACT_STEMS:
        return False
    return bool(terms(claim_text) & (tool.terms - _GENERIC))


# Actions that come to the same thing for a claim said in other words than the tool's name:
# "you're booked" of `appointment_create`, "I've added a credit" of `ledger_post`, "booked" of
# `hold_bike`. A verb may belong to more than one kind (booking makes something and reserves
# it; an order makes and pays); two actions are of a kind when they share one. Undoing,
# changing, paying, refunding and sending stay apart from making and from each other, and a
# hold is no purchase.
_KINDS = (
    ("make", "book create add post place order register enroll sign issue open start plan "
     "request apply submit assign renew activate enable record mark log save file rsvp "
     "subscribe invite launch rent generate"),
    ("reserve", "book reserve hold schedule rent"),
    ("undo", "cancel remove delete revoke terminate void stop end close disable deactivate "
     "unsubscribe withdraw decline reject"),
    ("change", "change update modify move reschedule upgrade downgrade replace exchange adjust "
     "increase decrease reset switch edit rebook"),
    ("pay", "pay charge debit deposit buy purchase order"),
    ("refund", "refund credit return waive"),
    ("send", "send share notify forward reply email text message"),
)  # fmt: skip
_FAMILIES: dict[str, frozenset[str]] = {}
for _kind, _group in _KINDS:
    for _word in _group.split():
        _FAMILIES[stem(_word)] = _FAMILIES.get(stem(_word), frozenset()) | {_kind}


def _family(verb: str) -> frozenset[str]:
    return _FAMILIES.get(verb, frozenset({verb}))


def terms_beyond_actions(text: str) -> frozenset[str]:
    """The content words of a text that name no action: what it speaks of."""
    return frozenset(t for t in terms(text) if t not in _ACT_STEMS)


def said_actions(text: str) -> frozenset[str]:
    """The kinds of action a text says (see `_FAMILIES`): "charged" and "fee_charged" both
    say pay."""
    return frozenset(
        kind
        for w in _WORD.findall(text.lower())
        if stem(w) in _ACT_STEMS
        for kind in _family(stem(w))
    )


def speaks_of_other(claim_text: str, tool: Tool) -> bool:
    """The claim says an action of another kind than the one the tool's name leads with
    ("added the note" of `fee_charge`; not "you're booked" of `appointment_create`)."""
    verb = _verb(tool.name)
    said = {stem(w) for w in _WORD.findall(claim_text.lower())} & _ACT_STEMS
    kinds = {k for v in said for k in _family(v)}
    return verb is not None and bool(said) and not _family(verb) & kinds


def only_of(claim_text: str, tool: Tool) -> bool:
    """The claim says the action the tool's name leads with, and no other ("you're moved to
    Monday" of `appointments.reschedule`; not "I've approved the brake job and added the oil
    change" of `work_order.add_line`)."""
    verb = _verb(tool.name)
    said = {stem(w) for w in _WORD.findall(claim_text.lower())} & _ACT_STEMS
    return verb is not None and said == {verb}


def align(
    ctype: ClaimType,
    claim_text: str,
    context: Sequence[str],
    catalog: Catalog,
    packs: PackSet,
    side_effects: bool = True,
) -> tuple[str, ...]:
    """The tools that can back a claim of this type said in `claim_text`, best first. Without
    `side_effects`, only the type's own tools: a claimed failure to refund is not contradicted
    by a cancellation that succeeded, though a cancellation may back a refund said done."""
    found = by_words(claim_text, context, catalog, packs, generic=ctype.align)
    if not ctype.align:
        named = named_tools(ctype, catalog, packs, side_effects)
        if named:  # the type's tools, then those the claim's own words name ("stay_commit")
            own = by_words(claim_text, [], catalog, packs) if side_effects else []
            # a tool the claim names by its object only, not by what it did: "you're booked
            # for plasma" is not `send_confirmation_email(booking_ref)`
            own = [t for t in own if not speaks_of_other(claim_text, catalog.tools[t])]
            return tuple(dict.fromkeys([*named, *own]))
    return tuple(found)
