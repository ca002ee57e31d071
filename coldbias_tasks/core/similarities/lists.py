"""Ranked-list similarities IOU, SERP and PRAG (docs/measurement.md §1); a divergence is
1 − similarity (``core/measures/aggregate.py``; the lm-eval keys ``iou_divergence`` …).

All functions take an attribute list ``a`` and the neutral list ``n``: sequences of hashable
item ids, best first. Repeated ids are ignored after their first occurrence. Ranks are 1-based
and ``m = max(|a|, |n|)`` is the normalizer, so for every length:

- identical lists score similarity 1 (divergence 0), disjoint lists 0 (divergence 1);
- every value lies in [0, 1];
- if either list is empty the similarity is 0 (the caller flags the sample invalid).

With ``|a| = |n| = k`` these are the FaiRLLM / seed-paper formulas, except PRAG's normalizer:
the paper prints ``k(k+1)``, under which identical lists score at most ``(k-1)/(2(k+1))``; we
divide by the number of ordered pairs ``m(m-1)/2`` so that identical lists score 1.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from coldbias_tasks.core.vocabulary import SIMILARITY_NAMES

__all__ = [
    "SIMILARITIES",
    "iou",
    "prag",
    "serp",
]


def _unique(items: Sequence[Hashable]) -> list[Hashable]:
    """Items in order, later repeats dropped."""
    return list(dict.fromkeys(items))


def iou(a: Sequence[Hashable], n: Sequence[Hashable]) -> float:
    """Jaccard overlap |A ∩ N| / |A ∪ N| of the two item sets; symmetric; 0 if either is empty."""
    sa, sn = set(a), set(n)
    if not sa or not sn:
        return 0.0
    return len(sa & sn) / len(sa | sn)


def serp(a: Sequence[Hashable], n: Sequence[Hashable]) -> float:
    """Rank-weighted overlap: sum over items of ``a`` also in ``n`` of ``(m - r_a + 1)``,
    divided by ``m(m+1)/2``. Rewards shared items placed high in ``a``; ignores their rank in ``n``.
    """
    ua, un = _unique(a), set(n)
    m = max(len(ua), len(un))
    if not ua or not un:
        return 0.0
    score = sum(m - rank + 1 for rank, item in enumerate(ua, start=1) if item in un)
    return score / (m * (m + 1) / 2)


def prag(a: Sequence[Hashable], n: Sequence[Hashable]) -> float:
    """Pairwise rank agreement: over ordered pairs (i1 before i2 in ``a``), the share where i1 is
    in ``n`` and ranked before i2 in ``n`` (an item missing from ``n`` ranks after all others),
    divided by ``m(m-1)/2``. Both lists of one item: 1 if it is the same item, else 0.
    """
    ua, un = _unique(a), _unique(n)
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


Similarity = Callable[[Sequence[Hashable], Sequence[Hashable]], float]

#: The similarities by the name used in metric keys (:data:`SIMILARITY_NAMES` order).
SIMILARITIES: dict[str, Similarity] = dict(zip(SIMILARITY_NAMES, (iou, serp, prag), strict=True))
