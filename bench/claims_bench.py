"""Claims: precision and recall of done/failed detection per claim type, call-level lie
detection (caught rate, false-alarm rate), and extraction speed, on the development set
(../shared/claims-dev, read in place) and on the hand-written corpus in tests/claims/.

    .venv/bin/python bench/claims_bench.py            # figures against the targets
    .venv/bin/python bench/claims_bench.py --misses   # also list every miss and false alarm

Targets: claim precision >= 0.95 and recall >= 0.90 (over all done/failed claims), lies caught
>= 0.90 with false alarms <= 0.05, >= 2,000 agent turns per second (extraction, one process).
Exit 0 when every target is met on every corpus present.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.claims.corpus import (  # noqa: E402
    HERE,
    LabelledCall,
    LieScores,
    Scores,
    dev_dir,
    read_calls,
    read_dev,
    read_turns,
    score_calls,
    score_dev_claims,
    score_turns,
)

from hotato.claims import PackSet, extract, load_packs  # noqa: E402

TARGETS = {"precision": 0.95, "recall": 0.90, "caught": 0.90, "false_alarms": 0.05, "tps": 2000}


def show_claims(title: str, scores: Scores, misses: bool) -> bool:
    print(f"\n{title}: done/failed detection per claim type")
    print(f"  {'type/polarity':<32} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>10} {'recall':>7}")
    for name, tp, fp, fn, p, r in scores.rows():
        print(f"  {name:<32} {tp:>4} {fp:>4} {fn:>4} {p:>10.3f} {r:>7.3f}")
    p, r = scores.overall()
    ok = p >= TARGETS["precision"] and r >= TARGETS["recall"]
    print(
        f"  {'all':<32} {'':>14} {p:>10.3f} {r:>7.3f}   "
        f"(targets {TARGETS['precision']}/{TARGETS['recall']}: {'met' if ok else 'MISSED'})"
    )
    if scores.entity_total:
        print(
            f"  entities: {scores.entity_hits}/{scores.entity_total} labelled entities "
            f"extracted with their normalised value"
        )
    if misses:
        for m in scores.misses:
            print(f"    {m}")
    return ok


def show_lies(title: str, scores: LieScores, misses: bool) -> bool:
    ok = (
        scores.caught_rate >= TARGETS["caught"]
        and scores.false_alarm_rate <= TARGETS["false_alarms"]
    )
    print(f"\n{title}: call-level lie detection (a call is flagged when a claim FAILs)")
    print(f"  lies caught   {scores.caught}/{scores.lying} = {scores.caught_rate:.3f}")
    print(
        f"  false alarms  {scores.false_alarms}/{scores.truthful} = "
        f"{scores.false_alarm_rate:.3f}   (targets {TARGETS['caught']}/"
        f"{TARGETS['false_alarms']}: {'met' if ok else 'MISSED'})"
    )
    for (variant, flagged), n in sorted(scores.by_variant.items()):
        print(f"    {variant:<10} {'flagged' if flagged else 'passed':<8} {n}")
    if misses:
        for w in scores.wrong:
            print(f"    {w}")
    return ok


# The LLM- and voice-agent style calls in tests/claims, each with its tool catalog: each was
# written blind to the checker and measured before the checker was tuned on it
# (docs/claims.md keeps those first figures).
CORPORA = (
    ("calls_agents.yaml", "LLM-agent style, measured blind, then tuned against"),
    ("calls_holdout.yaml", "voice and LLM style, measured blind, then tuned against"),
    ("calls_holdout2.yaml", "voice and LLM style, measured blind, then tuned against"),
    ("calls_holdout3.yaml", "LLM-agent benchmark style, measured blind, then tuned against"),
    ("calls_holdout4.yaml", "LLM-agent benchmark style, measured blind, then tuned against"),
    ("calls_holdout5.yaml", "voice phone agents, measured blind, then tuned against"),
    ("calls_holdout6.yaml", "LLM-agent benchmark style, measured blind, then tuned against"),
    ("calls_holdout7.yaml", "voice and LLM style, measured blind, then tuned against"),
    ("calls_holdout8.yaml", "voice and LLM style, measured blind, then tuned against"),
    ("calls_holdout9.yaml", "voice and LLM style, measured blind, then tuned against"),
    ("calls_holdout10.yaml", "voice, LLM and terse dialogue styles, measured blind, then tuned"),
    ("calls_holdout11.yaml", "voice, LLM and terse dialogue styles, measured blind, not tuned on"),
)

# Services of claims-dev-full held back while the checker was tuned: their figures are the
# ones that say what carries to an agent nobody here has seen.
HELD_OUT = ("Buses_2", "Calendar_1", "Homes_1", "RideSharing_2", "Services_3")


def _figures(calls: list[LabelledCall], packs: PackSet) -> tuple[float, float, float, float]:
    p, r = score_dev_claims(calls, packs, typed=False).overall()
    lies = score_calls(calls, packs)
    return p, r, lies.caught_rate, lies.false_alarm_rate


def show_full(root: Path, misses: bool) -> bool:
    """claims-dev-full, scored by polarity (every transactional method, whatever its type):
    with each call's catalog and without, per service, and on the held-back services."""
    packs = load_packs()
    calls = list(read_dev(root, typed=False, catalog=True))
    bare = list(read_dev(root, typed=False, catalog=False))
    print(f"\nclaims-dev-full ({len(calls)} calls), scored by polarity on every service")
    print(f"  {'set':<34} {'precision':>9} {'recall':>7} {'caught':>7} {'flagged':>8}")
    ok = True
    rows = [("all, with tools.json", calls), ("all, without a catalog", bare)]
    held = [c for c in calls if c.service in HELD_OUT]
    rows += [
        ("tuned-on services, with tools.json", [c for c in calls if c.service not in HELD_OUT]),
        (f"held-back services ({len(HELD_OUT)}), with tools", held),
        ("held-back services, without", [c for c in bare if c.service in HELD_OUT]),
    ]
    for title, group in rows:
        p, r, caught, flagged = _figures(group, packs)
        print(f"  {title:<34} {p:>9.3f} {r:>7.3f} {caught:>7.3f} {flagged:>8.3f}")
        if title.startswith("held-back services ("):
            ok &= p >= TARGETS["precision"] and r >= TARGETS["recall"]
            ok &= caught >= TARGETS["caught"] and flagged <= TARGETS["false_alarms"]
    print("  per service, with tools.json (nothing is fitted to data: a service's own figure is")
    print("  its leave-one-service-out figure; the held-back ones were never looked at in tuning)")
    for service in sorted({c.service for c in calls}):
        group = [c for c in calls if c.service == service]
        p, r, caught, flagged = _figures(group, packs)
        mark = "held back" if service in HELD_OUT else ""
        print(
            f"    {service:<16} {len(group):>4} calls {p:>7.3f} {r:>7.3f} {caught:>7.3f} "
            f"{flagged:>7.3f}  {mark}"
        )
    if misses:
        for m in score_dev_claims(calls, packs, typed=False).misses:
            print(f"    {m}")
        for w in score_calls(calls, packs).wrong:
            print(f"    {w}")
    return ok


def speed(texts: list[str]) -> float:
    """Agent turns per second through extraction (median of 5 runs over the same turns)."""
    from hotato.model.evidence import Turn

    packs = load_packs()
    turns = [Turn(index=i, role="agent", text=t) for i, t in enumerate(texts)]
    rates = []
    for _ in range(5):
        started = time.perf_counter()
        extract(turns, packs)
        rates.append(len(turns) / (time.perf_counter() - started))
    return statistics.median(rates)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list every miss and false alarm")
    parser.add_argument(
        "--corpus",
        action="append",
        default=[],
        metavar="FILE",
        help="also score a corpus of your own in the tests/claims calls format (repeatable)",
    )
    args = parser.parse_args(argv)
    packs = load_packs()
    ok = True
    texts: list[str] = []

    root = dev_dir()
    if root is None:
        print("development set not found (../shared/claims-dev or $HOTATO_CLAIMS_DEV): skipped")
    else:
        dev = list(read_dev(root))
        ok &= show_claims(
            f"development set ({len(dev)} calls)", score_dev_claims(dev, packs), args.misses
        )
        ok &= show_lies("development set", score_calls(dev, packs), args.misses)
        show_lies(
            "development set, with --promises (promised actions must follow)",
            score_calls(dev, packs, promises=True),
            args.misses,
        )
        texts += [t.text for c in dev for t in c.transcript.turns if t.role == "agent"]

    full = dev_dir("claims-dev-full")
    if full is None:
        print("\nclaims-dev-full not found (../shared/claims-dev-full): skipped")
    else:
        ok &= show_full(full, args.misses)

    extra = [(str(Path(p).resolve()), "your corpus") for p in args.corpus]
    for name, title in [*CORPORA, *extra]:
        calls = read_calls(HERE / name)
        ok &= show_claims(
            f"tests/claims/{name} ({len(calls)} calls, {title})",
            score_dev_claims(calls, packs, typed=False),
            args.misses,
        )
        ok &= show_lies(f"tests/claims/{name}", score_calls(calls, packs), args.misses)
        bare = read_calls(HERE / name)
        for call in bare:
            call.catalog = None
        show_lies(f"tests/claims/{name}, without the catalog", score_calls(bare, packs), False)

    turns = read_turns()
    ok &= show_claims(
        f"tests/claims corpus ({len(turns)} agent turns)", score_turns(turns, packs), args.misses
    )
    calls = read_calls()
    ok &= show_lies(
        f"tests/claims calls ({len(calls)} calls)", score_calls(calls, packs), args.misses
    )
    texts += [t.text for t in turns]

    tps = speed(texts)
    fast = tps >= TARGETS["tps"]
    print(
        f"\nextraction speed: {tps:,.0f} agent turns/s over {len(texts)} turns "
        f"(target {TARGETS['tps']:,}: {'met' if fast else 'MISSED'})"
    )
    return 0 if ok and fast else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
