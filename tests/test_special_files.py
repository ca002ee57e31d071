"""Special files, sizes, huge runs and settings: a FIFO, a device link or a file beyond the limits
given as a catalog, persona file, samples or results, huge repeat counts, out-of-range seeds,
persona ids with paths, taskgen without --out: one message, never a traceback or a hang
(issues 24 and 31)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coldbias_tasks.app import cli
from coldbias_tasks.app.launch import prepare
from coldbias_tasks.core.errors import (
    CatalogError,
    PersonaError,
    SettingsError,
)
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.core.settings import Settings
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.personas import load_personas
from coldbias_tasks.lmeval import taskgen
from tests.run_fixtures import ROOT, TASK, synthetic_run
from tests.test_bad_input import USER_PERSONAS
from tests.test_template_sandbox import _BODY


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder of one task (synthetic answers)."""
    return synthetic_run(tmp_path_factory, [TASK])


# --- 6. special files, sizes, huge runs, settings: a message, never a traceback or a hang ----


def _special(tmp_path: Path, kind: str, name: str) -> Path:
    """A FIFO, a symlink to /dev/zero, or a sparse file beyond the limits, named ``name``."""
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        with path.open("wb") as fh:
            fh.truncate((1 << 30) + 1)  # sparse: no disk used
    return path


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
@pytest.mark.parametrize("name", ["c.jsonl", "c.csv", "c.json"])
def test_catalog_that_is_not_a_regular_file_or_too_big(tmp_path: Path, kind: str, name: str):
    path = _special(tmp_path, kind, name)
    message = "more than the 67,108,864" if kind == "huge" else "not a regular file"
    with pytest.raises(CatalogError, match=message):
        load_catalog(str(path))


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_persona_file_that_is_not_a_regular_file_or_too_big(tmp_path: Path, kind: str) -> None:
    path = _special(tmp_path, kind, "p.yaml")
    message = "more than the" if kind == "huge" else "not a regular file"
    with pytest.raises(PersonaError, match=message):
        load_personas(path)


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_samples_or_results_that_are_not_regular_files(
    real_run: Path, tmp_path: Path, capsys, kind: str
) -> None:
    for which in ("samples", "results"):
        run = tmp_path / f"{which}_{kind}"
        shutil.copytree(real_run, run)
        (path,) = run.rglob(f"{which}_*.json*")
        path.unlink()
        _special(path.parent, kind, path.name)
        assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
        err = capsys.readouterr().err
        assert str(path) in err and "Traceback" not in err, err
        assert ("more than the" if kind == "huge" else "not a regular file") in err


def test_huge_repeat_counts_need_the_setting(capsys) -> None:
    meta = {"coldbias_repeats": 10_000, "coldbias_n_items": 20, "coldbias_k": 3}
    with pytest.raises(SettingsError, match=r"coldbias_movie_gender: \d[\d,]+ requests") as err:
        build_docs("movie", "gender", "plain", meta)
    assert "h at 3.7 s per request" in str(err.value)
    assert "coldbias_max_requests" in str(err.value)
    argv = ["--tasks", "coldbias_movie_gender", "--metadata", json.dumps(meta)]
    assert cli.main(["eval", *argv]) == 1
    err_text = capsys.readouterr().err
    assert "requests" in err_text and "Traceback" not in err_text
    allowed = json.dumps({**meta, "coldbias_max_requests": 100_000})
    launch = prepare(["--tasks", "coldbias_movie_gender", "--metadata", allowed])
    assert any("requests" in n and " h at " in n for n in launch.notes)
    with pytest.raises(SettingsError, match="coldbias_reverse_movie_gender"):
        prepare(["--tasks", "coldbias_reverse_movie_gender", "--metadata", json.dumps(
            {"coldbias_repeats": 10_000})])  # fmt: skip


@pytest.mark.parametrize("seed", [2**70, -1, 2**63])
def test_out_of_range_seed_is_a_settings_error(seed: int, capsys) -> None:
    with pytest.raises(SettingsError, match=r"coldbias_seed.*0 … 2\*\*63 − 1"):
        Settings.from_metadata({"coldbias_seed": seed})
    argv = ["--tasks", "coldbias_movie_gender", "--metadata", json.dumps({"coldbias_seed": seed})]
    assert cli.main(["eval", *argv]) == 1
    assert "coldbias_seed" in capsys.readouterr().err


def test_persona_id_with_a_path_is_refused_before_lm_eval(tmp_path: Path, capsys) -> None:
    personas = tmp_path / "p.yaml"
    personas.write_text(USER_PERSONAS.replace("id: vegan", "id: ../../etc"))
    with pytest.raises(PersonaError, match=re.escape("'../../etc' must be letters, digits")):
        load_personas(personas)
    meta = json.dumps({"coldbias_personas": str(personas)})
    assert cli.main(["eval", "--tasks", "coldbias_movie_gender", "--metadata", meta]) == 1
    err = capsys.readouterr().err
    assert "../../etc" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"coldbias_template": "/dev/zero"}, "not a regular file"),
        ({"coldbias_catalog": "/dev/zero"}, "unsupported catalog format"),
        ({"coldbias_catalog": "FIFO.jsonl"}, "not a regular file"),
        ({"coldbias_personas": "/dev/zero"}, "not a regular file"),
        ({"coldbias_template": "EVIL.jinja"}, "unsafe"),
        ({"coldbias_template": "INCLUDE.jinja"}, "not a file of the template's own folder"),
    ],
)
def test_special_files_in_eval_settings_are_one_line(
    tmp_path: Path, capsys, meta: dict, message: str
) -> None:
    os.mkfifo(tmp_path / "FIFO.jsonl")
    (tmp_path / "EVIL.jinja").write_text("{{ cycler.__init__.__globals__.os }}" + _BODY)
    (tmp_path / "INCLUDE.jinja").write_text("{% include '/etc/passwd' %}" + _BODY)
    for name in ("FIFO.jsonl", "EVIL.jinja", "INCLUDE.jinja"):
        meta = {k: v.replace(name, str(tmp_path / name)) for k, v in meta.items()}
    argv = ["--tasks", "coldbias_movie_gender", "--metadata", json.dumps(meta)]
    assert cli.main(["eval", *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


# --- 3. taskgen ------------------------------------------------------------------------------


def test_taskgen_with_personas_needs_out(tmp_path: Path, capsys) -> None:
    personas = tmp_path / "p.yaml"
    personas.write_text("x: 1\n")
    before = sorted(p.name for p in tasks_dir().rglob("*.yaml"))
    with pytest.raises(SystemExit) as err:
        taskgen.main(["--personas", str(personas)])
    assert err.value.code == 2
    assert "--personas needs --out DIR" in capsys.readouterr().err
    assert sorted(p.name for p in tasks_dir().rglob("*.yaml")) == before


def test_a_fifo_among_the_include_path_yamls_is_skipped(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    os.mkfifo(tasks / "pipe.yaml")
    (tasks / "mine.yaml").write_text("task: my_task\n")
    code = (
        "from coldbias_tasks.app.launch import task_names; import sys; "
        "print(sorted(task_names(sys.argv[1])))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tasks)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.stdout.strip() == "['my_task']", proc.stderr
