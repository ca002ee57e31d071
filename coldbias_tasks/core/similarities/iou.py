"""IOU: the Jaccard overlap of the two lists' item sets (rank-blind; the seed paper's IOU)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from coldbias_tasks.core.similarities import Similarity, register

__all__ = ["iou"]


def iou(a: Sequence[Hashable], n: Sequence[Hashable]) -> float:
    """|A ∩ N| / |A ∪ N| of the two item sets; symmetric; 0 if either is empty."""
    sa, sn = set(a), set(n)
    if not sa or not sn:
        return 0.0
    return len(sa & sn) / len(sa | sn)


SIMILARITY = register(
    Similarity("iou", "IOU", iou, "Jaccard overlap of the item sets (ranks ignored)", order=10)
)
