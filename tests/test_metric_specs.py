"""One declaration per metric (:mod:`coldbias_tasks.core.measures.registry`): golden cases of the
declarations, and a toy metric declared once and found in lm-eval's results, the report CSV,
the leaderboard, the task YAMLs and the metric tables."""

from __future__ import annotations

import math
from collections.abc import Iterator
from operator import attrgetter
from pathlib import Path

import pandas as pd
import pytest

from coldbias_tasks.core.measures.aggregate import summarize_answers
from coldbias_tasks.core.measures.declarations import sampled_fields
from coldbias_tasks.core.measures.registry import (
    MetricSpec,
    Outcome,
    declare,
    declare_test,
    declared,
    lm_metrics,
    metric_spec,
    ordered,
    withdraw,
)
from coldbias_tasks.core.stats.series import t_interval
from coldbias_tasks.core.vocabulary import FILTER_NAME, SIMILARITY_NAMES
from coldbias_tasks.lmeval import harness, taskgen
from tests.synthetic import SyntheticRecommender, run_synthetic

TOY = "toy_half_items"


def _toy_value(summary: object) -> float:
    """Half the mean number of valid items per answer: a number no other metric reports."""
    return summary.fidelity.mean_items / 2  # type: ignore[attr-defined]


@pytest.fixture
def toy() -> Iterator[MetricSpec]:
    spec = declare(
        MetricSpec(TOY, _toy_value, True, (0.0, 250.0), "toy half items",
                   "half the mean number of valid items per answer (a test's toy metric)",
                   leaderboard="tasks")
    )  # fmt: skip
    yield spec
    withdraw(TOY)


def test_a_metric_declared_once_reaches_lm_eval_the_report_and_the_leaderboard(
    toy: MetricSpec, tmp_path: Path
) -> None:
    """The one declaration above (no other edit) gives the toy metric its lm-eval aggregation
    and YAML entry, its value in lm-eval's results, a report column, a leaderboard column and
    rows in the metric tables; every number the same."""
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
    results = run_synthetic(skewed, ["coldbias_movie_gender"], metadata, run, include_path=tasks)
    value = results["results"]["coldbias_movie_gender"][f"{TOY},{FILTER_NAME}"]
    assert value == pytest.approx(2.0)  # every synthetic answer lists k = 4 shown titles

    build_report(run, tmp_path / "report")
    fidelity = pd.read_csv(tmp_path / "report" / "fidelity.csv")
    assert fidelity[TOY].tolist() == [pytest.approx(value)]
    assert list(fidelity.columns)[-1] == TOY  # declared after the layout: last

    write_leaderboard(build_leaderboard([run], resamples=50), tmp_path / "lb")
    wide = pd.read_csv(tmp_path / "lb" / "leaderboard_wide.csv")
    assert wide[f"{TOY} ↑"].tolist() == [pytest.approx(value)]
    assert "toy half items ↑" in (tmp_path / "lb" / "leaderboard.md").read_text()

    assert f"| `{TOY}` | ↑ | [0, 250] | half the mean number" in taskgen.metric_table()
    assert f"| `{TOY}` | true | false |" in taskgen.eee_directions_table()


SIGN = "toy_sign"


def _toy_sign(ms: object) -> Outcome:
    """A toy statistical test of one similarity's summary: the share of repeats in which the
    sentences' mean divergence is above the noise floor (mean excess > 0), its one-sided sign
    test against 1/2 (exact binomial) and the Clopper–Pearson 95 % interval; per repeat 1 or 0.
    NaN with no repeat (e.g. withheld answers)."""
    from scipy.stats import binomtest

    series = ms.excess_by_repeat  # type: ignore[attr-defined]
    above = {r: float(x > 0) for r, x in series.items()}
    if not above:
        return Outcome(math.nan, math.nan)
    test = binomtest(int(sum(above.values())), len(above), 0.5, alternative="greater")
    ci = test.proportion_ci(0.95, method="exact")
    return Outcome(test.statistic, test.pvalue, ci.low, ci.high, above)


@pytest.fixture
def sign_test() -> Iterator[tuple[MetricSpec, MetricSpec]]:
    specs = declare_test(
        SIGN, _toy_sign, higher_is_better=False, range=(0.0, 1.0), label="{M} toy sign share",
        description="share of repeats whose mean excess is above 0 (a test's toy statistic)",
        scope="similarity", series=True, pooling="repeats", leaderboard="tasks",
    )  # fmt: skip
    yield specs
    withdraw(SIGN)
    withdraw(f"{SIGN}_p")


def test_a_statistical_test_declared_once_reaches_lm_eval_the_report_and_the_leaderboard(
    sign_test: tuple[MetricSpec, MetricSpec], tmp_path: Path
) -> None:
    """One function (:func:`_toy_sign`) and one declaration (the fixture) give the toy test's
    estimate and p-value lm-eval keys and values, report columns with its interval and
    verdict, and a leaderboard column with its interval over repeats; the same numbers."""
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.analysis.summaries import summarize_task
    from coldbias_tasks.app.commands import build_report, write_leaderboard

    estimate, p_spec = sign_test
    assert p_spec.kind == "p" and not p_spec.averaged and estimate.interval_report_columns
    tasks = tmp_path / "tasks"
    assert taskgen.main(["--out", str(tasks)]) == 0
    template = (tasks / "_coldbias_template_yaml").read_text(encoding="utf-8")
    assert f"metric: iou_{SIGN}_p\n" in template

    run = tmp_path / "run"
    metadata = {"coldbias_n_items": 30, "coldbias_k": 4, "coldbias_repeats": 4, "coldbias_seed": 3,
                "coldbias_replicates": 1}  # fmt: skip
    skewed = SyntheticRecommender(seed=2, effect={"gender.girl": lambda i: 3.0 if i % 2 else 1.0})
    results = run_synthetic(skewed, ["coldbias_movie_gender"], metadata, run, include_path=tasks)
    found = results["results"]["coldbias_movie_gender"]
    value, p_value = found[f"iou_{SIGN},{FILTER_NAME}"], found[f"iou_{SIGN}_p,{FILTER_NAME}"]
    assert 0.0 <= value <= 1.0 and 0.0 < p_value <= 1.0

    build_report(run, tmp_path / "report")
    groups = pd.read_csv(tmp_path / "report" / "groups.csv").set_index("metric")
    assert groups.loc["iou", SIGN] == pytest.approx(value)
    assert groups.loc["iou", f"{SIGN}_p"] == pytest.approx(p_value, rel=1e-5)
    low, high = groups.loc["iou", f"{SIGN}_ci_low"], groups.loc["iou", f"{SIGN}_ci_high"]
    assert 0.0 <= low <= value <= high <= 1.0
    assert groups.loc["iou", f"{SIGN}_verdict"].startswith(("detected", "not detected"))
    assert list(groups.columns)[-1] == f"{SIGN}_p"  # declared after the layout: last

    write_leaderboard(build_leaderboard([run], resamples=50), tmp_path / "lb")
    long = pd.read_csv(tmp_path / "lb" / "leaderboard_long.csv").set_index("column")
    cell = long.loc[f"iou_{SIGN}"]
    assert float(cell["value"]) == pytest.approx(value)
    (task,) = [t for r in _runs(run) for t in r.tasks.values()]
    series = summarize_task(task).series_of("iou", estimate)  # the pooled interval's repeats
    assert len(series) == 4 and (float(cell["ci_low"]), float(cell["ci_high"])) == (
        pytest.approx(t_interval(series, bounds=(0.0, 1.0)), nan_ok=True)
    )
    assert "toy sign share ↓" in (tmp_path / "lb" / "leaderboard.md").read_text()


def _runs(folder: Path) -> list:
    from coldbias_tasks.analysis.pooling import pool_runs
    from coldbias_tasks.analysis.run_files import load_folder

    return pool_runs(load_folder(folder))


def test_a_sampled_quantity_must_be_declared_in_the_file() -> None:
    """Deterministic answers blank the fields the file lists: a quantity declared in code that
    says it depends on sampling would not be blanked, so it is refused."""
    with pytest.raises(ValueError, match=r"declared in data/metrics\.yaml"):
        declare(MetricSpec("x_share", attrgetter("mean"), False, (0, 1), "x", "", "similarity",
                           sampling=True))  # fmt: skip
    assert sampled_fields() == ("excess", "group_p", "flagged_share")


def test_a_withdrawn_metric_is_gone_everywhere(toy: MetricSpec) -> None:
    assert TOY in lm_metrics() and TOY in harness.METRICS
    withdraw(TOY)
    assert TOY not in lm_metrics() and TOY not in harness.METRICS
    with pytest.raises(AttributeError, match=f"agg_{TOY}"):
        getattr(harness, f"agg_{TOY}")
    with pytest.raises(KeyError, match="no metric"):
        metric_spec(TOY)
    declare(toy)  # the fixture withdraws it again


def test_declarations_refuse_what_cannot_be_shown() -> None:
    spec = metric_spec("excess")
    with pytest.raises(ValueError, match="declared twice"):
        declare(spec)
    with pytest.raises(ValueError, match="must start with 'reverse_'"):
        declare(MetricSpec("gap", attrgetter("rank_gap"), False, (0, 1), "gap", "", "reverse"))
    with pytest.raises(ValueError, match="pools over all answers"):
        declare(MetricSpec("x", attrgetter("mean"), False, (0, 1), "x", "", "similarity",
                           leaderboard="answers"))  # fmt: skip
    assert "gap" not in lm_metrics(reverse=True) and "iou_x" not in lm_metrics()


def test_a_spec_refuses_what_it_cannot_mean() -> None:
    """The checks live in the spec itself, so code that declares metrics meets them too."""
    with pytest.raises(ValueError, match="scope 'per_item' is not one of"):
        MetricSpec("x", attrgetter("mean"), False, (0, 1), "x", "", "per_item")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a p-value has range"):
        MetricSpec("x_p", attrgetter("group_p"), False, (0, 1), "x", "", "similarity", "p")
    with pytest.raises(ValueError, match="low < high"):
        MetricSpec("x", attrgetter("mean"), False, (1, 1), "x", "")


def test_the_metric_tables_need_their_marker_lines(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# a card without the marked table\n")
    with pytest.raises(ValueError, match="put back the two lines"):
        taskgen.card_files(tmp_path)


def test_lm_metric_keys_order_and_directions() -> None:
    """Per-similarity metrics expand to {m}_{name}; X_stderr right after X; p-values point up,
    lie in (0, 1] and are not averaged by groups; control tasks lack the headline."""
    keys = list(lm_metrics())
    for m in SIMILARITY_NAMES:
        i = keys.index(f"{m}_disparity")
        assert keys[i + 1] == f"{m}_disparity_stderr"
    for spec in declared():
        if spec.kind == "p":
            assert spec.higher_is_better and spec.range == (0.0, 1.0) and not spec.averaged
            assert spec.range_text == "(0, 1]"
    control = lm_metrics(control=True)
    assert not any("_disparity" in k for k in control)
    assert set(control) == {k for k, m in lm_metrics().items() if m.spec.controls}
    assert not any(m.averaged for k, m in lm_metrics().items() if k.endswith("_stderr"))
    assert set(lm_metrics(reverse=True)) == {s.name for s in declared("reverse")}


def test_lm_metric_computes_from_the_summary_and_says_n_a_for_no_stderr() -> None:
    """With a single repeat there is no standard error: lm-eval's "N/A", not NaN."""
    from tests.test_aggregate import rec  # a forward answer record

    records = [rec("neutral", 0, [1, 2, 3], k=3), rec("gender.girl", 0, [1, 2, 4], k=3)]
    summary = summarize_answers(records)
    metrics = lm_metrics()
    assert metrics["iou_divergence"].compute(summary) == pytest.approx(0.5)
    assert metrics["exact_k_rate"].compute(summary) == pytest.approx(1.0)
    assert metrics["iou_disparity_stderr"].compute(summary) == "N/A"
    assert math.isnan(float(metrics["iou_disparity"].compute(summary)))


def test_ordered_puts_the_layout_first_and_new_columns_last() -> None:
    assert list(ordered(("b", "a", "z"), {"a": 1, "new": 2, "b": 3})) == ["b", "a", "new"]


def test_metric_tables_are_current() -> None:
    """tasks/README.md and docs/eee.md hold the tables taskgen writes from the declarations."""
    for path, text in taskgen.card_files().items():
        current = path.read_text(encoding="utf-8")
        assert current == text, f"{path} stale: run python -m coldbias_tasks.lmeval.taskgen"
    # a row per declared metric, the header, its rule and the coldbias_answer row
    assert taskgen.metric_table().count("\n") == len(declared()) + 3


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("value: fidelity.mean_itmes", "no number of AnswersSummary"),
        ("value: fidelity", "no number of AnswersSummary"),
        ("value: fidelity.exact_k_rate\n  colour: red", "unknown keys \\['colour'\\]"),
        ("value: fidelity.exact_k_rate\n  range: [1, 0]", "low < high"),
        ("value: fidelity.exact_k_rate\n  scope: items", "scope 'items' is not one of"),
        ("value: fidelity.exact_k_rate\n  controls: 'no'", "controls must be true or false"),
        ("value: fidelity.exact_k_rate\n  kind: p\n  range: [0, 2]", "a p-value has range"),
        ("value: fidelity.exact_k_rate\n  verdict: nope", "verdict 'nope' is no rule"),
        ("value: fidelity.exact_k_rate\n  series: fidelity", "no per-repeat mapping"),
        ("value: fidelity.exact_k_rate\n  interval: [fidelity.fill_rate]", "interval must be"),
        ("value: fidelity.exact_k_rate\n  pooling: repeats", "needs its per-repeat series"),
    ],
)
def test_a_wrong_declaration_names_the_entry_and_the_problem(
    tmp_path: Path, entry: str, message: str
) -> None:
    """data/metrics.yaml is checked on import: a typo in an attribute path is an error, not a
    metric that is NaN everywhere."""
    from coldbias_tasks.core.errors import SettingsError
    from coldbias_tasks.core.measures.registry import load_declarations

    text = (
        "- name: ok_rate\n  value: fidelity.fill_rate\n  higher_is_better: true\n"
        "  range: [0, 1]\n  label: ok\n  description: fine\n"
        f"- name: bad\n  higher_is_better: true\n  label: bad\n  description: bad\n  {entry}\n"
    )
    if "range:" not in entry:
        text += "  range: [0, 1]\n"
    path = tmp_path / "metrics.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SettingsError, match=f"entry 2: .*{message}"):
        load_declarations(path)


def test_the_package_declarations_read_numbers_of_their_summaries() -> None:
    """Properties count when annotated (position_bias, first_position_bias): every path
    resolves to a number."""
    from coldbias_tasks.core.measures.registry import load_declarations

    specs = load_declarations()
    assert [s.name for s in specs] == [s.name for s in declared()]
    assert metric_spec("position_bias").value.__class__ is attrgetter


def test_a_metric_declares_its_protocol() -> None:
    """``protocol`` (data/metrics.yaml) decides which forward tasks list a metric: open-only
    rates are not in a catalog task, catalog-only position figures not in an open one; a
    wrong value is refused with the choices."""
    from coldbias_tasks.core.errors import SettingsError
    from coldbias_tasks.core.measures.registry import _spec_of

    catalog, open_ = set(harness.task_metrics()), set(harness.task_metrics(variant="open"))
    assert {"grounded_rate", "catalog_rate"} <= open_ - catalog
    assert {"position_bias", "prefix_copy_rate", "out_of_catalog_rate"} <= catalog - open_
    assert metric_spec("grounded_rate").protocol == "open"
    entry = {"name": "x", "value": "fidelity.mean_items", "higher_is_better": True,
             "range": [0, 1], "label": "x", "description": "x", "protocol": "closed"}  # fmt: skip
    with pytest.raises(SettingsError, match="protocol must be one of"):
        _spec_of(entry, "metrics.yaml entry x")
