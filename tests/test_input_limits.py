"""Resource bombs and odd files are refused in bounded time and memory, in one line naming the
file, the field and the fix: YAML whose aliases expand to too much text (not only too many
nodes), JSON nested too deeply wherever it is read (``core/files/jsonl.json_value``, the one
helper), wrong types in a results file and its served-run block, a big results file."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from coldbias_tasks.app import cli
from coldbias_tasks.core.errors import CatalogError, PersonaError
from coldbias_tasks.core.files.yamlio import EXPANDED_CHARS
from coldbias_tasks.core.parsing.answer_text import json_values
from coldbias_tasks.core.resources import data_dir
from coldbias_tasks.core.world.personas import load_personas
from coldbias_tasks.core.world.reference import read_reference
from tests.synthetic import SyntheticRecommender, run_synthetic

TASK = "coldbias_movie_gender"
SMALL = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}
DEEP = "[" * 100_000 + "]" * 100_000


def test_aliases_of_a_long_string_are_refused_by_size(tmp_path: Path) -> None:
    """Few nodes (20k aliases), 80 MB of text once expanded: the node limit alone passed it."""
    path = tmp_path / "personas.yaml"
    text = "x" * 4_000
    path.write_text("\n".join([f"s: &s {text}", "l:", *["  - *s"] * 20_000]))
    assert 20_000 * len(text) > EXPANDED_CHARS
    start = time.monotonic()
    with pytest.raises(PersonaError) as err:
        load_personas(path)
    assert "characters (an alias bomb)" in str(err.value) and str(path) in str(err.value)
    assert time.monotonic() - start < 60


def _reference_copy(tmp_path: Path, sources: str, line: dict | None = None) -> Path:
    folder = tmp_path / "reference"
    folder.mkdir()
    shutil.copy(data_dir() / "reference" / "movie.jsonl", folder / "movie.jsonl")
    if line is not None:
        with (folder / "movie.jsonl").open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
    (folder / "sources.json").write_text(sources)
    return folder / "movie.jsonl"


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        ('{"movie": ' + DEEP + "}", "nested more than 64 levels"),
        ('{"movie": {"coverage": ["a"]}}', "movie.coverage is ['a']"),
        ("[]", "no 'coverage' sentence for 'movie'"),
    ],
)
def test_a_bad_reference_sources_file_is_one_line(
    tmp_path: Path, sources: str, message: str
) -> None:
    path = _reference_copy(tmp_path, sources)
    with pytest.raises(CatalogError) as err:
        read_reference("movie", path)
    assert message in str(err.value) and "sources.json" in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("year", [True, "1994", 1e9])
def test_a_reference_year_of_the_wrong_type_is_refused(tmp_path: Path, year: object) -> None:
    good = json.dumps({"movie": {"coverage": "films"}})
    path = _reference_copy(tmp_path, good, {"id": "zz1", "title": "Zed", "year": year})
    with pytest.raises(CatalogError, match=r"year is .*not a year; write it as a number"):
        read_reference("movie", path)


def test_a_deeply_nested_answer_is_skipped_not_a_crash() -> None:
    assert list(json_values("```json\n" + DEEP + "\n```", inline=False)) == []
    assert list(json_values(DEEP, inline=True)) == []


# --- results files ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "out"
    run_synthetic(SyntheticRecommender(seed=2), [TASK], SMALL, output_path=out)
    return out


def _edited(real_run: Path, dest: Path, edit) -> Path:
    shutil.copytree(real_run, dest)
    (results,) = dest.rglob("results_*.json")
    data = json.loads(results.read_text())
    edit(data)
    results.write_text(json.dumps(data))
    return results


def _serving(**fields: object):
    def edit(data: dict) -> None:
        data["config"]["coldbias_serving"] = {"requests": 3, "wall_s": 1.5, **fields}

    return edit


WRONG = {
    "wall_s as text": (_serving(wall_s="fast"), "coldbias_serving.wall_s is 'fast'"),
    "retries negative": (_serving(retries=-1), "coldbias_serving.retries is -1"),
    "tokens as text": (_serving(prompt_tokens="9"), "coldbias_serving.prompt_tokens"),
    "serving a list": (
        lambda d: d["config"].update(coldbias_serving=[1]),
        "coldbias_serving is list",
    ),
    "seeds a number": (_serving(seeds=7), "coldbias_serving.seeds is 7"),
}


@pytest.mark.parametrize(("edit", "message"), list(WRONG.values()), ids=list(WRONG))
def test_wrong_types_in_the_serving_block_refuse_before_writing(
    real_run: Path, tmp_path: Path, capsys, edit, message: str
) -> None:
    results = _edited(real_run, tmp_path / "run", edit)
    rep = tmp_path / "rep"
    assert cli.main(["report", str(tmp_path / "run"), "--output", str(rep)]) == 1
    err = capsys.readouterr().err
    assert message in err and str(results) in err and "rerun lm_eval" in err, err
    assert "unexpected error" not in err and not rep.exists()


ODD_FIELDS = {
    "date as text": lambda d: d.update(date="yesterday"),
    "versions a list": lambda d: d.update(versions=[]),
    "n-samples a list": lambda d: d.update({"n-samples": []}),
    "higher_is_better a number": lambda d: d.update(higher_is_better={TASK: 5}),
    "group_subtasks a number": lambda d: d.update(group_subtasks={"g": 5}),
    "configs entry a list": lambda d: d.update(configs={TASK: []}),
    "model_args a list": lambda d: d["config"].update(model_args=["a"]),
    "config a list": lambda d: d.update(config=[]),
}


@pytest.mark.parametrize("edit", list(ODD_FIELDS.values()), ids=list(ODD_FIELDS))
def test_results_fields_of_the_wrong_type_never_crash(
    real_run: Path, tmp_path: Path, capsys, edit
) -> None:
    _edited(real_run, tmp_path / "run", edit)
    code = cli.main(["report", str(tmp_path / "run"), "--output", str(tmp_path / "rep")])
    err = capsys.readouterr().err
    assert code in (0, 1) and "unexpected error" not in err and "Traceback" not in err, err
    assert code == 0 or err.count("\n") == 1


def test_a_50_mb_results_file_is_read(real_run: Path, tmp_path: Path, capsys) -> None:
    _edited(real_run, tmp_path / "run", lambda d: d.update(padding="x" * (50 << 20)))
    rep, lb = tmp_path / "rep", tmp_path / "lb"
    assert cli.main(["report", str(tmp_path / "run"), "--output", str(rep)]) == 0
    assert cli.main(["leaderboard", str(tmp_path / "run"), "--output", str(lb)]) == 0
    assert "unexpected error" not in capsys.readouterr().err
    assert (rep / "report.html").stat().st_size < 20 << 20


def _eee(real_run: Path, tmp_path: Path, capsys, text_edit) -> str:
    pytest.importorskip("every_eval_ever", reason="every-eval-ever is not installed")
    shutil.copytree(real_run, tmp_path / "run")
    (results,) = (tmp_path / "run").rglob("results_*.json")
    results.write_text(text_edit(results.read_text()))
    code = cli.main(["eee", str(tmp_path / "run"), "--output", str(tmp_path / "eee")])
    err = capsys.readouterr().err
    assert code == 1 and "unexpected error" not in err and err.count("\n") == 1, err
    assert str(results) in err
    return err


def test_eee_refuses_a_deeply_nested_results_file(real_run: Path, tmp_path: Path, capsys):
    err = _eee(real_run, tmp_path, capsys, lambda t: t[:-1] + ', "deep": ' + DEEP + "}")
    assert "nested more than 64 levels" in err and "rerun lm_eval" in err


def test_eee_names_the_reason_of_a_bad_date(real_run: Path, tmp_path: Path, capsys) -> None:
    err = _eee(
        real_run, tmp_path, capsys, lambda t: json.dumps({**json.loads(t), "date": "monday"})
    )
    assert "date is 'monday', not seconds since 1970" in err and "restore the file" in err
