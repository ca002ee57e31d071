"""Plain ``lm_eval --tasks coldbias_movie``: the copy of the tasks inside lm-eval's own task
folder (``coldbias tasks install``), its marker, staleness and undo, and two subprocess runs of
the plain ``lm_eval`` command of this venv from an unrelated folder (``validate``, and one task
with lm-eval's ``dummy`` model).

The subprocess tests install into the lm-eval of the venv under test when the copy is missing
or stale (CI runs scripts/setup.sh first, which installs it) and remove it afterwards only if
it was not there before.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

import pytest

from coldbias_tasks.app import cli
from coldbias_tasks.core.errors import OutputError
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.lmeval import install

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A private copy of the package's tasks (so a test may change it)."""
    folder = tmp_path / "src_tasks"
    shutil.copytree(tasks_dir(), folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_install_is_a_real_copy_with_a_marker_and_idempotent(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "lm_eval_tasks" / install.FOLDER
    target.parent.mkdir()
    assert not install.status(source, target).present
    message = install.install(source, target)
    assert "installed" in message and "coldbias tasks uninstall" in message
    assert target.is_dir() and not target.is_symlink()
    assert (target / "movie" / "coldbias_movie_gender.yaml").read_bytes() == (
        source / "movie" / "coldbias_movie_gender.yaml"
    ).read_bytes()
    marker = json.loads((target / install.MARKER).read_text())
    assert marker["tasks_sha256"] == install.tree_sha256(source)
    assert marker["coldbias_version"]
    state = install.status(source, target)
    assert state.fresh and not state.stale and "up to date" in state.describe()
    assert install.install(source, target).startswith("already installed")
    assert not list(target.parent.parent.glob(".coldbias-staging-*"))  # staging cleaned up


def test_regenerated_tasks_make_the_copy_stale_and_refresh_replaces_it(
    source: Path, tmp_path: Path
) -> None:
    target = tmp_path / install.FOLDER
    install.install(source, target)
    (source / "movie" / "coldbias_movie_gender.yaml").write_text("task: changed\n")
    state = install.status(source, target)
    assert state.stale and "STALE" in state.describe() and "tasks changed" in state.describe()
    message = install.refresh_if_installed(source, target)
    assert message and message.startswith("refreshed")
    assert (target / "movie" / "coldbias_movie_gender.yaml").read_text() == "task: changed\n"
    assert install.status(source, target).fresh
    assert install.refresh_if_installed(source, target) is None  # fresh: nothing to do


def test_an_edited_copy_is_stale(source: Path, tmp_path: Path) -> None:
    target = tmp_path / install.FOLDER
    install.install(source, target)
    (target / "movie" / "extra.yaml").write_text("task: mine\n")
    assert "edited since it was installed" in install.status(source, target).describe()


def test_uninstall_removes_only_a_folder_with_the_marker(source: Path, tmp_path: Path) -> None:
    target = tmp_path / install.FOLDER
    assert install.uninstall(target).startswith("nothing to remove")
    install.install(source, target)
    assert install.uninstall(target).startswith("removed")
    assert not target.exists()
    target.mkdir()
    (target / "mine.yaml").write_text("task: mine\n")
    with pytest.raises(OutputError, match="not written by coldbias"):
        install.uninstall(target)
    with pytest.raises(OutputError, match="not written by coldbias"):
        install.install(source, target)
    assert (target / "mine.yaml").exists()
    assert "left alone" in install.status(source, target).describe()


def test_tasks_command_dir_and_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tasks", "dir"]) == 0
    assert capsys.readouterr().out.strip() == str(tasks_dir())
    code = cli.main(["tasks", "status"])
    out = capsys.readouterr().out
    assert ("up to date" in out) == (code == 0)


def test_pyproject_declares_the_upstream_entry_point() -> None:
    """The ``lm_eval.tasks`` group of the upstream proposal (PR #4015) names the package whose
    folder holds the task YAMLs (its resolver imports the value and scans that folder)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    value = meta["project"]["entry-points"]["lm_eval.tasks"]["coldbias"]
    assert ":" not in value
    folders = [Path(p) for p in import_module(value).__path__]
    assert any((f / "movie" / "coldbias_movie_gender.yaml").exists() for f in folders)


@pytest.fixture(scope="module")
def installed() -> Iterator[Path]:
    """The tasks inside this venv's lm-eval for the duration of the module's plain-lm_eval
    tests; removed afterwards only when the test put them there."""
    before = install.status()
    if not before.fresh:
        install.install()
    yield install.status().target
    if not before.present:
        install.uninstall()


def _plain_lm_eval(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "lm_eval", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_plain_lm_eval_validate_finds_the_tasks_from_any_folder(
    installed: Path, tmp_path: Path
) -> None:
    proc = _plain_lm_eval(["validate", "--tasks", "coldbias_movie,coldbias_movie_gender"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "All tasks found and valid" in proc.stdout


def test_plain_lm_eval_runs_a_task_by_name(installed: Path, tmp_path: Path) -> None:
    """lm-eval's own ``dummy`` model (answers "lol": every list empty) through the plain CLI:
    the results carry coldbias' metrics, computed by the installed copy's aggregations."""
    metadata = {"coldbias_n_items": 20, "coldbias_k": 5, "coldbias_repeats": 2,
                "coldbias_replicates": 1}  # fmt: skip
    proc = _plain_lm_eval(
        ["--model", "dummy", "--tasks", "coldbias_movie_gender", "--metadata",
         json.dumps(metadata), "--output_path", "out", "--log_samples"],
        tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (results_file,) = (tmp_path / "out").rglob("results_*.json")
    results = json.loads(results_file.read_text())["results"]["coldbias_movie_gender"]
    for key in ("iou_excess,ranked", "iou_disparity,ranked", "exact_k_rate,ranked"):
        assert key in results
    assert results["empty_rate,ranked"] == 1.0
    assert list((tmp_path / "out").rglob("samples_coldbias_movie_gender_*.jsonl"))


def test_coldbias_eval_indexes_its_own_tasks_not_the_copy(installed: Path) -> None:
    """With the copy installed, ``coldbias eval`` (its include path) sees each coldbias name
    once, from the package's folder: no duplicate index entries, no override warnings."""
    import logging

    from lm_eval.tasks import TaskManager  # noqa: F401  (imported before patching)

    from coldbias_tasks.app.launch import _index_also

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(level=logging.WARNING)
    logger = logging.getLogger("lm_eval.tasks._index")
    logger.addHandler(handler)
    try:
        with _index_also([]):
            import lm_eval.tasks

            manager = lm_eval.tasks.TaskManager(include_path=str(tasks_dir()))
    finally:
        logger.removeHandler(handler)
    entry = manager.task_index["coldbias_movie_gender"]
    assert entry.yaml_path is not None and tasks_dir() in entry.yaml_path.resolve().parents
    assert not [r for r in records if "coldbias" in r.getMessage()]
    assert not [
        e for e in manager.task_index.values() if e.yaml_path and installed in e.yaml_path.parents
    ]
