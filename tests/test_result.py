"""One computation of a task's result (coldbias_tasks/core/result.py): lm-eval's numbers and the
report's are the same object's. A synthetic run through lm-eval's own evaluator, then the
logged answers read back by the offline loader: task_result of those records gives exactly
lm-eval's value for every key of every task, and the report's CSVs hold the same numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.analysis.summaries import summarize_task
from coldbias_tasks.core.vocabulary import FILTER_NAME
from tests.synthetic import SyntheticRecommender, run_synthetic

TASKS = ["coldbias_movie_gender", "coldbias_music_placebo", "coldbias_college_open_country",
         "coldbias_reverse_movie_gender"]  # fmt: skip
METADATA = {"coldbias_n_items": 30, "coldbias_k": 4, "coldbias_repeats": 3, "coldbias_seed": 4,
            "coldbias_replicates": 1, "coldbias_phrasings": 4, "coldbias_items": 4}  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("result") / "run"
    model = SyntheticRecommender(seed=3, effect={"gender.female": lambda i: 2.0 if i % 2 else 1.0})
    return out, run_synthetic(model, TASKS, METADATA, out)


def _same(logged: object, recomputed: object) -> bool:
    if isinstance(logged, float) and isinstance(recomputed, float):
        return (math.isnan(logged) and math.isnan(recomputed)) or logged == recomputed
    return logged == recomputed


def test_the_offline_result_equals_lm_eval_for_every_key(run: tuple[Path, dict]) -> None:
    out, results = run
    (model,) = pool_runs(load_folder(out))
    tasks = {**model.tasks, **model.reverse}
    assert set(tasks) == set(TASKS)
    compared = 0
    for name, task in tasks.items():
        logged = results["results"][name]
        if name in model.tasks:
            result = summarize_task(task).result
        else:
            from coldbias_tasks.core.result import task_result

            result = task_result(task.records)
        for key, value in result.lm_numbers().items():
            assert _same(logged[f"{key},{FILTER_NAME}"], value), (name, key)
            compared += 1
    assert compared > 150


def test_the_report_holds_the_same_numbers(run: tuple[Path, dict], tmp_path: Path) -> None:
    from coldbias_tasks.app.commands import build_report

    out, results = run
    build_report(out, tmp_path / "report")
    groups = pd.read_csv(tmp_path / "report" / "groups.csv")
    row = groups[(groups["task"] == "coldbias_movie_gender") & (groups["metric"] == "rbo")].iloc[0]
    logged = results["results"]["coldbias_movie_gender"]
    assert row["disparity"] == pytest.approx(logged[f"rbo_disparity,{FILTER_NAME}"], rel=1e-5)
    assert row["disparity_verdict"].split(" (")[0] == logged[f"rbo_disparity_verdict,{FILTER_NAME}"]
    assert row["disparity_ci_low"] == pytest.approx(
        logged[f"rbo_disparity_ci_low,{FILTER_NAME}"], rel=1e-5
    )


def test_the_placebo_has_no_headline_in_either(run: tuple[Path, dict]) -> None:
    """The control group's rule is applied once, in task_result: lm-eval lists no headline
    for the placebo and the offline result has none either."""
    out, results = run
    assert "iou_disparity,ranked" not in results["results"]["coldbias_music_placebo"]
    (model,) = pool_runs(load_folder(out))
    result = summarize_task(model.tasks["coldbias_music_placebo"]).result
    assert result.control and "iou_disparity" not in result.lm_numbers()
