"""The headline: the disparity between values controlled for phrasing (core/measures/disparity.py).

Golden cases on hand-built answers; calibration under simulated nulls (each sentence its own
effect) and alternatives (a value effect) at a size fit for the test suite
(bench/studies/disparity_sim.py runs ≥ 1,000 tasks per row); and the statistic through lm-eval's
own evaluator with synthetic recommenders: one that answers every distinct sentence by its
wording alone (the headline must not flag it beyond α), one that treats female- and male-coded
sentences differently (flagged).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from coldbias_tasks.core.measures.design import arrange
from coldbias_tasks.core.measures.disparity import (
    disparity,
    disparity_from_tensor,
    divergence_tensor,
    frame_pair_terms,
    relabellings,
    weighted_disparity,
)
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.similarities import SIMILARITY_NAMES
from coldbias_tasks.core.vocabulary import sentence_id
from tests.synthetic import SyntheticRecommender, run_synthetic

K = 4


def rec(value: str, p: int, r: int, items: list[int]) -> AnswerRecord:
    return AnswerRecord(
        persona_id=sentence_id(value, p), repeat=r, items=tuple(items), k=K,
        positions=tuple(items), n_shown=60, value=value, phrasing=p,
    )  # fmt: skip


def table(lists: dict[tuple[str, int, int], list[int]]) -> dict:
    return arrange([rec(v, p, r, items) for (v, p, r), items in lists.items()]).phrased


# --- golden cases ----------------------------------------------------------------------------


def test_values_with_lists_of_their_own_score_one() -> None:
    """Each value gives one list whatever the phrasing: within-value divergence 0, between 1,
    so γ = 1; only the observed labelling (of 2^(P−1) with phrasing 0 fixed) is as extreme."""
    lists = {("g.a", p, 0): [0, 1, 2, 3] for p in range(3)} | {
        ("g.b", p, 0): [4, 5, 6, 7] for p in range(3)
    }
    d = disparity("iou", table(lists))
    assert d.value == pytest.approx(1.0)
    assert d.within == pytest.approx(0.0) and d.between == pytest.approx(1.0)
    assert d.min_p == pytest.approx(1 / 4) and d.p_value == pytest.approx(1 / 4)
    assert d.n_values == 2 and d.n_phrasings == 3 and d.n_repeats == 1
    assert d.pairs[0].value == pytest.approx(1.0)


def test_every_sentence_its_own_list_scores_zero() -> None:
    """Wording alone (every sentence a disjoint list): every pair diverges by 1 whatever the
    values, γ = 0 exactly and the test cannot reject (p = 1)."""
    lists = {(v, p, 0): [10 * (2 * p + i) + j for j in range(K)]
             for i, v in enumerate(("g.a", "g.b")) for p in range(4)}  # fmt: skip
    d = disparity("iou", table(lists))
    assert d.value == pytest.approx(0.0, abs=1e-12)
    assert d.p_value == pytest.approx(1.0)
    assert d.stderr == pytest.approx(0.0, abs=1e-12)


def test_a_phrasing_effect_shared_by_every_value_cancels() -> None:
    """Phrasing 1 gives both values the same odd list (a register effect); elsewhere the values
    share one list. Pairs of one phrasing take no part, so γ = 0: the wording is not the
    value."""
    common, odd = [0, 1, 2, 3], [7, 8, 9, 10]
    lists = {(v, p, 0): (odd if p == 1 else common) for v in ("g.a", "g.b") for p in range(3)}
    d = disparity("iou", table(lists))
    assert d.value == pytest.approx(0.0, abs=1e-12)


def test_golden_terms_by_hand() -> None:
    """Two values × two phrasings, one repeat, IOU. a0 = {0,1,2,3}, a1 = {0,1,2,4},
    b0 = {0,1,5,6}, b1 = {0,7,8,9}. G(0,1) = mean(D(a0,b1), D(b0,a1)) − mean(D(a0,a1), D(b0,b1))
    = mean(1 − 1/7, 1 − 2/6) − mean(1 − 3/5, 1 − 1/7)."""
    lists = {("g.a", 0, 0): [0, 1, 2, 3], ("g.a", 1, 0): [0, 1, 2, 4],
             ("g.b", 0, 0): [0, 1, 5, 6], ("g.b", 1, 0): [0, 7, 8, 9]}  # fmt: skip
    expected = np.mean([1 - 1 / 7, 1 - 2 / 6]) - np.mean([1 - 3 / 5, 1 - 1 / 7])
    d = disparity("iou", table(lists))
    assert d.value == pytest.approx(expected)
    assert math.isnan(d.stderr)  # the jackknife needs 3 phrasings


def test_one_phrasing_per_value_is_not_a_headline() -> None:
    """A run of task version < 4 (one sentence per value) has no phrasing contrast: NaN with
    the counts, and the summary still reads."""
    lists = {(v, 0, r): [r, r + 1, r + 2, r + 3 + i] for i, v in enumerate("ab") for r in range(3)}
    d = disparity("iou", table(lists))
    assert math.isnan(d.value) and math.isnan(d.p_value)
    assert d.n_values == 2 and d.n_phrasings == 1


def test_serp_divergence_is_symmetrized() -> None:
    """SERP is not symmetric: the tensor takes (D(a, b) + D(b, a)) / 2 for both orders."""
    answers = [[[[0, 1, 2, 3], [3, 2, 9, 8]], [[1, 0, 7, 6], [0, 5, 4, 3]]]]
    t = divergence_tensor("serp", answers)
    assert np.allclose(t, np.transpose(t, (0, 3, 4, 1, 2)))


def test_relabellings_exact_and_monte_carlo() -> None:
    perms, exact = relabellings(2, 4, seed=1)
    assert exact and perms.shape == (8, 4, 2)
    assert (perms[:, 0, :] == [0, 1]).all() and (perms[0] == [[0, 1]] * 4).all()
    perms, exact = relabellings(7, 6, seed=1)
    assert not exact and (perms[0] == np.arange(7)).all()


def test_weighted_disparity_equals_gamma_with_unit_weights() -> None:
    rng = np.random.default_rng(0)
    d = rng.random((3, 2, 5, 2, 5))
    d = (d + np.transpose(d, (0, 3, 4, 1, 2))) / 2
    res = disparity_from_tensor(d, ["a", "b"])
    assert weighted_disparity(frame_pair_terms(d)) == pytest.approx(res.value)
    # a phrasing drawn twice never pairs with itself: weights (2, 0, 1, 1, 1) are finite
    assert math.isfinite(weighted_disparity(frame_pair_terms(d), np.array([2, 0, 1, 1, 1])))


def test_summary_carries_the_headline_and_the_sentences() -> None:
    lists = {(v, p, r): [(r + p + (i * 3)) % 9 + j for j in range(K)]
             for i, v in enumerate(("gender.female", "gender.male"))
             for p in range(3) for r in range(2)}  # fmt: skip
    records = [rec(v, p, r, items) for (v, p, r), items in lists.items()]
    records += [AnswerRecord(persona_id="neutral", repeat=r, items=(0, 1, 2, 3), k=K)
                for r in range(2)]  # fmt: skip
    ms = summarize_answers(records).metrics["iou"]
    assert ms.disparity.n_phrasings == 3 and ms.disparity.n_values == 2
    assert {v.value for v in ms.values} == {"gender.female", "gender.male"}
    assert len(ms.values) == 6  # the paper-comparable statistics are per sentence


# --- calibration (small; the bench runs ≥ 1,000 tasks per row) --------------------------------


def _simulated_rates(n: int, effect: float, tau: float, seed: int = 0) -> tuple[float, float]:
    """(rejection rate, coverage of 0) of n simulated tasks (2 values × 8 phrasings × 2
    repeats): every sentence its own random popularity shift of strength ``tau`` (wording), and
    value 0's sentences a shift ``effect`` on every third item."""
    from bench.studies.disparity_sim import Design, Scenario, simulate_task

    rng = np.random.default_rng(seed)
    sc = Scenario("t", tau=tau, delta=effect, affected=1 if effect else 0)
    rejects = covers = 0
    for _ in range(n):
        res = disparity_from_tensor(simulate_task(sc, Design(2, 8, 2), rng)[0], ["a", "b"])
        rejects += res.p_value <= 0.05
        covers += res.ci_low <= 0 <= res.ci_high
    return rejects / n, covers / n


def test_wording_alone_is_calibrated() -> None:
    """Each sentence its own effect (strong wording): the test rejects at about α and the
    interval covers 0 (300 tasks: the binomial sd of a 5 % rate is 1.3 %)."""
    reject, cover = _simulated_rates(300, effect=0.0, tau=40.0)
    assert reject <= 0.08 and cover >= 0.93


def test_a_value_effect_is_detected() -> None:
    reject, _ = _simulated_rates(60, effect=4.0, tau=4.5, seed=1)
    assert reject >= 0.8


# --- through lm-eval's own evaluator ---------------------------------------------------------

META = {"coldbias_n_items": 40, "coldbias_k": 8, "coldbias_replicates": 1}


def _run(model: SyntheticRecommender, repeats: int, seed: int, **meta: int) -> dict[str, float]:
    results = run_synthetic(
        model,
        ["coldbias_movie_gender"],
        {**META, "coldbias_repeats": repeats, "coldbias_seed": seed, **meta},
    )
    return {k.split(",")[0]: v for k, v in results["results"]["coldbias_movie_gender"].items()}


def test_lm_eval_results_carry_the_headline_with_stderr() -> None:
    got = _run(SyntheticRecommender(seed=1, skew=2.0), repeats=2, seed=5)
    for m in SIMILARITY_NAMES:
        for key in (f"{m}_disparity", f"{m}_disparity_p"):
            assert isinstance(got[key], float) and math.isfinite(got[key]), key
        assert isinstance(got[f"{m}_disparity_stderr"], float), m  # not "N/A"
        assert got[f"{m}_disparity_stderr"] > 0
        assert f"{m}_attribute_excess" not in got  # version 3's headline is gone


def test_lm_eval_wording_model_is_not_flagged_beyond_alpha() -> None:
    """Every distinct sentence gets a list of its own by its wording (female- and male-coded
    sentences alike): over 12 runs through lm-eval the headline rejects in at most 2 (expected
    0.6 at α = 0.05; P(≥ 3) = 0.02), and the disparity pooled over runs is within 2.5 SE of 0 —
    while the excess over the noise floor is large (the list moves with any sentence)."""
    runs = [_run(SyntheticRecommender(seed=s, skew=2.0, wording=1.0), 2, 60 + s) for s in range(12)]
    assert sum(r["iou_disparity_p"] <= 0.05 for r in runs) <= 2
    gammas = np.array([r["iou_disparity"] for r in runs])
    se = math.sqrt(sum(r["iou_disparity_stderr"] ** 2 for r in runs)) / len(runs)
    assert abs(gammas.mean()) <= 2.5 * se
    assert np.mean([r["iou_excess"] for r in runs]) > 0.03


def test_lm_eval_detects_female_and_male_coded_sentences_treated_differently() -> None:
    """Every phrasing of the female value favours every third item 30×, on top of the wording:
    through lm-eval the headline test flags the group."""
    boost = {"gender.female": lambda i: 30.0 if i % 3 == 0 else 1.0}
    got = _run(SyntheticRecommender(seed=2, skew=2.0, wording=1.0, effect=boost), 2, 9)
    assert got["iou_disparity_p"] <= 0.05
    assert got["iou_disparity"] > 0


def test_lm_eval_position_effect_alone_is_not_flagged() -> None:
    """A model that prefers the first shown items, the same for every sentence: the values are
    exchangeable within each phrasing, so the headline test does not reject."""

    class Positional(SyntheticRecommender):
        def _answer(self, doc):
            shown = list(doc["shown_ids"])
            rank = {item: i for i, item in enumerate(shown)}
            self.effect = {doc["persona_id"]: lambda item: math.exp(-rank.get(item, 0) / 10)}
            return super()._answer(doc)

    got = _run(Positional(seed=4, skew=2.0), repeats=2, seed=11)
    assert got["iou_disparity_p"] > 0.01


class _UnmatchedPhrasings(SyntheticRecommender):
    """Lists follow the parity of (phrasing + value): female in even phrasings and male in odd
    ones favour the even items 30×, the others the odd items. Users stating the same value in
    other words then differ more than users stating different values: the disparity is
    clearly negative (a model whose phrasings are not matched across values)."""

    def _answer(self, doc: Mapping[str, Any]) -> str:
        persona = str(doc.get("persona_id", ""))
        if "shown_ids" in doc and not persona.startswith("neutral"):
            flip = (int(doc.get("phrasing", 0)) + (str(doc.get("value")) == "gender.male")) % 2
            self.effect = {persona: lambda item: 30.0 if item % 2 == flip else 1.0}
        return super()._answer(doc)


def test_unmatched_phrasings_are_flagged_on_the_leaderboard(tmp_path: Path) -> None:
    """End to end (lm-eval's evaluator → samples → leaderboard): a clearly negative overall
    disparity gets the verdict "phrasings unmatched" in lm-eval's results and on the
    leaderboard, and is shown signed, not clamped."""
    import pandas as pd

    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.app.commands import write_leaderboard

    run = tmp_path / "run"
    meta = {**META, "coldbias_repeats": 2, "coldbias_seed": 3}
    model = _UnmatchedPhrasings(seed=4, skew=2.0)
    got = run_synthetic(model, ["coldbias_movie_gender"], meta, run)["results"]
    low = got["coldbias_movie_gender"]["iou_disparity,ranked"]
    assert got["coldbias_movie_gender"]["iou_disparity_ci_high,ranked"] < 0
    assert got["coldbias_movie_gender"]["iou_disparity_verdict,ranked"] == "phrasings unmatched"
    write_leaderboard(build_leaderboard([run], resamples=50), tmp_path / "lb")
    wide = pd.read_csv(tmp_path / "lb" / "leaderboard_wide.csv")
    assert wide["overall_iou_disparity ↓"].iloc[0] == pytest.approx(low, abs=1e-6)
    assert wide["overall_iou_disparity_ci_high"].iloc[0] < 0
    assert wide["verdict"].iloc[0].startswith("phrasings unmatched")
