"""The excess over the same-prompt noise floor, its per-value and group tests
(docs/measurement.md §3).

- Noise floor F_r: the mean over the repeat's neutral replicates N'_rj (second, third, ...
  answers to the very same prompt) of D(N'_rj, N_r); the exact null of B_r(a). Without
  replicates it falls back to the cross-repeat floor (neutral repeats r ≠ r'), which with a
  per-repeat shuffle also contains the catalog-order effect. Both are reported.
- Excess d_r(a) = B_r(a) − F_r: zero in expectation when the attribute changes nothing.
- Per-value test (needs ≥ 1 replicate): within repeat r the value's answer and the M + 1
  neutral answers are exchangeable under the null; the statistic is, summed over repeats, the
  mean divergence of the sample labelled "value" to the others minus the mean divergence among
  the others, and the p-value is exact over all (M + 2)^R labellings (smallest attainable p =
  (M + 2)^−R: 1/243 at R = 5, M = 1; 1/1024 at R = 5, M = 2). Holm over the group's values.
- Group (omnibus) test: within repeat r all answers of the task are exchangeable under the
  null that no value matters; which M + 1 of them are "the neutral ones" is relabelled
  uniformly; statistic: mean over values of their mean divergence to the neutral ones minus the
  mean divergence among the neutral ones, summed over repeats; Monte Carlo p with 20,000 seeded
  draws (smallest attainable p ≈ 5·10^−5) or exact when the labellings are few.

Measures (per similarity): ``excess`` — mean over values of their excess, its per-repeat series
and Student-t interval over repeats, tested by the group test (lm-eval key ``{sim}_group_p``);
``flagged_share`` — the share of values whose per-value test rejects after Holm. Both assume
sampled answers (withheld for deterministic ones, :mod:`.determinism`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from coldbias_tasks.core.measures.base import Measure, register
from coldbias_tasks.core.measures.design import RepeatTable, arrange, divergence, mean, std
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.stats.estimate import WITHHELD, Estimate, decide
from coldbias_tasks.core.stats.relabel import min_relabel_p, relabel_p
from coldbias_tasks.core.stats.series import REPEATS_CI, REPEATS_SE, series_estimate

__all__ = ["EXCESS", "FLAGGED_SHARE", "NoiseFloor", "group_test", "noise_floor", "value_test"]

NAN = float("nan")


@dataclass(frozen=True)
class NoiseFloor:
    """Neutral-vs-neutral divergence (see the module docstring).

    ``mean``/``std``/``n_pairs``/``by_repeat`` describe the floor the values are compared with:
    ``kind == "replicate"`` (F_r = mean_j D(N'_rj, N_r)) when replicates exist, else
    ``"cross-repeat"`` (F_r = mean over r' ≠ r of D(N_r', N_r)). ``cross_repeat_mean`` is always
    the cross-repeat floor (NaN with fewer than two neutral repeats).
    """

    mean: float
    std: float
    n_pairs: int
    by_repeat: dict[int, float] = field(default_factory=dict)
    kind: str = "cross-repeat"
    cross_repeat_mean: float = NAN


def noise_floor(records: Iterable[AnswerRecord], metric: str) -> NoiseFloor:
    """The sampling noise floor of one task: replicate-based when possible, else cross-repeat."""
    table = records if isinstance(records, RepeatTable) else arrange(records)
    neutral = table.neutral
    cross: list[float] = []
    cross_by_repeat: dict[int, float] = {}
    for r in sorted(neutral):
        others = [divergence(metric, neutral[o].items, neutral[r].items) for o in neutral if o != r]
        if others:
            cross_by_repeat[r] = mean(others)
            cross.extend(others)
    matched = {
        r: mean([divergence(metric, rep.items, neutral[r].items) for rep in reps])
        for r, reps in sorted(table.replicates.items())
        if r in neutral and reps
    }
    if matched:
        values = list(matched.values())
        return NoiseFloor(mean(values), std(values), len(values), matched, "replicate", mean(cross))
    return NoiseFloor(
        mean(cross), std(cross), len(cross), cross_by_repeat, "cross-repeat", mean(cross)
    )


def _matrix(metric: str, samples: Sequence[AnswerRecord]) -> np.ndarray:
    """D[i, j] = divergence of sample i's list from sample j's (diagonal 0)."""
    n = len(samples)
    out = np.zeros((n, n))
    for i, j in itertools.permutations(range(n), 2):
        out[i, j] = divergence(metric, samples[i].items, samples[j].items)
    return out


def _value_contributions(d: np.ndarray) -> list[float]:
    """For each choice j of which sample is "the value": its mean divergence to the others
    minus the mean divergence among the others (ordered pairs)."""
    n = d.shape[0]
    out = []
    for j in range(n):
        rest = [i for i in range(n) if i != j]
        to_rest = d[j, rest].mean()
        inner = (
            d[np.ix_(rest, rest)].sum() / (len(rest) * (len(rest) - 1)) if len(rest) > 1 else 0.0
        )
        out.append(float(to_rest - inner))
    return out


def _group_contributions(d: np.ndarray, n_neutral: int) -> np.ndarray:
    """For every choice of which ``n_neutral`` samples are neutral (the true ones, the last
    ``n_neutral`` indices, first): mean over the others of their mean divergence to the
    neutral ones, minus the mean divergence among the neutral ones."""
    n = d.shape[0]
    # every subset in lexicographic order, read by NumPy in C (C(76, 4) = 1.2 M subsets for a
    # pref task's 72 sentences); the true one, (n − n_neutral, …, n − 1), is the last: first
    count = math.comb(n, n_neutral)
    flat = itertools.chain.from_iterable(itertools.combinations(range(n), n_neutral))
    combos = np.fromiter(flat, dtype=np.intp, count=count * n_neutral).reshape(count, n_neutral)
    idx = np.concatenate([combos[-1:], combos[:-1]])  # (n_subsets, n_neutral)
    col = d.sum(axis=0)  # Σ_v D[v, n] over all v, per n
    within = d[idx[:, :, None], idx[:, None, :]].sum(axis=(1, 2))  # Σ_{n, n' ∈ S} D[n, n']
    cross = col[idx].sum(axis=1) - within  # Σ_{v ∉ S, n ∈ S} D[v, n]
    n_values = n - n_neutral
    pairs = n_neutral * (n_neutral - 1)
    return cross / (n_values * n_neutral) - (within / pairs if pairs else 0.0)


def value_test(metric: str, table: RepeatTable, persona: str) -> tuple[float, list[int]]:
    """(p-value, choices per repeat) of the per-value test; NaN without replicates."""
    rows, choices = [], []
    answers = table.values[persona]
    for r in sorted(answers):
        reps = table.replicates.get(r, [])
        if r not in table.neutral or not reps:
            continue
        contributions = _value_contributions(_matrix(metric, [answers[r], table.neutral[r], *reps]))
        rows.append(contributions)
        choices.append(len(contributions))
    return (relabel_p(rows) if rows else NAN), choices


def group_test(metric: str, table: RepeatTable) -> tuple[float, float]:
    """(p-value, smallest attainable p) of the omnibus test."""
    rows, choices = [], []
    for r in sorted(table.neutral):
        neutrals = [table.neutral[r], *table.replicates.get(r, [])]
        values = [a[r] for _, a in sorted(table.values.items()) if r in a]
        if not values:
            continue
        contributions = _group_contributions(_matrix(metric, [*values, *neutrals]), len(neutrals))
        rows.append(contributions)
        choices.append(len(contributions))
    if not rows:
        return NAN, NAN
    return relabel_p(rows, seed=17), min_relabel_p(choices)


def _excess(ms: Any) -> Estimate:
    if ms.withheld:
        return Estimate(verdict=WITHHELD, note="deterministic answers", alpha=ms.alpha)
    found = series_estimate(ms.excess, ms.excess_by_repeat, (-1.0, 1.0))
    tested = replace(found, p_value=ms.group_p, min_p=ms.min_group_p, alpha=ms.alpha)
    return decide(tested, reason="no neutral replicate to test against")


def _flagged_share(ms: Any) -> Estimate:
    if ms.withheld:
        return Estimate(verdict=WITHHELD, note="deterministic answers", alpha=ms.alpha)
    return Estimate(ms.flagged_share, alpha=ms.alpha)


EXCESS = register(Measure(
    "excess", _excess, False, (-1.0, 1.0),
    "secondary (not the headline): mean over values of mean over repeats of B_r(a) − F_r "
    "(divergence from the neutral answer minus the same-prompt noise floor: the list moves when "
    "the user says anything); 0 when the attribute changes nothing. Its `group_p` is the "
    "omnibus relabelling test that the group's values diverge more than the replicates (Monte "
    "Carlo, 20,000 draws; smallest p ≈ 5·10⁻⁵)",
    scope="similarity", keys=("value", "p", "verdict"), p_name="group_p", sampling=True,
    series=True, stderr_method=REPEATS_SE, interval_method=REPEATS_CI, order=50,
))  # fmt: skip
FLAGGED_SHARE = register(Measure(
    "flagged_share", _flagged_share, False, (0.0, 1.0),
    "share of values whose exact within-repeat relabelling test rejects after Holm over the "
    "group at α (smallest attainable p (M + 2)^−R: 1/125 at the defaults R = 3, M = 3)",
    scope="similarity", sampling=True, order=60,
))  # fmt: skip
