"""RBO: rank-biased overlap (Webber, Moffat & Zobel 2010, "A similarity measure for indefinite
rankings", ACM TOIS 28(4)), the top-weighted similarity information retrieval uses to compare
rankings; persistence p = :data:`PERSISTENCE` = 0.9.

With ``A_d = |a[:d] ∩ n[:d]| / d`` the agreement of the two prefixes of depth d (repeats
ignored), RBO sums ``(1 − p) p^(d−1) A_d``: depth d weighs p^(d−1), so with p = 0.9 the first
10 ranks carry 65 % of the weight of an infinite ranking (86 % at depth 19). coldbias's lists
are finite, so the sum is truncated at the depth of the longer list, m = max(|a|, |n|) (a
shorter list's prefixes stop growing), and normalised by its weight ``1 − p^m``:

    RBO@m = (1 − p) / (1 − p^m) · Σ_{d=1..m} p^(d−1) A_d,

so identical lists score 1 and disjoint lists 0 for every length (this is not RBO_ext, which
extrapolates the unseen tail); symmetric; 0 if either list is empty.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from coldbias_tasks.core.similarities import Similarity, register, unique

__all__ = ["PERSISTENCE", "rbo"]

#: The persistence p: the weight of depth d is p^(d−1).
PERSISTENCE = 0.9


def rbo(a: Sequence[Hashable], n: Sequence[Hashable], p: float = PERSISTENCE) -> float:
    """Rank-biased overlap of ``a`` and ``n`` truncated at the longer list's depth and
    normalised (module docstring); ``p`` in (0, 1)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"RBO persistence must be in (0, 1), got {p}")
    ua, un = unique(a), unique(n)
    if not ua or not un:
        return 0.0
    m = max(len(ua), len(un))
    seen_a: set[Hashable] = set()
    seen_n: set[Hashable] = set()
    overlap = 0
    total = 0.0
    for d in range(1, m + 1):
        x = ua[d - 1] if d <= len(ua) else None
        y = un[d - 1] if d <= len(un) else None
        if x is not None:
            overlap += x in seen_n or x == y
            seen_a.add(x)
        if y is not None and y != x:
            overlap += y in seen_a
            seen_n.add(y)
        elif y is not None:
            seen_n.add(y)
        total += p ** (d - 1) * overlap / d
    return min(1.0, (1.0 - p) / (1.0 - p**m) * total)


SIMILARITY = register(
    Similarity(
        "rbo", "RBO", rbo, f"rank-biased overlap (Webber et al. 2010), persistence p = "
        f"{PERSISTENCE}: prefix agreement weighted p^(d−1) by depth, truncated at the list "
        "length and normalised so identical lists score 1", order=40,
    )
)  # fmt: skip
