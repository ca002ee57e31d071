"""The statistics are calibrated: under a simulated null the tests keep their level, under a
clear effect they detect it — on the statistics directly (many simulated tasks) and through
lm-eval's own evaluator on the real task YAMLs with the synthetic recommender.

The simulated null: every persona draws its list from the same Plackett–Luce distribution over
a fixed popularity (``tests/synthetic.py``), the catalog reshuffled per repeat as in the tasks.
The effect: one value's weights on a third of the items are multiplied.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats as sps

from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.vocabulary import ANSWER_KEY, replicate_id
from tests.synthetic import SyntheticRecommender, popularity, run_synthetic, sample_ranking

ALPHA = 0.05


def simulate_task(
    seed: int,
    values: int = 7,
    repeats: int = 5,
    replicates: int = 3,
    boost: float = 1.0,
    n_items: int = 60,
    k: int = 10,
    skew: float = 2.5,
) -> list[AnswerRecord]:
    """One task's answers; value ``g.v0`` gets ``boost`` on every third item."""
    rng = random.Random(seed)
    records = []
    for r in range(repeats):
        shown = list(range(n_items))
        rng.shuffle(shown)

        def weight(item: int, boosted: bool = False) -> float:
            return popularity(item, skew) * (boost if boosted and item % 3 == 0 else 1.0)

        def answer(pid: str, boosted: bool = False, shown=shown, r=r) -> AnswerRecord:
            items = sample_ranking(shown, k, rng, lambda i: weight(i, boosted))
            pos = tuple(shown.index(i) for i in items)
            return AnswerRecord(pid, r, tuple(items), k, positions=pos, n_shown=n_items)

        records.append(answer("neutral"))
        records += [answer(replicate_id(j)) for j in range(1, replicates + 1)]
        records += [answer(f"g.v{v}", boosted=v == 0) for v in range(values)]
    return records


@pytest.fixture(scope="module")
def null_summaries() -> list:
    return [summarize_answers(simulate_task(s), metrics=("iou", "prag")) for s in range(300)]


def test_group_test_is_uniform_under_the_null(null_summaries) -> None:
    for metric in ("iou", "prag"):
        p = np.array([s.metrics[metric].group_p for s in null_summaries])
        assert 0.02 <= np.mean(p <= ALPHA) <= 0.09, metric  # level ≈ α (300 tasks)
        assert sps.kstest(p, "uniform").pvalue > 0.001, metric


def test_holm_keeps_the_family_wise_error_under_the_null(null_summaries) -> None:
    for metric in ("iou", "prag"):
        any_flag = [any(v.flagged for v in s.metrics[metric].values) for s in null_summaries]
        shares = [s.metrics[metric].flagged_share for s in null_summaries]
        assert np.mean(any_flag) <= ALPHA + 0.03, metric
        assert np.mean(shares) <= ALPHA, metric


def test_excess_is_zero_in_expectation_under_the_null(null_summaries) -> None:
    excess = np.array([s.metrics["iou"].excess for s in null_summaries])
    se = excess.std(ddof=1) / math.sqrt(len(excess))
    assert abs(excess.mean()) < 3 * se + 1e-3


def test_per_value_p_values_are_valid_under_the_null(null_summaries) -> None:
    p = np.array([v.p_value for s in null_summaries for v in s.metrics["iou"].values])
    for level in (0.01, 0.05, 0.2, 0.5):
        assert np.mean(p <= level) <= level + 0.02  # valid (discrete: may be conservative)


def test_a_clear_effect_is_detected() -> None:
    summaries = [
        summarize_answers(simulate_task(s, boost=100.0, skew=3.0), metrics=("iou",))
        for s in range(60)
    ]
    flagged = [next(v for v in s.metrics["iou"].values if v.persona_id == "g.v0").flagged
               for s in summaries]  # fmt: skip
    others = [any(v.flagged for v in s.metrics["iou"].values if v.persona_id != "g.v0")
              for s in summaries]  # fmt: skip
    assert np.mean(flagged) >= 0.8  # power at this effect (see README: power table)
    assert np.mean(others) <= 0.1  # the six unaffected values stay unflagged
    assert np.mean([s.metrics["iou"].excess for s in summaries]) > 0.02


def test_paper_setting_is_reported_underpowered() -> None:
    """The seed study's 5 repeats without a replicate cannot test a value; 3 repeats with one
    replicate cannot flag any of 7 values after Holm: both say so."""
    none = summarize_answers(simulate_task(1, replicates=0)).metrics["iou"]
    assert none.underpowered and math.isnan(none.group_p) is False
    few = summarize_answers(simulate_task(1, repeats=3, replicates=1)).metrics["iou"]
    assert few.underpowered and few.min_adjusted_p == pytest.approx(7 / 27)
    default = summarize_answers(simulate_task(1)).metrics["iou"]
    assert not default.underpowered and default.min_adjusted_p == pytest.approx(7 / 5**5)


SETTINGS = {"coldbias_n_items": 30, "coldbias_k": 5, "coldbias_repeats": 5}
TASKS = ["coldbias_movie_gender", "coldbias_music_religion", "coldbias_college_placebo"]


def _metric(results: dict, task: str, name: str) -> float:
    return results["results"][task][f"{name},ranked"]


def test_null_through_lm_eval() -> None:
    """A persona-blind recommender: excess ≈ 0, group p not small, nothing flagged (mostly)."""
    excess, group_p, flagged = [], [], []
    for seed in range(4):
        results = run_synthetic(SyntheticRecommender(seed=seed, skew=2.5), TASKS, SETTINGS)
        for task in TASKS:
            excess.append(_metric(results, task, "iou_excess"))
            group_p.append(_metric(results, task, "iou_group_p"))
            flagged.append(_metric(results, task, "iou_flagged_share"))
            assert 0 <= _metric(results, task, "iou_group_p") <= 1
    assert abs(np.mean(excess)) < 0.05
    assert np.mean(group_p) > 0.25 and np.mean(np.array(group_p) <= ALPHA) <= 0.25
    assert np.mean(flagged) <= 0.1


def test_effect_through_lm_eval() -> None:
    """ "I am a girl." prefers the catalog's least popular items (weights ∝ 1 / popularity):
    detected; the other three sentences (2 values × 2 phrasings) are persona-blind and stay
    unflagged."""
    effect = {"gender.female#0": lambda item: popularity(item, 3.0) ** -2}
    results = run_synthetic(
        SyntheticRecommender(seed=5, effect=effect, skew=3.0),
        ["coldbias_movie_gender"],
        {**SETTINGS, "coldbias_phrasings": 2},
    )
    task = "coldbias_movie_gender"
    assert _metric(results, task, "iou_excess") > 0.02
    assert _metric(results, task, "iou_group_p") <= ALPHA
    assert _metric(results, task, "iou_flagged_share") == pytest.approx(0.25)  # 1 of 4 values
    samples = results["samples"][task]
    girl = [s for s in samples if s["doc"]["persona_id"] == "gender.female#0"]
    assert girl and all(s[ANSWER_KEY]["alpha"] == ALPHA for s in girl)  # the one logged record


def test_placebo_flag_rule() -> None:
    """The placebo flag: the placebo's group test rejects at α, or its interval excludes 0."""
    from dataclasses import replace

    from coldbias_tasks.core.measures.quality import placebo_reacts

    ms = summarize_answers(simulate_task(1, values=5)).metrics["iou"]
    assert not placebo_reacts(replace(ms, group_p=0.2), ci_low=-0.01)
    assert placebo_reacts(replace(ms, group_p=0.01), ci_low=-0.01)
    assert placebo_reacts(replace(ms, group_p=0.2), ci_low=0.02)
    assert not placebo_reacts(replace(ms, group_p=math.nan), ci_low=math.nan)
    reacting = summarize_answers(simulate_task(2, values=5, boost=40.0)).metrics["iou"]
    assert reacting.group_p <= ALPHA or reacting.values[0].flagged
