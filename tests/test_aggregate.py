"""Hand-computed aggregation cases: pairing, std, SNSR/SNSV, noise floor, test, fidelity."""

from __future__ import annotations

import math

import pytest

from coldbias_tasks.core.aggregate import (
    AnswerRecord,
    fidelity,
    noise_floor,
    paired_excess_test,
    positions,
    summarize_group,
    value_divergences,
)
from coldbias_tasks.core.exposure import exposure, exposure_gap


def rec(persona: str, repeat: int, items: list[int], **kw) -> AnswerRecord:
    return AnswerRecord(persona, repeat, tuple(items), k=kw.pop("k", 2), **kw)


RECORDS = [
    rec("neutral", 0, [1, 2]),
    rec("neutral", 1, [1, 3]),
    rec("g.a", 0, [1, 2]),  # IOU div 0
    rec("g.a", 1, [4, 5]),  # IOU div 1
    rec("g.b", 0, [2, 9]),  # IOU vs {1,2}: 1/3 → div 2/3
    rec("g.b", 1, [1, 3]),  # div 0
]


def test_pairs_repeat_r_with_neutral_repeat_r() -> None:
    got = value_divergences(RECORDS, "iou")
    assert got == {"g.a": {0: 0.0, 1: 1.0}, "g.b": {0: pytest.approx(2 / 3), 1: 0.0}}


def test_repeat_without_neutral_is_skipped() -> None:
    got = value_divergences([*RECORDS, rec("g.a", 2, [7, 8])], "iou")
    assert sorted(got["g.a"]) == [0, 1]


def test_group_summary_by_hand() -> None:
    summary = summarize_group(RECORDS).metrics["iou"]
    values = {v.persona_id: v for v in summary.values}
    assert values["g.a"].mean == pytest.approx(0.5)
    assert values["g.a"].std == pytest.approx(math.sqrt(0.5))  # sample std of [0, 1]
    assert values["g.b"].mean == pytest.approx(1 / 3)
    assert summary.mean == pytest.approx(5 / 12)
    # per-repeat means 1/3 and 1/2 → sample std (1/6)/√2
    assert summary.std == pytest.approx((1 / 6) / math.sqrt(2))
    assert summary.snsr == pytest.approx(1 / 6)
    assert summary.snsv == pytest.approx(1 / 12)  # population std of [1/2, 1/3]


def test_noise_floor_by_hand() -> None:
    floor = noise_floor(RECORDS, "iou")
    assert floor.mean == pytest.approx(2 / 3)  # {1,2} vs {1,3}: 1 − 1/3, both directions
    assert floor.n_pairs == 2
    assert floor.by_repeat == {0: pytest.approx(2 / 3), 1: pytest.approx(2 / 3)}


def test_noise_floor_needs_two_neutral_repeats() -> None:
    floor = noise_floor([rec("neutral", 0, [1, 2])], "iou")
    assert math.isnan(floor.mean) and floor.n_pairs == 0


def test_excess_and_p_value_by_hand() -> None:
    values = {v.persona_id: v for v in summarize_group(RECORDS).metrics["iou"].values}
    # d = [0 − 2/3, 1 − 2/3]; sign flips: sums −1/3, −1, 1, 1/3 → 3 of 4 ≥ −1/3
    assert values["g.a"].excess_over_floor == pytest.approx(-1 / 6)
    assert values["g.a"].p_value == pytest.approx(3 / 4)


def test_sign_flip_test_extremes() -> None:
    assert paired_excess_test([0.1, 0.2, 0.3, 0.2, 0.1]) == pytest.approx(1 / 32)
    assert paired_excess_test([-0.1, -0.2, -0.3, -0.2, -0.1]) == pytest.approx(1.0)
    assert math.isnan(paired_excess_test([]))
    many = paired_excess_test([0.5] * 20)  # Monte Carlo branch, fixed seed
    assert many < 0.001


def test_fidelity_rates() -> None:
    records = [
        rec("neutral", 0, [1, 2], n_entries=2),
        rec("g.a", 0, [1], n_entries=4, n_out_of_catalog=2, n_duplicates=1),
        rec("g.b", 0, [], n_entries=0),
    ]
    f = fidelity(records)
    assert f.n_answers == 3
    assert f.exact_k_rate == pytest.approx(1 / 3)
    assert f.fill_rate == pytest.approx((1 + 1 / 2 + 0) / 3)
    assert f.empty_rate == pytest.approx(1 / 3)
    assert f.out_of_catalog_rate == pytest.approx(2 / 6)
    assert f.duplicate_rate == pytest.approx(1 / 6)
    assert f.mean_items == pytest.approx(1.0)


def test_empty_pair_is_invalid_and_full_divergence() -> None:
    records = [rec("neutral", 0, [1, 2]), rec("g.a", 0, [])]
    summary = summarize_group(records)
    assert summary.invalid_pair_rate == 1.0
    assert summary.metrics["prag"].mean == 1.0


def test_positions_copying_model() -> None:
    copier = [rec("neutral", 0, [5, 6], positions=(0, 1), n_shown=11)]
    p = positions(copier)
    assert p.prefix_copy_rate == 1.0
    assert p.mean_position == pytest.approx(0.05)  # (0/10 + 1/10) / 2
    tail = positions([rec("neutral", 0, [5], positions=(10,), n_shown=11)])
    assert tail.prefix_copy_rate == 0.0 and tail.mean_position == 1.0


def test_exposure_shares_and_gap() -> None:
    genres = {1: ["Action"], 2: ["Drama"], 3: ["Action", "Drama"], 4: ["Romance"]}
    records = [
        rec("neutral", 0, [1, 2]),
        rec("neutral", 1, [1, 3]),
        rec("g.girl", 0, [4, 2]),
        rec("g.girl", 1, []),  # skipped
    ]
    shares = exposure(records, genres)
    assert shares["neutral"]["Action"] == pytest.approx((1 / 2 + 1) / 2)
    assert shares["g.girl"] == {"Action": 0.0, "Drama": 0.5, "Romance": 0.5}
    assert exposure_gap(shares)["g.girl"]["Action"] == pytest.approx(-0.75)


def test_replicate_floor_is_the_same_order_null() -> None:
    """With a neutral replicate, F_r compares two answers to the same prompt; the cross-repeat
    floor (answers to different catalog orders) is still reported."""
    records = [
        *RECORDS,
        rec("neutral.replicate", 0, [1, 2]),  # identical to neutral 0: F_0 = 0
        rec("neutral.replicate", 1, [1, 4]),  # vs {1, 3}: IOU 1/3 → F_1 = 2/3
    ]
    floor = noise_floor(records, "iou")
    assert floor.kind == "replicate"
    assert floor.by_repeat == {0: 0.0, 1: pytest.approx(2 / 3)}
    assert floor.mean == pytest.approx(1 / 3)
    assert floor.cross_repeat_mean == pytest.approx(2 / 3)
    summary = summarize_group(records).metrics["iou"]
    values = {v.persona_id: v for v in summary.values}
    assert set(values) == {"g.a", "g.b"}  # the replicate is not an attribute value
    # g.a: d = [0 − 0, 1 − 2/3] → mean 1/6
    assert values["g.a"].excess_over_floor == pytest.approx(1 / 6)
