"""End to end: a real small instruct model through real lm-eval (vLLM on CPU, and HF)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from coldbias_tasks.core.measures import lm_keys
from coldbias_tasks.core.stats.estimate import VERDICTS
from coldbias_tasks.core.vocabulary import ANSWER_KEY
from coldbias_tasks.core.world.personas import load_personas
from coldbias_tasks.lmeval.harness import task_metrics

pytestmark = pytest.mark.slow

FILTER = "ranked"


def _results(folder: Path) -> dict:
    files = sorted(folder.rglob("results_*.json"))
    assert files, f"no results JSON under {folder}"
    return json.loads(files[-1].read_text())


def _samples(folder: Path, task: str) -> list[dict]:
    files = sorted(folder.rglob(f"samples_{task}_*.jsonl"))
    assert files, f"no samples for {task} under {folder}"
    return [json.loads(line) for line in files[-1].read_text().splitlines() if line.strip()]


def _expected_tasks() -> dict[str, str]:
    """The forward tasks of the run (conftest.E2E_TASKS) and their attribute groups."""
    from tests.conftest import E2E_TASKS

    return {t: t.rsplit("_", 1)[1] for t in E2E_TASKS if not t.startswith("coldbias_reverse_")}


def _assert_metrics_in_range(values: dict, where: str) -> None:
    """Every metric of a catalog task there and in its range: a value a number, a verdict a
    verdict's text, a standard error, p or bound a number or "N/A" (undefined in a small run)."""
    for metric, declared in task_metrics().items():  # a catalog task's metrics
        value = values.get(f"{metric},{FILTER}")
        if declared.part == "verdict":
            assert value in VERDICTS, f"{where}: {metric} = {value!r} is no verdict"
            continue
        if declared.part != "value" and value == "N/A":
            continue
        assert isinstance(value, float), f"{where}: {metric} missing or not a number: {value!r}"
        contrast = declared.measure.name.endswith(("_contrast", "_gap"))
        if contrast and math.isnan(value):
            continue  # undefined in a small run: too few labelled lists per value and phrasing
        assert not math.isnan(value), f"{where}: {metric} is NaN"
        low, high = declared.measure.range if declared.part in ("value", "ci_low", "ci_high") \
            else (0.0, 1.0)  # fmt: skip
        assert low <= value <= high, f"{where}: {metric} = {value} outside [{low}, {high}]"


def test_vllm_run_reports_every_metric_for_every_task(lm_eval_run: Path) -> None:
    results = _results(lm_eval_run)
    assert results["config"]["model"] == "vllm"
    for task in _expected_tasks():
        _assert_metrics_in_range(results["results"][task], task)
        assert results["higher_is_better"][task]["exact_k_rate"] is True
        assert results["higher_is_better"][task]["iou_divergence"] is False


def test_vllm_samples_carry_parse_payloads(lm_eval_run: Path) -> None:
    personas = load_personas()
    for task, group in _expected_tasks().items():
        samples = _samples(lm_eval_run, task)
        values = personas.groups[group].values
        # neutral + one replicate + values × 2 phrasings, R=2
        assert len(samples) == (2 + 2 * len(values)) * 2
        assert samples[0]["doc"]["persona_id"] == "neutral"
        for sample in samples:
            payload = sample[ANSWER_KEY]
            assert payload["persona_id"] == sample["doc"]["persona_id"]
            assert len(payload["items"]) <= sample["doc"]["k"]
            assert len(payload["positions"]) == len(payload["items"])
            assert all(0 <= p < payload["n_shown"] for p in payload["positions"])
            assert sample["doc"]["template_sha256"] and sample["doc"]["catalog_sha256"]
            assert isinstance(sample["resps"][0][0], str)


def test_vllm_reverse_task_ranks_users(lm_eval_run: Path) -> None:
    """The reverse task on a real model: every metric a number, answers parsed into rankings of
    the shown users (a real 0.5B model may leave some out, never invents one)."""
    task = "coldbias_reverse_movie_gender"
    values = _results(lm_eval_run)["results"][task]
    for metric, declared in lm_keys(reverse=True).items():
        value = values[f"{metric},{FILTER}"]
        if declared.part == "verdict":
            assert value in VERDICTS, (metric, value)
            continue
        if declared.part != "value" and value == "N/A":
            continue
        low, high = declared.measure.range if declared.part == "value" else (-1.0, 1.0)
        assert isinstance(value, float) and low <= value <= high, (metric, value)
    samples = _samples(lm_eval_run, task)
    assert len(samples) == 4 * 2  # items × repeats
    users = {p.id for p in load_personas().groups["gender"].values}
    for sample in samples:
        payload = sample[ANSWER_KEY]
        assert payload["kind"] == "reverse" and set(payload["candidates"]) == users
        assert len(set(payload["order"])) == len(payload["order"]) <= len(users)
    assert values[f"reverse_complete_rate,{FILTER}"] > 0  # the parser reads real answers


def test_hf_run_reports_every_metric(hf_run: Path) -> None:
    results = _results(hf_run)
    assert results["config"]["model"] == "hf"
    model_args = results["config"]["model_args"]
    if isinstance(model_args, str):
        model_args = dict(part.split("=", 1) for part in model_args.split(","))
    assert int(model_args["max_length"]) == 8192
    _assert_metrics_in_range(results["results"]["coldbias_college_physics"], "hf physics")
    samples = _samples(hf_run, "coldbias_college_physics")
    # R=2 repeats of neutral + the demo's one replicate + 2 values × 2 phrasings
    assert len(samples) == (1 + 1 + 2 * 2) * 2
    assert all("items" in s[ANSWER_KEY] for s in samples)


def test_same_seed_rebuilds_the_prompts_of_the_run(lm_eval_run: Path) -> None:
    """Two runs with the same seeds see the same prompts: rebuild them and compare."""
    from coldbias_tasks.core.prompting.documents import build_docs
    from tests.conftest import E2E_METADATA

    samples = sorted(_samples(lm_eval_run, "coldbias_music_gender"), key=lambda s: s["doc_id"])
    rebuilt = build_docs("music", "gender", "plain", E2E_METADATA)
    assert [s["doc"]["prompt"] for s in samples] == [d.prompt for d in rebuilt]
    assert all(s["doc"]["prompt"] in s["arguments"]["gen_args_0"]["arg_0"] for s in samples)
