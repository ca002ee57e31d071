"""Each answer logged once, read back through one check (issue 32, items 2 and 3).

The bytes per logged answer are measured through lm-eval's own evaluator and sample logging
(synthetic recommender, 60 items, k = 10); the shapes written by earlier versions (the payload
under every metric key, the seed-study importer's lines) still load through the same check.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.core.errors import RecordError
from coldbias_tasks.core.files.compat import LEGACY_PAYLOAD_KEYS
from coldbias_tasks.core.measures import lm_keys
from coldbias_tasks.core.parsing.sample_check import (
    AnswerMisfit,
    NoAnswer,
    answer_id,
    check_answer,
    read_sample,
)
from coldbias_tasks.core.records import AnswerRecord, UserRankRecord
from coldbias_tasks.core.vocabulary import ANSWER_KEY, FILTER_NAME
from coldbias_tasks.lmeval.harness import task_metrics
from tests.synthetic import SyntheticRecommender, run_synthetic

#: where runs logged before ANSWER_KEY held the payload (forward, reverse)
PAYLOAD_KEY, REVERSE_PAYLOAD_KEY = LEGACY_PAYLOAD_KEYS[False], LEGACY_PAYLOAD_KEYS[True]
FORWARD = "coldbias_movie_gender"
REVERSE = "coldbias_reverse_movie_gender"
#: the issue's setting: 60 items shown, k = 10
SETTING = {"coldbias_n_items": 60, "coldbias_k": 10, "coldbias_repeats": 2}
#: bytes per logged forward answer before this change, measured with the same run (BENCHMARKS.md)
BEFORE_BYTES = 25_765


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("logged") / "out"
    run_synthetic(SyntheticRecommender(seed=5), [FORWARD, REVERSE], SETTING, output_path=out)
    return out


def _lines(run: Path, task: str) -> list[str]:
    (path,) = run.rglob(f"samples_{task}_*.jsonl")
    return path.read_text(encoding="utf-8").splitlines()


def _as_before(sample: dict[str, Any]) -> dict[str, Any]:
    """The same samples line as earlier versions logged it: the payload under every metric
    key, and its Python repr as the filtered response (lm-eval's ``sanitize_list``)."""
    payload = sample[ANSWER_KEY]
    metrics = [m for m in sample["metrics"] if m != ANSWER_KEY]
    before = {k: v for k, v in sample.items() if k not in (ANSWER_KEY, *metrics)}
    return (
        before
        | {"filtered_resps": [str(payload)], "metrics": metrics}
        | dict.fromkeys(metrics, payload)
    )


def test_bytes_per_logged_answer_at_most_half(run: Path) -> None:
    lines = _lines(run, FORWARD)
    size = sum(len(line.encode()) for line in lines) / len(lines)
    before = sum(
        len(json.dumps(_as_before(json.loads(line)), ensure_ascii=False).encode()) for line in lines
    ) / len(lines)
    assert size <= 0.5 * before, (size, before)
    assert size <= 0.5 * BEFORE_BYTES, size


@pytest.mark.parametrize("task", [FORWARD, REVERSE])
def test_a_samples_line_holds_the_payload_once(run: Path, task: str) -> None:
    reverse = task == REVERSE
    # the metric keys the task's YAML lists (a catalog task: without the open tasks' rates)
    metrics = lm_keys(reverse=True) if reverse else task_metrics()
    for line in _lines(run, task):
        sample = json.loads(line)
        payload = sample[ANSWER_KEY]
        assert line.count(json.dumps(payload, ensure_ascii=False)) == 1
        assert str(payload) not in line  # no stringified copy either
        assert sample["metrics"][0] == ANSWER_KEY and set(sample["metrics"]) == {
            ANSWER_KEY,
            *metrics,
        }
        assert {sample[m] for m in metrics} == {answer_id(payload)}
        assert sample["filtered_resps"] == [sample["resps"][0][0]]  # the raw answer
        record, _ = read_sample(sample, reverse)
        assert record.to_payload() == payload


def test_the_loader_reads_the_one_record(run: Path) -> None:
    (loaded,) = load_folder(run)
    forward = [json.loads(line)[ANSWER_KEY] for line in _lines(run, FORWARD)]
    assert [r.to_payload() for r in loaded.tasks[FORWARD].records] == forward
    reverse = [json.loads(line)[ANSWER_KEY] for line in _lines(run, REVERSE)]
    assert [r.to_payload() for r in loaded.reverse[REVERSE].records] == reverse


def test_results_count_the_answers(run: Path) -> None:
    (path,) = run.rglob("results_*.json")
    results = json.loads(path.read_text())
    for task in (FORWARD, REVERSE):
        assert results["results"][task][f"{ANSWER_KEY},{FILTER_NAME}"] == len(_lines(run, task))


# --- runs logged by earlier versions, and the check's refusals --------------------------------


def _current(run: Path, task: str) -> dict[str, Any]:
    return json.loads(_lines(run, task)[0])


def test_earlier_shapes_read_alike(run: Path) -> None:
    sample = _current(run, FORWARD)
    expected = read_sample(sample, reverse=False)
    payload = sample[ANSWER_KEY]
    earlier = _as_before(sample)  # every metric key held the payload
    stringified = earlier | {PAYLOAD_KEY: str(payload)}  # a payload lm-eval had to stringify
    seed_import = {  # the seed-study importer's lines before this change
        "doc_id": 0, "doc": sample["doc"], "target": "", "resps": sample["resps"],
        "filtered_resps": [payload], "filter": FILTER_NAME, PAYLOAD_KEY: payload,
    }  # fmt: skip
    for old in (earlier, stringified, seed_import):
        assert ANSWER_KEY not in old
        assert read_sample(old, reverse=False) == expected
    reverse = _current(run, REVERSE)
    old_reverse = _as_before(reverse)
    assert isinstance(old_reverse[REVERSE_PAYLOAD_KEY], dict)
    assert read_sample(old_reverse, reverse=True) == read_sample(reverse, reverse=True)


def test_the_one_check_refuses_with_the_problem(run: Path) -> None:
    sample = _current(run, FORWARD)
    doc, payload = sample["doc"], sample[ANSWER_KEY]
    record, typed = check_answer(sample["resps"][0][0], doc, reverse=False)  # raw text: parsed
    assert isinstance(record, AnswerRecord) and record.to_payload() == payload
    assert check_answer(payload, typed, reverse=False) == (record, typed)  # typed doc: as is
    no_answer = {k: v for k, v in sample.items() if k != ANSWER_KEY}  # ids only under metrics
    with pytest.raises(NoAnswer, match=rf"no coldbias parse payload under '{ANSWER_KEY}'"):
        read_sample(no_answer, reverse=False)
    with pytest.raises(AnswerMisfit, match="were not shown"):
        check_answer(dict(payload, items=[10_000]), doc, reverse=False)
    with pytest.raises(AnswerMisfit, match="in a prompt for"):
        check_answer(dict(payload, repeat=7), doc, reverse=False)
    with pytest.raises(RecordError, match=r"task document lacks \['k'\]"):
        check_answer(payload, {k: v for k, v in doc.items() if k != "k"}, reverse=False)
    reverse = _current(run, REVERSE)
    with pytest.raises(NoAnswer, match="no coldbias reverse payload"):
        read_sample({**reverse, ANSWER_KEY: "not a payload"}, reverse=True)
    ranked, _ = read_sample(reverse, reverse=True)
    assert isinstance(ranked, UserRankRecord)
    with pytest.raises(AnswerMisfit, match="not the users shown"):
        check_answer(dict(reverse[ANSWER_KEY], candidates=["a", "b"]), reverse["doc"], True)


def test_a_task_yaml_of_an_older_coldbias_names_the_fix(tmp_path: Path) -> None:
    """A YAML written before coldbias_answer (filter parse_filter) stops with the fix, not with
    lm-eval averaging payload dicts."""
    import shutil

    from coldbias_tasks.core.errors import SettingsError
    from coldbias_tasks.core.resources import tasks_dir

    tasks = tmp_path / "tasks"
    shutil.copytree(tasks_dir(), tasks)
    template = tasks / "_coldbias_template_yaml"
    text = template.read_text(encoding="utf-8")
    new_filter = "      - function: take_first\n"
    assert new_filter in text
    old_filter = (
        "      - function: custom\n"
        "        filter_fn: !function coldbias_tasks.lmeval.harness.parse_filter\n"
    )
    template.write_text(text.replace(new_filter, old_filter), encoding="utf-8")
    small = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 1}
    with pytest.raises(SettingsError, match=r"older coldbias.*regenerate it"):
        run_synthetic(SyntheticRecommender(seed=1), [FORWARD], small, include_path=tasks)
