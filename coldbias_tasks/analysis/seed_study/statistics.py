"""The statistics the seed study's design allows, on imported runs (docs/seed-study.md).

The design (:data:`coldbias_tasks.analysis.seed_study.importer.DESIGN`): per seed s one answer per
persona, every request of the seed's run sent with request seed s; one fixed catalog order;
no second neutral answer per seed. So:

- **Noise floor**: the five neutral answers are five samples of one prompt (other request
  seeds): the cross-seed neutral divergence D(N_s, N_t), s ≠ t, is the floor (what the
  loader's :func:`~coldbias_tasks.core.measures.excess.noise_floor` reports as "cross-repeat").
- **Exchangeable under the null** (the value's phrase changes nothing): within one seed, the
  value's answer V_s and the neutral answer N_s, which share the request seed and so may be
  coupled (common random numbers), can swap labels; answers of different seeds are
  independent. Swapping V_s ↔ N_s is the only exact relabelling for one value, so a per-value
  test has 2^S labellings, 2^(S−1) distinct for a symmetric statistic: with S = 5 the
  smallest two-sided p is 1/16 = 0.0625 > 0.05. **One value can never be flagged at α = 0.05
  from 5 seeds** ("underpowered"). A group test (which of the seed's n + 1 answers is the
  neutral one) has (n + 1)^S labellings and can decide: the loader's group test is exactly that.
- **A paired comparison** of two personas of the same seed (boy vs girl, a value vs neutral) is
  a sign-flip over S seeds: again 2^S labellings, smallest two-sided p 1/16.
- **Two models** (or two contexts run as separate runs): their seed-level figures are
  independent samples; an exact two-sample permutation test over C(10, 5) = 252 splits
  (smallest two-sided p 2/252 ≈ 0.008) decides.

The seed-level figures these tests take are in :mod:`coldbias_tasks.analysis.seed_study.replay`.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from coldbias_tasks.analysis.run_data import TaskData
from coldbias_tasks.analysis.seed_study.replay import by_seed, divergence
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.stats.relabel import relabel_p
from coldbias_tasks.core.vocabulary import ALPHA

__all__ = [
    "Test",
    "neutral_relabel_test",
    "paired_test",
    "persona_disparity_test",
    "subset_relabel_test",
    "trend_test",
    "two_sample_test",
    "value_swap_test",
    "values_disparity_test",
    "verdict",
]

NAN = float("nan")


@dataclass(frozen=True)
class Test:
    """A test result: ``effect`` (observed statistic, in the figure's unit), two-sided ``p``,
    ``min_p`` (smallest p these seeds allow), ``n`` seeds per arm, ``kind``."""

    effect: float
    p: float
    min_p: float
    n: int
    kind: str

    def underpowered(self, alpha: float = ALPHA) -> bool:
        return self.min_p > alpha


def paired_test(a: Mapping[int, float], b: Mapping[int, float]) -> Test:
    """Exact sign-flip test of mean(a_s − b_s) over the seeds both have (two-sided): the
    valid test for two personas of the same seed (shared request seed)."""
    seeds = sorted(set(a) & set(b))
    d = [a[s] - b[s] for s in seeds]
    if not d:
        return Test(NAN, NAN, NAN, 0, "paired sign-flip")
    p = relabel_p([[x, -x] for x in d], two_sided=True)
    return Test(float(np.mean(d)), p, 2.0 / 2 ** len(d), len(d), "paired sign-flip")


def two_sample_test(a: Sequence[float], b: Sequence[float]) -> Test:
    """Exact two-sample permutation test of mean(a) − mean(b) over all splits (two-sided):
    for figures of independent runs (two models; two contexts run separately)."""
    xs = [*a, *b]
    n, m = len(a), len(b)
    if not n or not m:
        return Test(NAN, NAN, NAN, min(n, m), "two-sample permutation")
    observed = float(np.mean(a) - np.mean(b))
    total = sum(xs)
    count = hits = 0
    for idx in itertools.combinations(range(n + m), n):
        sa = sum(xs[i] for i in idx)
        diff = sa / n - (total - sa) / m
        count += 1
        hits += abs(diff) >= abs(observed) - 1e-12
    splits = math.comb(n + m, n)
    return Test(observed, hits / count, 2.0 / splits, min(n, m), "two-sample permutation")


def value_swap_test(task: TaskData, persona: str, metric: str = HEADLINE_SIMILARITY) -> Test:
    """Per-value test under the design's exchangeability: within each seed, swap the value's
    and the neutral answer's labels (2^S labellings). Statistic (cross-seed pairs only, so the
    coupling inside a seed does not enter): mean D(V_s, N_t) − ½[mean D(N_s, N_t) +
    mean D(V_s, V_t)], s ≠ t. Symmetric under swapping every seed, so 2^(S−1) distinct values:
    smallest p = 2 / 2^S."""
    neutral, _ = by_seed([task])
    value = {r.repeat: r for r in task.records if r.persona_id == persona}
    seeds = sorted(set(neutral) & set(value))
    if len(seeds) < 2:
        return Test(NAN, NAN, NAN, len(seeds), "within-seed swap")

    def stat(flip: Sequence[bool]) -> float:
        v = [neutral[s] if f else value[s] for s, f in zip(seeds, flip)]
        n = [value[s] if f else neutral[s] for s, f in zip(seeds, flip)]
        pairs = list(itertools.permutations(range(len(seeds)), 2))
        vn = np.mean([divergence(metric, v[i].items, n[j].items) for i, j in pairs])
        nn = np.mean([divergence(metric, n[i].items, n[j].items) for i, j in pairs])
        vv = np.mean([divergence(metric, v[i].items, v[j].items) for i, j in pairs])
        return float(vn - (nn + vv) / 2)

    flips = list(itertools.product((False, True), repeat=len(seeds)))
    values = [stat(f) for f in flips]
    observed = values[0]
    p = sum(x >= observed - 1e-12 for x in values) / len(values)
    return Test(observed, p, 2.0 / len(values), len(seeds), "within-seed swap")


def verdict(test: Test, claimed_sign: int, alpha: float = ALPHA) -> str:
    """The verdict on a claim whose effect has sign ``claimed_sign``: "holds beyond noise"
    (p ≤ α, claimed direction), "cannot be decided with N seeds" (the smallest attainable p
    exceeds α), "contradicted" (p ≤ α, other direction), else "does not hold beyond noise";
    ``claimed_sign`` 0: no direction claimed (the effect's sign is named)."""
    if math.isnan(test.p):
        return "cannot be decided (no data)"
    if test.underpowered(alpha):
        return f"cannot be decided with {test.n} seeds (smallest attainable p = {test.min_p:.3f})"
    if test.p <= alpha:
        if claimed_sign == 0:
            return f"an effect beyond noise ({'positive' if test.effect > 0 else 'negative'})"
        if np.sign(test.effect) == claimed_sign:
            return "holds beyond noise"
        return "contradicted beyond noise (opposite direction)"
    return "does not hold beyond noise"


def neutral_relabel_test(per_seed: Mapping[int, tuple[float, Sequence[float]]]) -> Test:
    """Does a figure (e.g. an action-film share) of the group's values differ from the
    neutral user's? per_seed: seed → (neutral's figure, the values' figures). Within a seed all
    n + 1 answers are exchangeable under the null that no value matters (shared request seed
    included); which one is "the neutral" is relabelled ((n + 1)^S labellings). Statistic:
    Σ_s mean_v |x_v − x_neutral|; effect reported: mean over seeds of mean_v (x_v − x_neutral)."""
    rows, effects = [], []
    for s in sorted(per_seed):
        neutral, values = per_seed[s]
        xs = [*values, neutral]
        if len(xs) < 2:
            continue
        contributions = []
        for j in [len(xs) - 1, *range(len(xs) - 1)]:  # the true labelling first
            others = [x for i, x in enumerate(xs) if i != j]
            contributions.append(float(np.mean([abs(x - xs[j]) for x in others])))
        rows.append(contributions)
        effects.append(float(np.mean(values)) - neutral)
    if not rows:
        return Test(NAN, NAN, NAN, 0, "neutral relabelling")
    total = math.prod(len(r) for r in rows)
    return Test(
        float(np.mean(effects)), relabel_p(rows, seed=17), 1.0 / total, len(rows),
        "neutral relabelling",
    )  # fmt: skip


def subset_relabel_test(per_seed: Mapping[int, tuple[Sequence[float], Sequence[float]]]) -> Test:
    """Do two sets of values of one group differ (e.g. male-coded {boy, male} vs
    female-coded {girl, female})? per_seed: seed → (figures of set A, of set B). Within a seed
    the |A| + |B| answers are exchangeable under the null; which |A| of them form set A is
    relabelled (C(|A|+|B|, |A|)^S labellings). Statistic: Σ_s (mean A − mean B), two-sided."""
    rows, effects = [], []
    for s in sorted(per_seed):
        a, b = list(per_seed[s][0]), list(per_seed[s][1])
        xs = [*a, *b]
        if not a or not b:
            continue
        true = tuple(range(len(a)))
        splits = [true, *(c for c in itertools.combinations(range(len(xs)), len(a)) if c != true)]
        contributions = []
        for idx in splits:
            inside = [xs[i] for i in idx]
            outside = [xs[i] for i in range(len(xs)) if i not in idx]
            contributions.append(float(np.mean(inside) - np.mean(outside)))
        rows.append(contributions)
        effects.append(contributions[0])
    if not rows:
        return Test(NAN, NAN, NAN, 0, "subset relabelling")
    total = math.prod(len(r) for r in rows)
    return Test(
        float(np.mean(effects)), relabel_p(rows, two_sided=True, seed=17), 2.0 / total,
        len(rows), "subset relabelling",
    )  # fmt: skip


def trend_test(figures: Sequence[Sequence[float]], draws: int = 20_000, seed: int = 17) -> Test:
    """Monotone trend over ordered models (e.g. by size): Spearman-type statistic Σ_i rank_i ·
    mean(figures_i) against random reassignments of all seed-level figures to models (the
    models' runs are independent, so under "size does not matter" every reassignment is
    equally likely); Monte Carlo, two-sided; effect = Spearman ρ of size rank vs figure."""
    sizes = [len(f) for f in figures]
    xs = np.array([x for f in figures for x in f], dtype=float)
    if len(figures) < 3 or not xs.size:
        return Test(NAN, NAN, NAN, 0, "trend permutation")
    ranks = np.repeat(np.arange(len(figures), dtype=float), sizes)
    centred = ranks - ranks.mean()
    observed = float(centred @ (xs - xs.mean()))
    rng = np.random.default_rng(seed)
    perms = np.array([rng.permutation(xs) for _ in range(draws)])
    stats = perms @ centred
    p = (1 + int(np.count_nonzero(np.abs(stats) >= abs(observed) - 1e-12))) / (draws + 1)
    rho = float(np.corrcoef(centred, np.argsort(np.argsort(xs)))[0, 1])
    return Test(rho, p, 1.0 / (draws + 1), min(sizes), "trend permutation")


def values_disparity_test(
    per_seed: Mapping[int, Sequence[float]], draws: int = 20_000, seed: int = 17
) -> Test:
    """Do the values of one group differ from each other (e.g. in Western-film share)? per_seed:
    seed → the values' figures, in one fixed value order. Seeds are blocks: within a seed the
    values' answers are exchangeable under the null (shared request seed included), so value
    labels are permuted within each seed (Monte Carlo). Statistic: the variance over values of
    their mean over seeds; effect reported: max − min of those means."""
    rows = [np.asarray(per_seed[s], dtype=float) for s in sorted(per_seed)]
    rows = [r for r in rows if r.size == rows[0].size] if rows else []
    if not rows or rows[0].size < 2:
        return Test(NAN, NAN, NAN, len(rows), "within-seed value permutation")
    table = np.vstack(rows)
    observed = float(table.mean(axis=0).var())
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(draws):
        shuffled = np.array([rng.permutation(r) for r in table])
        hits += shuffled.mean(axis=0).var() >= observed - 1e-12
    means = table.mean(axis=0)
    return Test(
        float(means.max() - means.min()), (1 + hits) / (draws + 1), 1.0 / (draws + 1),
        len(rows), "within-seed value permutation",
    )  # fmt: skip


def persona_disparity_test(
    task: TaskData, metric: str = HEADLINE_SIMILARITY, draws: int = 4000, seed: int = 17
) -> Test:
    """Group test for this design: do the group's personas (the neutral user and the values)
    answer differently? Seeds are blocks; within a seed the n + 1 answers are exchangeable
    under the null that no value matters (the shared request seed included), so persona labels
    are permuted within each seed (Monte Carlo, ``draws``). Statistic (a blocked PERMANOVA on
    cross-seed pairs only): mean D between different personas minus mean D within a persona,
    over seed pairs s ≠ t. Unlike "which answer is the neutral one", it has power when the
    neutral answer is central among the values. Effect reported: the observed statistic."""
    by_seed: dict[int, dict[str, AnswerRecord]] = defaultdict(dict)
    for r in task.records:
        by_seed[r.repeat][r.persona_id] = r
    personas = sorted(set.intersection(*(set(v) for v in by_seed.values()))) if by_seed else []
    seeds = sorted(by_seed)
    if len(personas) < 2 or len(seeds) < 2:
        return Test(NAN, NAN, NAN, len(seeds), "within-seed persona permutation")
    n = len(personas)
    pairs = list(itertools.permutations(range(len(seeds)), 2))
    d = np.array([
        [[divergence(metric, by_seed[seeds[s]][p].items, by_seed[seeds[t]][q].items)
          for q in personas] for p in personas]
        for s, t in pairs
    ])  # fmt: skip  # (pairs, n, n)
    total = d.mean(axis=(1, 2)).mean()
    rng = np.random.default_rng(seed)
    perms = np.array([[rng.permutation(n) for _ in seeds] for _ in range(draws)])
    perms[0] = np.arange(n)  # the observed labelling
    within = np.zeros(draws)
    for k, (s, t) in enumerate(pairs):
        within += d[k][perms[:, s, :], perms[:, t, :]].mean(axis=1)
    within /= len(pairs)
    # between − within, with between = (n·total − within) / (n − 1): monotone in −within
    stat = (n * total - within) / (n - 1) - within
    p = float(np.count_nonzero(stat >= stat[0] - 1e-12)) / draws
    return Test(float(stat[0]), p, 1.0 / draws, len(seeds), "within-seed persona permutation")
