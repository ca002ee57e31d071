"""Samples are checked against their task: personas swapped, extra, duplicated or of another group,
ids outside the catalog, another seed, samples of another task copied over, unreadable recorded
settings are refused naming file and line; the leaderboard skips a bad run and keeps the others;
every task kind of this version passes (issue 31). Edited records get their answer ids
recomputed (``tests.run_fixtures.with_new_ids``), so that the checks after the id check run."""

from __future__ import annotations

import ast
import copy
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.app import cli
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.vocabulary import ANSWER_KEY, is_value_id
from tests.run_fixtures import (
    SMALL,
    TASK,
    synthetic_run,
)
from tests.run_fixtures import copy_run as _copy
from tests.run_fixtures import edit_samples as _edit
from tests.run_fixtures import samples_of as _samples
from tests.run_fixtures import set_results as _set_results

# --- 1. samples checked against their task ---------------------------------------------------


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder of two tasks (synthetic answers)."""
    return synthetic_run(tmp_path_factory, [TASK, "coldbias_music_gender"])


def _set_persona(line: dict, persona: str) -> None:
    line["doc"]["persona_id"] = persona
    payload = line[ANSWER_KEY]
    payload = ast.literal_eval(payload) if isinstance(payload, str) else payload
    payload["persona_id"] = persona
    line[ANSWER_KEY] = payload


def _values(lines: list[dict]) -> list[int]:
    return [i for i, line in enumerate(lines) if is_value_id(line["doc"]["persona_id"])]


def _swap_personas(lines: list[dict]) -> None:
    first = _values(lines)[0]
    repeat, persona = lines[first]["doc"]["repeat"], lines[first]["doc"]["persona_id"]
    other = next(
        i for i in _values(lines)
        if lines[i]["doc"]["repeat"] == repeat and lines[i]["doc"]["persona_id"] != persona
    )  # fmt: skip
    _set_persona(lines[first], lines[other]["doc"]["persona_id"])
    _set_persona(lines[other], persona)


def _extra_persona(lines: list[dict]) -> None:
    extra = copy.deepcopy(lines[_values(lines)[-1]])
    _set_persona(extra, "gender.martian")
    lines.append(extra)


def _duplicate(lines: list[dict]) -> None:
    lines.append(copy.deepcopy(lines[_values(lines)[0]]))


def _outside_catalog(lines: list[dict]) -> None:
    for line in lines:  # the same edit everywhere: the items still agree between documents
        shown = line["doc"]["shown_ids"]
        shown[shown.index(max(shown))] = 100_000


def _other_seed(lines: list[dict]) -> None:
    lines[4]["doc"]["seed"] = 99


def _other_group(lines: list[dict]) -> None:
    lines[2]["doc"]["attribute_group"] = "age"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_swap_personas, "' says "),
        (_extra_persona, "'gender.martian' repeat"),
        (_duplicate, "logged twice"),
        (_outside_catalog, ("outside catalog 'movie'", "does not fit its prompt")),
        (_other_seed, "seed 99 differs from line 1"),
        (_other_group, "group 'age'"),
    ],
)
def test_samples_that_do_not_fit_their_task_are_refused(
    real_run: Path, tmp_path: Path, capsys, edit, message: str | tuple[str, ...]
) -> None:
    """(A shown id outside the catalog is refused by whichever check meets it first: the
    catalog check, or an answer that names an item its prompt no longer shows.)"""
    run = _copy(real_run, tmp_path / "run")
    path = _edit(run, edit)
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    messages = (message,) if isinstance(message, str) else message
    assert f"{path}, line " in err and any(m in err for m in messages), err
    assert "Traceback" not in err, err
    assert not (tmp_path / "rep").exists()


@pytest.mark.parametrize("edit", [_extra_persona, _duplicate, _outside_catalog])
def test_the_loader_refuses_without_rebuilding_too(real_run: Path, tmp_path: Path, edit) -> None:
    """A library caller without ``LoadOptions.documents``: the checks from the persona file,
    the catalog and the documents' agreement still hold."""
    run = _copy(real_run, tmp_path / "run")
    _edit(run, edit)
    with pytest.raises(RunError, match="line "):
        load_folder(run)


def test_samples_of_another_task_copied_over_are_refused(real_run: Path, tmp_path: Path, capsys):
    run = _copy(real_run, tmp_path / "run")
    shutil.copy(_samples(run, "coldbias_music_gender"), _samples(run))
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert "line 1: a document of domain 'music'" in err and f"samples of {TASK}" in err, err


def test_the_leaderboard_skips_a_bad_run_and_keeps_the_others(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    good = _copy(real_run, tmp_path / "good")
    bad = _copy(real_run, tmp_path / "bad")
    shutil.copy(_samples(bad, "coldbias_music_gender"), _samples(bad))
    (results,) = bad.rglob("results_*.json")
    data = json.loads(results.read_text())
    data["model_name"] = "other/model"
    results.write_text(json.dumps(data))
    broken = _copy(real_run, tmp_path / "broken")
    (results,) = broken.rglob("results_*.json")
    results.write_text(json.dumps({**json.loads(results.read_text()), "config": []}))
    lb = tmp_path / "lb"
    assert cli.main(["leaderboard", str(good), str(bad), str(broken), "--output", str(lb)]) == 0
    err = capsys.readouterr().err
    assert "a document of domain 'music'" in err and "'config' is list" in err, err
    assert "Traceback" not in err
    assert len(pd.read_csv(lb / "leaderboard_wide.csv")) == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("config", []),
        ("configs", {TASK: []}),
        ("configs", {TASK: {"metadata": [1]}}),
        ("results", {TASK: "x"}),
        ("n-samples", {TASK: 3}),
        ("model_name", ["a"]),
    ],
)
def test_results_fields_of_the_wrong_type_are_one_line(
    real_run: Path, tmp_path: Path, capsys, field: str, value: object
) -> None:
    run = _copy(real_run, tmp_path / "run")
    (results,) = run.rglob("results_*.json")
    results.write_text(json.dumps({**json.loads(results.read_text()), field: value}))
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert "not an lm-eval results file" in err and "Traceback" not in err, err


def test_every_task_kind_passes_the_check(tmp_path: Path, capsys) -> None:
    """No false refusal: intersection, implicit, context, mitigation, placebo and reverse tasks
    of a run of this version equal their rebuilt documents."""
    from tests.synthetic import SyntheticRecommender, run_synthetic

    tasks = [
        "coldbias_movie_gender_x_age", "coldbias_movie_implicit_gender",
        "coldbias_music_context_gender", "coldbias_movie_mitigation_age",
        "coldbias_movie_placebo", "coldbias_reverse_movie_gender",
    ]  # fmt: skip
    meta = {**SMALL, "coldbias_order": "fixed", "coldbias_seed": 7}
    run_synthetic(SyntheticRecommender(seed=3), tasks, meta, output_path=tmp_path / "run")
    assert cli.main(["report", str(tmp_path / "run"), "--output", str(tmp_path / "rep")]) == 0, (
        capsys.readouterr().err
    )


def test_ids_swapped_in_one_repeat_are_refused_without_rebuilding(real_run: Path, tmp_path: Path):
    run = _copy(real_run, tmp_path / "run")
    _edit(run, _swap_personas)
    with pytest.raises(RunError, match="' says "):
        load_folder(run)


@pytest.mark.parametrize("value", [10**30, "three", True])
def test_unreadable_recorded_settings_refuse_the_task(
    real_run: Path, tmp_path: Path, capsys, value: object
) -> None:
    """An edited setting must not switch the checks off."""
    run = _copy(real_run, tmp_path / "run")

    def edit(data: dict) -> None:
        data["configs"][TASK]["metadata"]["coldbias_k"] = value

    _set_results(run, edit)
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert f"results config of {TASK}: its recorded settings cannot be read" in err, err


def test_reverse_samples_of_another_group_copied_over_are_refused(tmp_path: Path, capsys):
    from tests.synthetic import SyntheticRecommender, run_synthetic

    tasks = ["coldbias_reverse_movie_gender", "coldbias_reverse_movie_religion"]
    meta = {**SMALL, "coldbias_items": 4}
    run_synthetic(SyntheticRecommender(seed=3), tasks, meta, output_path=tmp_path / "run")
    run = tmp_path / "run"
    shutil.copy(_samples(run, tasks[1]), _samples(run, tasks[0]))
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert "line 1: a document of domain 'movie', group 'religion'" in err, err
