"""bench/studies/parser_dev_eval.py opens development files only, and the stored labels are
labels only."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "studies"


def _load():
    spec = importlib.util.spec_from_file_location("parser_dev_eval", BENCH / "parser_dev_eval.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["parser_dev_eval"] = module
    spec.loader.exec_module(module)
    return module


dev_eval = _load()


@pytest.mark.parametrize(
    "name",
    [
        "gemma3_12b_movie__0.json",
        "gemma3_12b_movie_,_3.json",
        "gemma3_12b_movie_movie_fan_1.json",
        "llama3.2_3b_music_music_fan_4.json",
        "smollm3_3b_music__2.json",
        "minicpm3_4b_college_student_0.json",
        "gemma3_1b_college__4.json",
        "../gemma3_1b_college_mathy_0.json",
        "gemma3_1b_college_mathy_0.json/../gemma3_1b_college__0.json",
    ],
)
def test_held_out_files_are_refused(name: str) -> None:
    with pytest.raises(dev_eval.HeldOutFileError):
        dev_eval.check_dev_file(name)


@pytest.mark.parametrize(
    "name",
    [
        "gemma3_12b_college_mathy_0.json",
        "llama3.2_3b_movie_action_movie_fan_4.json",
        "smollm3_3b_music_rock_fan_2.json",
    ],
)
def test_dev_files_are_accepted(name: str) -> None:
    assert dev_eval.check_dev_file(name) == name


@pytest.mark.parametrize("domain", dev_eval.DOMAINS)
def test_stored_labels_are_dev_labels_only(domain: str) -> None:
    path = BENCH / "parser_dev" / f"labels_{domain}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert len(rows) == 93
    for row in rows:
        assert set(row) == {"answer", "file", "group", "persona", "lines"}
        dev_eval.check_dev_file(row["file"])
        assert f"_{domain}_" in row["file"]


def test_gold_list_drops_unknowns_and_repeats_and_cuts_at_k() -> None:
    row = {"lines": [[3, 7], [1, 5], [2, -1], [4, [5, 9]], *[[10 + i, 100 + i] for i in range(30)]]}
    gold = dev_eval.gold_list(row)
    assert gold[:3] == [5, 7, 9] and len(gold) == dev_eval.K
