"""Measures as units (coldbias_tasks/core/measures/): one registration per measure, computed
once per task by core/result.task_result, found in lm-eval's results, the report, the
leaderboard, the task YAMLs and the metric tables; the registry's refusals; the presentation
file's checks."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from coldbias_tasks.analysis import presentation
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.measures import (
    EXCESS,
    Measure,
    lm_keys,
    measure,
    measures,
    register,
    withdraw,
)
from coldbias_tasks.core.result import task_metrics, task_result
from coldbias_tasks.core.similarities import SIMILARITY_NAMES
from coldbias_tasks.core.stats.estimate import Estimate, decide
from coldbias_tasks.core.stats.series import t_interval
from coldbias_tasks.core.vocabulary import FILTER_NAME
from coldbias_tasks.lmeval import harness, taskgen
from tests.synthetic import SyntheticRecommender, run_synthetic

TOY = "toy_half_items"
CALLS: list[str] = []


def _toy(summary: Any) -> Estimate:
    """Half the mean number of valid items per answer: a number no other measure reports."""
    CALLS.append(TOY)
    return Estimate(summary.fidelity.mean_items / 2)


@pytest.fixture
def toy() -> Iterator[Measure]:
    m = register(
        Measure(
            TOY,
            _toy,
            True,
            (0.0, 250.0),
            "half the mean number of valid items per answer (a test's toy measure)",
        )
    )
    presentation.present(TOY, label="toy half items", leaderboard="tasks")  # fmt: skip
    yield m
    presentation.forget(TOY)
    withdraw(TOY)


def test_a_measure_registered_once_reaches_lm_eval_the_report_and_the_leaderboard(
    toy: Measure, tmp_path: Path
) -> None:
    """The one registration above (no other edit) gives the toy measure its lm-eval
    aggregation and YAML entry, its value in lm-eval's results, a report column, a leaderboard
    column and rows in the metric tables; every number the same."""
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.app.commands import build_report, write_leaderboard

    tasks = tmp_path / "tasks"
    assert taskgen.main(["--out", str(tasks)]) == 0
    template = (tasks / "_coldbias_template_yaml").read_text(encoding="utf-8")
    assert f"metric: {TOY}\n    aggregation: !function coldbias_tasks.lmeval.harness.agg_{TOY}\n" \
        "    higher_is_better: true" in template  # fmt: skip
    assert f"metric: {TOY}\n" in (tasks / "groups" / "coldbias_movie.yaml").read_text()

    run = tmp_path / "run"
    metadata = {"coldbias_n_items": 30, "coldbias_k": 4, "coldbias_repeats": 2, "coldbias_seed": 5}
    skewed = SyntheticRecommender(seed=2, effect={"gender.girl": lambda i: 3.0 if i % 2 else 1.0})
    CALLS.clear()
    results = run_synthetic(skewed, ["coldbias_movie_gender"], metadata, run, include_path=tasks)
    assert CALLS == [TOY]  # computed once for the task, however many keys lm-eval reads
    value = results["results"]["coldbias_movie_gender"][f"{TOY},{FILTER_NAME}"]
    assert value == pytest.approx(2.0)  # every synthetic answer lists k = 4 shown titles

    build_report(run, tmp_path / "report")
    fidelity = pd.read_csv(tmp_path / "report" / "fidelity.csv")
    assert fidelity[TOY].tolist() == [pytest.approx(value)]
    assert list(fidelity.columns)[-1] == TOY  # registered after the layout: last

    write_leaderboard(build_leaderboard([run], resamples=50), tmp_path / "lb")
    wide = pd.read_csv(tmp_path / "lb" / "leaderboard_wide.csv")
    assert wide[f"{TOY} ↑"].tolist() == [pytest.approx(value)]
    assert "toy half items ↑" in (tmp_path / "lb" / "leaderboard.md").read_text()

    assert f"| `{TOY}` | ↑ | [0, 250] | half the mean number" in taskgen.metric_table()
    assert f"| `{TOY}` | true | false |" in taskgen.eee_directions_table()


SIGN = "toy_sign"
SIGN_CALLS: list[str] = []


def _toy_sign(ms: Any) -> Estimate:
    """A toy statistical test of one similarity's summary: the share of repeats in which the
    sentences' mean divergence is above the noise floor (mean excess > 0), its one-sided sign
    test against 1/2 (exact binomial) and the Clopper–Pearson 95 % interval; per repeat 1 or
    0. NaN with no repeat."""
    from scipy.stats import binomtest

    SIGN_CALLS.append(ms.metric)
    above = {r: float(x > 0) for r, x in ms.excess_by_repeat.items()}
    if not above:
        return Estimate(alpha=ms.alpha)
    test = binomtest(int(sum(above.values())), len(above), 0.5, alternative="greater")
    ci = test.proportion_ci(0.95, method="exact")
    found = Estimate(test.statistic, ci_low=ci.low, ci_high=ci.high, p_value=test.pvalue,
                     min_p=0.5 ** len(above), alpha=ms.alpha, by_repeat=above)  # fmt: skip
    return decide(found)


@pytest.fixture
def sign_test() -> Iterator[Measure]:
    m = register(Measure(
        SIGN, _toy_sign, False, (0.0, 1.0), "share of repeats whose mean excess is above 0",
        scope="similarity", keys=("value", "p", "ci_low", "ci_high", "verdict"), series=True,
    ))  # fmt: skip
    presentation.present(SIGN, label="{M} toy sign share", leaderboard="tasks", pooling="repeats")
    yield m
    presentation.forget(SIGN)
    withdraw(SIGN)


def test_a_statistical_test_registered_once_reaches_every_reader(
    sign_test: Measure, tmp_path: Path
) -> None:
    """One function (:func:`_toy_sign`, returning the shared Estimate) and one registration
    give the toy test's value, p-value, interval and verdict lm-eval keys (computed once per
    similarity, not once per key), report columns and a leaderboard column pooled over
    repeats; the same numbers everywhere."""
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.analysis.summaries import summarize_task
    from coldbias_tasks.app.commands import build_report, write_leaderboard

    tasks = tmp_path / "tasks"
    assert taskgen.main(["--out", str(tasks)]) == 0
    template = (tasks / "_coldbias_template_yaml").read_text(encoding="utf-8")
    for part in ("_p", "_ci_low", "_ci_high", "_verdict"):
        assert f"metric: iou_{SIGN}{part}\n" in template
    assert f"metric: iou_{SIGN}_p\n" not in (tasks / "groups" / "coldbias.yaml").read_text()

    run = tmp_path / "run"
    metadata = {"coldbias_n_items": 30, "coldbias_k": 4, "coldbias_repeats": 4, "coldbias_seed": 3,
                "coldbias_replicates": 1}  # fmt: skip
    skewed = SyntheticRecommender(seed=2, effect={"gender.girl": lambda i: 3.0 if i % 2 else 1.0})
    SIGN_CALLS.clear()
    results = run_synthetic(skewed, ["coldbias_movie_gender"], metadata, run, include_path=tasks)
    assert sorted(SIGN_CALLS) == sorted(SIMILARITY_NAMES)
    found = results["results"]["coldbias_movie_gender"]
    value, p_value = found[f"iou_{SIGN},{FILTER_NAME}"], found[f"iou_{SIGN}_p,{FILTER_NAME}"]
    assert 0.0 <= value <= 1.0 and 0.0 < p_value <= 1.0
    assert found[f"iou_{SIGN}_verdict,{FILTER_NAME}"] in (
        "detected",
        "not detected",
        "underpowered",
    )

    build_report(run, tmp_path / "report")
    groups = pd.read_csv(tmp_path / "report" / "groups.csv").set_index("metric")
    assert groups.loc["iou", SIGN] == pytest.approx(value, rel=1e-5)  # 6 significant digits
    assert groups.loc["iou", f"{SIGN}_p"] == pytest.approx(p_value, rel=1e-5)
    low, high = groups.loc["iou", f"{SIGN}_ci_low"], groups.loc["iou", f"{SIGN}_ci_high"]
    assert low == pytest.approx(found[f"iou_{SIGN}_ci_low,{FILTER_NAME}"], rel=1e-5)
    assert 0.0 <= low <= value <= high <= 1.0
    assert groups.loc["iou", f"{SIGN}_verdict"].startswith(("detected", "not detected", "under"))

    write_leaderboard(build_leaderboard([run], resamples=50), tmp_path / "lb")
    long = pd.read_csv(tmp_path / "lb" / "leaderboard_long.csv").set_index("column")
    cell = long.loc[f"iou_{SIGN}"]
    assert float(cell["value"]) == pytest.approx(value)
    (task,) = [t for r in _runs(run) for t in r.tasks.values()]
    series = summarize_task(task).series_of("iou", sign_test)  # the pooled interval's repeats
    assert len(series) == 4 and (float(cell["ci_low"]), float(cell["ci_high"])) == (
        pytest.approx(t_interval(series, bounds=(0.0, 1.0)), nan_ok=True)
    )
    assert "IOU toy sign share ↓" in (tmp_path / "lb" / "leaderboard.md").read_text()


def _runs(folder: Path) -> list:
    from coldbias_tasks.analysis.pooling import pool_runs
    from coldbias_tasks.analysis.run_files import load_folder

    return pool_runs(load_folder(folder))


def test_a_withdrawn_measure_is_gone_everywhere(toy: Measure) -> None:
    assert TOY in lm_keys() and TOY in harness.METRICS
    withdraw(TOY)
    assert TOY not in lm_keys() and TOY not in harness.METRICS
    with pytest.raises(AttributeError, match=f"agg_{TOY}"):
        getattr(harness, f"agg_{TOY}")
    with pytest.raises(KeyError, match="no measure"):
        measure(TOY)
    register(toy)  # the fixture withdraws it again


def test_the_registry_refuses_what_cannot_be_shown() -> None:
    """A name or an lm-eval key registered twice, a reverse measure not named reverse_*, an
    empty range, a part that is no part: ValueError naming the measure."""
    with pytest.raises(ValueError, match="registered twice"):
        register(Measure("excess", EXCESS.estimate, False, (0, 1), "again"))
    with pytest.raises(ValueError, match="lm-eval key 'iou_group_p' is 'excess'"):
        register(Measure("group", EXCESS.estimate, False, (0, 1), "x", scope="similarity",
                         keys=("value", "p")))  # fmt: skip
    with pytest.raises(ValueError, match="lm-eval key 'coldbias_answer'"):
        register(Measure("coldbias_answer", EXCESS.estimate, False, (0, 1), "x"))
    with pytest.raises(ValueError, match="must start with 'reverse_'"):
        Measure("gap", EXCESS.estimate, False, (0, 1), "x", scope="reverse")
    with pytest.raises(ValueError, match="low < high"):
        Measure("x", EXCESS.estimate, False, (1, 1), "x")
    with pytest.raises(ValueError, match="keys must include 'value'"):
        Measure("x", EXCESS.estimate, False, (0, 1), "x", keys=("p",))
    assert "group" not in {m.name for m in measures()}


def test_lm_keys_order_and_directions() -> None:
    """Per-similarity measures expand to {m}_{name}; X_stderr right after X; only values have
    a direction and are averaged by groups; control tasks lack the headline."""
    keys = list(lm_keys())
    for m in SIMILARITY_NAMES:
        i = keys.index(f"{m}_disparity")
        assert keys[i + 1] == f"{m}_disparity_stderr"
    for lk in lm_keys().values():
        assert (lk.higher_is_better is None) == (lk.part != "value")
        assert lk.averaged == (lk.part == "value")
    control = lm_keys(control=True)
    assert not any("_disparity" in k for k in control)
    assert set(lm_keys(reverse=True)) >= {"reverse_rank_gap", "reverse_group_p"}


def test_lm_numbers_come_from_the_estimates_and_say_n_a_for_no_stderr() -> None:
    """With a single repeat there is no standard error: lm-eval's "N/A", not NaN; an undefined
    headline has the verdict n/a with its reason."""
    from tests.test_aggregate import rec  # a forward answer record

    records = [rec("neutral", 0, [1, 2, 3], k=3), rec("gender.girl", 0, [1, 2, 4], k=3)]
    result = task_result(records)
    numbers = result.lm_numbers()
    assert numbers["iou_divergence"] == pytest.approx(0.5)
    assert numbers["exact_k_rate"] == pytest.approx(1.0)
    assert numbers["iou_disparity_stderr"] == "N/A"
    assert math.isnan(float(numbers["iou_disparity"]))
    assert numbers["iou_disparity_verdict"] == "n/a"
    assert "needs two values" in result.estimate(measure("disparity"), "iou").note
    assert set(numbers) == set(task_metrics())


def test_metric_tables_are_current() -> None:
    """tasks/README.md and docs/eee.md hold the tables taskgen writes from the registry."""
    for path, text in taskgen.card_files().items():
        current = path.read_text(encoding="utf-8")
        assert current == text, f"{path} stale: run python -m coldbias_tasks.lmeval.taskgen"
    # a row per measure, the header, its rule and the coldbias_answer row
    assert taskgen.metric_table().count("\n") == len(measures()) + 3


def test_the_metric_tables_need_their_marker_lines(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# a card without the marked table\n")
    with pytest.raises(ValueError, match="put back the two lines"):
        taskgen.card_files(tmp_path)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{name: fill_rte}", "no registered measure 'fill_rte'"),
        ("{name: fill_rate, colour: red}", "unknown keys \\['colour'\\]"),
        ("{name: fill_rate, pooling: median}", "pooling must be one of"),
        ("{name: fill_rate, leaderboard: yes}", "leaderboard must be one of"),
        ("{name: fill_rate, interval: 'no'}", "interval must be true or false"),
        ("{name: fill_rate, label: [x]}", "label must be text"),
        ("[fill_rate]", "each entry must be a mapping"),
    ],
)
def test_a_wrong_presentation_entry_names_the_entry_and_the_problem(
    tmp_path: Path, entry: str, message: str
) -> None:
    path = tmp_path / "metrics.yaml"
    path.write_text(f"- {{name: exact_k_rate}}\n- {entry}\n", encoding="utf-8")
    with pytest.raises(SettingsError, match=f"entry 2: .*{message}"):
        presentation.load_presentation(path)


def test_the_package_presentation_names_registered_measures_only_once() -> None:
    entries = presentation.load_presentation()
    assert set(entries) <= {m.name for m in measures()}
    assert presentation.shown("disparity").pooling == "stderr"
    assert presentation.shown("excess").verdict_column == "group_verdict"


def test_a_measure_declares_its_protocol() -> None:
    """``protocol`` decides which forward tasks list a measure: open-only rates are not in a
    catalog task, catalog-only position figures not in an open one."""
    catalog, open_ = set(harness.task_metrics()), set(harness.task_metrics(variant="open"))
    assert {"grounded_rate", "catalog_rate"} <= open_ - catalog
    assert {"position_bias", "prefix_copy_rate", "out_of_catalog_rate"} <= catalog - open_
    assert measure("grounded_rate").protocol == "open"
    with pytest.raises(ValueError, match="protocol 'closed'"):
        Measure("x", EXCESS.estimate, False, (0, 1), "x", protocol="closed")  # type: ignore[arg-type]
