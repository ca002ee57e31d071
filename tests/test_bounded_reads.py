"""Bounded reads: YAML alias bombs, deep YAML and JSON, hostile metadata, huge setting numbers,
deep catalogs, samples lines and EEE records, FIFO tokenizer configs and seed-study files, big
YAML files are refused in bounded time with one line (issue 31). Commands that could hang run
in a subprocess with a timeout."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from coldbias_tasks.app import cli
from coldbias_tasks.core.errors import ColdbiasError, PersonaError, RunError, SettingsError
from coldbias_tasks.core.files.jsonl import json_object
from coldbias_tasks.core.settings import Settings
from coldbias_tasks.core.world.personas import load_personas
from tests import seed_fixture as fx
from tests.run_fixtures import (
    DEEP,
    ROOT,
    run_cli,
)
from tests.run_fixtures import one_line_error as _one_line_error

# --- 4. bounded reads ------------------------------------------------------------------------


def _bomb(levels: int = 9) -> str:
    text = 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    for i in range(1, levels + 1):
        text += f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n"
    return text


@pytest.mark.parametrize("where", ["version", "label"])
def test_yaml_alias_bomb_in_a_persona_file_is_refused_fast(tmp_path: Path, where: str) -> None:
    base = (ROOT / "data" / "personas.yaml").read_text()
    if where == "version":
        text = _bomb() + base.replace("version:", "version: *a9\nold_version:", 1)
    else:
        text = _bomb() + base
    path = tmp_path / "p.yaml"
    path.write_text(text)
    start = time.perf_counter()
    with pytest.raises(PersonaError, match="alias bomb"):
        load_personas(str(path))
    assert time.perf_counter() - start < 1.0


def test_yaml_alias_bomb_in_a_metric_declaration_is_refused(tmp_path: Path) -> None:
    from coldbias_tasks.analysis.presentation import load_presentation as load_declarations

    path = tmp_path / "metrics.yaml"
    lines = [
        f"- name: m{i}\n  label: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]"
        for i in range(1, 10)
    ]
    path.write_text("- name: m0\n  label: &a0 [lol, lol]\n" + "\n".join(lines) + "\n")
    start = time.perf_counter()
    with pytest.raises(SettingsError, match="alias bomb"):
        load_declarations(path)
    assert time.perf_counter() - start < 1.0


def test_deep_yaml_and_json_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("version: " + DEEP)
    with pytest.raises(PersonaError, match="levels deep"):
        load_personas(str(path))
    with pytest.raises(RunError, match="levels deep"):
        json_object('{"a": ' + DEEP + "}", RunError, "here", "fix it")
    assert json_object('{"a": "[[[[[[[[[[" }', RunError, "here", "fix")  # brackets in text


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ('{"coldbias_alpha": 1' + "0" * 400 + "}", "401 digits"),
        ('{"coldbias_k": 1' + "0" * 400 + "}", "401 digits"),
        ('{"coldbias_k": 1' + "0" * 5000 + "}", "unreadable JSON"),
        ('{"coldbias_k": ' + DEEP + "}", "levels deep"),
    ],
)
def test_hostile_metadata_is_one_line(capsys, metadata: str, message: str) -> None:
    code = cli.main(["eval", "--tasks", "coldbias_movie_gender", "--metadata", metadata])
    err = capsys.readouterr().err
    assert code == 1 and message in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1


def test_huge_setting_numbers_are_refused_before_arithmetic() -> None:
    for key in ("coldbias_alpha", "coldbias_repeats", "coldbias_seed"):
        with pytest.raises(SettingsError, match="beyond 2\\*\\*63"):
            Settings.from_metadata({key: 10**400})


@pytest.mark.parametrize("kind", ["catalog", "samples", "eee"])
def test_deep_catalog_samples_line_and_eee_record(tmp_path: Path, capsys, kind: str) -> None:
    if kind == "catalog":
        from coldbias_tasks.core.world.catalog import load_catalog

        for name in ("c.json", "c.jsonl"):
            (tmp_path / name).write_text(DEEP + "\n")
            with pytest.raises(ColdbiasError, match="levels deep"):
                load_catalog(str(tmp_path / name))
        return
    run = tmp_path / "run" / "m"
    run.mkdir(parents=True)
    stamp = "2025-01-01T00-00-00.000000"
    results = {"results": {"coldbias_movie_gender": {}}, "configs": {}}
    (run / f"results_{stamp}.json").write_text(json.dumps(results))
    if kind == "samples":
        (run / f"samples_coldbias_movie_gender_{stamp}.jsonl").write_text(DEEP + "\n")
        assert cli.main(["report", str(tmp_path / "run"), "--output", str(tmp_path / "r")]) == 1
    else:
        (tmp_path / "run" / "eee.json").write_text(
            '{"schema_version": "0.1", "model_info": {}, "evaluation_results": ' + DEEP + "}"
        )
        cli.main(["leaderboard", str(tmp_path / "run"), "--output", str(tmp_path / "lb")])
    err = capsys.readouterr().err
    assert "levels deep" in err and "Traceback" not in err, err


def test_fifo_as_a_tokenizer_config_is_refused_not_read(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.mkdir()
    os.mkfifo(model / "tokenizer_config.json")
    proc = run_cli(
        "eval", "--model", "hf", "--model_args", f"pretrained={model}",
        "--tasks", "coldbias_movie_gender", timeout=60,
    )  # fmt: skip
    _one_line_error(proc, "not a regular file")


def test_truncated_tokenizer_config_is_one_line(tmp_path: Path, capsys) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "tokenizer_config.json").write_text('{"chat_template": "{{ x }}')
    argv = ["--model", "hf", "--model_args", f"pretrained={model}", "--tasks", "coldbias_movie"]
    assert cli.main(["eval", *argv]) == 1
    err = capsys.readouterr().err
    assert "tokenizer_config.json: malformed JSON" in err and "Traceback" not in err, err


# --- seed-study clones -----------------------------------------------------------------------


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return fx.write_fixture(tmp_path / "clone")


def test_fifo_as_a_seed_study_file_is_refused_not_read(clone: Path, tmp_path: Path) -> None:
    target = clone / "data" / "datasets" / "movie.json"
    target.unlink()
    os.mkfifo(target)
    proc = run_cli("import-seed-study", str(clone), "--output", str(tmp_path / "o"), timeout=60)
    _one_line_error(proc, "not a regular file")


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        ("config/sensitive_attributes.json", '["gender", "age"]', "group → list of values"),
        ("config/config_inference", "[parameters]\nseeds = zero, one\n", "seeds = 'zero, one'"),
        ("config/config_inference", "seeds = 1\n", "not an INI file"),
    ],
)
def test_malformed_seed_study_clone_is_one_line(
    clone: Path, tmp_path: Path, capsys, file: str, text: str, message: str
) -> None:
    (clone / file).write_text(text)
    assert cli.main(["import-seed-study", str(clone), "--output", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


def test_seed_study_output_naming_a_file_is_one_line(clone: Path, tmp_path: Path, capsys):
    (tmp_path / "file").write_text("mine")
    assert cli.main(["import-seed-study", str(clone), "--output", str(tmp_path / "file")]) == 1
    err = capsys.readouterr().err
    assert "a file, not a folder" in err and (tmp_path / "file").read_text() == "mine"


def test_a_big_yaml_file_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("version: 2\nnotes: [" + "1, " * 2_000_000 + "1]\n")
    start = time.perf_counter()
    with pytest.raises(PersonaError, match="more than the 4,194,304"):
        load_personas(path)
    assert time.perf_counter() - start < 1.0
