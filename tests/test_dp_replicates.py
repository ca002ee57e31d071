"""bench/studies/dp_replicates.py on synthetic runs: replicates copied from the neutral answer (what
correlated data-parallel engines would give) are reported as correlated, fresh ones are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.synthetic import FixedSeedRecommender, SyntheticRecommender, run_synthetic
from tests.test_bench import _load

dp_replicates = _load("dp_replicates")
TASKS = ["coldbias_movie_gender"]
META = {"coldbias_n_items": 30, "coldbias_k": 5, "coldbias_repeats": 4, "coldbias_replicates": 3}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("dp")
    models = {"single": SyntheticRecommender(seed=1), "fresh": SyntheticRecommender(seed=2),
              "copied": FixedSeedRecommender(seed=1)}  # fmt: skip
    for name, model in models.items():
        run_synthetic(model, TASKS, META, root / name)
    return {name: root / name for name in models}


def test_copied_replicates_are_correlated_fresh_ones_are_not(runs, capsys) -> None:
    (copied,) = dp_replicates.compare(runs["single"], runs["copied"])
    assert copied.identical_multi == (12, 12) and copied.identical_single[0] < 12
    assert copied.correlated and copied.p_more_identical < 0.05
    (fresh,) = dp_replicates.compare(runs["single"], runs["fresh"])
    assert not fresh.correlated
    assert dp_replicates.main(["--compare", str(runs["single"]), str(runs["copied"])]) == 1
    assert "correlated" in capsys.readouterr().out
    assert dp_replicates.main(["--compare", str(runs["single"]), str(runs["fresh"])]) == 0
