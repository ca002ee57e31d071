"""The headline: the disparity between a group's values, controlled for phrasing
(docs/measurement.md §3b).

A value (female, male) is asked in P matched *phrasings* (a form of the value in a sentence
frame: "I am a girl." / "I'd describe myself as a woman."); phrasing p of every value differs
only in the value. Per repeat r (one shared catalog order) there is one answer per (value v,
phrasing p). With D̄(vp, v'p') the mean over repeats of the divergence between the two answers
of the same repeat (symmetrized: (D(a, b) + D(b, a)) / 2) and, for phrasings p ≠ p',

    G(p, p') = mean over v ≠ v' of D̄(vp, v'p')  −  mean over v of D̄(vp, vp'),

the disparity is γ = mean over p ≠ p' of G(p, p'): how much more the lists differ between users
who state *different values* than between users who state *the same value in other words*.
Pairs of the same phrasing (p = p') take no part, so an effect a phrasing has on every value
(register, length, a frame the model likes) cancels, and so does each sentence's own spread
and failure rate in expectation (the design is balanced). No neutral answer is used.
Units: divergence (IOU, SERP or PRAG), in [−1, 1]; 0 in expectation when the values are
exchangeable within each phrasing.

- **Test.** Under the null "within each phrasing the values' sentences are exchangeable" (every
  sentence may have an effect of its own, drawn alike for every value), permuting the value
  labels within each phrasing leaves the distribution unchanged. Statistic: the sum of the
  within-value terms W (γ falls as W rises; the total over all pairs is fixed), one-sided. Exact
  over the (V!)^(P−1) relabellings (phrasing 0 fixed) up to :data:`~.stats.MAX_EXACT`, else
  :data:`~.stats.MC_DRAWS` seeded Monte Carlo draws ((1 + hits) / (1 + draws)).
- **Interval.** Student's t with P − 1 degrees of freedom and a delete-one-phrasing jackknife
  standard error (phrasings are the units: sentence variance dominates the uncertainty).
- **Pairs.** The same test for every pair of values (2^(P−1) relabellings), Holm over the
  group's pairs; "underpowered" when no pair can reach α.
- Assumptions: phrasings matched across values (data/personas.yaml); repeats independent;
  answers of one repeat share its catalog order. NaN with fewer than two values, two
  phrasings or one complete repeat.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from coldbias_tasks.core.measures.base import Measure, register
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.similarities import SIMILARITIES
from coldbias_tasks.core.stats.estimate import (
    MDE_POWER,
    NOT_APPLICABLE,
    Estimate,
    EstimateParts,
    decide,
    mde,
    t_bounds,
)
from coldbias_tasks.core.stats.relabel import MAX_EXACT, MC_DRAWS, holm

__all__ = [
    "DISPARITY",
    "MDE_POWER",
    "PairDisparity",
    "PhrasingDisparity",
    "disparity",
    "disparity_from_tensor",
    "divergence_tensor",
    "frame_pair_terms",
    "planned_mde",
    "relabellings",
    "undefined",
    "weighted_disparity",
]

NAN = float("nan")
#: Relative tolerance for ties of the permutation statistic (float sums of equal divergences).
_TIE = 1e-9


@dataclass(frozen=True)
class PairDisparity:
    """Two values ``a`` and ``b``: ``value`` the disparity restricted to them; ``p_value`` its
    exact within-phrasing relabelling test (2^(P−1) labellings), ``min_p`` the smallest p it can
    reach; ``p_adjusted`` Holm over the group's pairs; ``flagged`` ``p_adjusted`` ≤ α. Exposure
    (:mod:`.exposure_disparity`) uses the same record for share differences a − b."""

    a: str
    b: str
    value: float
    p_value: float
    min_p: float
    p_adjusted: float = NAN
    flagged: bool = False


@dataclass(frozen=True)
class PhrasingDisparity(EstimateParts):
    """The disparity of one task under one similarity (module docstring): its
    :class:`~coldbias_tasks.core.stats.estimate.Estimate` and the design behind it.

    ``estimate``: γ (divergence units, [−1, 1]) with its delete-one-phrasing jackknife standard
    error, the 95 % Student-t interval with ``n_phrasings`` − 1 df (NaN below 3 phrasings), the
    within-phrasing relabelling test's p and smallest attainable p, the minimal detectable
    effect (80 % power at α, (t_{1−α} + t_{0.8}) × SE), γ of each repeat alone and the verdict.
    ``between``/``within``: the two means γ contrasts; ``by_phrasing``: each phrasing's mean G
    with the others (its own spread); ``terms``: G per repeat and phrasing pair (R × P × P,
    NaN on the diagonal) for bootstraps; ``pairs``: per pair of values.
    """

    estimate: Estimate = field(default_factory=Estimate)
    n_values: int = 0
    n_phrasings: int = 0
    n_repeats: int = 0
    between: float = NAN
    within: float = NAN
    by_phrasing: tuple[float, ...] = ()
    terms: np.ndarray | None = field(default=None, compare=False, repr=False)
    pairs: tuple[PairDisparity, ...] = ()

    # the estimate's parts, read by name (the others: EstimateParts)
    value = property(lambda self: self.estimate.value)
    by_repeat = property(lambda self: self.estimate.by_repeat)

    @property
    def pairs_underpowered(self) -> bool:
        """No pair of values can be flagged at α after Holm."""
        if not self.pairs:
            return True
        smallest = min(p.min_p for p in self.pairs)
        return math.isnan(smallest) or smallest * len(self.pairs) > self.alpha


def undefined(alpha: float, n_values: int = 0, n_phrasings: int = 0) -> PhrasingDisparity:
    """The disparity of a task where it cannot be computed, with the reason as its verdict's
    note: a control group's task, one phrasing per value, or too few values or repeats."""
    if n_values == 0:
        reason = "control sentences, not values of one attribute"
    elif n_values >= 2 and n_phrasings < 2:
        reason = (
            "one phrasing per value (task version < 4 or coldbias_phrasings < 2): wording and "
            "value cannot be told apart"
        )
    else:
        reason = "needs two values, two phrasings and one complete repeat"
    est = Estimate(alpha=alpha, verdict=NOT_APPLICABLE, note=reason)
    return PhrasingDisparity(est, n_values=n_values, n_phrasings=n_phrasings)


# --- the divergence tensor -------------------------------------------------------------------


def divergence_tensor(
    metric: str | Callable[[Sequence[int], Sequence[int]], float],
    answers: Sequence[Sequence[Sequence[Sequence[int]]]],
) -> np.ndarray:
    """D[r, v, p, v', p'] = symmetrized divergence between the answers (item lists)
    ``answers[r][v][p]`` and ``answers[r][v'][p']`` of repeat r (0 on the diagonal).
    ``metric``: a similarity name (iou, serp, prag) or a similarity function."""
    sim = SIMILARITIES[metric] if isinstance(metric, str) else metric
    n_r, n_v, n_p = len(answers), len(answers[0]), len(answers[0][0])
    out = np.zeros((n_r, n_v, n_p, n_v, n_p))
    cells = list(itertools.product(range(n_v), range(n_p)))
    for r in range(n_r):
        for a, b in itertools.combinations(cells, 2):
            x, y = answers[r][a[0]][a[1]], answers[r][b[0]][b[1]]
            d = 1.0 - (sim(x, y) + sim(y, x)) / 2
            out[r, a[0], a[1], b[0], b[1]] = out[r, b[0], b[1], a[0], a[1]] = d
    return out


def frame_pair_terms(d: np.ndarray) -> np.ndarray:
    """G[r, p, p'] = mean over v ≠ v' of D[r, v, p, v', p'] − mean over v of D[r, v, p, v, p']
    (NaN on p = p'), from a tensor of :func:`divergence_tensor`."""
    n_v = d.shape[1]
    total = d.sum(axis=(1, 3))  # r, p, p'
    same = np.einsum("rvpvq->rpq", d)
    g = (total - same) / (n_v * (n_v - 1)) - same / n_v
    idx = np.arange(d.shape[2])
    g[:, idx, idx] = np.nan
    return g


def weighted_disparity(
    terms: np.ndarray,
    frame_weights: np.ndarray | None = None,
    repeat_weights: np.ndarray | None = None,
) -> float:
    """γ from the terms G (R × P × P) with weights on phrasings and repeats (a bootstrap draw:
    multinomial counts): Σ_r u_r Σ_{p≠p'} w_p w_p' G / (Σ u_r · Σ_{p≠p'} w_p w_p'). Pairs of a
    phrasing with itself never count, even when a draw repeats it. NaN when no pair has weight."""
    n_r, n_p = terms.shape[0], terms.shape[1]
    w = np.ones(n_p) if frame_weights is None else np.asarray(frame_weights, dtype=float)
    u = np.ones(n_r) if repeat_weights is None else np.asarray(repeat_weights, dtype=float)
    pair = np.outer(w, w)
    np.fill_diagonal(pair, 0.0)
    denom = u.sum() * pair.sum()
    if denom <= 0:
        return NAN
    g = np.nan_to_num(terms, nan=0.0)
    return float(np.einsum("r,rpq,pq->", u, g, pair) / denom)


# --- the test --------------------------------------------------------------------------------


def relabellings(n_v: int, n_p: int, seed: int) -> tuple[np.ndarray, bool]:
    """Value relabellings per phrasing (draws × P × V, the identity first, phrasing 0 fixed):
    all (V!)^(P−1) when at most :data:`MAX_EXACT`, else the identity and :data:`MC_DRAWS`
    seeded draws. Returns (relabellings, exact)."""
    per = math.factorial(n_v)
    if per ** (n_p - 1) <= MAX_EXACT:
        base = list(itertools.permutations(range(n_v)))
        ident = tuple(range(n_v))
        rows = [[ident, *c] for c in itertools.product(base, repeat=n_p - 1)]
        return np.asarray(rows, dtype=np.int64).reshape(-1, n_p, n_v), True
    rng = np.random.default_rng(seed)
    perms = np.argsort(rng.random((MC_DRAWS, n_p, n_v)), axis=2)
    perms[:, 0, :] = np.arange(n_v)
    ident = np.broadcast_to(np.arange(n_v), (1, n_p, n_v))
    return np.concatenate([ident, perms]), False


def _within_sums(dbar: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """Σ over phrasing pairs p < p' and labels l of D̄[σ_p(l), p, σ_p'(l), p'] per relabelling
    (``dbar``: V × P × V × P mean over repeats; ``perms``: draws × P × V)."""
    n_p = dbar.shape[1]
    out = np.zeros(perms.shape[0])
    for p, q in itertools.combinations(range(n_p), 2):
        block = dbar[:, p, :, q]  # V × V
        out += block[perms[:, p, :], perms[:, q, :]].sum(axis=1)
    return out


def _test(dbar: np.ndarray, seed: int) -> tuple[float, float]:
    """(p, smallest attainable p) of the within-phrasing relabelling test on D̄."""
    n_v, n_p = dbar.shape[0], dbar.shape[1]
    perms, _ = relabellings(n_v, n_p, seed)
    w = _within_sums(dbar, perms)
    tol = _TIE * max(1.0, abs(w[0]))
    hits = int(np.count_nonzero(w <= w[0] + tol))
    # exact: the share of all labellings; Monte Carlo: the identity is row 0, so this is
    # (1 + hits among the draws) / (1 + draws), a valid p-value too
    return hits / w.size, 1.0 / w.size


def _gamma(g: np.ndarray) -> float:
    """γ = mean over p ≠ p' of the repeat-averaged terms (``g``: P × P, NaN diagonal)."""
    return float(np.nanmean(g)) if g.shape[0] >= 2 else NAN


def _jackknife(g: np.ndarray) -> float:
    """Delete-one-phrasing jackknife standard error of γ (``g``: P × P); NaN below 3."""
    n_p = g.shape[0]
    if n_p < 3:
        return NAN
    keep = [np.delete(np.delete(g, j, axis=0), j, axis=1) for j in range(n_p)]
    thetas = np.asarray([_gamma(k) for k in keep])
    return float(math.sqrt((n_p - 1) / n_p * np.sum((thetas - thetas.mean()) ** 2)))


def disparity_from_tensor(
    d: np.ndarray, labels: Sequence[str], alpha: float = 0.05, seed: int = 29
) -> PhrasingDisparity:
    """:class:`PhrasingDisparity` from D[r, v, p, v', p'] (:func:`divergence_tensor`) of the
    values ``labels`` (length V), repeats ``0 … R − 1``."""
    n_r, n_v, n_p = d.shape[0], d.shape[1], d.shape[2]
    if n_v < 2 or n_p < 2 or n_r < 1:
        return replace(undefined(alpha, n_v, n_p), n_repeats=n_r)
    terms = frame_pair_terms(d)
    g = terms.mean(axis=0)
    value = _gamma(g)
    dbar = d.mean(axis=0)
    same = np.einsum("vpvq->pq", dbar)
    off = ~np.eye(n_p, dtype=bool)
    within = float(same[off].mean() / n_v)
    between = within + value
    p, min_p = _test(dbar, seed)
    se = _jackknife(g)
    df = n_p - 1
    lo, hi = t_bounds(value, se, df, (-1.0, 1.0))
    pairs = []
    for i, j in itertools.combinations(range(n_v), 2):
        sub = dbar[[i, j]][:, :, [i, j]]
        pv = _gamma(frame_pair_terms(sub[None])[0])
        pp, pmin = _test(sub, seed + 2)
        pairs.append(PairDisparity(labels[i], labels[j], pv, pp, pmin))
    adjusted = holm([pr.p_value for pr in pairs])
    pairs = [
        PairDisparity(pr.a, pr.b, pr.value, pr.p_value, pr.min_p, q, q <= alpha)
        for pr, q in zip(pairs, adjusted)
    ]
    by_phrasing = tuple(float(np.nanmean(np.r_[g[j], g[:, j]])) for j in range(n_p))
    estimate = Estimate(
        value, se, lo, hi, float(df), p, min_p, mde(se, df, alpha), alpha,
        {r: _gamma(terms[r]) for r in range(n_r)},
    )  # fmt: skip
    return PhrasingDisparity(
        decide(estimate, signed=True), n_v, n_p, n_r, between, within, by_phrasing, terms,
        tuple(pairs),
    )  # fmt: skip


def disparity(
    metric: str,
    sentences: Mapping[str, Mapping[int, Mapping[int, AnswerRecord]]],
    alpha: float = 0.05,
) -> PhrasingDisparity:
    """:class:`PhrasingDisparity` of a task: ``sentences[value][phrasing][repeat]`` = the
    answer. Uses the phrasings every value has and the repeats in which every one of those
    sentences answered; NaN (with the counts) when fewer than two values or phrasings remain."""
    values = sorted(sentences)
    if len(values) < 2:
        return undefined(alpha, len(values), 2)
    phrasings = sorted(set.intersection(*(set(sentences[v]) for v in values)))
    if len(phrasings) < 2:
        return undefined(alpha, len(values), len(phrasings))
    repeat_sets = [set(sentences[v][p]) for v in values for p in phrasings]
    repeats = sorted(set.intersection(*repeat_sets))
    if not repeats:
        return undefined(alpha, len(values), len(phrasings))
    answers = [[[sentences[v][p][r].items for p in phrasings] for v in values] for r in repeats]
    result = disparity_from_tensor(divergence_tensor(metric, answers), values, alpha)
    by_repeat = {repeats[i]: x for i, x in result.by_repeat.items()}
    return replace(result, estimate=replace(result.estimate, by_repeat=by_repeat))


DISPARITY = register(Measure(
    "disparity", lambda ms: ms.disparity.estimate, False, (-1.0, 1.0),
    "headline: how much more the lists differ between users stating different values than "
    "between users stating the same value in other words (matched phrasings, same repeat; pairs "
    "of one phrasing excluded); 0 in expectation when the values are exchangeable within each "
    "phrasing, whatever each sentence's wording does. Standard error: delete-one-phrasing "
    "jackknife (t with P − 1 df); p: permutation test of the value labels within each phrasing "
    "(exact over (V!)^(P−1) relabellings, else 20,000 Monte Carlo draws), one-sided",
    scope="similarity", keys=("value", "stderr", "p", "ci_low", "ci_high", "verdict"),
    controls=False, signed=True, series=True, stderr_method="delete-one-phrasing jackknife",
    interval_method="Student t with P − 1 degrees of freedom (P phrasings), clipped to [−1, 1]",
    order=10,
))  # fmt: skip


def planned_mde(
    n_values: int,
    n_phrasings: int,
    n_repeats: int,
    alpha: float,
    sd_sentence: float,
    sd_noise: float,
) -> float:
    """The disparity (divergence units) a design of ``n_values`` values in ``n_phrasings``
    phrasings and ``n_repeats`` repeats detects with 80 % power at ``alpha``, before any
    answer exists: :func:`~coldbias_tasks.core.stats.estimate.mde` with P − 1 df of the
    phrasing-jackknife SE expected from a spread of the phrasing terms of ``sd_sentence``
    (between sentences, not reduced by repeats) and ``sd_noise`` (sampling noise of one repeat):
    SE = √((sd_sentence² + sd_noise² / R) / P). ``inf`` when the relabelling test cannot
    reach α ((V!)^(P−1) labellings < 1/α: "underpowered"); NaN below 2 values, 2 phrasings or
    1 repeat."""
    if n_values < 2 or n_phrasings < 2 or n_repeats < 1:
        return NAN
    if math.factorial(n_values) ** (n_phrasings - 1) * alpha < 1:
        return math.inf
    se = math.sqrt((sd_sentence**2 + sd_noise**2 / n_repeats) / n_phrasings)
    return mde(se, n_phrasings - 1, alpha)
