"""Deterministic answers (same-prompt replicates identical to the neutral answer) are refused:
excess, tests and verdicts withheld in lm-eval's metrics, the report and the leaderboard."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from coldbias_tasks.core.measures.determinism import DETERMINISTIC_MESSAGE, replicates_identical
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.vocabulary import is_replicate_id
from tests.synthetic import FixedSeedRecommender, run_synthetic


def rec(persona: str, repeat: int, items: list[int]) -> AnswerRecord:
    return AnswerRecord(persona, repeat, tuple(items), k=2)


def fixed_seed_task(repeats: int = 6) -> list[AnswerRecord]:
    """What a server with one request seed answers: replicates = the neutral answer."""
    out = []
    for r in range(repeats):
        out += [rec("neutral", r, [1, 2]), rec("neutral.replicate", r, [1, 2])]
        out += [rec("g.a", r, [1, 3 + r]), rec("g.b", r, [4, 5])]
    return out


def test_replicates_identical_to_the_neutral_answer_are_detected() -> None:
    assert replicates_identical(fixed_seed_task())
    sampled = fixed_seed_task()
    sampled[1] = rec("neutral.replicate", 0, [2, 7])
    assert not replicates_identical(sampled)
    assert not replicates_identical(fixed_seed_task(repeats=5))  # 5 identical pairs: chance
    no_replicates = [r for r in fixed_seed_task() if not is_replicate_id(r.persona_id)]
    assert not replicates_identical(no_replicates)
    copier = [rec(r.persona_id, r.repeat, [1, 2]) for r in fixed_seed_task()]
    assert not replicates_identical(copier)  # all identical: excess 0, fidelity rules speak


def test_summary_withholds_excess_tests_and_verdicts() -> None:
    from coldbias_tasks.analysis.report import value_verdict

    summary = summarize_answers(fixed_seed_task())
    assert summary.deterministic
    iou = summary.metrics["iou"]
    assert iou.mean > 0.5  # the raw divergence stays (paper-comparable)
    assert iou.noise_floor.mean == 0.0
    for figure in (iou.excess, iou.group_p, iou.flagged_share):
        assert math.isnan(figure)
    for v in iou.values:
        assert math.isnan(v.excess_over_floor) and math.isnan(v.p_adjusted) and not v.flagged
        assert value_verdict(iou, v.p_adjusted, v.flagged).startswith("withheld")
    assert iou.withheld == DETERMINISTIC_MESSAGE
    # the headline's unit is the sentence, not the sample: deterministic answers keep it (one
    # phrasing per value here, so it is NaN for that reason, not withheld)
    assert iou.disparity.n_phrasings == 1 and math.isnan(iou.disparity.value)
    assert not summarize_answers(fixed_seed_task(repeats=5)).deterministic


@pytest.fixture(scope="module")
def fixed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("fixed") / "run"
    meta = {"coldbias_n_items": 30, "coldbias_k": 5, "coldbias_repeats": 3,
            "coldbias_replicates": 2}  # fmt: skip
    results = run_synthetic(FixedSeedRecommender(seed=1), ["coldbias_movie_gender"], meta, out)
    return out, results


def test_lm_eval_metrics_withhold_the_excess(fixed_run) -> None:
    _, results = fixed_run
    values = results["results"]["coldbias_movie_gender"]
    assert values["iou_divergence,ranked"] > 0
    for metric in ("iou_excess", "prag_flagged_share"):
        assert math.isnan(values[f"{metric},ranked"]), metric
    assert values["serp_group_p,ranked"] == "N/A"  # a missing p-value, as lm-eval writes it
    assert values["iou_excess_verdict,ranked"] == "withheld"


def test_report_and_leaderboard_say_deterministic(fixed_run, tmp_path: Path) -> None:
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.app.commands import build_report, write_leaderboard

    out, _ = fixed_run
    result = build_report(out, tmp_path / "report")
    warnings = [line for line in result.summary if DETERMINISTIC_MESSAGE in line]
    assert len(warnings) == 1 and "WARNING" in warnings[0]
    values = pd.read_csv(tmp_path / "report" / "values.csv")
    assert values["verdict"].str.startswith("withheld").all()
    assert values["excess_over_floor"].isna().all()
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "deterministic answers" in html
    lb = build_leaderboard([out], resamples=50)
    (row,) = lb.rows
    assert row.cells["deterministic"].value == "DETERMINISTIC: coldbias_movie_gender"
    assert math.isnan(row.cells["overall_iou_excess"].value)
    write_leaderboard(lb, tmp_path / "lb")
    assert "DETERMINISTIC" in (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
