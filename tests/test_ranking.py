"""Rank intervals, tiers and the leaderboard's order on the headline (the disparity between
values controlled for phrasing): signed, tiers from paired one-sided tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from coldbias_tasks.analysis import leaderboard
from coldbias_tasks.analysis.ranking import (
    bh_flags,
    disparity_draws,
    paired_tiers,
    rank_intervals,
    tiers,
)
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


def test_ranks_are_signed() -> None:
    """The headline is ranked signed (a clearly negative one is flagged, not clamped: a null
    model would otherwise gain +0.4 SE on average)."""
    draws = {"neg": np.full(100, -0.2), "zero": np.zeros(100), "pos": np.full(100, 0.1)}
    found = rank_intervals(draws)
    assert found["neg"] == (1, 1) and found["zero"] == (2, 2) and found["pos"] == (3, 3)
    assert rank_intervals(draws, floor=0.0)["neg"] == (1, 1)  # the old clamp, on request


def test_paired_tiers_count_models_significantly_better() -> None:
    """Tier = 1 + models significantly fairer (paired draws: shared noise cancels)."""
    rng = np.random.default_rng(1)
    shared = rng.normal(0, 0.05, 1000)  # the same resampled sentences for every model
    draws = {"a": shared, "b": shared + 0.01 + rng.normal(0, 0.001, 1000),
             "c": shared + 0.2 + rng.normal(0, 0.001, 1000)}  # fmt: skip
    est = {"a": 0.0, "b": 0.01, "c": 0.2}
    t = paired_tiers(est, draws)
    assert t == {"a": 1, "b": 2, "c": 3}  # paired: 0.01 apart is 10 SE of the difference
    unpaired = {k: v - (shared if k != "a" else 0) + rng.normal(0, 0.05, 1000)
                for k, v in draws.items()}  # fmt: skip
    assert paired_tiers(est, unpaired)["b"] == 1  # without pairing b is not separable from a


def test_disparity_draws_share_weights_and_never_pair_a_phrasing_with_itself() -> None:
    terms = np.full((2, 4, 4), 0.1)
    idx = np.arange(4)
    terms[:, idx, idx] = np.nan
    draws = disparity_draws({"m": [("movie", "gender", terms)], "n": [("movie", "gender", terms)]})
    assert np.allclose(draws["m"], 0.1) and np.allclose(draws["m"], draws["n"])


def test_tiers_merge_overlapping_intervals() -> None:
    est = {"a": 0.0, "b": 0.05, "c": 0.3, "d": -0.1}
    ci = {"a": (-0.1, 0.1), "b": (0.0, 0.1), "c": (0.2, 0.4), "d": (-0.2, 0.0)}
    t = tiers(est, ci)
    assert t["d"] == t["a"] == t["b"] == 1  # d sorts as 0, first; a and b overlap it
    assert t["c"] == 2


def test_bh_flags_counts_after_adjustment() -> None:
    assert bh_flags([0.001, 0.02, 0.5, float("nan")], 0.05) == (2, 3)
    assert bh_flags([], 0.05) == (0, 0)


META = {"coldbias_n_items": 60, "coldbias_k": 10, "coldbias_repeats": 2, "coldbias_replicates": 1}
TASKS = ["coldbias_movie_gender", "coldbias_movie_religion"]


def test_leaderboard_ranks_a_wording_model_before_a_value_reactive_one(tmp_path: Path) -> None:
    """Both models move their lists for every sentence by its wording; only one also treats
    the values differently (the female and the Muslim values get lists of their own). The
    headline puts the wording-only model first, in a better tier, with a rank interval."""

    def other(item: int) -> float:
        """Replaces the popularity by another, more concentrated one: far-off lists."""
        return popularity(item + 7919, 4.0) / popularity(item, 2.0)

    values = {"gender.female": other, "religion.muslim": other}
    reactive = SyntheticRecommender(seed=1, skew=2.0, wording=1.0)
    attribute = SyntheticRecommender(seed=2, skew=2.0, wording=1.0, effect=values)
    dirs = []
    for name, model in (("org/attribute", attribute), ("org/any-sentence", reactive)):
        out = tmp_path / name.split("/")[1]
        run_synthetic(model, TASKS, META, out, model_name=name)
        dirs.append(out)
    lb = leaderboard.build_leaderboard(dirs, resamples=200)
    assert [r.label for r in lb.rows] == ["org/any-sentence", "org/attribute"]
    first, second = lb.rows
    assert first.cells["tier"].value == 1 and second.cells["tier"].value == 2
    assert first.cells["rank"].value == "1"
    assert second.number("overall_iou_disparity") > first.number("overall_iou_disparity")
    keys = [c.key for c in lb.columns]
    assert keys[:6] == [
        "model", "overall_iou_disparity", "rank", "tier", "verdict", "disparity_flags",
    ]  # fmt: skip


def test_a_model_at_another_temperature_is_listed_not_ranked(tmp_path: Path) -> None:
    """Divergences depend on the temperature: the model whose runs used another one than most
    keeps its row and its headline but gets no rank and no tier, with a message."""
    import dataclasses

    from coldbias_tasks.analysis.run_files import load_folder

    runs = []
    for name, seed in (("org/a", 1), ("org/b", 2), ("org/hot", 3)):
        out = tmp_path / name.split("/")[1]
        run_synthetic(SyntheticRecommender(seed=seed, skew=2.0, wording=1.0), TASKS[:1], META,
                      out, model_name=name)  # fmt: skip
        for run in load_folder(out):
            hot = "temperature=1.2" if name == "org/hot" else "temperature=0.7"
            tasks = {k: dataclasses.replace(t, sampling=hot) for k, t in run.tasks.items()}
            runs.append(dataclasses.replace(run, tasks=tasks))
    models = leaderboard.pool_runs(runs)
    _, rows = leaderboard.build_rows(models, resamples=50)
    by = {r.label: r for r in rows}
    assert "rank" in by["org/a"].cells and "rank" in by["org/b"].cells
    assert "rank" not in by["org/hot"].cells and "tier" not in by["org/hot"].cells
    assert by["org/hot"].number("overall_iou_disparity") == by["org/hot"].number(
        "overall_iou_disparity"
    )  # the headline itself is shown
