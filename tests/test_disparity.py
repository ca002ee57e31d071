"""The attribute excess over control personas and the disparity between values.

Golden cases on hand-built answers, calibration under simulated nulls (false-positive rate)
and alternatives (power), and the same statistics through lm-eval's own evaluator with the
synthetic recommender: (a) persona-blind, (b) reacts to every sentence identically (controls
included), (c) treats "a girl" and "a female" differently from the other values, (d) with a
catalog-position effect.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np
import pytest

from coldbias_tasks.core.aggregate import summarize_group
from coldbias_tasks.core.attribute import attribute_excess, disparity
from coldbias_tasks.core.records import AnswerRecord
from tests.synthetic import SyntheticRecommender, popularity, run_synthetic, sample_ranking

SHOWN = list(range(60))
K = 10


def rec(pid: str, r: int, items: list[int]) -> AnswerRecord:
    return AnswerRecord(
        persona_id=pid, repeat=r, items=tuple(items), k=K, positions=tuple(items), n_shown=60
    )


# --- golden cases --------------------------------------------------------------------------


def test_attribute_excess_golden_case() -> None:
    """One repeat, IOU: neutral answers {0..3} twice; values equal the neutral list (s = 0)
    or disjoint (s = 1); controls half-overlapping ({0,1,8,9}: IOU 2/6, s = 2/3)."""
    n = [rec("neutral", 0, [0, 1, 2, 3]), rec("neutral.replicate", 0, [0, 1, 2, 3])]
    values = {"g.a": {0: rec("g.a", 0, [0, 1, 2, 3])}, "g.b": {0: rec("g.b", 0, [4, 5, 6, 7])}}
    controls = {0: [rec("control.x", 0, [0, 1, 8, 9]), rec("control.y", 0, [0, 1, 8, 9])]}
    a = attribute_excess("iou", {0: n}, values, controls)
    assert a.mean == pytest.approx((0 + 1) / 2 - 2 / 3)
    assert a.per_value == pytest.approx({"g.a": -2 / 3, "g.b": 1 / 3})
    assert a.n_controls == 2 and a.n_repeats == 1
    assert math.isnan(a.stderr)  # one repeat
    assert a.min_p == pytest.approx(1 / 6)  # C(4, 2) labellings


def test_attribute_excess_is_nan_without_controls() -> None:
    n = {0: [rec("neutral", 0, [0, 1])]}
    a = attribute_excess("iou", n, {"g.a": {0: rec("g.a", 0, [2, 3])}}, {})
    assert math.isnan(a.mean) and math.isnan(a.p_value) and a.n_controls == 0


def test_disparity_golden_case() -> None:
    """Two values that each repeat their own list exactly: W = 0, B = 1 → disparity 1."""
    values = {
        "g.a": {r: rec("g.a", r, [0, 1, 2]) for r in range(4)},
        "g.b": {r: rec("g.b", r, [5, 6, 7]) for r in range(4)},
    }
    d = disparity("iou", values)
    assert d.value == pytest.approx(1.0)
    assert d.within == pytest.approx(0.0) and d.between == pytest.approx(1.0)
    assert d.min_p == pytest.approx(1 / 8)  # 2^(R−1) labellings, exact
    assert d.p_value == pytest.approx(1 / 8)  # only the observed labelling is as extreme
    assert d.pairs[0].value == pytest.approx(1.0)


def test_disparity_zero_when_values_share_lists() -> None:
    """Every value gets the same list in a repeat: exchangeable exactly, disparity 0, p = 1."""
    rng = random.Random(0)
    lists = [rng.sample(SHOWN, K) for _ in range(5)]
    values = {v: {r: rec(v, r, lists[r]) for r in range(5)} for v in ("g.a", "g.b", "g.c")}
    d = disparity("iou", values)
    assert d.value == pytest.approx(0.0, abs=1e-12)
    assert d.p_value == pytest.approx(1.0)


def test_summary_keeps_controls_apart_from_values() -> None:
    records = [
        rec("neutral", 0, [0, 1]),
        rec("neutral.replicate", 0, [0, 2]),
        rec("control.placebo.blue_car", 0, [3, 4]),
        rec("gender.girl", 0, [5, 6]),
    ]
    ms = summarize_group(records).metrics["iou"]
    assert [v.persona_id for v in ms.values] == ["gender.girl"]
    assert ms.attribute.n_controls == 1


# --- calibration under simulated nulls and alternatives --------------------------------------


Weight = Callable[[int], float]


def _simulate(
    seed: int,
    value_weight: Callable[[int], Weight],
    control_weight: Weight,
    n_values: int = 4,
    repeats: int = 5,
    replicates: int = 3,
    controls: int = 2,
):
    rng = random.Random(seed)
    base: Weight = lambda i: popularity(i, 2.0)  # noqa: E731
    neutrals = {
        r: [rec("n", r, sample_ranking(SHOWN, K, rng, base)) for _ in range(replicates + 1)]
        for r in range(repeats)
    }
    values = {
        f"v{v}": {
            r: rec(f"v{v}", r, sample_ranking(SHOWN, K, rng, value_weight(v)))
            for r in range(repeats)
        }
        for v in range(n_values)
    }
    ctrl = {
        r: [rec(f"c{c}", r, sample_ranking(SHOWN, K, rng, control_weight)) for c in range(controls)]
        for r in range(repeats)
    }
    return neutrals, values, ctrl


def _shifted(i: int) -> float:
    """A model that reacts to any sentence: another popularity, the same for every sentence."""
    return popularity(i, 2.0) * popularity(i + 7919, 2.0)


def _rates(n: int, value_weight: Callable[[int], Weight], control_weight: Weight, **kw):
    attr_p, disp_p, covered = [], [], 0
    for seed in range(n):
        neutrals, values, ctrl = _simulate(seed, value_weight, control_weight, **kw)
        a = attribute_excess("iou", neutrals, values, ctrl)
        attr_p.append(a.p_value)
        disp_p.append(disparity("iou", values).p_value)
        half = 2.776 * a.stderr  # t_{0.975, 4}
        covered += a.mean - half <= 0 <= a.mean + half
    return np.mean(np.array(attr_p) <= 0.05), np.mean(np.array(disp_p) <= 0.05), covered / n


def test_null_any_sentence_model_is_calibrated() -> None:
    """(b) Every value and control samples from one shifted distribution: the attribute test
    and the disparity test reject at about α, the attribute interval covers 0 at about 95 %
    (200 simulated tasks; binomial sd of a 5 % rate ≈ 1.5 %)."""
    attr, disp, cover = _rates(300, lambda v: _shifted, _shifted)
    assert attr <= 0.08 and disp <= 0.08  # binomial sd of a 5 % rate over 300 tasks: 1.3 %
    assert cover >= 0.9


def test_null_persona_blind_model_is_calibrated() -> None:
    """(a) Nobody's sentence matters."""
    blind: Weight = lambda i: popularity(i, 2.0)  # noqa: E731
    attr, disp, cover = _rates(300, lambda v: blind, blind)
    assert attr <= 0.08 and disp <= 0.08 and cover >= 0.9


def _favoured(i: int) -> float:
    return _shifted(i) * (6.0 if i % 3 == 0 else 1.0)


def test_disparity_has_power_when_two_values_differ() -> None:
    """(c) Two of four values favour every third item 6×: the disparity test detects it in
    most tasks at R = 8 (measured 0.92 over 60 tasks)."""
    _, disp, _ = _rates(60, lambda v: _favoured if v < 2 else _shifted, _shifted, repeats=8)
    assert disp >= 0.8


def test_uniform_attribute_effect_is_an_attribute_excess_not_a_disparity() -> None:
    """Every value favours every third item, the controls do not react: the attribute test
    detects it, the disparity test does not (the values are exchangeable with each other)."""
    blind: Weight = lambda i: popularity(i, 2.0)  # noqa: E731
    favoured: Weight = lambda i: blind(i) * (20.0 if i % 3 == 0 else 1.0)  # noqa: E731
    attr, disp, cover = _rates(60, lambda v: favoured, blind, repeats=8)
    assert attr >= 0.8
    assert disp <= 0.12
    assert cover <= 0.5


# --- through lm-eval's own evaluator -------------------------------------------------------

META = {"coldbias_n_items": 60, "coldbias_k": 10, "coldbias_replicates": 2}


def _run(model: SyntheticRecommender, repeats: int, seed: int) -> dict[str, float]:
    results = run_synthetic(
        model,
        ["coldbias_movie_gender"],
        {**META, "coldbias_repeats": repeats, "coldbias_seed": seed},
    )
    return {k.split(",")[0]: v for k, v in results["results"]["coldbias_movie_gender"].items()}


def test_lm_eval_results_carry_the_attribute_metrics_with_stderr() -> None:
    got = _run(SyntheticRecommender(seed=1, skew=2.0), repeats=4, seed=5)
    for m in ("iou", "serp", "prag"):
        for key in (
            f"{m}_attribute_excess",
            f"{m}_attribute_p",
            f"{m}_disparity",
            f"{m}_disparity_p",
        ):
            assert isinstance(got[key], float) and math.isfinite(got[key]), key
        for key in (f"{m}_attribute_excess_stderr", f"{m}_disparity_stderr"):
            assert isinstance(got[key], float) and got[key] > 0, key  # not "N/A"


def test_lm_eval_any_sentence_model_has_no_attribute_excess() -> None:
    """(b) through lm-eval, 6 runs: the attribute excess pooled over runs is within 2 standard
    errors of 0 while the excess over the noise floor is clearly positive (the model reacts to
    every sentence); the disparity test rejects in at most 2 of 6 runs."""
    runs = [
        _run(
            SyntheticRecommender(
                seed=s, skew=2.0, sentence_effect=lambda i: popularity(i + 7919, 2.0)
            ),
            5,
            40 + s,
        )
        for s in range(6)
    ]
    attr = np.array([r["iou_attribute_excess"] for r in runs])
    se = math.sqrt(sum(r["iou_attribute_excess_stderr"] ** 2 for r in runs)) / len(runs)
    assert abs(attr.mean()) <= 2.5 * se
    assert np.mean([r["iou_excess"] for r in runs]) > 0.05
    assert sum(r["iou_disparity_p"] <= 0.05 for r in runs) <= 2


def test_lm_eval_detects_girl_and_female_treated_differently() -> None:
    """(c) "a girl" and "a female" get every third item 10× more often; through lm-eval the
    disparity test flags the group."""
    boost = {p: (lambda i: 10.0 if i % 3 == 0 else 1.0) for p in ("gender.girl", "gender.female")}
    got = _run(SyntheticRecommender(seed=2, skew=2.0, effect=boost), repeats=10, seed=9)
    assert got["iou_disparity_p"] <= 0.05
    assert got["iou_disparity"] > 0


def test_lm_eval_position_effect_alone_gives_no_attribute_excess() -> None:
    """(d) A model that prefers the first shown items, the same for every persona: the
    attribute test does not reject (exchangeable within a repeat's catalog order)."""

    class Positional(SyntheticRecommender):
        def _answer(self, doc):
            shown = list(doc["shown_ids"])
            rank = {item: i for i, item in enumerate(shown)}
            # every persona, the neutral user included, prefers the first items shown
            self.effect = {doc["persona_id"]: lambda item: math.exp(-rank.get(item, 0) / 10)}
            return super()._answer(doc)

    got = _run(Positional(seed=4, skew=2.0), repeats=5, seed=11)
    assert got["iou_attribute_p"] > 0.01
    assert got["iou_disparity_p"] > 0.01
