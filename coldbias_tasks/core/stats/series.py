"""Figures per repeat and their intervals (the statistics every quantity's interval uses).

A forward task's independent unit is the **repeat** (its own catalog order and neutral answers):
a figure is carried as its per-repeat series x_r and its interval is Student's t over the
repeats, mean ± t_{R−1} · sd / √R (95 %). :mod:`coldbias_tasks.analysis.intervals` explains the
choice and adds the reverse task's bootstrap.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
from scipy import stats

from coldbias_tasks.core.stats.estimate import Estimate

__all__ = [
    "CI_LEVEL",
    "REPEATS_CI",
    "REPEATS_SE",
    "Series",
    "mean_by_repeat",
    "series_estimate",
    "t_interval",
]

#: A figure per repeat: repeat index → value.
Series = Mapping[int, float]

CI_LEVEL = 0.95
#: How :func:`series_estimate` computes its standard error and interval (shown with them).
REPEATS_SE = "standard deviation over repeats / √R"
REPEATS_CI = "Student t with R − 1 degrees of freedom over the per-repeat values, clipped"


def mean_by_repeat(parts: Iterable[Series]) -> dict[int, float]:
    """Repeat by repeat (ascending), the mean of the parts that have the repeat (NaN figures
    left out); a repeat no part has a finite figure for is left out."""
    parts = list(parts)
    out: dict[int, float] = {}
    for r in sorted({r for p in parts for r in p}):
        values = [p[r] for p in parts if r in p and not math.isnan(p[r])]
        if values:
            out[r] = float(np.mean(values))
    return out


def t_interval(
    series: Series, level: float = CI_LEVEL, bounds: tuple[float, float] | None = None
) -> tuple[float, float]:
    """Student's t interval of the mean of ``series`` over repeats (NaN, NaN with fewer than
    two finite repeats), clipped to ``bounds`` (a quantity's range) when given."""
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


def series_estimate(
    value: float, series: Series, bounds: tuple[float, float] | None = None
) -> Estimate:
    """A figure carried with its per-repeat ``series``: its standard error sd / √R over the
    repeats (NaN below two), ``df`` R − 1 and the Student-t interval of the series' mean
    (:func:`t_interval`, clipped to ``bounds``); no test, no verdict."""
    finite = [v for v in series.values() if not math.isnan(v)]
    low, high = t_interval(series, bounds=bounds)
    if len(finite) < 2:
        return Estimate(value, by_repeat=dict(series))
    se = float(np.std(finite, ddof=1)) / math.sqrt(len(finite))
    return Estimate(value, se, low, high, float(len(finite) - 1), by_repeat=dict(series))
