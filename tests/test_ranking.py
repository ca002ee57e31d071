"""Rank intervals, tiers and the leaderboard's order on the attribute excess."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from coldbias_tasks.analysis import leaderboard
from coldbias_tasks.analysis.ranking import bh_flags, rank_intervals, repeat_draws, tiers
from tests.synthetic import SyntheticRecommender, popularity, run_synthetic


def test_separated_models_get_single_ranks_and_overlapping_share() -> None:
    rng = np.random.default_rng(0)
    draws = {
        "a": rng.normal(0.00, 0.01, 1000),
        "b": rng.normal(0.30, 0.01, 1000),
        "c": rng.normal(0.31, 0.01, 1000),
    }
    found = rank_intervals(draws)
    assert found["a"] == (1, 1)
    assert found["b"] == (2, 3) and found["c"] == (2, 3)


def test_negative_values_are_no_fairer_than_zero() -> None:
    draws = {"neg": np.full(100, -0.2), "zero": np.zeros(100), "pos": np.full(100, 0.1)}
    found = rank_intervals(draws)
    assert found["neg"] == found["zero"] == (1, 1)
    assert found["pos"] == (3, 3)


def test_tiers_merge_overlapping_intervals() -> None:
    est = {"a": 0.0, "b": 0.05, "c": 0.3, "d": -0.1}
    ci = {"a": (-0.1, 0.1), "b": (0.0, 0.1), "c": (0.2, 0.4), "d": (-0.2, 0.0)}
    t = tiers(est, ci)
    assert t["d"] == t["a"] == t["b"] == 1  # d sorts as 0, first; a and b overlap it
    assert t["c"] == 2


def test_repeat_draws_are_means_of_resampled_repeats() -> None:
    draws = repeat_draws({0: 0.0, 1: 1.0}, resamples=400)
    assert set(np.unique(draws)) <= {0.0, 0.5, 1.0}
    assert 0.3 < draws.mean() < 0.7


def test_bh_flags_counts_after_adjustment() -> None:
    assert bh_flags([0.001, 0.02, 0.5, float("nan")], 0.05) == (2, 3)
    assert bh_flags([], 0.05) == (0, 0)


META = {"coldbias_n_items": 60, "coldbias_k": 10, "coldbias_repeats": 5, "coldbias_replicates": 2}
TASKS = ["coldbias_movie_gender", "coldbias_movie_religion"]


def test_leaderboard_ranks_a_sentence_reactive_model_before_an_attribute_reactive_one(
    tmp_path: Path,
) -> None:
    """Both models move their lists for every persona; only one reacts to the attribute
    beyond irrelevant sentences. The old headline (excess over the noise floor) ranks them the
    other way round or cannot tell them apart; the new one puts the sentence-reactive one
    first with a rank interval and a tier."""

    def other(item: int) -> float:
        """Replaces the popularity by another, more concentrated one: far-off lists."""
        return popularity(item + 7919, 4.0) / popularity(item, 2.0)

    values = {
        f"{g}.{v}": other
        for g, vs in {
            "gender": ("girl", "boy", "female", "male"),
            "religion": ("buddhist", "christian", "muslim"),
        }.items()
        for v in vs
    }
    reactive = SyntheticRecommender(seed=1, skew=2.0, sentence_effect=other)
    attribute = SyntheticRecommender(seed=2, skew=2.0, effect=values)
    dirs = []
    for name, model in (("org/attribute", attribute), ("org/any-sentence", reactive)):
        out = tmp_path / name.split("/")[1]
        run_synthetic(model, TASKS, META, out, model_name=name)
        dirs.append(out)
    lb = leaderboard.build_leaderboard(dirs, resamples=200)
    assert [r.label for r in lb.rows] == ["org/any-sentence", "org/attribute"]
    first, second = lb.rows
    assert first.cells["tier"].value == 1
    assert first.cells["rank"].value == "1"
    assert second.number("overall_iou_attribute_excess") > first.number(
        "overall_iou_attribute_excess"
    )
    keys = [c.key for c in lb.columns]
    assert keys[:7] == [
        "model", "degenerate", "overall_iou_attribute_excess", "rank", "tier",
        "attribute_flags", "disparity_flags",
    ]  # fmt: skip
