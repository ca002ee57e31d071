"""SERP: rank-weighted overlap (FaiRLLM / the seed paper's SERP*), asymmetric.

Sum over items of ``a`` also in ``n`` of ``(m − r_a + 1)``, divided by ``m(m + 1)/2``, with
ranks 1-based and ``m = max(|a|, |n|)``; rewards shared items placed high in ``a`` and ignores
their rank in ``n``. Identical lists score 1, disjoint lists 0; 0 if either is empty.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from coldbias_tasks.core.similarities import Similarity, register, unique

__all__ = ["serp"]


def serp(a: Sequence[Hashable], n: Sequence[Hashable]) -> float:
    """Rank-weighted overlap of ``a`` with ``n`` (module docstring)."""
    ua, un = unique(a), set(n)
    m = max(len(ua), len(un))
    if not ua or not un:
        return 0.0
    score = sum(m - rank + 1 for rank, item in enumerate(ua, start=1) if item in un)
    return score / (m * (m + 1) / 2)


SIMILARITY = register(
    Similarity(
        "serp", "SERP", serp, "rank-weighted overlap: shared items weighted by their rank in "
        "the first list", symmetric=False, order=20,
    )
)  # fmt: skip
