"""Coverage as part of the open measurement (core/measures/coverage.py, docs/open.md
"Coverage"): the headline on grounded keys, the grounded share tested between values, the
coverage-dependent mark; issue 41's naming-only recommender through lm-eval."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from coldbias_tasks.core import vocabulary
from coldbias_tasks.core.measures.coverage import grounded_share
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.parsing.open_answers import grounded_items, item_code
from coldbias_tasks.core.records import AnswerRecord
from tests.synthetic import run_synthetic
from tests.synthetic_open import NamingRecommender, chinese_named_pool


def _record(value: str, phrasing: int, repeat: int, keys: list[str]) -> AnswerRecord:
    persona = "neutral" if value == "neutral" else f"{value}#{phrasing}"
    return AnswerRecord(
        persona_id=persona, repeat=repeat, items=tuple(item_code(k) for k in keys), k=10,
        n_entries=len(keys), value=value, phrasing=phrasing, keys=tuple(keys),
        titles=tuple(keys),
    )  # fmt: skip


def _task(invent_for: str | None, seed: int, n_phrasings: int = 6) -> list[AnswerRecord]:
    """Two values, same catalog pool for everyone; ``invent_for``: the value whose lists are
    half invented titles (ungrounded, distinct per answer)."""
    rng = random.Random(seed)
    out = []
    for r in range(3):
        for value in ("neutral", "gender.female", "gender.male"):
            for p in range(1 if value == "neutral" else n_phrasings):
                keys = [f"c:{i}" for i in rng.sample(range(30), 10)]
                if value == invent_for:
                    keys = keys[:5] + [f"t:zorblax {rng.random()}" for _ in range(5)]
                out.append(_record(value, p, r, keys))
    return out


def test_grounded_share_and_items() -> None:
    rec = _record("gender.male", 0, 0, ["c:1", "r:x", "t:a", "t:b"])
    assert grounded_share(rec) == 0.5
    assert grounded_items(rec).keys == ("c:1", "r:x")
    assert grounded_items(rec).items == rec.items[:2]
    assert grounded_share(_record("gender.male", 0, 0, [])) != grounded_share(rec)  # NaN


def test_a_model_that_invents_for_one_value_is_coverage_dependent() -> None:
    summary = summarize_answers(_task("gender.male", 1), ("iou",))
    check = summary.coverage
    assert check.applies and check.dependent
    assert check.share.p_value <= 0.05 and check.share.signed == pytest.approx(-0.5)
    # on grounded keys the lists are drawn alike: nothing detected there
    assert check.grounded.verdict != "detected"


def test_same_coverage_for_every_value_is_not_coverage_dependent() -> None:
    dependent = [summarize_answers(_task(None, s), ("iou",)).coverage.dependent for s in range(4)]
    assert sum(dependent) <= 1


def test_catalog_records_have_no_coverage_check() -> None:
    records = [
        AnswerRecord(persona_id=p, repeat=0, items=(1, 2), k=2, n_entries=2, value=v)
        for p, v in (("neutral", "neutral"), ("gender.male#0", "gender.male"))
    ]
    assert not summarize_answers(records, ("iou",)).coverage.applies


def test_naming_pool_has_chinese_names_that_ground() -> None:
    pool = chinese_named_pool("college")
    assert len(pool) >= 25
    assert all(en != zh for en, zh in pool)


@pytest.mark.slow
def test_naming_only_recommender_is_not_flagged_and_its_chinese_names_ground(
    tmp_path: Path,
) -> None:
    """Issue 41: the same universities for every user, named in Chinese for users who state
    the Chinese value, through lm-eval on coldbias_college_open_country (k 10, R 3): the
    headline detects nothing in at least 3 of 4 seeds, the Chinese names ground (rate ≥ 0.95)
    and the task is not coverage-dependent."""
    task = vocabulary.task_name("college", "country", "open")
    meta = {"coldbias_k": 10, "coldbias_repeats": 3, "coldbias_replicates": 2}
    flagged, dependent = 0, 0
    for seed in range(4):
        got = run_synthetic(NamingRecommender(seed=seed), [task], meta, tmp_path / str(seed))
        res = got["results"][task]
        assert res["grounded_rate,ranked"] >= 0.95
        flagged += res["iou_disparity_p,ranked"] <= 0.05
        dependent += res["coverage_dependent,ranked"] == 1.0
    assert flagged <= 1 and dependent <= 1, (flagged, dependent)
