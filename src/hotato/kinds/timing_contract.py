"""timing_contract: a hotato 1.x timing contract bundle, which this hotato does not re-score."""

from __future__ import annotations

from hotato.kinds._base import Evidence, Spec, kind
from hotato.model.results import Verdict


class TimingContract(Spec, tag="timing_contract", frozen=True):
    """Names a hotato 1.x timing-contract bundle (`.hotato`) to re-verify. Accepted so a 1.x
    assertion file loads and its other assertions are graded; this hotato does not re-verify a
    contract bundle (its stored audio and expectations), so nothing here passes or fails on it.
    To check timing from a recording, use `latency` with `field` or `outcome` with
    `field_present` and `--audio` (docs/timing.md).

    Passes when: never here.
    Fails when: never here.
    Inconclusive when: always, saying that timing contracts are re-verified by hotato 1.x only.

    Example:
        - id: yields-on-barge-in
          kind: timing_contract
          bundle: contracts/barge-in.hotato
    """

    bundle: str


@kind(TimingContract, reads=set())
def check(spec: TimingContract, ev: Evidence) -> Verdict:
    return Verdict.inconclusive(
        f"timing contract {spec.bundle!r} was not re-verified: hotato 2 does not re-verify "
        "1.x contract bundles (hotato 1.x `contract verify` does; `hotato timing score` scores "
        "a recording)"
    )
