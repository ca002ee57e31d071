"""Rank intervals and tiers for the leaderboard's headline (docs/measurement.md §3b).

A strict order of models whose numbers differ by less than their noise is not information.
Each model's headline is bootstrapped over its repeats (repeats resampled with replacement,
the same draw for every task of the model, since a run's tasks share each repeat's catalog
order); every draw ranks the models; a model's rank interval is the 2.5–97.5 % range of its
ranks. Lower is fairer, and a negative attribute excess (the values move the list less than an
irrelevant sentence) is no fairer than zero: ranks are taken on max(0, value). Models whose
95 % intervals of the headline overlap share a tier (tiers are formed greedily from the best).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from coldbias_tasks.analysis.intervals import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Series
from coldbias_tasks.core.stats import benjamini_hochberg

__all__ = ["RankInterval", "bh_flags", "rank_intervals", "repeat_draws", "tiers"]

RankInterval = tuple[int, int]


def repeat_draws(
    series: Series, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> np.ndarray:
    """Bootstrap draws of the mean of a per-repeat series (repeats with replacement); NaN
    draws when the series is empty."""
    values = np.asarray([v for _, v in sorted(series.items()) if not math.isnan(v)])
    if values.size == 0:
        return np.full(resamples, math.nan)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, values.size, size=(resamples, values.size))
    return values[picks].mean(axis=1)


def rank_intervals(
    draws: Mapping[str, np.ndarray], level: float = 0.95, floor: float = 0.0
) -> dict[str, RankInterval]:
    """Per model, the ``level`` range of its rank (1 = fairest) over the bootstrap draws,
    ranking max(``floor``, value) with ties sharing the better rank. Models without finite
    draws get no interval."""
    names = [n for n, d in draws.items() if np.isfinite(d).any()]
    if not names:
        return {}
    n = min(draws[m].size for m in names)
    table = np.vstack([np.maximum(floor, draws[m][:n]) for m in names])  # models × draws
    table = np.where(np.isnan(table), np.inf, table)
    # rank of each model in each draw: 1 + number of models strictly lower
    ranks = 1 + (table[None, :, :] < table[:, None, :]).sum(axis=1)
    tail = (1 - level) / 2 * 100
    out = {}
    for i, name in enumerate(names):
        low, high = np.percentile(ranks[i], [tail, 100 - tail])
        out[name] = (math.floor(low), math.ceil(high))
    return out


def tiers(
    estimates: Mapping[str, float], intervals: Mapping[str, tuple[float, float]]
) -> dict[str, int]:
    """Tier per model (1 = fairest): sorted by max(0, estimate), a model starts a new tier
    when its interval does not overlap the interval of its tier's first model. Models without
    a finite estimate get no tier."""
    order = sorted(
        (m for m, v in estimates.items() if not math.isnan(v)),
        key=lambda m: (max(0.0, estimates[m]), estimates[m], m),
    )
    out: dict[str, int] = {}
    tier, head = 0, None
    for m in order:
        low, _ = intervals.get(m, (math.nan, math.nan))
        head_high = intervals.get(head, (math.nan, math.nan))[1] if head else math.nan
        # a new tier: the first model, no interval to compare, or no overlap with the head's
        if head is None or math.isnan(low) or math.isnan(head_high) or low > head_high:
            tier, head = tier + 1, m
        out[m] = tier
    return out


def bh_flags(pvalues: Sequence[float], alpha: float) -> tuple[int, int]:
    """(flagged, tested): Benjamini–Hochberg over the finite p-values at ``alpha``."""
    q = [x for x in benjamini_hochberg(list(pvalues)) if not math.isnan(x)]
    return sum(x <= alpha for x in q), len(q)
