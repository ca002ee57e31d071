"""Hand-computed aggregation cases: pairing, std, SNSR/SNSV, noise floor, excess, the
relabelling tests, Holm and BH, fidelity, positions."""

from __future__ import annotations

import math

import pytest

from coldbias_tasks.core.measures.divergence import value_divergences
from coldbias_tasks.core.measures.excess import noise_floor
from coldbias_tasks.core.measures.exposure import exposure, exposure_gap
from coldbias_tasks.core.measures.fidelity import fidelity, positions
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.stats.relabel import benjamini_hochberg, holm, min_relabel_p, relabel_p


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
    summary = summarize_answers(RECORDS).metrics["iou"]
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


def test_without_replicates_excess_uses_the_cross_repeat_floor_and_no_test() -> None:
    summary = summarize_answers(RECORDS).metrics["iou"]
    values = {v.persona_id: v for v in summary.values}
    # cross-repeat floor 2/3 in both repeats; g.a: d = [0 − 2/3, 1 − 2/3]
    assert values["g.a"].excess_over_floor == pytest.approx(-1 / 6)
    assert math.isnan(values["g.a"].p_value)  # the per-value test needs a replicate
    assert summary.underpowered and math.isnan(summary.flagged_share)


def test_value_test_by_hand() -> None:
    """One repeat: value [1, 2], neutral [3, 4], replicate [3, 5]. D(A, ·) = 1, D(N, N') = 2/3.
    Choice "A is the value": 1 − 2/3 = 1/3; "N is the value": (1 + 2/3)/2 − 1 = −1/6; same for
    N'. p = 1/3; with the same repeat twice only (A, A) reaches 2/3 of 9 labellings: 1/9."""
    one = [rec("neutral", 0, [3, 4]), rec("neutral.replicate", 0, [3, 5]), rec("g.a", 0, [1, 2])]
    summary = summarize_answers(one).metrics["iou"]
    assert summary.values[0].p_value == pytest.approx(1 / 3)
    two = [*one, *(rec(r.persona_id, 1, list(r.items)) for r in one)]
    summary = summarize_answers(two).metrics["iou"]
    assert summary.values[0].p_value == pytest.approx(1 / 9)
    assert summary.min_value_p == pytest.approx(1 / 9)
    assert summary.values[0].excess_over_floor == pytest.approx(1 / 3)  # 1 − 2/3 per repeat


def test_group_test_by_hand() -> None:
    """Values [1, 2] twice, neutrals [3, 4] twice: of the 6 ways to pick the 2 "neutral" answers,
    {neutrals} and {values} give statistic 1, the 4 mixed ones −1/2: p = 2/6."""
    records = [
        rec("neutral", 0, [3, 4]),
        rec("neutral.replicate", 0, [3, 4]),
        rec("g.a", 0, [1, 2]),
        rec("g.b", 0, [1, 2]),
    ]
    summary = summarize_answers(records).metrics["iou"]
    assert summary.group_p == pytest.approx(2 / 6)
    assert summary.min_group_p == pytest.approx(1 / 6)


def test_relabel_p_enumerates_and_samples() -> None:
    rows = [[0.3, -0.1, -0.2], [0.2, 0.0, -0.2], [0.1, 0.1, -0.2]]
    exact = relabel_p(rows)
    sums = sorted(a + b + c for a in rows[0] for b in rows[1] for c in rows[2])
    assert exact == pytest.approx(sum(s >= 0.6 - 1e-12 for s in sums) / 27)
    sampled = relabel_p(rows, max_exact=1, draws=20_000, seed=3)
    assert sampled == pytest.approx(exact, abs=0.01)
    assert relabel_p([[1.0, -1.0]] * 5) == pytest.approx(1 / 32)
    assert relabel_p([[0.0, 0.0]] * 3) == 1.0  # ties count as extreme: conservative
    assert relabel_p([[0.5, -0.5]] * 4, two_sided=True) == pytest.approx(2 / 16)
    assert math.isnan(relabel_p([])) and math.isnan(relabel_p([[1.0]]))
    assert min_relabel_p([4] * 5) == pytest.approx(1 / 1024)
    assert min_relabel_p([4] * 20, max_exact=1000, draws=999) == pytest.approx(1 / 1000)


def test_holm_and_bh_by_hand() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert benjamini_hochberg([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.04, 0.04])
    adjusted = holm([0.2, math.nan, 0.01])
    assert adjusted[0] == pytest.approx(0.2) and math.isnan(adjusted[1])
    assert adjusted[2] == pytest.approx(0.02)
    assert holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])


def test_power_statement_follows_the_settings() -> None:
    """Smallest Holm-adjusted p = values × (M + 2)^−R: 7 values, R = 3, M = 1 → 7/27 (cannot
    be flagged: underpowered); R = 5, M = 3 → 7/3125 (can)."""

    def group(repeats: int, replicates: int) -> AnswerRecord:
        out = []
        for r in range(repeats):
            out.append(rec("neutral", r, [1, 2]))
            out += [rec(f"neutral.replicate{'' if j == 1 else f'.{j}'}", r, [1, 3])
                    for j in range(1, replicates + 1)]  # fmt: skip
            out += [rec(f"g.v{v}", r, [2, 4]) for v in range(7)]
        return summarize_answers(out).metrics["iou"]

    small, default = group(3, 1), group(5, 3)
    assert small.min_adjusted_p == pytest.approx(7 / 27) and small.underpowered
    assert default.min_adjusted_p == pytest.approx(7 / 3125) and not default.underpowered


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
    summary = summarize_answers(records)
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
    summary = summarize_answers(records).metrics["iou"]
    values = {v.persona_id: v for v in summary.values}
    assert set(values) == {"g.a", "g.b"}  # the replicate is not an attribute value
    # g.a: d = [0 − 0, 1 − 2/3] → mean 1/6
    assert values["g.a"].excess_over_floor == pytest.approx(1 / 6)
