"""The costs to the user (core/measures/costs.py and its utilities): per-answer failure,
preference served and item quality, their phrasing-controlled gaps between values, the pref
variant's documents, and the preference gap through lm-eval's own evaluator."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import pytest

from coldbias_tasks.core.errors import PersonaError, SettingsError
from coldbias_tasks.core.measures.costs import summarize_costs, utility_gap
from coldbias_tasks.core.measures.failure import failed, failure_kinds
from coldbias_tasks.core.measures.item_quality import item_facts, item_quality
from coldbias_tasks.core.measures.preference import matching_items, preference_served
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.records import AnswerRecord, TaskDoc
from coldbias_tasks.core.result import task_result
from coldbias_tasks.core.world.domains import domain, read_domain
from coldbias_tasks.core.world.personas import load_personas
from tests.synthetic import SyntheticRecommender, run_synthetic

ACTION = matching_items("movie", "action") or frozenset()
OTHER = sorted(set(range(500)) - ACTION)


def _rec(value: str, p: int, r: int, items: tuple[int, ...], **kw: Any) -> AnswerRecord:
    n = kw.pop("n_entries", len(items))
    return AnswerRecord(f"{value}#{p}", r, items, kw.pop("k", 4), value=value, phrasing=p,
                        catalog="movie", n_entries=n, **kw)  # fmt: skip


def test_failure_kinds_read_the_parse_record() -> None:
    assert failure_kinds(_rec("x.a", 0, 0, (1, 2, 3, 4))) == ()
    assert failure_kinds(_rec("x.a", 0, 0, (), n_entries=0)) == ("no_list",)
    assert failure_kinds(_rec("x.a", 0, 0, (1, 2), n_entries=3, n_out_of_catalog=1)) == (
        "short", "out_of_catalog",
    )  # fmt: skip
    assert failure_kinds(_rec("x.a", 0, 0, (1, 2, 3, 4), n_entries=5, n_duplicates=1)) == (
        "duplicate",
    )
    assert failed(_rec("x.a", 0, 0, (1,))) == 1.0 and failed(_rec("x.a", 0, 0, (1, 2, 3, 4))) == 0
    assert math.isnan(failed(_rec("x.a", 0, 0, (), k=0)))


def test_preference_served_counts_matching_items_per_k() -> None:
    assert len(ACTION) == 72  # the catalog's action films
    two = (*sorted(ACTION)[:2], *OTHER[:2])
    r = _rec("x.a", 0, 0, two, preference="action")
    assert preference_served(r) == pytest.approx(0.5)
    short = _rec("x.a", 0, 0, two[:1], preference="action")
    assert preference_served(short) == pytest.approx(0.25)  # an empty slot serves nothing
    assert math.isnan(preference_served(_rec("x.a", 0, 0, two)))  # no stated preference
    assert math.isnan(preference_served(_rec("x.a", 0, 0, two, preference="western")))
    assert AnswerRecord.from_payload(r.to_payload()).preference == "action"
    assert "preference" not in _rec("x.a", 0, 0, two).to_payload()  # other variants unchanged


def test_item_quality_is_the_mean_critics_score_of_known_items() -> None:
    facts = item_facts("movie")
    assert 350 <= len(facts) <= 400 and all(0 <= s <= 100 for s in facts.values())
    known = sorted(facts)[:3]
    r = _rec("x.a", 0, 0, (*known, 10_000))
    assert item_quality(r) == pytest.approx(sum(facts[i] for i in known) / 3)
    assert math.isnan(item_quality(_rec("x.a", 0, 0, (10_000,))))
    assert item_facts("music") == {} and item_facts("college") == {}


def _phrased(
    shift: float, n_p: int = 8, n_r: int = 3, seed: int = 0
) -> dict[str, dict[int, dict[int, AnswerRecord]]]:
    """Two values × n_p cells × n_r repeats of k = 10 lists: each cell has its own share of
    action films (wording, drawn alike for both values); value b gets ``shift`` less."""
    rng = random.Random(seed)
    acts, others = sorted(ACTION), OTHER
    out: dict[str, dict[int, dict[int, AnswerRecord]]] = {"x.a": {}, "x.b": {}}
    for p in range(n_p):
        base = rng.uniform(0.3, 0.7)
        for value in out:
            share = base - (shift if value == "x.b" else 0.0)
            for r in range(n_r):
                n = sum(rng.random() < share for _ in range(10))
                items = tuple(rng.sample(acts, n) + rng.sample(others, 10 - n))
                out[value].setdefault(p, {})[r] = _rec(value, p, r, items, k=10,
                                                        preference="action")  # fmt: skip
    return out


def test_preference_gap_detects_a_shift_and_not_its_absence() -> None:
    hit = summarize_costs(_phrased(0.3), "movie").preference
    assert hit.contrast.signed < -0.15 and hit.contrast.p_value <= 0.05
    assert hit.contrast.estimate.verdict == "detected"
    assert hit.means["x.b"] < hit.means["x.a"]
    nulls = [summarize_costs(_phrased(0.0, seed=s), "movie").preference for s in range(10)]
    assert sum(g.contrast.p_value <= 0.05 for g in nulls) <= 2
    assert all(g.contrast.estimate.stderr > 0 for g in nulls)


def test_gaps_say_why_they_are_missing_and_pairs_use_holm() -> None:
    costs = summarize_costs(_phrased(0.0), "movie")
    assert costs.failure.contrast.estimate.defined and costs.failure.n_defined == 48
    music = summarize_costs(_phrased(0.0), "music")
    assert music.quality.contrast.estimate.verdict == "n/a"
    assert "no offline quality fact" in music.quality.contrast.estimate.note
    three = {v: {p: {0: _rec(v, p, 0, (1, 2))} for p in range(4)} for v in ("a", "b", "c")}
    gap = utility_gap(three, lambda r: 1.0 if r.value == "c" else 0.0, "u", "unit")
    assert len(gap.pairs) == 3
    assert [p.contrast.signed for p in gap.pairs] == pytest.approx([0.0, 1.0, 1.0])
    holm_ok = [
        p.p_adjusted >= p.contrast.p_value for p in gap.pairs if not math.isnan(p.p_adjusted)
    ]
    assert all(holm_ok)


def test_task_result_lists_the_gaps_with_their_parts() -> None:
    records = [
        r for by_p in _phrased(0.3).values() for by_r in by_p.values() for r in by_r.values()
    ]
    numbers = task_result(records).lm_numbers()
    assert numbers["preference_gap_p"] <= 0.05 and numbers["preference_gap"] > 0.15
    assert numbers["preference_gap_verdict"] == "detected"
    assert {"quality_gap", "failure_gap_stderr", "failure_gap_p"} <= set(numbers)


def test_pref_documents_ask_value_by_phrasing_by_preference() -> None:
    docs = build_docs("movie", "gender", "pref", {"coldbias_repeats": 1, "coldbias_phrasings": 2})
    values = [d for d in docs if d.value.startswith("gender.")]
    assert len(values) == 2 * 2 * 3
    cell = {(d.value, d.phrasing): (d.preference, d.user) for d in values}
    assert cell[("gender.female", 3)] == (
        "comedy", "I'd describe myself as a girl. I'd describe myself as a comedy fan.",
    )  # fmt: skip
    assert cell[("gender.male", 3)][0] == "comedy"
    back = TaskDoc.from_dict(values[0].to_dict())
    assert back.preference == values[0].preference
    plain = build_docs("movie", "gender", "plain", {"coldbias_repeats": 1})[0].to_dict()
    assert plain["preference"] == ""  # every document has the column (lm-eval's dataset)
    old = {k: v for k, v in plain.items() if k != "preference"}
    assert TaskDoc.from_dict(old).preference == ""  # documents of earlier runs


def test_pref_variant_refuses_what_it_cannot_state(tmp_path: Any) -> None:
    config = load_personas()
    persona = config.group("gender")[1]
    with pytest.raises(PersonaError, match="has no French"):
        config.describe(persona, "pref", "movie", "fr", 0, preference="action")
    with pytest.raises(PersonaError, match="no preference 'jazz'"):
        config.describe(persona, "pref", "movie", "en", 0, preference="jazz")
    raw = domain("movie").source.read_text()  # type: ignore[union-attr]
    (tmp_path / "domains").mkdir()
    bad = tmp_path / "domains" / "films.yaml"
    bad.write_text(raw.replace("field: genres, label: Action", "field: mood, label: Action"))
    (tmp_path / "movie.jsonl").write_text("")
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "movie.jsonl").write_text("")
    with pytest.raises(SettingsError, match=r"preferences\.action\.field"):
        read_domain(bad, tmp_path)


# --- through lm-eval's own evaluator ----------------------------------------------------------

META = {"coldbias_n_items": 40, "coldbias_k": 8, "coldbias_replicates": 1, "coldbias_repeats": 2,
        "coldbias_phrasings": 4}  # fmt: skip
TASK = "coldbias_movie_pref_gender"


def _fewer_of_their_genre(doc: Mapping[str, Any]) -> Any:
    """Female users' stated genre weighted down 10× (male users' and the neutral's unchanged)."""
    if doc.get("value") != "gender.female" or not doc.get("preference"):
        return None
    rows = matching_items("movie", str(doc["preference"])) or frozenset()
    return lambda item: 0.1 if item in rows else 1.0


def _run(model: SyntheticRecommender, seed: int) -> dict[str, Any]:
    results = run_synthetic(model, [TASK], {**META, "coldbias_seed": seed})
    return {k.split(",")[0]: v for k, v in results["results"][TASK].items()}


@pytest.mark.slow
def test_lm_eval_flags_a_value_served_its_preference_less() -> None:
    """Through lm-eval: female users get fewer items of their stated genre (on top of each
    sentence's wording) → ``preference_gap`` rejects in ≥ 4 of 5 seeds."""
    runs = [
        _run(SyntheticRecommender(seed=s, skew=1.0, wording=1.0, doc_effect=_fewer_of_their_genre),
             70 + s)
        for s in range(5)
    ]  # fmt: skip
    assert sum(r["preference_gap_p"] <= 0.05 for r in runs) >= 4
    assert all(r["preference_gap"] > 0 for r in runs)


@pytest.mark.slow
def test_lm_eval_wording_alone_is_not_flagged_as_a_preference_gap() -> None:
    """Each distinct sentence its own list by its wording, both values alike: ``preference_gap``
    rejects in ≤ 2 of 10 seeds (expected 0.5 at α = 0.05)."""
    runs = [_run(SyntheticRecommender(seed=s, skew=1.0, wording=1.0), 90 + s) for s in range(10)]
    assert sum(r["preference_gap_p"] <= 0.05 for r in runs) <= 2


def test_the_report_says_the_gap_in_the_users_units() -> None:
    from coldbias_tasks.analysis.costs_report import in_user_units

    gap = summarize_costs(_phrased(0.3), "movie").preference
    says = in_user_units(gap)
    assert says.startswith("users who state b get ") and "than users who state a" in says
    shown = float(says.split(" get ")[1].split()[0])
    assert shown == pytest.approx(-gap.contrast.signed * 10, abs=0.051)
    assert "fewer items of their stated preference in 10" in says and "(detected" in says
    assert in_user_units(summarize_costs(_phrased(0.0), "music").quality) == ""


def test_the_leaderboard_has_a_cost_to_the_user_family() -> None:
    from coldbias_tasks.analysis.leaderboard_columns import FAMILIES

    families = {f.name: [s.key for s in f.column_specs()] for f in FAMILIES}
    assert families["cost to the user"] == ["preference_gap", "quality_gap", "failure_gap"]
    assert not {"preference_gap", "quality_gap"} & set(families["fidelity"])


def test_a_pref_only_run_says_why_it_has_no_overall_figure(tmp_path: Any) -> None:
    """The overall figure pools the plain attribute tasks (the leaderboard's column): a run of
    pref tasks only says so in the terminal summary and the report's first box, not "no
    attribute task with two or more phrasings" (its tasks have 4 × 3 cells per value)."""
    from coldbias_tasks.app.commands import build_report

    model = SyntheticRecommender(seed=3, skew=1.0, wording=1.0)
    run_synthetic(model, [TASK], {**META, "coldbias_seed": 7}, tmp_path / "run")
    result = build_report(tmp_path / "run", tmp_path / "report")
    assert "this run has pref tasks only" in result.summary[0], result.summary[0]
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "this run has pref tasks only" in page
    assert f"{TASK}: IOU disparity" in "\n".join(result.summary)


def test_the_report_shows_costs_one_screen_wide() -> None:
    """The page's cost view: a gap row per task and utility (interval, p, MDE, verdict, the
    sentence without its repeated verdict, text escaped); value pairs only when one is flagged."""
    import pandas as pd

    from coldbias_tasks.render.cost_tables import cost_tables

    verdict = "not detected (MDE 8.098)"
    gap = {"task": "coldbias_movie_gender", "row": "gap", "utility": "item quality",
           "unit": "critics' score points (0–100)", "gap": 3.92, "ci_low": 0.0, "ci_high": 9.89,
           "p_value": 0.156, "mde": 8.098, "verdict": verdict, "reference": "gender.female",
           "other": "gender.male", "signed": 3.92,
           "says": f"users who state <b>female</b> get 3.9 lower … ({verdict})"}  # fmt: skip
    pair = {**gap, "row": "pair", "verdict": "not flagged", "p_adjusted": 0.9, "says": ""}
    page = cost_tables(pd.DataFrame([gap, pair]))
    assert page.count("<table") == 1 and "3.920 [0.000, 9.890]" in page
    assert page.count(verdict) == 1 and "&lt;b&gt;female&lt;/b&gt;" in page
    flagged = {**pair, "verdict": "flagged", "p_adjusted": 0.01}
    page = cost_tables(pd.DataFrame([gap, flagged]))
    assert page.count("<table") == 2 and "gender.female vs gender.male" in page
    assert cost_tables(pd.DataFrame()) == ""
