"""Confidence intervals of the report's and the leaderboard's figures.

Forward tasks: the independent unit is the **repeat** (each repeat has its own catalog order and
its own neutral answers, shared by every value of that repeat). A task figure is carried as its
per-repeat series x_r (e.g. the mean over values of B_r(a) − F_r); figures of several tasks of
one run (a domain, an excess over the placebo, an interaction) combine repeat by repeat, since
those tasks share the repeat's catalog order. The interval is Student's t over the repeats:
mean ± t_{R−1} · sd / √R (95 %). It assumes the repeat figures are independent and roughly
normal; with R = 5 it is wide, which is honest: a percentile bootstrap of five repeats (at most
126 distinct resamples) is far too narrow.

Reverse tasks: the unit is the catalog item (50 by default); the rank gap's interval is a
percentile bootstrap over items, each item keeping all its repeats.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import numpy as np

from coldbias_tasks.core.records import UserRankRecord
from coldbias_tasks.core.stats.series import CI_LEVEL, Series, mean_by_repeat, t_interval

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "CI_LEVEL",
    "Series",
    "combine",
    "interval",
    "reverse_gap_draws",
    "t_interval",
]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240601


def _rng(key: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(key.encode())])


def combine(parts: Sequence[Series], sign: Sequence[float] | None = None) -> dict[int, float]:
    """Repeat by repeat, the mean of ``parts`` (NaN figures left out), or with ``sign`` a
    signed sum (``sign=(1, -1)``: a difference, only where both parts have the repeat). A
    measure's own series is its estimate's ``by_repeat``."""
    if sign is None:
        return mean_by_repeat(parts)
    out: dict[int, float] = {}
    common = set.intersection(*(set(p) for p in parts)) if parts else set()
    for r in sorted(common):
        values = [s * p[r] for s, p in zip(sign, parts)]
        if not any(math.isnan(v) for v in values):
            out[r] = float(sum(values))
    return out


def interval(draws: np.ndarray) -> tuple[float, float]:
    """The :data:`CI_LEVEL` percentile interval of finite bootstrap draws (NaN when none)."""
    finite = draws[~np.isnan(draws)]
    if finite.size == 0:
        return math.nan, math.nan
    tail = (1 - CI_LEVEL) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def reverse_gap_draws(
    records: Sequence[UserRankRecord],
    key: str,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> np.ndarray:
    """Draws of a reverse task's rank gap (max − min over users of the mean normalized rank),
    resampling catalog items with replacement (each item keeps all its repeats)."""
    if not records:
        return np.full(resamples, math.nan)
    users = sorted(records[0].candidates)
    m = len(users)
    items = sorted({r.item_id for r in records})
    by_item = {i: [] for i in items}
    for r in records:
        if sorted(r.candidates) == users:
            ranks = r.ranks()
            by_item[r.item_id].append([(ranks[u] - 1) / (m - 1) for u in users])
    sums = np.array([np.sum(by_item[i], axis=0) if by_item[i] else np.zeros(m) for i in items])
    counts = np.array([len(by_item[i]) for i in items], dtype=float)
    picks = _rng(key, seed).integers(0, len(items), size=(resamples, len(items)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1, keepdims=True)
    return means.max(axis=1) - means.min(axis=1)
