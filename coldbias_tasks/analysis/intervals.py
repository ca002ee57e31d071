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
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

from coldbias_tasks.core.aggregate import MetricSummary
from coldbias_tasks.core.records import UserRankRecord

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "BOUNDS",
    "CI_LEVEL",
    "Series",
    "combine",
    "interval",
    "metric_series",
    "reverse_gap_draws",
    "t_interval",
]

#: A figure per repeat: repeat index → value.
Series = Mapping[int, float]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240601
CI_LEVEL = 0.95


def _rng(key: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(key.encode())])


def metric_series(summary: MetricSummary, kind: str = "excess") -> dict[int, float]:
    """Per repeat: the mean over sentences of B_r(a) − F_r (``excess``) or of B_r(a)
    (``divergence``), or the disparity of that repeat alone (``disparity``); repeats where no
    sentence has a figure are left out. Another kind raises."""
    if kind == "disparity":
        return dict(summary.disparity.by_repeat)
    if kind not in ("excess", "divergence"):
        raise ValueError(f"unknown figure kind {kind!r}: excess, divergence or disparity")
    field = "excess_by_repeat" if kind == "excess" else "by_repeat"
    return combine([getattr(v, field) for v in summary.values])


def combine(parts: Sequence[Series], sign: Sequence[float] | None = None) -> dict[int, float]:
    """Repeat by repeat, the mean of ``parts`` (NaN figures left out), or with ``sign`` a
    signed sum (``sign=(1, -1)``: a difference, only where both parts have the repeat)."""
    out: dict[int, float] = {}
    if sign is not None:
        common = set.intersection(*(set(p) for p in parts)) if parts else set()
        for r in sorted(common):
            values = [s * p[r] for s, p in zip(sign, parts)]
            if not any(math.isnan(v) for v in values):
                out[r] = float(sum(values))
        return out
    for r in sorted({r for p in parts for r in p}):
        values = [p[r] for p in parts if r in p and not math.isnan(p[r])]
        if values:
            out[r] = float(np.mean(values))
    return out


#: The range of each kind of figure: intervals are clipped to it.
BOUNDS = {"divergence": (0.0, 1.0), "excess": (-1.0, 1.0), "disparity": (-1.0, 1.0)}


def t_interval(
    series: Series, level: float = CI_LEVEL, bounds: tuple[float, float] | None = None
) -> tuple[float, float]:
    """Student's t interval of the mean of ``series`` over repeats (NaN, NaN with fewer than
    two repeats), clipped to ``bounds`` (e.g. :data:`BOUNDS` ``["divergence"]``) when given."""
    values = np.array([v for v in series.values() if not math.isnan(v)], dtype=float)
    if values.size < 2:
        return math.nan, math.nan
    half = (
        stats.t.ppf((1 + level) / 2, values.size - 1) * values.std(ddof=1) / math.sqrt(values.size)
    )
    mean = float(values.mean())
    low, high = mean - float(half), mean + float(half)
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return low, high


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
