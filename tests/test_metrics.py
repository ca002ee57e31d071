"""Golden cases (hand-computed) and properties of IOU, SERP and PRAG."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coldbias_tasks.core.similarities.lists import (
    SIMILARITIES,
    iou,
    prag,
    serp,
)

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
