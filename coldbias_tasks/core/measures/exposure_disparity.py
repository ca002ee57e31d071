"""Item-group exposure between values: is the action share of "a girl" different from that of
"a boy"? (docs/measurement.md §5). No neutral user is involved.

For one catalog field and one of its categories, S[u, v] is the share of value v's answers in
the category in unit u (items carrying several labels count for each). The units are the
value's matched phrasings (task version ≥ 4: S = the mean share over the repeats in which every
value gave a non-empty answer in that phrasing), as for the headline, so a wording's own effect
is not taken for the value's; runs with one phrasing per value (version < 4) use the repeats.

- Omnibus per category: statistic = variance over values of their mean share; the value labels
  are permuted within each unit (exchangeable under the null that the values are treated
  alike; exact up to 2^18 labellings, else 20,000 seeded draws); ``spread`` = max − min of the
  values' mean shares (share units, in [0, 1]).
- Pairs: d_u = S[u, a] − S[u, b]; two-sided sign-flip test over the 2^U flips (exact up to
  2^18, smallest p = 2 / 2^U: 1/16 with 5 units), Holm over the category's pairs; the pair's
  ``value`` = mean of d_u (a :class:`~coldbias_tasks.core.measures.disparity.PairDisparity`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from coldbias_tasks.core.measures.design import arrange
from coldbias_tasks.core.measures.disparity import PairDisparity, relabellings
from coldbias_tasks.core.measures.exposure import category_shares
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.stats.relabel import holm, min_relabel_p, relabel_p
from coldbias_tasks.core.vocabulary import ALPHA

__all__ = ["ShareDisparity", "share_disparity"]


@dataclass(frozen=True)
class ShareDisparity:
    """One category of one field: the values' mean shares, their spread and the tests."""

    category: str
    shares: dict[str, float]
    spread: float
    p_value: float
    min_p: float
    #: units tested: phrasings (task version ≥ 4) or repeats
    n_repeats: int
    #: per pair of values: ``value`` = mean over repeats of the share difference a − b
    pairs: tuple[PairDisparity, ...] = ()


def _sign_flip(d: np.ndarray) -> tuple[float, float]:
    """(two-sided p, smallest attainable p) of the mean of ``d`` under sign flips per repeat:
    :func:`~coldbias_tasks.core.stats.relabel.relabel_p` with the choices (d_r, −d_r); the mirror
    labelling always ties, so the smallest p is twice :func:`min_relabel_p`."""
    rows = [[x, -x] for x in d]
    return relabel_p(rows, two_sided=True), min(1.0, 2 * min_relabel_p([2] * len(rows)))


def share_disparity(
    records: Iterable[AnswerRecord],
    categories: Mapping[int, Iterable[str]],
    seed: int = 37,
    alpha: float = ALPHA,
) -> list[ShareDisparity]:
    """:class:`ShareDisparity` per category of one field (``categories``: catalog id →
    labels); a pair is ``flagged`` at Holm-adjusted p ≤ ``alpha``; empty with fewer than two
    values or two complete repeats."""
    table = arrange(records)
    personas = sorted(table.phrased)
    if len(personas) < 2:
        return []
    labels = {item: tuple(dict.fromkeys(c)) for item, c in categories.items()}
    phrasings = sorted(set.intersection(*(set(table.phrased[p]) for p in personas)))
    units = []  # per unit: per value, the answers it pools
    for j in phrasings:
        repeats = [
            r
            for r in sorted(set.intersection(*(set(table.phrased[p][j]) for p in personas)))
            if all(table.phrased[p][j][r].items for p in personas)
        ]
        units.append([[table.phrased[p][j][r] for r in repeats] for p in personas])
    if len(phrasings) < 2:  # one phrasing per value (task version < 4): the repeats are units
        units = [[[answers[v][r]] for v in range(len(personas))]
                 for answers in units for r in range(len(answers[0]))]  # fmt: skip
    units = [u for u in units if u[0]]
    if len(units) < 2:
        return []
    cats = sorted({c for u in units for answers in u for a in answers for i in a.items
                   for c in labels.get(i, ())})  # fmt: skip
    if not cats:
        return []
    s = np.asarray(
        [
            [np.mean([category_shares(a, labels, cats) for a in answers], axis=0) for answers in u]
            for u in units
        ]
    )
    perms = relabellings(len(personas), len(units), seed)[0]
    rows = np.arange(len(units))[None, :, None]
    out = []
    for c, cat in enumerate(cats):
        # permuted mean share per value (mean over repeats of S[r, π_r(v)]), its variance
        stats = s[:, :, c][rows, perms].mean(axis=1).var(axis=1)  # one per labelling
        observed = stats[0]
        hits = int(np.count_nonzero(stats >= observed - 1e-12 * max(1.0, observed)))
        pairs = []
        for i, j in itertools.combinations(range(len(personas)), 2):
            p, pmin = _sign_flip(s[:, i, c] - s[:, j, c])
            diff = float(np.mean(s[:, i, c] - s[:, j, c]))
            pairs.append(PairDisparity(personas[i], personas[j], diff, p, pmin))
        adjusted = holm([pr.p_value for pr in pairs])
        value_means = s[:, :, c].mean(axis=0)
        out.append(
            ShareDisparity(
                category=cat,
                shares={p: float(m) for p, m in zip(personas, value_means)},
                spread=float(value_means.max() - value_means.min()),
                p_value=hits / stats.size,
                min_p=1.0 / stats.size,
                n_repeats=len(units),
                pairs=tuple(
                    replace(pr, p_adjusted=q, flagged=q <= alpha) for pr, q in zip(pairs, adjusted)
                ),
            )
        )
    return out
