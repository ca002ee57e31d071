"""Exposure between values: golden cases, null calibration and power of the share tests."""

from __future__ import annotations

import random

import numpy as np
import pytest

from coldbias_tasks.core.measures.exposure_disparity import share_disparity
from coldbias_tasks.core.records import AnswerRecord

#: catalog id → genre: even ids are "Action", odd ids "Drama"
GENRES = {i: ["Action" if i % 2 == 0 else "Drama"] for i in range(40)}


def rec(pid: str, r: int, items: list[int]) -> AnswerRecord:
    return AnswerRecord(pid, r, tuple(items), len(items), n_shown=40)


def test_golden_case_girl_gets_no_action() -> None:
    """girl: only odd (Drama) items; boy: only even (Action) items, 4 repeats."""
    records = [rec("neutral", r, [0, 1]) for r in range(4)]
    records += [rec("gender.girl", r, [1, 3, 5]) for r in range(4)]
    records += [rec("gender.boy", r, [0, 2, 4]) for r in range(4)]
    found = {d.category: d for d in share_disparity(records, GENRES)}
    action = found["Action"]
    assert action.shares == {"gender.boy": 1.0, "gender.girl": 0.0}
    assert action.spread == 1.0 and action.n_repeats == 4
    (pair,) = action.pairs
    assert (pair.a, pair.b, pair.value) == ("gender.boy", "gender.girl", 1.0)
    assert pair.p_value == pytest.approx(2 / 16) and pair.min_p == pytest.approx(2 / 16)
    assert action.p_value == pytest.approx(1 / 8)  # repeat 0 fixed: 2^3 labellings, one extreme


def test_needs_two_values_and_two_complete_repeats() -> None:
    assert share_disparity([rec("gender.girl", 0, [1])], GENRES) == []
    one_repeat = [rec("gender.girl", 0, [1]), rec("gender.boy", 0, [2])]
    assert share_disparity(one_repeat, GENRES) == []


def _task(seed: int, boost: float, values: int = 4, repeats: int = 5) -> list[AnswerRecord]:
    rng = random.Random(seed)
    out = []
    for r in range(repeats):
        for v in range(values):
            weight = [boost if (v == 0 and i % 2 == 0) else 1.0 for i in range(40)]
            items = rng.choices(range(40), weights=weight, k=20)
            out.append(rec(f"g.v{v}", r, list(dict.fromkeys(items))[:10]))
    return out


def test_omnibus_is_calibrated_and_has_power() -> None:
    null = [next(d for d in share_disparity(_task(s, 1.0), GENRES) if d.category == "Action")
            for s in range(120)]  # fmt: skip
    fpr = np.mean([d.p_value <= 0.05 for d in null])
    assert fpr <= 0.1  # binomial sd of a 5 % rate over 120 tasks: 2 %
    alt = [next(d for d in share_disparity(_task(1000 + s, 6.0), GENRES) if d.category == "Action")
           for s in range(40)]  # fmt: skip
    assert np.mean([d.p_value <= 0.05 for d in alt]) >= 0.8


def test_jsd_floor_is_unbiased_under_the_null() -> None:
    """Every persona samples alike: a value's JSD from the neutral user exceeds the replicate
    floor about half the time (it was ≈ 72 % when the floor compared with the replicates' mean)."""
    from coldbias_tasks.core.measures.exposure import exposure_stats

    above = []
    for seed in range(150):
        rng = random.Random(seed)
        records = []
        for r in range(5):
            for pid in ("neutral", "neutral.replicate", "neutral.replicate.2", "g.a"):
                items = list(dict.fromkeys(rng.choices(range(40), k=14)))[:8]
                records.append(rec(pid, r, items))
        stats = exposure_stats(records, GENRES, list(range(40)))
        value = next(s for s in stats if s.persona_id == "g.a")
        above.append(value.jsd > value.jsd_floor)
    assert 0.38 <= np.mean(above) <= 0.62


def test_report_writes_the_between_values_exposure_table(tmp_path) -> None:
    """Through lm-eval and `coldbias report`: every phrasing of the female value gets every
    third item far more often; exposure_between.csv holds the female–male rows per field with
    their tests (phrasings as units: 4 here, smallest two-sided p 2/2^4)."""
    import pandas as pd

    from coldbias_tasks.app.commands import build_report
    from tests.synthetic import SyntheticRecommender, run_synthetic

    boost = {"gender.female": lambda i: 20.0 if i % 3 == 0 else 1.0}
    meta = {"coldbias_n_items": 60, "coldbias_k": 10, "coldbias_repeats": 2,
            "coldbias_phrasings": 4}  # fmt: skip
    out = tmp_path / "run"
    run_synthetic(SyntheticRecommender(seed=1, skew=1.0, effect=boost), ["coldbias_movie_gender"],
                  meta, out)  # fmt: skip
    build_report(out, tmp_path / "report")
    table = pd.read_csv(tmp_path / "report" / "exposure_between.csv")
    pairs = table[(table.value_a == "gender.female") & (table.value_b == "gender.male")]
    assert set(pairs.field) == {"genres", "western"}
    assert pairs.p_value.between(0, 1).all() and (pairs.min_p == 2 / 16).all()
    assert (table.category_p.between(0, 1)).all()
