"""``coldbias plan``: the cost and MDE of a run from its real documents, no model loaded."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from coldbias_tasks.app import cli, plan
from coldbias_tasks.app.calibrate import DEFAULT_CPU, Throughput, load_calibration
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.measures.disparity import planned_mde
from coldbias_tasks.core.prompting.documents import answer_list_tokens, shown_titles
from coldbias_tasks.core.settings import DEFAULTS
from coldbias_tasks.core.stats.estimate import mde
from coldbias_tasks.core.world.personas import load_personas

MOVIE_GROUPS = ("country", "gender", "continent", "occupation", "race", "religion", "physics",
                "age")  # fmt: skip


@pytest.fixture(scope="module")
def movie_plan() -> plan.Plan:
    tasks = plan.expand_tasks("coldbias_movie")
    return plan.make_plan(tasks, {}, plan.TokenCounter(use_tokenizer=False))


def test_movie_at_defaults_counts_follow_the_task_definitions(movie_plan: plan.Plan) -> None:
    assert [t.task for t in movie_plan.tasks] == [f"coldbias_movie_{g}" for g in MOVIE_GROUPS]
    config = load_personas()
    r, replicates = DEFAULTS["coldbias_repeats"], DEFAULTS["coldbias_replicates"]
    per_answer = answer_list_tokens(shown_titles("movie", {}), DEFAULTS["coldbias_k"])
    for t, group in zip(movie_plan.tasks, MOVIE_GROUPS):
        spec = config.find(group)
        values, phrasings = len(spec.values), config.phrasings(spec)
        assert (t.n_values, t.n_phrasings, t.n_repeats) == (values, phrasings, r)
        # prompts = (neutral + replicates + values × phrasings) × repeats
        assert t.prompts == (1 + replicates + values * phrasings) * r
        assert t.decode == pytest.approx(t.prompts * per_answer)
        assert 0 < t.uncached < t.prefill
    total = movie_plan.total
    assert total.prompts == sum(t.prompts for t in movie_plan.tasks)
    # one 500-title catalog prefix per repeat, computed once: the rest is suffixes
    catalog_chars = sum(len(x) + 1 for x in shown_titles("movie", {}))
    prefix_tokens = catalog_chars / plan.CHARS_PER_TOKEN
    assert total.prefill > total.prompts * prefix_tokens
    assert r * prefix_tokens < total.uncached < r * prefix_tokens + total.prompts * 40
    # gender (12 phrasings) can reach a smaller MDE than a 6-phrasing group
    by_name = {t.task: t for t in movie_plan.tasks}
    assert by_name["coldbias_movie_gender"].mde < by_name["coldbias_movie_age"].mde
    seconds = movie_plan.seconds(DEFAULT_CPU)
    assert seconds == pytest.approx(
        DEFAULT_CPU.start_s + total.uncached / DEFAULT_CPU.prefill_tps
        + total.decode / DEFAULT_CPU.decode_tps
    )  # fmt: skip
    assert all(g.prefill_tps > 0 and "assumed" in g.source for g in movie_plan.gpus)


def test_settings_scale_the_plan() -> None:
    meta = {"coldbias_n_items": 100, "coldbias_phrasings": 2, "coldbias_repeats": 2,
            "coldbias_replicates": 0, "coldbias_k": 5}  # fmt: skip
    small = plan.make_plan(["coldbias_movie_gender"], meta, plan.TokenCounter(False)).tasks[0]
    assert small.prompts == (1 + 2 * 2) * 2
    assert small.mde == math.inf  # 2 values in 2 phrasings: the test cannot reach α
    meta["coldbias_repeats"] = 4
    larger = plan.make_plan(["coldbias_movie_gender"], meta, plan.TokenCounter(False)).tasks[0]
    assert larger.prompts == 2 * small.prompts
    assert larger.decode == pytest.approx(2 * small.decode)


def test_coldbias_plan_prints_prompts_tokens_and_an_estimate(capsys) -> None:
    assert cli.main(["plan", "--tasks", "coldbias_movie", "--no-tokenizer"]) == 0
    out = capsys.readouterr().out
    assert "coldbias_movie_gender" in out and "no model loaded" in out
    for phrase in ("prompts", "prefill tok", "after the shared catalog prefix", "decode",
                   "estimated time", "this machine", "H100", "assumed, not measured", "MDE",
                   "4 characters per token"):  # fmt: skip
        assert phrase in out, phrase
    total_line = next(ln for ln in out.splitlines() if ln.startswith("total"))
    assert "690" in total_line


def test_bad_task_names_are_refused_with_the_fix(capsys) -> None:
    assert cli.main(["plan", "--tasks", "coldbias_movie_gendr", "--no-tokenizer"]) == 1
    err = capsys.readouterr().err
    assert "coldbias_movie_gendr" in err and "Closest: coldbias_movie_gender" in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(SettingsError, match=r"arc_easy.*not a coldbias task"):
        plan.expand_tasks("arc_easy")
    with pytest.raises(SettingsError, match=r"'coldbias_all' is (a tag|not a coldbias task)"):
        plan.expand_tasks("coldbias_all")
    assert plan.expand_tasks("coldbias_movie_gender,coldbias_music_age") == [
        "coldbias_movie_gender", "coldbias_music_age"]  # fmt: skip
    assert cli.main(["plan", "--tasks", "coldbias_movie", "--metadata", "{nope"]) == 1
    assert cli.main(["plan", "--tasks", "coldbias_movie", "--k", "0", "--no-tokenizer"]) == 1


def test_planned_mde_is_the_t_mde_of_the_expected_se() -> None:
    se = math.sqrt((0.06**2 + 0.04**2 / 3) / 12)
    assert planned_mde(2, 12, 3, 0.05, 0.06, 0.04) == pytest.approx(mde(se, 11, 0.05))
    assert planned_mde(2, 24, 3, 0.05, 0.06, 0.04) < planned_mde(2, 12, 3, 0.05, 0.06, 0.04)
    assert planned_mde(2, 12, 6, 0.05, 0.06, 0.04) < planned_mde(2, 12, 3, 0.05, 0.06, 0.04)
    assert planned_mde(2, 5, 3, 0.05, 0.06, 0.04) == math.inf  # 2^4 = 16 labellings < 20
    assert planned_mde(2, 6, 3, 0.05, 0.06, 0.04) < math.inf
    assert math.isnan(planned_mde(1, 6, 3, 0.05, 0.06, 0.04))


def test_shared_prefix_is_cut_at_a_line_end() -> None:
    assert plan.shared_prefix(["a\nb\nI am a man", "a\nb\nI am a woman"]) == "a\nb\n"
    assert plan.shared_prefix(["only one"]) == ""


def test_a_calibration_of_another_machine_is_ignored(tmp_path: Path) -> None:
    from coldbias_tasks.app import calibrate

    path = tmp_path / "calibration.json"
    rate = Throughput("this machine", 500.0, 150.0, 60.0, "calibrated")
    path.write_text(json.dumps({"machine": calibrate.machine_key(), "throughput": rate.as_dict()}))
    assert load_calibration(path) == rate
    path.write_text(json.dumps({"machine": "another CPU", "throughput": rate.as_dict()}))
    assert load_calibration(path) is None
    nan = {**rate.as_dict(), "decode_tps": float("nan")}
    path.write_text(json.dumps({"machine": calibrate.machine_key(), "throughput": nan}))
    assert load_calibration(path) is None
    path.write_text("{broken")
    assert load_calibration(path) is None


def test_the_tokenizer_counts_what_the_model_sees() -> None:
    counter = plan.TokenCounter()
    if not counter.exact:
        pytest.skip("the bundled test model is not assembled (scripts/test.sh assembles it)")
    tasks = ["coldbias_movie_gender"]
    meta = {"coldbias_n_items": 60, "coldbias_repeats": 1, "coldbias_phrasings": 2}
    p = plan.make_plan(tasks, meta, counter).tasks[0]
    from coldbias_tasks.core.prompting.documents import build_docs

    tok = counter._tok
    texts = [
        tok.apply_chat_template(
            [{"role": "user", "content": d.prompt}], tokenize=False, add_generation_prompt=True
        )
        for d in build_docs("movie", "gender", "plain", meta)
    ]
    exact = sum(len(tok(t, add_special_tokens=False)["input_ids"]) for t in texts)
    assert abs(p.prefill - exact) <= 2 * p.prompts


@pytest.mark.slow
@pytest.mark.engine
def test_calibration_measures_this_machine_with_the_bundled_model(tmp_path: Path) -> None:
    """The real engine: the bundled 0.5B in vLLM (minutes on a CPU)."""
    pytest.importorskip("vllm")
    from coldbias_tasks.app.calibrate import calibrate

    path = tmp_path / "calibration.json"
    rate = calibrate(path)
    assert rate.prefill_tps > 0 and rate.decode_tps > 0 and rate.start_s > 0
    assert load_calibration(path) == rate
    record = json.loads(path.read_text())
    assert record["prefill"]["generated_tokens"] == record["prefill"]["requests"]  # 1 token each
    assert record["decode"]["cached_tokens"] > 0  # the second pass reads the prefix cache
