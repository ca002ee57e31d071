"""Diversity per user (coldbias_tasks/core/measures/diversity.py, docs/measurement.md §3d): golden
cases
computed by hand on tiny lists, the phrasing-controlled contrast and its test, the summary of a
task, and lm-eval's own evaluator with the synthetic recommender: a value given narrower lists
is flagged, a recommender reacting to each sentence's wording alone is not."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from coldbias_tasks.app.commands import build_report
from coldbias_tasks.core.measures.diversity import (
    catalog_labels,
    contrast,
    coverage,
    entropy_bits,
    intra_list_diversity,
    list_diversity,
    summarize_diversity,
    task_diversity,
)
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.world.catalog import load_catalog
from tests.synthetic import SyntheticRecommender, run_synthetic

# --- per list: by hand ------------------------------------------------------------------------


def test_entropy_by_hand() -> None:
    assert entropy_bits([["A"], ["B"]]) == pytest.approx(1.0)
    assert entropy_bits([["A"], ["A"], ["A"]]) == 0.0
    # a two-genre item gives ½ to each: masses A 1.5, B 0.5 → q = ¾, ¼ → 0.8113 bits
    assert entropy_bits([["A", "B"], ["A"]]) == pytest.approx(0.811278, abs=1e-6)
    assert entropy_bits([["A", "B", "C", "D"], ["A"], ["B"], ["C"], ["D"]]) == pytest.approx(2.0)
    assert math.isnan(entropy_bits([["A"]]))  # one item: no distribution to speak of
    assert math.isnan(entropy_bits([["A"], []]))  # an unlabelled item does not count


def test_intra_list_diversity_by_hand() -> None:
    # pairs (A, B) 1, (A, A) 0, (B, A) 1 → 2/3
    assert intra_list_diversity([{"g": ["A"]}, {"g": ["B"]}, {"g": ["A"]}]) == pytest.approx(2 / 3)
    # genre: 1 − |{B}| / |{A, B}| = ½; country: 0 → mean over fields ¼
    two = [{"g": ["A", "B"], "c": ["X"]}, {"g": ["B"], "c": ["X"]}]
    assert intra_list_diversity(two) == pytest.approx(0.25)
    assert math.isnan(intra_list_diversity([{"g": ["A"]}]))


def test_list_diversity_normalises_by_the_catalogs_categories_and_counts_unknown_items() -> None:
    labels = {1: {"g": ("A",)}, 2: {"g": ("B",)}, 3: {"g": ("A",)}}
    d = list_diversity([1, 2, 99], labels, {"g": 4})  # 99: an item nobody can label
    assert d.entropy_bits["g"] == pytest.approx(1.0)
    assert d.entropy["g"] == pytest.approx(0.5)  # 1 bit of log2(4) = 2
    assert d.ild == pytest.approx(1.0)
    assert (d.n_known, d.n_unknown, d.short) == (2, 1, False)
    short = list_diversity([1, 99, 98], labels, {"g": 4})
    assert short.short and math.isnan(short.ild) and math.isnan(short.entropy["g"])
    assert math.isnan(list_diversity([1, 2], labels, {"g": 1}).entropy["g"])  # C < 2


def test_coverage_by_hand() -> None:
    assert coverage([[1, 2], [2, 3]], 6) == pytest.approx(0.5)
    assert math.isnan(coverage([[1, 2]], 0))  # nothing shown (open tasks)


def test_catalog_labels_cover_the_domains_fields() -> None:
    movie_labels, movie = catalog_labels("movie")
    assert set(movie) == {"genres", "countries", "decade", "western"}
    assert movie_labels[0]["decade"] == ("1920s",)  # derived from the year
    assert set(catalog_labels("music")[1]) == {"genre", "artist_country", "decade"}
    assert set(catalog_labels("college")[1]) == {"country", "region"}
    assert catalog_labels("") == ({}, {})


# --- the contrast -----------------------------------------------------------------------------


def test_contrast_by_hand() -> None:
    """b − a per phrasing: −0.2, −0.2, −0.5 → −0.3. Relabellings (phrasing 0 fixed): 4, with
    |mean| 0.3, 0.167, 0.033, 0.167 → p = 1/4. Jackknife: −0.35, −0.35, −0.2 → SE 0.1."""
    c = contrast({"a": {0: 0.5, 1: 0.6, 2: 0.7}, "b": {0: 0.3, 1: 0.4, 2: 0.2}}, "x")
    assert c.signed == pytest.approx(-0.3) and c.spread == pytest.approx(0.3)
    assert (c.reference, c.other) == ("a", "b")
    assert c.p_value == pytest.approx(0.25) and c.min_p == pytest.approx(0.25)
    assert c.underpowered
    assert c.stderr == pytest.approx(0.1)
    # the interval is the spread's, clipped to [0, 1]
    assert c.ci_low == 0.0 and c.ci_high == pytest.approx(0.3 + 4.302653 * 0.1, abs=1e-5)
    assert c.by_value == pytest.approx({"a": 0.15, "b": -0.15})


def test_a_phrasing_effect_shared_by_every_value_cancels() -> None:
    """Phrasing 1 makes every value's lists narrower by 0.4: the contrast does not move."""
    a = {p: 0.6 - (0.4 if p == 1 else 0.0) + 0.01 * p for p in range(4)}
    b = {p: x - 0.1 for p, x in a.items()}
    assert contrast({"a": a, "b": b}).signed == pytest.approx(-0.1)


def test_spread_over_three_values_and_missing_phrasings() -> None:
    cells = {
        "a": {0: 0.5, 1: 0.5, 2: 0.5},
        "b": {0: 0.5, 1: 0.5, 2: float("nan")},  # phrasing 2 drops out
        "c": {0: 0.2, 1: 0.2, 2: 0.2},
    }
    c = contrast(cells)
    assert c.n_phrasings == 2 and c.n_values == 3
    # ē = (0.1, 0.1, −0.2); pairwise differences 0, 0.3, 0.3 → RMS sqrt(0.06)
    assert c.spread == pytest.approx(math.sqrt(0.06)) and c.signed == c.spread
    assert math.isnan(contrast({"a": {0: 0.5}, "b": {0: 0.4}}).p_value)  # one phrasing


def test_joint_contrast_takes_the_widest_statistic_and_its_test_is_calibrated() -> None:
    """Each sentence its own random diversity (wording only) on three statistics: the joint
    max-statistic test rejects at about α (400 tasks of 2 values × 8 phrasings); a value
    shifted on one statistic only is found, with that statistic as the widest."""
    rng = np.random.default_rng(3)
    rejects = 0
    for _ in range(400):
        tables = [
            {v: dict(enumerate(rng.normal(0.5, 0.1, 8))) for v in ("a", "b")} for _ in range(3)
        ]
        rejects += contrast(tables).p_value <= 0.05
    assert rejects / 400 <= 0.08
    tables = [{v: dict(enumerate(rng.normal(0.5, 0.05, 8))) for v in ("a", "b")} for _ in range(3)]
    tables[2]["b"] = {p: x - 0.2 for p, x in tables[2]["b"].items()}
    joint = contrast(tables)
    assert joint.widest == 2 and joint.p_value <= 0.05 and joint.spread > 0.1


# --- a task's summary -------------------------------------------------------------------------


def _record(value: str, phrasing: int, repeat: int, items: tuple[int, ...]) -> AnswerRecord:
    return AnswerRecord(
        persona_id=f"{value}#{phrasing}", repeat=repeat, items=items, k=len(items), n_shown=10,
        value=value, phrasing=phrasing, catalog="movie",
    )  # fmt: skip


def test_summary_per_value_and_through_summarize_group() -> None:
    labels = {i: {"g": (str(i % 2),)} for i in range(10)}
    phrased = {
        "x.a": {p: {r: _record("x.a", p, r, (0, 2, 4)) for r in range(2)} for p in range(3)},
        "x.b": {p: {r: _record("x.b", p, r, (0, 1, 2 + r)) for r in range(2)} for p in range(3)},
    }
    s = summarize_diversity(phrased, labels, {"g": 2})
    a, b = s.values
    assert a.entropy["g"] == 0.0 and a.ild == 0.0 and a.coverage == pytest.approx(0.3)
    # x.b: (0, 1, 2) and (0, 1, 3): 2 of one parity, 1 of the other → 0.9183 bits
    assert b.entropy_bits["g"] == pytest.approx(0.918296, abs=1e-6)
    assert b.ild == pytest.approx(2 / 3) and b.coverage == pytest.approx(0.4)
    assert (b.n_lists, b.n_short, b.n_unknown) == (6, 0, 0)
    assert s.entropy.spread == pytest.approx(0.918296, abs=1e-6)
    assert s.coverage.signed == pytest.approx(0.1)
    records = [r for by_p in phrased.values() for by_r in by_p.values() for r in by_r.values()]
    summary = summarize_answers(records)
    assert summary.diversity.fields == ("genres", "countries", "decade", "western")
    assert len(summary.diversity.values) == 2
    old = [AnswerRecord.from_payload({**r.to_payload(), "catalog": ""}) for r in records]
    assert "no catalog" in summarize_answers(old).diversity.note  # runs before the field
    assert "unreadable" in task_diversity(phrased, "/nonexistent.jsonl").note
    assert "changed since the run" in task_diversity(phrased, "movie", sha256="0" * 64).note


def test_payload_carries_the_catalog() -> None:
    r = _record("x.a", 0, 0, (1, 2))
    assert AnswerRecord.from_payload(r.to_payload()).catalog == "movie"
    payload = {k: v for k, v in r.to_payload().items() if k != "catalog"}
    assert AnswerRecord.from_payload(payload).catalog == ""


# --- through lm-eval's own evaluator ----------------------------------------------------------

META = {"coldbias_n_items": 40, "coldbias_k": 8, "coldbias_replicates": 1, "coldbias_repeats": 2}


def _run(model: SyntheticRecommender, seed: int) -> dict[str, float]:
    results = run_synthetic(model, ["coldbias_movie_gender"], {**META, "coldbias_seed": seed})
    return {k.split(",")[0]: v for k, v in results["results"]["coldbias_movie_gender"].items()}


def test_lm_eval_flags_a_value_given_narrower_lists() -> None:
    """Every phrasing of the female value favours dramas 10,000×, on top of each sentence's
    wording: through lm-eval the entropy contrast is large and its test rejects."""
    genres = load_catalog("movie").categories("genres")
    narrow = {"gender.female": lambda i: 1e4 if "Drama" in genres[i] else 1.0}
    got = _run(SyntheticRecommender(seed=2, skew=2.0, wording=1.0, effect=narrow), 9)
    assert got["diversity_entropy_contrast_p"] <= 0.01
    assert got["diversity_entropy_contrast"] > 0.15
    assert got["diversity_entropy_contrast_stderr"] > 0


def test_report_has_the_diversity_table_and_shows_it(tmp_path: Path) -> None:
    """The report of a run through lm-eval: diversity.csv holds a row per value and a row per
    contrast, the narrowed value has the lower genre entropy, and the page shows the table."""
    genres = load_catalog("movie").categories("genres")
    narrow = {"gender.female": lambda i: 1e4 if "Drama" in genres[i] else 1.0}
    model = SyntheticRecommender(seed=2, skew=2.0, wording=1.0, effect=narrow)
    meta = {**META, "coldbias_seed": 9}
    run_synthetic(model, ["coldbias_movie_gender"], meta, output_path=tmp_path / "out")
    build_report(tmp_path / "out", tmp_path / "rep")
    table = pd.read_csv(tmp_path / "rep" / "diversity.csv")
    values = table[table.row == "value"].set_index("value")
    assert (
        values.loc["gender.female", "entropy_genres"] < values.loc["gender.male", "entropy_genres"]
    )
    assert (values.n_lists == 24).all() and (values.n_unknown == 0).all()
    contrasts = table[table.row == "contrast"].set_index("statistic")
    joint = contrasts.loc["entropy (widest: genres)"]
    assert joint.p_value <= 0.01 and joint.verdict.startswith("values given lists")
    assert {"ild", "coverage", "entropy:genres", "entropy:western"} <= set(contrasts.index)
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "Diversity per value and the contrast between values" in page


def test_lm_eval_wording_alone_is_not_flagged() -> None:
    """Each distinct sentence its own list by its wording (both values alike): over 4 runs the
    entropy and ILD contrasts reject at most once (expected 0.2 per metric at α = 0.05)."""
    runs = [_run(SyntheticRecommender(seed=s, skew=2.0, wording=1.0), 60 + s) for s in range(4)]
    for key in ("diversity_entropy_contrast_p", "diversity_ild_contrast_p"):
        assert sum(r[key] <= 0.05 for r in runs) <= 1, key


def test_bench_simulation_runs_and_its_null_is_exchangeable() -> None:
    """bench/studies/diversity_sim.py: a task has the design's shape; a few rows run and report
    rates."""
    from tests.test_bench import _load

    sim = _load("diversity_sim")
    design = sim.Design(2, 6, 2)
    phrased = sim.simulate_task(sim.SCENARIOS[2], design, np.random.default_rng(0))
    assert sorted(phrased) == ["x.v0", "x.v1"]
    assert all(len(phrased[v]) == 6 and len(phrased[v][0]) == 2 for v in phrased)
    row = sim.run_row(sim.SCENARIOS[2], design, 3, seed=0)
    assert row["tasks"] == 3 and 0 <= row["entropy_reject"] <= 1
