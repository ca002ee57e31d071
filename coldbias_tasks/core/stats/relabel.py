"""Randomization tests and multiplicity corrections (docs/measurement.md §3).

Both tests rest on one assumption: **within a repeat, answers to prompts that differ only in a
persona the model ignores are exchangeable** (independent draws from one distribution; same
catalog order, since every persona of a repeat sees the same order). Repeats are independent.
No distributional shape is assumed. Everything here is pure numpy on precomputed per-repeat
contributions, so the same code serves divergences and exposure shares.

- :func:`relabel_p`: per repeat r there are c_r choices of which sample is "the value" (the
  value's answer or one of the neutral answers), each giving a contribution; the statistic is
  the sum over repeats, the observed labelling is choice 0. Under the null every choice is
  equally likely, independently per repeat, so the p-value is the share of all ∏ c_r
  labellings whose statistic is ≥ the observed one (exact enumeration up to
  :data:`MAX_EXACT` labellings, else a seeded Monte Carlo estimate (1 + hits) / (1 + draws),
  which is valid too). The smallest attainable p is 1 / ∏ c_r.
- :func:`holm`: Holm's step-down adjustment (family-wise error ≤ α under any dependence).
- :func:`benjamini_hochberg`: BH q-values (false discovery rate, for exploratory tables).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "MAX_EXACT",
    "MC_DRAWS",
    "benjamini_hochberg",
    "holm",
    "min_relabel_p",
    "relabel_p",
]

#: Up to this many labellings the null distribution is enumerated exactly.
MAX_EXACT = 1 << 18
#: Monte Carlo draws beyond that.
MC_DRAWS = 20_000
#: Relative tolerance for ties (floating sums of equal divergences).
_TIE = 1e-9


def min_relabel_p(
    choices: Sequence[int], max_exact: int = MAX_EXACT, draws: int = MC_DRAWS
) -> float:
    """Smallest p-value :func:`relabel_p` can return with these choices per repeat."""
    total = math.prod(choices)
    return 1.0 / total if total <= max_exact else 1.0 / (draws + 1)


def relabel_p(
    contributions: Sequence[Sequence[float]],
    two_sided: bool = False,
    max_exact: int = MAX_EXACT,
    draws: int = MC_DRAWS,
    seed: int = 0,
) -> float:
    """P-value of the observed labelling (choice 0 of every repeat) among all labellings.

    ``contributions[r][j]``: the statistic's contribution of repeat r if choice j is the
    labelling; the statistic is the sum over repeats. One-sided (large statistic = evidence),
    or ``two_sided`` on the absolute value of the centred statistic. NaN when there is nothing
    to test (no repeat with at least two choices).
    """
    rows = [np.asarray(c, dtype=float) for c in contributions if len(c) >= 2]
    if not rows or any(np.isnan(r).any() for r in rows):
        return math.nan
    centre = sum(float(r.mean()) for r in rows) if two_sided else 0.0
    observed = sum(float(r[0]) for r in rows) - centre
    total = math.prod(len(r) for r in rows)
    if total <= max_exact:
        sums = np.zeros(1)
        for r in rows:
            sums = (sums[:, None] + r[None, :]).ravel()
        stats = sums - centre
        n, extra = stats.size, 0
    else:
        rng = np.random.default_rng(seed)
        stats = np.zeros(draws)
        for r in rows:
            stats += r[rng.integers(0, len(r), size=draws)]
        stats -= centre
        n, extra = draws, 1
    if two_sided:
        stats, observed = np.abs(stats), abs(observed)
    tol = _TIE * max(1.0, abs(observed))
    hits = int(np.count_nonzero(stats >= observed - tol))
    return (hits + extra) / (n + extra)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (same order); NaN inputs stay NaN and do not count."""
    finite = [(p, i) for i, p in enumerate(pvalues) if not math.isnan(p)]
    out = [math.nan] * len(pvalues)
    m = len(finite)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(finite)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg q-values (same order); NaN inputs stay NaN and do not count."""
    finite = sorted(((p, i) for i, p in enumerate(pvalues) if not math.isnan(p)), reverse=True)
    out = [math.nan] * len(pvalues)
    m = len(finite)
    running = 1.0
    for k, (p, i) in enumerate(finite):
        rank = m - k
        running = min(running, p * m / rank)
        out[i] = running
    return out
