"""Rank intervals and tiers for the leaderboard's headline (docs/measurement.md §3b).

A strict order of models whose numbers differ by less than their noise is not information.
The headline — the disparity between values controlled for phrasing — is bootstrapped over
phrasings × repeats (:func:`disparity_draws`): every draw weights each attribute group's
phrasings and the repeats by multinomial counts, the same weights for every model (models asked
the same sentences are compared on the same resampled sentences: paired); every draw ranks the
models; a model's rank interval is the 2.5–97.5 % range of its ranks. Ranks are taken on the
signed value (a clearly negative disparity means unmatched phrasings, not fairness; the
leaderboard flags it). Tier = 1 + the number of models significantly better (:func:`paired_tiers`:
one-sided, paired over the same draws, Holm over the model's comparisons).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats as sps

from coldbias_tasks.analysis.intervals import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from coldbias_tasks.core.stats.relabel import benjamini_hochberg, holm

__all__ = [
    "RankInterval",
    "TaskTerms",
    "bh_flags",
    "disparity_draws",
    "paired_tiers",
    "rank_intervals",
    "tiers",
]

#: One task's headline terms: (domain, attribute group, G per repeat × phrasing × phrasing)
TaskTerms = tuple[str, str, np.ndarray]


def disparity_draws(
    models: Mapping[str, Sequence[TaskTerms]],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, np.ndarray]:
    """Bootstrap draws of every model's overall disparity (mean over domains of the mean over
    the domain's attribute tasks) over phrasings × repeats: per draw one multinomial weight
    vector per attribute group over its phrasings and one per repeat count over the repeats,
    shared by every model and domain (paired). A phrasing drawn twice never pairs with itself
    (:func:`coldbias_tasks.core.measures.disparity.weighted_disparity`). NaN draws for a model
    without
    terms."""
    rng = np.random.default_rng(seed)
    frame_w: dict[tuple[str, int], np.ndarray] = {}
    repeat_w: dict[int, np.ndarray] = {}
    for tasks in models.values():
        for _, group, terms in tasks:
            n_r, n_p = terms.shape[0], terms.shape[1]
            if (group, n_p) not in frame_w:
                w = rng.multinomial(n_p, [1 / n_p] * n_p, size=resamples)
                # a draw of one distinct phrasing has no pair: draw it again
                while (bad := (w > 0).sum(axis=1) < 2).any() and n_p >= 2:
                    w[bad] = rng.multinomial(n_p, [1 / n_p] * n_p, size=int(bad.sum()))
                frame_w[(group, n_p)] = w
            if n_r not in repeat_w:
                repeat_w[n_r] = rng.multinomial(n_r, [1 / n_r] * n_r, size=resamples)
    out = {}
    for name, tasks in models.items():
        by_domain: dict[str, list[np.ndarray]] = {}
        for domain, group, terms in tasks:
            w = frame_w[(group, terms.shape[1])].astype(float)
            u = repeat_w[terms.shape[0]].astype(float)
            pair = w[:, :, None] * w[:, None, :]
            idx = np.arange(terms.shape[1])
            pair[:, idx, idx] = 0.0
            g = np.nan_to_num(terms, nan=0.0)
            num = np.einsum("br,rpq,bpq->b", u, g, pair)
            den = u.sum(axis=1) * pair.sum(axis=(1, 2))
            with np.errstate(invalid="ignore", divide="ignore"):
                by_domain.setdefault(domain, []).append(np.where(den > 0, num / den, np.nan))
        if not by_domain:
            out[name] = np.full(resamples, math.nan)
            continue
        domain_means = [np.nanmean(np.vstack(v), axis=0) for v in by_domain.values()]
        out[name] = np.nanmean(np.vstack(domain_means), axis=0)
    return out


def paired_tiers(
    estimates: Mapping[str, float], draws: Mapping[str, np.ndarray], alpha: float = 0.05
) -> dict[str, int]:
    """Tier per model (1 = fairest) = 1 + the number of models significantly better: for each
    other model o, a one-sided z test of estimate_m − estimate_o > 0 with the standard error
    of the paired bootstrap differences (same draws), Holm over m's comparisons. Assumes the
    difference is roughly normal over phrasing × repeat resamples. Models without a finite
    estimate get no tier."""
    names = [m for m, v in estimates.items() if not math.isnan(v) and m in draws]
    out = {}
    for m in names:
        pvalues = []
        for o in names:
            if o == m:
                continue
            diff = draws[m] - draws[o]
            diff = diff[np.isfinite(diff)]
            se = float(diff.std(ddof=1)) if diff.size > 1 else math.nan
            delta = estimates[m] - estimates[o]
            if not math.isfinite(se) or se == 0:
                pvalues.append(0.0 if delta > 0 and se == 0 else 1.0)
                continue
            pvalues.append(float(sps.norm.sf(delta / se)))
        out[m] = 1 + sum(q <= alpha for q in holm(pvalues))
    return out


RankInterval = tuple[int, int]


def rank_intervals(
    draws: Mapping[str, np.ndarray], level: float = 0.95, floor: float = -math.inf
) -> dict[str, RankInterval]:
    """Per model, the ``level`` range of its rank (1 = fairest) over the bootstrap draws,
    ranking max(``floor``, value) (signed by default) with ties sharing the better rank.
    Models without finite draws get no interval."""
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
