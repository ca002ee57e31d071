"""The registered ranked-list similarities (coldbias_tasks/core/similarities/): golden cases
computed by hand for IOU, SERP, PRAG and RBO, and properties every registered one has."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coldbias_tasks.core.similarities import SIMILARITIES
from coldbias_tasks.core.similarities.iou import iou
from coldbias_tasks.core.similarities.prag import prag
from coldbias_tasks.core.similarities.rbo import PERSISTENCE, rbo
from coldbias_tasks.core.similarities.serp import serp

# (a, n, iou, serp, prag), each value computed by hand (docs/measurement.md §2), m = max(|a|, |n|).
GOLDEN = [
    # unequal lengths, m = 4: ∩ = {2, 3}; SERP (3 + 2) / 10; PRAG only pair (2, 3) agrees: 1 / 6
    ([1, 2, 3], [2, 3, 4, 5], 2 / 5, 5 / 10, 1 / 6),
    # reversed prefix of n, m = 4: SERP (4 + 3 + 2) / 10; PRAG no pair in n's order
    ([3, 2, 1], [1, 2, 3, 4], 3 / 4, 9 / 10, 0.0),
    # k = 1
    ([7], [7], 1.0, 1.0, 1.0),
    ([7], [8], 0.0, 0.0, 0.0),
    # one item against two, m = 2: SERP 2 / 3; PRAG has no pair in a: 0 / 1
    ([1], [1, 2], 1 / 2, 2 / 3, 0.0),
    # empty lists: similarity 0
    ([], [1, 2], 0.0, 0.0, 0.0),
    ([1, 2], [], 0.0, 0.0, 0.0),
    ([], [], 0.0, 0.0, 0.0),
    # k = 20, identical
    (list(range(20)), list(range(20)), 1.0, 1.0, 1.0),
    # k = 20, reversed: same set, SERP ignores n's order, PRAG sees every pair inverted
    (list(range(19, -1, -1)), list(range(20)), 1.0, 1.0, 0.0),
    # k = 20, first 10 shared in order then 10 new: IOU 10 / 30; SERP Σ(20..11) = 155 / 210;
    # PRAG C(10,2) = 45 shared pairs + 10·10 shared-before-new pairs = 145 / 190
    (list(range(10)) + list(range(100, 110)), list(range(20)), 1 / 3, 155 / 210, 145 / 190),
]


@pytest.mark.parametrize(("a", "n", "want_iou", "want_serp", "want_prag"), GOLDEN)
def test_golden(a, n, want_iou, want_serp, want_prag) -> None:
    assert iou(a, n) == pytest.approx(want_iou)
    assert serp(a, n) == pytest.approx(want_serp)
    assert prag(a, n) == pytest.approx(want_prag)


def test_paper_prag_normalizer_would_cap_identical_lists() -> None:
    """Why we do not use the printed k(k+1): identical lists of 20 would score 190/420 ≈ 0.45."""
    k = 20
    agreeing_pairs = k * (k - 1) / 2
    assert agreeing_pairs / (k * (k + 1)) == pytest.approx((k - 1) / (2 * (k + 1)))
    assert prag(list(range(k)), list(range(k))) == 1.0


def test_repeated_ids_count_once() -> None:
    assert serp([1, 1, 2], [1, 2]) == 1.0
    assert prag([1, 1, 2], [1, 2]) == 1.0


ids = st.lists(st.integers(0, 40), max_size=25, unique=True)


@given(ids, ids)
def test_bounds(a, n) -> None:
    for sim in SIMILARITIES.values():
        assert 0.0 <= sim(a, n) <= 1.0 + 1e-12


@given(st.lists(st.integers(0, 40), min_size=1, max_size=25, unique=True))
def test_identical_is_zero_divergence(a) -> None:
    for sim in SIMILARITIES.values():
        assert 1.0 - sim(a, list(a)) == pytest.approx(0.0)


@given(ids, ids)
def test_disjoint_is_full_divergence(a, n) -> None:
    n = [x + 100 for x in n]
    for sim in SIMILARITIES.values():
        assert sim(a, n) == 0.0


@given(ids, ids)
def test_iou_symmetric(a, n) -> None:
    assert iou(a, n) == iou(n, a)


@given(ids, ids, st.randoms(use_true_random=False))
def test_invariant_under_renaming(a, n, rnd) -> None:
    universe = sorted(set(a) | set(n))
    renamed = dict(zip(universe, rnd.sample(range(1000, 2000), len(universe))))
    ra, rn = [f"item-{renamed[x]}" for x in a], [f"item-{renamed[x]}" for x in n]
    for sim in SIMILARITIES.values():
        assert sim(ra, rn) == pytest.approx(sim(a, n))


# RBO at p = 0.9, by hand: (1 − p) / (1 − p^m) · Σ_d p^(d−1) |a[:d] ∩ n[:d]| / d
RBO_GOLDEN = [
    # reversed, m = 3: A = (0, 1/2, 1): (0.9 · 0.5 + 0.81) · 0.1 / 0.271
    ([1, 2, 3], [3, 2, 1], 0.126 / 0.271),
    # swapped pair, m = 2: A = (0, 1): 0.9 · 0.1 / 0.19
    ([1, 2], [2, 1], 0.09 / 0.19),
    # two middle items swapped, m = 4: A = (1, 1/2, 1, 1): 2.989 · 0.1 / 0.3439
    ([1, 2, 3, 4], [1, 3, 2, 4], 0.2989 / 0.3439),
    # unequal lengths, m = 3: A = (1, 1/2, 1/3): (1 + 0.45 + 0.27) · 0.1 / 0.271
    ([1, 2, 3], [1], 0.172 / 0.271),
    ([1], [1, 2, 3], 0.172 / 0.271),
    # a shared item at depth 1 weighs more than one at depth 3 (top-weighted)
    ([1, 8, 9], [1, 5, 6], (1 + 0.45 + 0.27) * 0.1 / 0.271),
    ([8, 9, 1], [5, 6, 1], 0.27 * 0.1 / 0.271),
    ([7], [7], 1.0),
    ([7], [8], 0.0),
    ([], [1], 0.0),
]


@pytest.mark.parametrize(("a", "n", "want"), RBO_GOLDEN)
def test_rbo_golden(a, n, want) -> None:
    assert PERSISTENCE == 0.9
    assert rbo(a, n) == pytest.approx(want)


def test_rbo_persistence_is_checked_and_sets_the_top_weight() -> None:
    with pytest.raises(ValueError, match="persistence"):
        rbo([1], [1], p=1.0)
    # p → 0: only the first rank counts
    assert rbo([1, 2, 3], [1, 5, 6], p=1e-9) == pytest.approx(1.0)
    assert rbo([2, 1, 3], [1, 2, 3], p=1e-9) == pytest.approx(0.0, abs=1e-6)


@given(ids, ids)
def test_rbo_symmetric(a, n) -> None:
    assert rbo(a, n) == pytest.approx(rbo(n, a))


def test_the_registry_orders_and_names_the_similarities() -> None:
    from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY, SIMILARITY_NAMES, similarity

    assert SIMILARITY_NAMES == ("iou", "serp", "prag", "rbo")
    assert HEADLINE_SIMILARITY in SIMILARITY_NAMES
    assert similarity("rbo").label == "RBO"
    with pytest.raises(KeyError, match="registered: iou, serp, prag, rbo"):
        similarity("ndcg")
