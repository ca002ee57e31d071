"""The phrasing-controlled contrast of a per-answer quantity between values (docs/measurement.md
§3d), shared by the diversity contrast (:mod:`.diversity`) and the costs to the user
(:mod:`.costs`: preference served, item quality, failed answers).

For a per-answer statistic s, m[v, p] is the mean of s over the repeats of sentence (v, p). Per
phrasing p the values are compared with each other only: e[v, p] = m[v, p] − mean over v' of
m[v', p], and ē_v = mean over phrasings of e[v, p] (an effect of a phrasing on every value
cancels). With V = 2 values in sorted order (``reference`` first) the contrast is signed,
mean over p of (m[other, p] − m[reference, p]) = ē_other − ē_reference; with V > 2 it is the
**spread**, the root mean square over pairs of values of ē_v − ē_v' (≥ 0, units of s; it
equals |signed contrast| at V = 2).

- **Test.** Null: within each phrasing the values' sentences are exchangeable (each sentence may
  have an effect of its own, drawn alike for every value). The value labels are relabelled
  within each phrasing (:func:`~.disparity.relabellings`: exact over (V!)^(P−1) labellings,
  else seeded Monte Carlo); statistic the spread (two-sided at V = 2).
- **Interval.** Delete-one-phrasing jackknife standard error of the spread, 95 % Student-t with
  P − 1 df (NaN below 3 phrasings), clipped to the statistic's ``bounds``; ``mde`` =
  (t_{1−α/2} + t_{0.8}) × SE; "underpowered" when the smallest attainable p exceeds α.
- **Pairs** (:func:`pair_contrasts`): the same contrast and test for every pair of values,
  Holm over the pairs.
- Assumptions: phrasings matched across values; repeats independent; only phrasings in which
  every value has a finite mean take part.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from coldbias_tasks.core.measures.base import Measure, register
from coldbias_tasks.core.measures.disparity import relabellings
from coldbias_tasks.core.stats.estimate import Estimate, EstimateParts, decide, mde, t_bounds
from coldbias_tasks.core.stats.relabel import holm

__all__ = ["Cells", "Contrast", "PairContrast", "contrast", "contrast_measure", "pair_contrasts"]

NAN = float("nan")
_TIE = 1e-9
#: value → phrasing → the statistic's mean over the sentence's repeats
Cells = Mapping[str, Mapping[int, float]]
#: the headline's relabellings, enumerated once per design (every statistic of a task shares them)
_relabellings = lru_cache(maxsize=8)(relabellings)


@dataclass(frozen=True)
class Contrast(EstimateParts):
    """The phrasing-controlled contrast of one statistic between values (module docstring):
    its :class:`~coldbias_tasks.core.stats.estimate.Estimate` and the design behind it.

    ``estimate``: the spread (≥ 0, units of the statistic; = |signed| at V = 2), with the
    jackknife standard error over phrasings and its t(P − 1) interval clipped to the bounds,
    the within-phrasing relabelling test (two-sided at V = 2), the MDE (80 % power at α) and
    the verdict; ``signed``: ē_other − ē_reference at V = 2, the spread at V > 2; ``by_value``:
    ē_v (the value's mean deviation from the other values of its phrasing).
    """

    statistic: str = ""
    estimate: Estimate = field(default_factory=Estimate)
    signed: float = NAN
    n_values: int = 0
    n_phrasings: int = 0
    reference: str = ""
    other: str = ""
    by_value: dict[str, float] = field(default_factory=dict)
    #: joint contrast: the statistic with the largest spread relative to its null level (the
    #: one ``value``, ``spread`` and ``by_value`` describe)
    widest: int = 0

    # the estimate's value, read by name (its other parts: EstimateParts)
    spread = property(lambda self: self.estimate.value)


def _deviations(m: np.ndarray) -> np.ndarray:
    """ē (… × V) from cell means m (… × P × V): per phrasing minus its mean over values, then
    the mean over phrasings."""
    return (m - m.mean(axis=-1, keepdims=True)).mean(axis=-2)


def _spread(e: np.ndarray) -> np.ndarray:
    """Root mean square over value pairs of ē_v − ē_v' (last axis: values)."""
    n_v = e.shape[-1]
    ss = ((e - e.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)
    return np.sqrt(2.0 * ss / (n_v - 1))


def _estimate(m: np.ndarray, k: int = 0) -> float:
    """The contrast of cell means m (K statistics × P × V): signed at K = 1 and V = 2, else the
    spread of statistic ``k``."""
    e = _deviations(m)
    if m.shape[0] == 1 and m.shape[2] == 2:
        return float(e[0, 1] - e[0, 0])
    return float(_spread(e[k]))


def contrast(
    cells: Cells | Sequence[Cells],
    statistic: str = "",
    alpha: float = 0.05,
    seed: int = 31,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> Contrast:
    """The contrast of ``cells[value][phrasing]`` (a statistic's mean over the sentence's
    repeats) between values; phrasings where some value is missing or NaN are left out. NaN
    (with the counts) below two values or two phrasings. ``bounds``: the spread's range (its
    interval is clipped to it; the lower bound is 0 for a spread).

    ``cells`` may be a sequence of such tables (K statistics, e.g. the normalised entropy of
    each field): the **joint** contrast. Each statistic's spread is scaled by its mean over the
    relabellings (its null level: a two-category field is noisier than a twenty-category one),
    the test relabels all K alike and compares the largest scaled spread (family-wise valid over
    the K: the max-statistic permutation test; the scale is the same for every labelling), and
    ``widest`` is the statistic with the largest scaled spread, whose raw spread is ``value``
    and ``spread``."""
    tables = [cells] if isinstance(cells, Mapping) else list(cells)
    values = sorted({v for t in tables for v in t})
    keys = [set(t.get(v, {})) for t in tables for v in values]
    common = set.intersection(*keys) if keys and tables else set()
    phrasings = sorted(
        p for p in common if all(not math.isnan(t[v][p]) for t in tables for v in values)
    )
    base = Contrast(
        statistic, Estimate(alpha=alpha), n_values=len(values), n_phrasings=len(phrasings)
    )
    if len(values) < 2 or len(phrasings) < 2:
        return base
    m = np.asarray([[[t[v][p] for v in values] for p in phrasings] for t in tables])  # K × P × V
    n_p, n_v = m.shape[1], m.shape[2]
    e = _deviations(m)  # K × V
    spreads = _spread(e)
    perms, _ = _relabellings(n_v, n_p, seed)
    relabelled = m[:, np.arange(n_p)[None, :, None], perms]  # K × draws × P × V
    null = _spread(_deviations(relabelled))  # K × draws
    scale = null.mean(axis=1, keepdims=True)
    scaled = null / np.where(scale > 0, scale, 1.0)
    stats = scaled.max(axis=0)  # draws (K = 1: the spread, up to a constant)
    widest = int(np.argmax(scaled[:, 0]))
    hits = int(np.count_nonzero(stats >= stats[0] - _TIE * max(1.0, abs(stats[0]))))
    p, min_p = hits / stats.size, 1.0 / stats.size
    value = _estimate(m, widest)
    se = NAN
    if n_p >= 3:
        thetas = np.asarray([_estimate(np.delete(m, j, axis=1), widest) for j in range(n_p)])
        se = float(math.sqrt((n_p - 1) / n_p * np.sum((thetas - thetas.mean()) ** 2)))
    df = float(n_p - 1)
    spread = float(spreads[widest])
    lo, hi = t_bounds(spread, se, df, (0.0, bounds[1]))
    effect = mde(se, df, alpha, two_sided=True)
    estimate = decide(Estimate(spread, se, lo, hi, df, p, min_p, effect, alpha))
    return Contrast(
        statistic=statistic,
        estimate=estimate,
        signed=value,
        n_values=n_v,
        n_phrasings=n_p,
        reference=values[0],
        other=values[1] if n_v == 2 else "",
        by_value={v: float(x) for v, x in zip(values, e[widest])},
        widest=widest,
    )


@dataclass(frozen=True)
class PairContrast:
    """Two values ``a`` < ``b``: ``contrast`` of the statistic restricted to them (signed:
    mean over phrasings of m[b, p] − m[a, p]); ``p_adjusted``: Holm over the group's pairs;
    ``flagged``: ``p_adjusted`` ≤ α."""

    a: str
    b: str
    contrast: Contrast
    p_adjusted: float = NAN
    flagged: bool = False


def pair_contrasts(
    cells: Cells,
    statistic: str = "",
    alpha: float = 0.05,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> tuple[PairContrast, ...]:
    """:func:`contrast` for every pair of values of ``cells`` (2^(P−1) relabellings each),
    Holm-adjusted over the pairs; empty below three values (the contrast itself is the pair)."""
    values = sorted(cells)
    if len(values) < 3:
        return ()
    pairs = [
        (a, b, contrast({a: cells[a], b: cells[b]}, statistic, alpha, bounds=bounds))
        for a, b in itertools.combinations(values, 2)
    ]
    adjusted = holm([c.p_value for _, _, c in pairs])
    return tuple(
        PairContrast(a, b, c, q, not math.isnan(q) and q <= alpha)
        for (a, b, c), q in zip(pairs, adjusted)
    )


def contrast_measure(
    name: str,
    read: Callable[[Any], Estimate],
    bounds: tuple[float, float],
    description: str,
    order: int,
    protocol: str = "both",
) -> Measure:
    """Register a phrasing-controlled contrast between values as a measure: ``read`` takes the
    task's summary to the contrast's estimate; ↓ (0: no contrast), lm-eval parts value, standard
    error, p and verdict; not computed for the placebo (controls are not values); ``protocol``:
    which forward tasks list it (:data:`~.base.Protocol`)."""
    return register(Measure(
        name, read, False, bounds, description, keys=("value", "stderr", "p", "verdict"),
        controls=False, stderr_method="delete-one-phrasing jackknife",
        interval_method=f"Student t with P − 1 degrees of freedom, clipped to [{bounds[0]:g}, "
        f"{bounds[1]:g}]", order=order, protocol=protocol,  # type: ignore[arg-type]
    ))  # fmt: skip
