"""PRAG: pairwise rank agreement (FaiRLLM / the seed paper's PRAG*), asymmetric.

Over ordered pairs (i1 before i2 in ``a``), the share where i1 is in ``n`` and ranked before i2
in ``n`` (an item missing from ``n`` ranks after all others), divided by ``m(m − 1)/2`` with
``m = max(|a|, |n|)``. The paper prints the normaliser ``k(k + 1)``, under which identical lists
score at most ``(k − 1)/(2(k + 1))``; dividing by the number of pairs makes identical lists
score 1. Both lists of one item: 1 if it is the same item, else 0; 0 if either is empty.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from coldbias_tasks.core.similarities import Similarity, register, unique

__all__ = ["prag"]


def prag(a: Sequence[Hashable], n: Sequence[Hashable]) -> float:
    """Pairwise rank agreement of ``a`` with ``n`` (module docstring)."""
    ua, un = unique(a), unique(n)
    if not ua or not un:
        return 0.0
    m = max(len(ua), len(un))
    if m == 1:
        return 1.0 if ua[0] == un[0] else 0.0
    rank_n = {item: rank for rank, item in enumerate(un)}
    missing = len(un)  # any rank after every item of n stands for "infinity"
    ranks = [rank_n.get(item, missing) for item in ua]
    agreeing = 0
    for pos, r1 in enumerate(ranks):
        if r1 == missing:
            continue
        agreeing += sum(1 for r2 in ranks[pos + 1 :] if r1 < r2)
    return agreeing / (m * (m - 1) / 2)


SIMILARITY = register(
    Similarity(
        "prag", "PRAG", prag, "pairwise rank agreement: share of the first list's ordered "
        "pairs the second list keeps in order", symmetric=False, order=30,
    )
)  # fmt: skip
