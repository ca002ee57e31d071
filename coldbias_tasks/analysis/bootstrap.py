"""Bootstrap intervals of task statistics (the report's and the leaderboard's uncertainty).

The resampling unit is the **repeat** (a cluster bootstrap): all answers of one repeat share a
catalog order and the neutral answers their divergences are measured against, so a draw
resamples the task's repeats with replacement and recomputes the statistic (the mean over
values of each value's mean over the drawn repeats). Intervals reflect sampling variation over
repeats only (not over catalogs, prompts or personas); with few repeats they are approximate
(five repeats give at most 126 distinct draws).
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Mapping

import numpy as np

from coldbias_tasks.core.aggregate import MetricSummary

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "CI_LEVEL",
    "interval",
    "metric_draws",
    "per_value_draws",
    "repeat_draws",
]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240601
CI_LEVEL = 0.95


def _rng(key: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(key.encode())])


def _matrix(per_value: Mapping[str, Mapping[int, float]]) -> tuple[list[str], np.ndarray]:
    """(values, matrix repeats × values), NaN where a value lacks a repeat."""
    values = sorted(per_value)
    repeats = sorted({r for by_repeat in per_value.values() for r in by_repeat})
    out = np.full((len(repeats), len(values)), np.nan)
    for j, v in enumerate(values):
        for i, r in enumerate(repeats):
            if r in per_value[v]:
                out[i, j] = per_value[v][r]
    return values, out


def _draw_means(matrix: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples, values): each value's mean over a resample of the repeats."""
    picks = rng.integers(0, matrix.shape[0], size=(resamples, matrix.shape[0]))
    with warnings.catch_warnings():  # a value absent from every drawn repeat is NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(matrix[picks], axis=1)


def repeat_draws(
    per_value: Mapping[str, Mapping[int, float]],
    key: str,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> np.ndarray:
    """Draws (shape ``(resamples,)``) of the mean over values of ``per_value[v][r]``; the
    generator is seeded from ``seed`` and ``key`` (e.g. task and metric), so a task's draws do
    not depend on what else is analysed. All-NaN when there is nothing to resample."""
    values, matrix = _matrix(per_value)
    if not values or matrix.shape[0] == 0:
        return np.full(resamples, math.nan)
    means = _draw_means(matrix, resamples, _rng(key, seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(means, axis=1)


def per_value_draws(
    per_value: Mapping[str, Mapping[int, float]],
    key: str,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, np.ndarray]:
    """Draws of each value's own mean (same repeat resamples for all values of the task)."""
    values, matrix = _matrix(per_value)
    if not values or matrix.shape[0] == 0:
        return {}
    means = _draw_means(matrix, resamples, _rng(key, seed))
    return {v: means[:, j] for j, v in enumerate(values)}


def metric_draws(
    summary: MetricSummary,
    key: str,
    kind: str = "excess",
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> np.ndarray:
    """Draws of a task's ``excess`` (mean over values of B_r(a) − F_r) or raw ``divergence``."""
    field = "excess_by_repeat" if kind == "excess" else "by_repeat"
    per_value = {v.persona_id: getattr(v, field) for v in summary.values}
    return repeat_draws(per_value, f"{key}:{summary.metric}:{kind}", resamples, seed)


def interval(draws: np.ndarray) -> tuple[float, float]:
    """The :data:`CI_LEVEL` percentile interval of the finite draws (NaN, NaN when none)."""
    finite = draws[~np.isnan(draws)]
    if finite.size == 0:
        return math.nan, math.nan
    tail = (1 - CI_LEVEL) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)
