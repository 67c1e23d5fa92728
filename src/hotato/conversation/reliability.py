"""pass@k, pass^k and the Wilson interval, from n trials with c passes."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil, comb, floor, sqrt

import msgspec

from hotato.model.reports import Figures, Interval, Wilson

Z95 = 1.959963984540054
REPLAY_NOTE = (
    "every run replayed the same recording, so the deterministic lane has zero "
    "variance: pass^k equals pass@1 and the repetitions add no new information"
)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k trials drawn from the n passes: 1 - C(n-c,k)/C(n,k)."""
    if not 0 < k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_caret_k(n: int, c: int, k: int) -> float:
    """The chance that all k trials drawn from the n pass: C(c,k)/C(n,k)."""
    if not 0 < k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    return comb(c, k) / comb(n, k)


def wilson(c: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = c / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # Rounded outward to 6 places, so the reported interval still contains c/n (rounding to
    # nearest gave [0.0, 0.0] for 1 pass in 10^8 trials).
    low = floor((centre - half) * 1e6) / 1e6
    high = ceil((centre + half) * 1e6) / 1e6
    return (max(0.0, low), min(1.0, high))


@dataclass(frozen=True)
class Aggregate:
    n: int
    k: int
    passes: int
    independent: bool  # recorded trials (True) or replays of one recording (False)

    def figures(self) -> Figures:
        lo, hi = wilson(self.passes, self.n)
        return Figures(
            n=self.n,
            k=self.k,
            passes=self.passes,
            pass_at_1=round(self.passes / self.n, 6),
            pass_at_k=round(pass_at_k(self.n, self.passes, self.k), 6),
            pass_caret_k=round(pass_caret_k(self.n, self.passes, self.k), 6),
            ci=Interval(wilson=Wilson(level=0.95, low=lo, high=hi)),
            independent_trials=self.independent,
            note=None if self.independent else REPLAY_NOTE,
        )

    def as_dict(self) -> dict[str, object]:
        """The figures as JSON data."""
        out: dict[str, object] = msgspec.to_builtins(self.figures())
        return out
