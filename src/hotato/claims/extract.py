"""Find the claims in agent turns: one sentence at a time, a type by its trigger, a polarity by
the first cue group that matches, and the entities the sentence (and what follows it in the
turn, up to the next claim) states. Deterministic: same turns, same packs, same claims."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import Any

import msgspec

from hotato.claims.entities import Entity, extract_entities
from hotato.claims.pack import ClaimType, PackSet
from hotato.claims.spoken import rewrite
from hotato.model.evidence import Turn

# A sentence ends at . ! ? ; (or a line break), or a clause turns at ", but" / ", if".
# A sentence ends at ! ? ; or a line break, and at a full stop followed by a space or the end,
# except after an abbreviation ("6 p.m. is fine", "Dr. Patel"); "$18.99" never splits.
_END = re.compile(r"[.!?;]+(?=\s|$)|\n")
_BEFORE = re.compile(r"([A-Za-z]+(?:\.[A-Za-z]+)*)$")
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "st", "prof", "mt", "ft", "no", "vs", "approx"})
_TIMES = frozenset({"a.m", "p.m", "a", "p", "etc", "e.g", "i.e"})
# A clause turns at ", but" / ", if" / ", can I" ..., at a new subject after a comma or a
# conjunction (", you won't be billed", " and you'll get"), at " but ", and before a closing
# question that speech-to-text left unpunctuated ("... booked is there anything else").
_TURN = re.compile(
    r",\s*(?=(?:but|however|if|although|though|unless|except|no|nothing|yes|shall|should|can|may|would|"
    r"is there|anything)\b(?!\s*\d))"
    r"|,\s*and\s+(?=\W*[$£€])"
    r"|,\s*and\s+(?=(?:[\w*]+\s+){1,5}(?:has|have) been\b)"
    r"|\s+and\s+(?=(?:can|could|will|should|may|might)\s)"
    r"|,?\s+and\s+(?=(?:also\s+)?(?:added|sent|booked|cancell?ed|refunded|charged|scheduled|"
    r"created|emailed|texted|updated|changed|removed|issued|applied|waived|notified|shared|"
    r"reserved|ordered|placed|opened|filed|logged|submitted)\b)"
    r"|(?:,\s*(?:and |so |but |then )?|\s+(?:and|so|but|then)\s+)"
    r"(?=(?:you|it|they|we|i|that|this|there|he|she|your)\b(?!-))"
    r"|,?\s+(?:and|so|but|then)\s+(?=the\b)"
    r"|\s+but\s+"
    r"|\s+(?=(?:is there anything|anything else|would you like|do you (?:want|need)|can i help|"
    r"how else)\b)",
    re.IGNORECASE,
)
# "I'm happy to let you know that ..." announces what follows; it offers nothing.
_PREAMBLE = re.compile(
    r"\b(?:i'm|i am|we're|we are)(?: so| very)? (?:happy|glad|pleased|delighted|excited) to "
    r"(?:inform you|let you know|tell you|report|confirm|share|say|announce)(?: that)?\b"
    r"|\b(?:i|we) can confirm(?: that)?\b"
)
# A sentence announcing a read-back ("Please verify the following details:"): the done claims
# after it in the turn are what the agent is about to do, not what it did.
_READBACK = re.compile(
    r"(?:^|\b)(?:please |kindly |let'?s |let me |can you |could you )?(?:verify|check|review|"
    r"confirm|read and confirm|go over)(?: and (?:verify|confirm))? (?:the |these |this |your )?"
    r"(?:following|details|information|info|order details|booking details)\b"
)
# "We'll get the return started", "I'll have that done for you": what will be done, though
# it ends in a word that says done.
_WILL_HAVE = re.compile(
    r"\b(?:i'll|i will|we'll|we will|i'm going to|we're going to|let me|let's|someone will) "
    r"(?:get|have) (?:it|that|this|them|you|everything|the [a-z]+|your [a-z]+)(?: [a-z]+)? "
    r"(?:started|done|sorted|set up|taken care of|processed|sent|booked|fixed|going|moving|"
    r"out|over|scheduled|rescheduled|updated|changed|cancell?ed|refunded)\b"
)
# "I was able to confirm that reservation": it is confirmed, not a request to confirm.
_CONFIRMED = re.compile(r"\b(?:i|we) (?:was|were|have been|'ve been|am|are) able to confirm\b")
# Markdown emphasis and code marks an LLM agent writes ("has been **cancelled**"): read
# without them.
_MARKUP = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)|`+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


# A line of a list or a summary that reports a change without a verb of its own: "June 18
# appointment cancelled", "✅ Visitor passes created for plate 8KLM203", "$38.99 refunded for
# order ORD-55810", "snapshot snap-31c07 taken". Read only in a listed line (a bullet, a check
# mark, a number, or a sentence of a turn after its "Summary:" / "Recap:").
_LISTED = re.compile(r"^\s*(?:[-*\u2022\u2705\u2714\u2611]|\d+[.)]\s|(?:summary|recap)\b)")
_SUMMARY_START = re.compile(r"^\W*(?:summary|recap|to recap|to summari[sz]e)\b")
_TELEGRAPH = re.compile(
    r"^\W*(?:(?:summary|recap)\W+)?(?:[\w$#.,'/&-]+\s+){1,6}?"
    r"(?:[a-z]{3,}(?<!e)ed|taken|sent|made|paid|done|frozen|given|bought|set up|put in|written)"
    r"(?:\s+(?:to|from|for|on|in|at|with|and|until|via|through|as|into)\b|\W*$)"
)
_FINITE = re.compile(
    r"\b(?:is|are|was|were|has|have|had|will|would|can|could|should|i|we|you|it|they|"
    r"do|does|did|not|no|if|when|once)\b"
)
_CHECKED = re.compile(r"^\s*[\u2705\u2714\u2611]")


_OPTION = re.compile(
    r"^\W*(?:\d+[.)]\s*)?(?:keep|choose|pick|use|get|go|try|let|make|book|cancel|change|add|"
    r"remove|select|confirm|call|send|pay|leave|move|upgrade|return|exchange|request|ask)\b"
)
# Participles that describe a thing, or a state the record shows, not a change just made.
_STATE_WORD = re.compile(
    r"\b(?:associated|linked|related|located|based|called|named|listed|used|needed|required|"
    r"expected|estimated|detailed|selected|preferred|owned|shipped|delivered|received|"
    r"scheduled to|allowed|covered|included|excluded|limited|discounted)\b"
)
_LABEL = re.compile(r"^\W*[a-z][a-z ]{0,30}:")


def telegraph(text: str) -> bool:
    """A listed line that reports a change in a few words (see `_TELEGRAPH`), or one a check
    mark opens; not an option offered ("- Keep the flight as booked") nor a labelled field
    ("✅ Order status: exchange requested")."""
    if _OPTION.match(text):
        return False
    m = _TELEGRAPH.match(text)
    if m is not None and _STATE_WORD.search(m.group(0)):
        return False
    if m is None:
        return bool(_CHECKED.match(text)) and not _LABEL.match(text)
    return _FINITE.search(text[: m.end()]) is None


class Claim(msgspec.Struct, frozen=True, kw_only=True):
    turn: int  # 0-based position of the turn in the transcript
    span: tuple[int, int]  # characters of the turn's text
    text: str
    type: str
    polarity: str
    entities: list[Entity]
    pack: str = ""


def _ends(text: str) -> list[int]:
    """Where sentences end (the index after their closing punctuation)."""
    out = []
    for m in _END.finditer(text):
        if m.group() == "." or set(m.group()) == {"."}:
            word = _BEFORE.search(text, max(0, m.start() - 64), m.start())
            token = word.group(1).lower() if word else ""
            after = text[m.end() : m.end() + 64].lstrip()[:1]
            if token in _TITLES or (token in _TIMES and after.islower()):
                continue
        out.append(m.end())
    if not out or out[-1] < len(text):
        out.append(len(text))
    return out


def sentences(text: str) -> list[tuple[int, int, int]]:
    """Spans of sentences and clauses, stripped of surrounding spaces, each with the start of
    its sentence."""
    out: list[tuple[int, int, int]] = []
    begin = 0
    for stop in _ends(text):
        start = begin
        first: int | None = None
        cuts = [c.start() for c in _TURN.finditer(text, begin, stop)]
        for end in [*cuts, stop]:
            s, e = start, end
            while s < e and text[s] in " \t\n,":
                s += 1
            while e > s and text[e - 1] in " \t\n,":
                e -= 1
            if e > s and any(ch.isalnum() for ch in text[s:e]):
                first = s if first is None else first
                out.append((s, e, first))
            start = end + 1
        begin = stop
    return out


def _first(patterns: Sequence[Any], data: bytes) -> bool:
    return any(p is not None and p.search(data) for p in patterns)


def polarity_of(
    ctype: ClaimType, data: bytes, packs: PackSet, own: frozenset[str] = frozenset()
) -> str | None:
    """The polarity the first matching cue group names; None when no cue matches. `own`: the
    polarities whose type-specific cue patterns the sentence matched (they join the first group
    of that polarity)."""
    cue_set, groups = packs.cue_index
    matched = {groups[i] for i in cue_set.Match(data) or ()}
    used: set[str] = set()
    for g, cue in enumerate(packs.cues):
        first = cue.polarity not in used
        used.add(cue.polarity)
        if g in matched or (first and cue.polarity in own):
            return cue.polarity
    return next((pol for pol in ctype.extra if pol in own and pol not in used), None)


def _own_cues(ctype: ClaimType, data: bytes) -> frozenset[str]:
    return frozenset(pol for pol, patterns in ctype.extra.items() if _first(patterns, data))


def types_in(data: bytes, packs: PackSet) -> list[tuple[ClaimType, frozenset[str]]]:
    """Types whose trigger (or own cue) the sentence holds, less those a more specific one
    overrides; each with the polarities of its own cues that matched."""
    type_set, owners = packs.type_index
    found: dict[int, set[str]] = {}
    for i in type_set.Match(data) or ():
        position, polarity = owners[i]
        pols = found.setdefault(position, set())
        if polarity is not None:
            pols.add(polarity)
    hits = [(packs.types[i], frozenset(found[i])) for i in sorted(found)]
    if any(not t.align for t, _ in hits):  # a type that names the action beats a found one
        hits = [(t, own) for t, own in hits if not t.align]
    if len(hits) > 1:
        beaten = {o for t, _ in hits for o in t.overrides}
        hits = [(t, own) for t, own in hits if t.name not in beaten]
    return hits


def _entities_unmarked(text: str) -> list[Entity]:
    """The entities of a turn read without its markdown marks ("ending **4418**" reads as
    "ending 4418"), each span mapped back onto the turn as written."""
    if "*" not in text and "`" not in text:
        return extract_entities(text, rewrite(text))
    kept = [i for i, ch in enumerate(text) if ch not in "*`"]
    plain = "".join(text[i] for i in kept)
    found = extract_entities(plain, rewrite(plain))
    return [
        msgspec.structs.replace(e, span=(kept[e.span[0]], kept[e.span[1] - 1] + 1))
        for e in found
        if e.span[1] > e.span[0]
    ]


def _bare_fits(data: bytes, packs: PackSet, spoken: Sequence[str], recent: Sequence[str]) -> bool:
    return packs.bare is not None and bool(spoken or recent) and bool(packs.bare.search(data))


def claims_in_turn(
    turn: Turn, position: int, packs: PackSet, recent: Sequence[str] = ()
) -> tuple[list[Claim], list[str]]:
    """The turn's claims, and the types it spoke of without claiming them done (offered,
    asked about, read back), last first.

    `recent` names such types from the agent's previous turns, last first: a sentence that
    says only "it's done" claims the first of them."""
    text = turn.text
    folded = text.translate(_QUOTES)
    found: list[tuple[tuple[int, int], ClaimType, str]] = []
    listed: set[int] = set()  # starts of claims in a listed line: their values end with it
    bare: list[tuple[tuple[int, int], ClaimType, str]] = []
    opens: dict[int, int] = {}  # clause start -> its sentence's start
    spoken: list[str] = []
    spans = sentences(folded)
    confirm_at = -1
    intro_at = -1
    summing = False  # after a "Summary:" every sentence of the turn is a listed line
    generic = next((t for t in packs.types if t.align), None)
    for s, e, sentence in spans:
        opens[s] = sentence
        if folded[s] == "|":  # a row of a markdown table lists; it claims nothing
            continue
        plain = _MARKUP.sub("", folded[s:e].lower())
        summing = summing or bool(_SUMMARY_START.match(plain))
        data = _PREAMBLE.sub(" ", _CONFIRMED.sub("confirmed", plain)).encode("utf-8")
        if packs.confirm is not None and packs.confirm.search(data):
            confirm_at = s
        if intro_at < 0 and _READBACK.search(folded[s:e].lower()):
            intro_at = s
        hits = types_in(data, packs)
        if hits and all(t.align for t, _ in hits) and _bare_fits(data, packs, spoken, recent):
            hits = []  # "It went through." speaks of the action named just before
        short = (summing or _LISTED.match(plain)) and telegraph(plain)
        if short and not hits and generic is not None:
            hits = [(generic, frozenset())]
        for ctype, own in hits:
            polarity = polarity_of(ctype, data, packs, own)
            if polarity == "done" and _WILL_HAVE.search(plain):
                polarity = "promised"
            if polarity in (None, "promised") and short and not _WILL_HAVE.search(plain):
                polarity = "done"  # "Permit moved to 9RTP557": a listed line says it is done
            if polarity is not None:
                found.append(((s, e), ctype, polarity))
                if short or _LISTED.match(plain):
                    listed.add(s)
            if polarity != "done":  # offered, asked or read back: a bare "done" may follow
                spoken.insert(0, ctype.name)
        if not hits and packs.bare is not None and packs.bare.search(data):
            context = [*spoken, *recent]
            if context or generic is not None:  # no action named before: the catalog decides
                ctype = packs.by_name[context[0]] if context else generic  # type: ignore[assignment]
                assert ctype is not None
                polarity = polarity_of(ctype, data, packs, _own_cues(ctype, data))
                bare.append(((s, e), ctype, polarity or "done"))  # it says only: done
    named = {ctype.name for _, ctype, _ in found}
    # "Done, I've issued it": one claim; a bare "All done" naming nothing joins no named claim
    found += [b for b in bare if b[1].name not in named and not (b[1].align and named)]
    found.sort(key=lambda f: f[0])
    if not found:
        return [], spoken
    entities = _entities_unmarked(folded)
    out = []
    starts = sorted({span[0] for span, _, _ in found})
    at = [x.span[0] for x in entities]  # entities come in text order
    for (s, e), ctype, polarity in found:
        i = bisect.bisect_right(starts, s)
        stop = starts[i] if i < len(starts) else len(text)
        if s in listed:
            line_end = text.find("\n", e)
            stop = min(stop, line_end if line_end >= 0 else len(text))
        elif text[e - 1 : e] == ":":  # "upgraded to:" takes the list below it, to its blank line
            body = len(text) - len(text[e:].lstrip("\n"))
            gap = text.find("\n\n", body)
            stop = min(stop, gap if gap >= 0 else len(text))
        j = bisect.bisect_left(starts, s)
        # from the start of its sentence (after any claim before it) to the next claim
        begin = max(opens[s], starts[j - 1] + 1 if j else 0)
        stated = entities[bisect.bisect_left(at, begin) : bisect.bisect_left(at, stop)]
        if polarity == "done" and (confirm_at >= s or 0 <= intro_at < s):
            polarity = "negated"  # read back for the caller to confirm, not yet done
        out.append(
            Claim(
                turn=position,
                span=(s, e),
                text=text[s:e],
                type=ctype.name,
                polarity=polarity,
                entities=[
                    msgspec.structs.replace(x, text=text[x.span[0] : x.span[1]]) for x in stated
                ],
                pack=ctype.pack,
            )
        )
    return out, spoken


def extract(
    turns: Sequence[Turn], packs: PackSet, roles: Sequence[str] = ("agent",)
) -> list[Claim]:
    """Every claim in the turns of `roles` (the agent's, by default), in transcript order."""
    out: list[Claim] = []
    history: list[list[str]] = []
    for position, turn in enumerate(turns):
        if turn.role in roles and turn.text:
            recent = [t for spoken in reversed(history[-2:]) for t in spoken]
            claims, spoken = claims_in_turn(turn, position, packs, recent)
            out.extend(claims)
            history.append(spoken)
    return out
