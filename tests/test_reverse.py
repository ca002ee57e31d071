"""The reverse task (rank a group's users for one item): statistics, documents, lm-eval runs
with a synthetic recommender (null, position bias, effect), report and leaderboard columns."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from coldbias_tasks.analysis import leaderboard
from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.app import commands
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.measures.reverse import summarize_reverse
from coldbias_tasks.core.parsing.answers import reverse_record_from_answer
from coldbias_tasks.core.prompting.documents import build_reverse_docs
from coldbias_tasks.core.records import ReverseDoc, UserRankRecord
from coldbias_tasks.core.vocabulary import ALPHA, ANSWER_KEY
from coldbias_tasks.core.world.personas import load_personas
from tests.synthetic import SyntheticRecommender, run_synthetic

USERS = ("gender.boy", "gender.girl", "gender.man", "gender.woman")


def rec(order: tuple[int, ...], candidates: tuple[str, ...] = USERS, item: int = 0, r: int = 0):
    return UserRankRecord(item_id=item, repeat=r, candidates=candidates, order=order)


# --- golden cases ----------------------------------------------------------------------------


def test_ranks_give_left_out_users_the_mid_rank() -> None:
    ranks = rec((2, 0)).ranks()
    assert ranks == {"gender.man": 1.0, "gender.boy": 2.0, "gender.girl": 3.5, "gender.woman": 3.5}
    assert not rec((2, 0)).complete and rec((3, 2, 1, 0)).complete


def test_golden_summary_by_hand() -> None:
    """Two answers over the same three users, hand-computed figures."""
    users = ("a", "b", "c")
    records = [rec((0, 1, 2), users, item=0), rec((1, 0, 2), ("c", "a", "b"), item=1)]
    # answer 1: a=1, b=2, c=3; answer 2 (shown c, a, b; order 1,0,2 = a, c, b): a=1, c=2, b=3
    s = summarize_reverse(records, draws=2000)
    by = {v.persona_id: v for v in s.values}
    assert by["a"].mean_rank == pytest.approx(0.0)
    assert by["b"].mean_rank == pytest.approx((0.5 + 1.0) / 2)
    assert by["c"].mean_rank == pytest.approx((1.0 + 0.5) / 2)
    assert by["a"].top1_share == 1.0 and by["b"].top1_share == 0.0
    w = 1 / np.log2([2, 3, 4])
    w = w / w.sum()
    assert by["a"].exposure_share == pytest.approx(w[0])
    assert by["b"].exposure_share == pytest.approx((w[1] + w[2]) / 2)
    assert s.rank_gap == pytest.approx(0.75)
    assert s.top1_gap == pytest.approx(1.0)
    assert s.keep_order_rate == pytest.approx(0.5)  # the first answer keeps the shown order
    assert s.first_shown_rank == pytest.approx((0.0 + 0.5) / 2)  # a (rank 1), c (rank 2)
    assert s.complete_rate == 1.0 and s.n_answers == 2 and s.n_users == 3
    assert 0 < s.group_p <= 1


def test_empty_and_mismatched_answers() -> None:
    s = summarize_reverse([])
    assert math.isnan(s.rank_gap) and s.n_answers == 0
    mixed = [rec((0, 1, 2, 3)), rec((0, 1), ("x", "y"))]
    assert summarize_reverse(mixed, draws=100).n_answers == 1


# --- the randomization test under the null, under position bias, under an effect ------------


def _simulate(n: int, rng: np.random.Generator, effect: float = 0.0, keep: float = 0.0):
    """n answers over USERS shown in a random order; with probability ``keep`` the model keeps
    the shown order (pure position bias), else it ranks by noise + ``effect`` for girl."""
    out = []
    for j in range(n):
        shown = tuple(rng.permutation(USERS))
        if rng.random() < keep:
            order = tuple(range(4))
        else:
            score = rng.normal(size=4) + np.array([effect * (u == "gender.girl") for u in shown])
            order = tuple(int(i) for i in np.argsort(-score))
        out.append(rec(order, shown, item=j))
    return out


@pytest.fixture(scope="module")
def null_ps() -> list[tuple[float, float]]:
    rng = np.random.default_rng(11)
    out = []
    for t in range(300):
        s = summarize_reverse(_simulate(40, rng, keep=0.6), draws=500, seed=t)
        out.append((s.group_p, s.flagged_share))
    return out


def test_position_biased_but_user_blind_model_is_not_flagged(null_ps) -> None:
    """Keeping the shown order 60 % of the time is position bias, not user bias: the group test
    keeps its level (≈ 5 % at α = 0.05) and Holm keeps the family-wise error."""
    group = np.array([p for p, _ in null_ps])
    assert 0.02 <= np.mean(group <= 0.05) <= 0.09
    assert np.mean([f > 0 for _, f in null_ps]) <= 0.08
    assert 0.4 <= np.mean(group) <= 0.6  # roughly uniform


def test_a_user_effect_is_detected() -> None:
    rng = np.random.default_rng(3)
    hits = [summarize_reverse(_simulate(40, rng, effect=1.0), draws=500, seed=t)
            for t in range(40)]  # fmt: skip
    assert np.mean([s.group_p <= ALPHA for s in hits]) >= 0.9
    girl = [next(v for v in s.values if v.persona_id == "gender.girl") for s in hits]
    assert np.mean([v.flagged for v in girl]) >= 0.8
    assert all(v.mean_rank < 0.5 for v in girl)


# --- documents and answers -------------------------------------------------------------------


SMALL = {"coldbias_items": 6, "coldbias_repeats": 2, "coldbias_seed": 7}


def test_docs_shuffle_users_per_prompt_and_number_them() -> None:
    docs = build_reverse_docs("movie", "gender", metadata=SMALL)
    assert len(docs) == 6 * 2
    assert len({d.item_id for d in docs}) == 6
    assert len({d.candidates for d in docs}) > 1  # the shown order varies
    for d in docs:
        assert sorted(d.candidates) == sorted(p.id for p in load_personas().groups["gender"].values)
        for n, phrase in enumerate(d.phrases, start=1):
            assert f"{n}. {phrase}" in d.prompt
        assert d.item_title in d.prompt
    again = build_reverse_docs("movie", "gender", metadata=SMALL)
    assert [d.prompt for d in again] == [d.prompt for d in docs]


def test_reverse_settings_are_checked() -> None:
    with pytest.raises(SettingsError, match="coldbias_items"):
        build_reverse_docs("movie", "gender", metadata={"coldbias_items": 0})
    with pytest.raises(SettingsError, match="coldbias_itmes"):
        build_reverse_docs("movie", "gender", metadata={"coldbias_itmes": 5})


def test_answers_parse_to_records_and_never_invent_users() -> None:
    doc = build_reverse_docs("movie", "gender", metadata=SMALL)[0]
    phrases = doc.phrases
    order = tuple(reversed(range(len(phrases))))
    good = "\n".join(f"{n}. {phrases[i]}" for n, i in enumerate(order, start=1))
    r = reverse_record_from_answer(good, doc)
    assert r.order == order and r.complete
    for junk in ("", "I cannot rank people.", "1. a dragon\n2. a robot", "\x00" * 50):
        bad = reverse_record_from_answer(junk, doc)
        assert bad.order == () and not bad.complete
    payload = r.to_payload()
    assert UserRankRecord.from_payload(payload) == r
    assert ReverseDoc.from_dict(doc.to_dict()) == doc


# --- through lm-eval, the report and the leaderboard ----------------------------------------

TASKS = ["coldbias_reverse_movie_gender", "coldbias_reverse_music_placebo"]
RUN = {"coldbias_items": 15, "coldbias_repeats": 3, "coldbias_seed": 5}


def _m(results: dict, task: str, name: str) -> float:
    return results["results"][task][f"{name},ranked"]


def test_null_and_position_bias_through_lm_eval() -> None:
    for model in (SyntheticRecommender(seed=1), SyntheticRecommender(seed=2, keep_order=True)):
        results = run_synthetic(model, TASKS[:1], RUN)
        task = TASKS[0]
        assert _m(results, task, "reverse_complete_rate") == 1.0
        if model.keep_order:
            # always the shown order: maximal position bias, yet no user preference
            assert _m(results, task, "reverse_keep_order_rate") == 1.0
            assert _m(results, task, "reverse_first_position_bias") == pytest.approx(1.0)
        assert _m(results, task, "reverse_group_p") > ALPHA
        assert _m(results, task, "reverse_flagged_share") == 0.0


def test_effect_through_lm_eval() -> None:
    model = SyntheticRecommender(seed=3, user_effect={"gender.female": 0.8})
    results = run_synthetic(model, TASKS[:1], RUN)
    task = TASKS[0]
    assert _m(results, task, "reverse_group_p") <= ALPHA
    assert _m(results, task, "reverse_rank_gap") > 0.3
    assert _m(results, task, "reverse_flagged_share") > 0
    rows = [s["doc"] for s in results["samples"][task]]
    assert len(rows) == 15 * 3 and all(d["kind"] == "reverse" for d in rows)


def test_report_and_leaderboard_columns(tmp_path: Path) -> None:
    out = tmp_path / "out"
    model = SyntheticRecommender(seed=4, user_effect={"gender.female": 0.8})
    run_synthetic(model, [*TASKS, "coldbias_movie_gender"], {**RUN, "coldbias_n_items": 30,
                  "coldbias_k": 5}, output_path=out)  # fmt: skip
    (pooled,) = pool_runs(load_folder(out))
    assert set(pooled.reverse) == set(TASKS) and set(pooled.tasks) == {"coldbias_movie_gender"}
    result = commands.build_report(out, tmp_path / "rep")
    names = {p.name for p in result.files}
    assert {"reverse_values.csv", "reverse_groups.csv", "groups.csv"} <= names
    import pandas as pd

    groups = pd.read_csv(tmp_path / "rep" / "reverse_groups.csv")
    movie = groups[groups.task == "coldbias_reverse_movie_gender"].iloc[0]
    assert movie.group_p <= ALPHA and movie.rank_gap_ci_low <= movie.rank_gap
    assert movie.rank_gap <= movie.rank_gap_ci_high
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "coldbias_reverse_movie_gender" in html
    assert any("reverse" in line for line in result.summary)
    lb = leaderboard.build_leaderboard([out], resamples=100)
    keys = {c.key for c in lb.columns}
    assert {"movie_reverse_rank_gap", "group_gender_reverse_rank_gap"} <= keys
    assert "reverse_complete_rate" in keys
    (row,) = lb.rows
    assert row.cells["movie_reverse_rank_gap"].value == pytest.approx(movie.rank_gap)
    assert row.cells["reverse_complete_rate"].value == 1.0


def test_reverse_runs_are_checked_and_copies_pooled_once(tmp_path: Path) -> None:
    """The reverse loader shares the forward one's checks: a copied run counts once, a
    deleted line is refused (or reported partial), a sample without payload names its line."""
    import json
    import shutil

    from coldbias_tasks.analysis.run_data import LoadOptions
    from coldbias_tasks.core.errors import RunError

    run = tmp_path / "a"
    run_synthetic(SyntheticRecommender(seed=6), TASKS[:1], RUN, output_path=run)
    shutil.copytree(run, tmp_path / "b")
    (one,) = pool_runs(load_folder(run))
    (both,) = pool_runs(load_folder(tmp_path))
    n = len(one.reverse[TASKS[0]].records)
    assert n == 15 * 3 and len(both.reverse[TASKS[0]].records) == n

    (samples,) = run.rglob(f"samples_{TASKS[0]}_*.jsonl")
    lines = samples.read_text().splitlines()
    samples.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(RunError, match="incomplete"):
        load_folder(run)
    (partial,) = pool_runs(load_folder(run, LoadOptions(allow_partial=True)))
    assert partial.reverse[TASKS[0]].partial

    sample = json.loads(lines[0])
    sample.pop(ANSWER_KEY)  # (reverse_rank_gap holds only the answer id)
    samples.write_text(json.dumps(sample) + "\n" + "\n".join(lines[1:]) + "\n")
    with pytest.raises(RunError, match=r"line 1: no coldbias reverse payload"):
        load_folder(run)
