"""policy: does the call keep a named, versioned, offline pack of rules?"""

from __future__ import annotations

import msgspec

from hotato.kinds._base import Evidence, KindDef, Spec, kind, run_check
from hotato.kinds._decode import did_you_mean
from hotato.kinds._packs import DEFAULT_PACK, Pack, is_path, load_pack
from hotato.model.errors import InputError
from hotato.model.results import Verdict
from hotato.model.status import Source, Status


class PolicyPack(Spec, tag="policy", frozen=True):
    """Grades the call against a pack's rules (banned language, required disclosures, PII,
    identity checks, ...): a bundled pack by `pack` name (see `hotato assert packs`), or a
    pack file at `pack_path`; with neither, the bundled `default` pack. `rule_ids` grades only
    those rules of the pack. Reads what the pack's rules read (the transcript, for most).

    Passes when every rule passes.
    Fails when any rule fails; `details.rules` lists each rule's id, kind and status.
    Inconclusive when no rule fails and one is inconclusive, such as a rule whose evidence (the
    transcript, or the trace) was not supplied.

    Example:
        - id: compliance
          kind: policy
          pack: default
          dimension: policy
    """

    pack: str | None = None
    pack_path: str | None = None
    rule_ids: tuple[str, ...] | None = None


def pack_of(spec: PolicyPack) -> Pack:
    return load_pack(spec.pack_path if spec.pack_path is not None else spec.pack or DEFAULT_PACK)


def _validate(spec: PolicyPack) -> list[str]:
    if spec.pack is not None and spec.pack_path is not None:
        return ["give 'pack' or 'pack_path', not both"]
    if spec.pack is not None and is_path(spec.pack):
        return [f"'pack' names a bundled pack; for a file write pack_path: {spec.pack!r}"]
    try:
        pack = pack_of(spec)
    except InputError as exc:  # UsageError included: an unknown pack name
        where = "pack_path" if spec.pack_path is not None else "pack"
        return [f"{where}: {p}" for p in exc.problems]
    if spec.rule_ids is None:
        return []
    if not spec.rule_ids:
        return ["'rule_ids' needs at least one id (leave it out to grade every rule)"]
    return [
        f"rule_ids: pack {pack.info.name!r} has no rule {rid!r}{did_you_mean(rid, pack.ids)}"
        for rid in _chosen(spec) or ()
        if rid not in pack.ids
    ]


# The rule ids hotato 1.x's built-in `default` policy pack used, for the rules that carry on
# under a new id in the bundled `default` pack (same intent; the patterns were rewritten).
_1X_DEFAULT_IDS = {
    "no-guarantee-language": "no-guarantees",
    "recording-disclosure": "recording-disclosed",
}


def _chosen(spec: PolicyPack) -> set[str] | None:
    if spec.rule_ids is None:
        return None
    if spec.pack_path is None and (spec.pack or DEFAULT_PACK) == DEFAULT_PACK:
        return {_1X_DEFAULT_IDS.get(rid, rid) for rid in spec.rule_ids}
    return set(spec.rule_ids)


def _rules(spec: PolicyPack) -> list[tuple[Spec, KindDef]]:
    from hotato.kinds import REGISTRY  # this module is itself in the registry

    pack = pack_of(spec)
    chosen = _chosen(spec)
    return [
        (rule, REGISTRY[str(rule.__struct_config__.tag)])
        for rule in pack.specs
        if chosen is None or rule.id in chosen
    ]


def _reads(spec: PolicyPack) -> frozenset[Source]:
    try:
        rules = _rules(spec)
    except InputError:  # reported by validation; nothing is graded
        return frozenset({Source.TRANSCRIPT})
    return frozenset(s for rule, kdef in rules for s in kdef.sources(rule)) - {Source.RESULTS}


def grade_rule(rule: Spec, kdef: KindDef, ev: Evidence) -> Verdict:
    """One rule as the engine would grade it (hotato.kinds._base.run_check)."""
    return run_check(kdef, rule, ev)


class Graded(msgspec.Struct, frozen=True):
    rule: Spec
    kind: str
    verdict: Verdict

    def account(self) -> str:
        """Why this rule did not pass, briefly: a failed rule by its description (the full
        reason is under `details.rules`), an inconclusive one by its reason."""
        v = self.verdict
        if v.status is Status.FAIL and self.rule.description:
            where = f"; broken at {', '.join(v.evidence[:5])}" if v.evidence else ""
            return self.rule.description.rstrip(".") + where
        return v.reason


def _accounts(notable: list[Graded]) -> str:
    """Rules that did not pass, the ones sharing an account (a missing trace) named together."""
    by_account: dict[str, list[str]] = {}
    for g in notable:
        by_account.setdefault(g.account(), []).append(g.rule.id)
    return "; ".join(f"{', '.join(ids)}: {text}" for text, ids in by_account.items())


@kind(PolicyPack, reads=_reads, validate=_validate, partial=True)
def check(spec: PolicyPack, ev: Evidence) -> Verdict:
    info = pack_of(spec).info
    graded = [Graded(rule, kdef.tag, grade_rule(rule, kdef, ev)) for rule, kdef in _rules(spec)]
    counts = {s.value.lower(): sum(1 for g in graded if g.verdict.status is s) for s in Status}
    status = next(
        (s for s in (Status.FAIL, Status.INCONCLUSIVE) if counts[s.value.lower()]), Status.PASS
    )
    notable = [g for g in graded if g.verdict.status is status] if status is not Status.PASS else []
    tally = ", ".join(f"{n} {word}" for word, n in counts.items() if n)
    return Verdict(
        status=status,
        reason=f"pack {info.name}@{info.version}: {tally}"
        + (f" ({_accounts(notable)})" if notable else ""),
        observed=counts,
        evidence=list(dict.fromkeys(e for g in notable for e in g.verdict.evidence))[:20],
        details={
            "pack": info.name,
            "version": info.version,
            "sha256": info.sha256,
            "rules": [
                {
                    "id": g.rule.id,
                    "kind": g.kind,
                    "status": g.verdict.status.value,
                    "reason": g.verdict.reason,
                    **({"evidence": g.verdict.evidence} if g.verdict.evidence else {}),
                }
                for g in graded
            ],
        },
    )
