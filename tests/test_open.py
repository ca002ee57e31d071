"""Open tasks (issue 33): no catalog in the prompt, listed titles grounded, grounding rates,
and the whole path through lm-eval's own evaluator."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from coldbias_tasks.core import vocabulary
from coldbias_tasks.core.errors import TemplateError
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.parsing.answers import record_from_answer
from coldbias_tasks.core.parsing.open_answers import (
    catalog_items,
    grounding,
    item_code,
    key_level,
    level_labels,
)
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.prompting.prompt import (
    builtin_templates,
    load_template,
    open_template_name,
)
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.core.vocabulary import ANSWER_KEY
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.lmeval.harness import process_results, task_metrics
from tests.synthetic import run_synthetic
from tests.synthetic_open import OpenRecommender, catalog_pool, invented_title, reference_pool

SMALL = {"coldbias_k": 10, "coldbias_repeats": 2, "coldbias_phrasings": 2,
         "coldbias_replicates": 2}  # fmt: skip


def test_task_names_round_trip() -> None:
    name = vocabulary.task_name("movie", "gender", "open")
    assert name == "coldbias_movie_open_gender"
    assert vocabulary.parse_task_name(name) == ("movie", "open", "gender")
    assert vocabulary.group_name("music", "open") == "coldbias_music_open"


def test_open_docs_show_no_catalog_and_ask_the_catalog_tasks_personas() -> None:
    docs = build_docs("movie", "gender", "open", SMALL)
    plain = build_docs("movie", "gender", "plain", SMALL)
    assert [(d.persona_id, d.repeat, d.user) for d in docs] == [
        (d.persona_id, d.repeat, d.user) for d in plain
    ]
    titles = load_catalog("movie").titles
    shown_in_plain = titles[plain[0].shown_ids[0]]
    for doc in docs:
        assert doc.shown_ids == () and doc.variant == "open" and doc.k == 10
        assert doc.user in doc.prompt and "10" in doc.prompt
        assert shown_in_plain not in doc.prompt
    assert docs[0].template == "open_lines"


@pytest.mark.parametrize("language", ["en", "fr", "es", "de", "ja", "zh"])
def test_every_language_of_lines_has_an_open_form(language: str) -> None:
    docs = build_docs("music", "gender", "open", {**SMALL, "coldbias_language": language})
    assert docs[-1].user in docs[-1].prompt and docs[-1].shown_ids == ()


def test_templates_without_an_open_form_are_refused_clearly(tmp_path: Path) -> None:
    assert open_template_name("numbered") == "open_numbered"
    assert open_template_name(None) == "open_lines"
    with pytest.raises(TemplateError, match=r"user_first.*cannot ask an open task.*lines"):
        build_docs("movie", "gender", "open", {**SMALL, "coldbias_template": "user_first"})
    shows = tmp_path / "mine.jinja"
    shows.write_text("{% for t in items %}{{ t }}\n{% endfor %}Pick {{ k }}. {{ user }}")
    with pytest.raises(TemplateError, match="shows the catalog"):
        load_template(str(shows), "en", "open")
    fine = tmp_path / "open_mine.jinja"
    fine.write_text("Name {{ k }} {{ noun }}. {{ user }}")
    assert load_template(str(fine), "en", "open").shares_prefix
    kinds = {n: i.kind for n, i in builtin_templates().items()}
    assert {n for n, k in kinds.items() if k == "open"} == {
        "open_lines", "open_numbered", "open_json"}  # fmt: skip


@pytest.fixture(scope="module")
def doc():
    return build_docs("movie", "gender", "open", SMALL)[0]


def test_an_open_answer_grounds_dedupes_and_keeps_k(doc) -> None:
    catalog_title, reference_title = catalog_pool("movie")[0], reference_pool("movie")[0]
    answer = (
        "Sure! Here are some movies you might enjoy:\n"
        f"1. **{catalog_title}**\n2. {reference_title}\n3. Quenvry of the Moxthul\n"
        f"4. {catalog_title.upper()}\n5. quenvry of the moxthul\n"
        + "".join(f"{n}. Film Number {n}\n" for n in range(6, 20))
        + "I hope you enjoy them!"
    )
    record = record_from_answer(answer, doc)
    assert [key_level(k) for k in record.keys[:3]] == ["catalog", "reference", "title"]
    assert record.keys[2] == "t:quenvry of the moxthul"
    assert len(record.items) == len(record.keys) == doc.k == 10  # two duplicates, cut at k
    assert record.n_duplicates == 2 and record.titles[0] == catalog_title
    assert record.items[0] >= 0 and all(i < 0 for i in record.items[1:])
    assert record.items == tuple(item_code(k) for k in record.keys)
    assert record.n_out_of_catalog == 8 and record.positions == () and record.n_shown == 0
    assert record.out_of_catalog[0] == "Quenvry of the Moxthul"  # ungrounded items
    again = AnswerRecord.from_payload(record.to_payload())
    assert again == record and again.keys == record.keys
    for nothing in ("", None, "Sorry, I cannot recommend movies."):
        assert record_from_answer(nothing, doc).items == ()


def test_item_codes_are_stable_negative_and_refuse_unknown_keys() -> None:
    assert item_code("c:17") == 17
    code = item_code("t:some film")
    assert code < 0 and code == item_code("t:some film") != item_code("r:some film")
    with pytest.raises(ValueError, match="c:, r:, t:"):
        item_code("x:17")


def _open(persona: str, keys: tuple[str, ...], repeat: int = 0) -> AnswerRecord:
    items = tuple(item_code(k) for k in keys)
    return AnswerRecord(persona, repeat, items, k=4, keys=keys, n_entries=len(keys))


def test_grounding_rates_and_catalog_tasks_have_none() -> None:
    records = [
        _open("neutral", ("c:1", "r:a", "t:x", "t:y")),
        _open(
            "gender.female#0",
            ("c:1", "c:2", "r:b", "t:z"),
        ),
    ]
    found = summarize_answers(records).grounding
    assert (found.n_items, found.grounded_rate, found.catalog_rate) == (8, 5 / 8, 3 / 8)
    plain = AnswerRecord("neutral", 0, (1, 2), k=2)
    assert math.isnan(grounding([plain]).grounded_rate)
    assert catalog_items(records[1]).items == (1, 2) and catalog_items(plain) is plain
    assert level_labels(records)[item_code("t:x")] == ["ungrounded"]


def test_open_tasks_list_the_grounding_metrics_and_no_catalog_position(doc) -> None:
    open_keys, plain_keys = set(task_metrics(variant="open")), set(task_metrics())
    assert {"grounded_rate", "catalog_rate"} <= open_keys
    assert not {"grounded_rate", "catalog_rate"} & plain_keys
    assert not {"position_bias", "prefix_copy_rate", "out_of_catalog_rate"} & open_keys
    payload = record_from_answer("1. Jaws", doc).to_payload()
    assert set(process_results(doc.to_dict(), [payload])) == {ANSWER_KEY, *open_keys}
    task = (tasks_dir() / "movie" / "coldbias_movie_open_gender.yaml").read_text()
    assert "include: _movie_open_yaml\n" in task  # thin: the open template lists the metrics
    yaml = (tasks_dir() / "_coldbias_open_template_yaml").read_text()
    assert "metric: grounded_rate\n" in yaml and "metric: position_bias\n" not in yaml


def test_invented_titles_are_not_grounded() -> None:
    import random

    from coldbias_tasks.core.parsing.grounding import grounder

    ground = grounder("movie", load_catalog("movie"))
    rng = random.Random(5)
    for _ in range(50):
        found = ground.ground(invented_title(rng))
        assert found is not None and found.level == "title"


def test_lm_eval_indexes_the_open_tasks() -> None:
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False, metadata=SMALL)
    assert "coldbias_movie_open_gender" in manager.all_subtasks
    assert "coldbias_movie_open_placebo" in manager.all_subtasks
    assert {"coldbias_open", "coldbias_college_open"} <= set(manager.all_groups)


@pytest.mark.parametrize(("domain", "counts"), [("movie", (6, 3, 1)), ("college", (2, 5, 3))])
def test_synthetic_open_recommender_gets_the_rates_it_was_built_with(
    domain: str, counts: tuple[int, int, int], tmp_path: Path
) -> None:
    """Through lm-eval's evaluator: real titles outside the catalog ground (reference),
    invented ones do not; the rates equal the recommender's shares exactly."""
    task = vocabulary.task_name(domain, "gender", "open")
    results = run_synthetic(OpenRecommender(*counts, seed=1), [task], SMALL, tmp_path)
    got = results["results"][task]
    k = sum(counts)
    assert got["grounded_rate,ranked"] == pytest.approx((counts[0] + counts[1]) / k)
    assert got["catalog_rate,ranked"] == pytest.approx(counts[0] / k)
    assert got["exact_k_rate,ranked"] == 1.0 and got["duplicate_rate,ranked"] == 0.0
    assert 0.0 <= got["iou_divergence,ranked"] <= 1.0
    assert "position_bias,ranked" not in got
    assert list(tmp_path.rglob(f"samples_{task}_*.jsonl"))


def test_report_reads_an_open_run(tmp_path: Path) -> None:
    """The report rebuilds an open run from its samples: grounding rates in the fidelity
    table, the grounding pseudo-field and exposure over catalog items in the exposure tables."""
    from coldbias_tasks.analysis.pooling import pool_runs
    from coldbias_tasks.analysis.report import analyze, exposure_table, fidelity_table
    from coldbias_tasks.analysis.run_files import load_folder

    task = vocabulary.task_name("movie", "gender", "open")
    run_synthetic(OpenRecommender(5, 3, 2, seed=2), [task], SMALL, tmp_path)
    reports = analyze(pool_runs(load_folder(tmp_path)))
    fidelity = fidelity_table(reports)
    assert fidelity["grounded_rate"].iloc[0] == pytest.approx(0.8)
    exposure = exposure_table(reports)
    grounding_rows = exposure[exposure["field"] == "grounding"]
    assert set(grounding_rows["category"]) == {"catalog", "reference (not in catalog)",
                                               "ungrounded"}  # fmt: skip
    ungrounded = grounding_rows[grounding_rows["category"] == "ungrounded"]
    assert ungrounded["share"].to_numpy() == pytest.approx(0.2)
    assert set(exposure["field"]) >= {"genres", "grounding"}
    western = exposure[exposure["field"] == "western"]
    # over catalog items only: Western and non-Western shares of an answer sum to 1
    shares = western.groupby("persona_id")["share"].sum()
    assert shares.to_numpy() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("domain", "answer", "levels"),
    [
        ("music", '<think>Bohemian Rhapsody?</think>\n1. "Paranoid" by Black Sabbath\n'
                  "2. Zorblax Song by Nobody", ["catalog", "title"]),
        ("college", '```json\n[{"name": "Massachusetts Institute of Technology", "country": '
                    '"US"}, {"name": "Fake University of Nowhere"}]\n```', ["catalog", "title"]),
        ("movie", "Here are 4 films: Jaws, Casablanca, Zorblax, Psycho (1998)",
         ["catalog", "catalog", "title", "reference"]),
    ],
)  # fmt: skip
def test_open_answers_in_the_formats_models_write(domain: str, answer: str, levels: list) -> None:
    """Think blocks, "title by artist", fenced JSON objects and a comma-joined line after a
    lead-in split and ground as in a catalog task; a remake's year picks the reference entry."""
    doc = build_docs(domain, "gender", "open", SMALL)[0]
    record = record_from_answer(answer, doc)
    assert [key_level(k) for k in record.keys] == levels
    assert record.n_entries == len(levels)


def test_coldbias_eval_refuses_a_template_without_open_form_before_loading_a_model() -> None:
    from coldbias_tasks.app.launch import check_inputs

    meta = '{"coldbias_template": "user_first"}'
    check_inputs(["--tasks", "coldbias_movie_gender", "--metadata", meta])  # a catalog task: fine
    for asked in ("coldbias_movie_open_gender", "coldbias_open", "coldbias_movie_open"):
        with pytest.raises(TemplateError, match="user_first"):
            check_inputs(["--tasks", asked, "--metadata", meta])
