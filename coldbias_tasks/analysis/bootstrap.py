"""Bootstrap intervals of task statistics (the leaderboard's and the report's uncertainty).

Resampling is over repeats within each attribute value: it reflects sampling variation over
repeats only (not over catalogs, prompts or personas).
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from coldbias_tasks.analysis.runs import TaskData
from coldbias_tasks.core.aggregate import value_divergences

__all__ = ["BOOTSTRAP_RESAMPLES", "BOOTSTRAP_SEED", "CI_LEVEL", "interval", "task_bootstrap"]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240601
CI_LEVEL = 0.95


def task_bootstrap(
    task: TaskData, metric: str, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> np.ndarray:
    """Bootstrap draws (shape ``(resamples,)``) of the task's mean divergence.

    Within each attribute value its per-repeat divergences B_r(a) (one per (persona, repeat)
    answer pair with the neutral answer of the same repeat) are resampled with replacement; a
    draw is the mean over values of their resampled means, i.e. the task statistic recomputed.
    The generator is seeded from ``seed``, the task name and the metric, so a task's draws do
    not depend on which other tasks are in the leaderboard. All-NaN when no value has a pair.
    """
    per_value = value_divergences(task.records, metric)
    rng = np.random.default_rng([seed, zlib.crc32(f"{task.name}:{metric}".encode())])
    means = []
    for persona in sorted(per_value):
        divs = np.array([per_value[persona][r] for r in sorted(per_value[persona])], dtype=float)
        if divs.size == 0:
            continue
        idx = rng.integers(0, divs.size, size=(resamples, divs.size))
        means.append(divs[idx].mean(axis=1))
    if not means:
        return np.full(resamples, math.nan)
    return np.mean(np.vstack(means), axis=0)


def interval(draws: np.ndarray) -> tuple[float, float]:
    """The :data:`CI_LEVEL` percentile interval of the finite draws (NaN, NaN when none)."""
    finite = draws[~np.isnan(draws)]
    if finite.size == 0:
        return math.nan, math.nan
    tail = (1 - CI_LEVEL) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)
