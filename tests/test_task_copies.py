"""``coldbias tasks install/uninstall/status`` delete only what coldbias wrote and marked: a
marker counts when its content is coldbias's own (not any JSON object), files coldbias did not
write are named and kept, a marker that is a FIFO, a device link or huge is refused without
hanging or reading it whole, and a staging copy left by a killed install is named by ``status``
and cleaned by the next install (coldbias_tasks.lmeval.install)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coldbias_tasks.core.errors import OutputError
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.lmeval import install

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def source(tmp_path: Path) -> Path:
    folder = tmp_path / "src_tasks"
    shutil.copytree(tasks_dir(), folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """Where lm-eval's task folder would hold the copy (staging goes two levels up)."""
    folder = tmp_path / "lm_eval" / "tasks" / install.FOLDER
    folder.parent.mkdir(parents=True)
    return folder


def _run(code: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-c", code, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize("marker", ["{}", '{"written_by": "someone"}', "[]", "not json"])
def test_any_json_object_is_not_a_marker(target: Path, source: Path, marker: str) -> None:
    target.mkdir()
    (target / "precious.yaml").write_text("task: mine\n")
    (target / install.MARKER).write_text(marker)
    with pytest.raises(OutputError, match="not written by coldbias"):
        install.uninstall(target)
    with pytest.raises(OutputError, match="not written by coldbias"):
        install.install(source, target)
    assert (target / "precious.yaml").read_text() == "task: mine\n"
    assert "left alone" in install.status(source, target).describe()


def test_files_coldbias_did_not_write_are_named_and_kept(target: Path, source: Path) -> None:
    install.install(source, target)
    mine = target / "movie" / "precious.yaml"
    mine.write_text("task: mine\n")
    edited = target / "movie" / "coldbias_movie_gender.yaml"
    edited.write_text(edited.read_text() + "# my note\n")
    (source / "movie" / "coldbias_movie_gender.yaml").write_text("task: regenerated\n")
    line = install.status(source, target).describe()
    assert "movie/precious.yaml" in line and "movie/coldbias_movie_gender.yaml" in line
    assert "fix: move them out" in line
    for act in (lambda: install.install(source, target), lambda: install.uninstall(target)):
        with pytest.raises(OutputError) as err:
            act()
        assert "movie/precious.yaml" in str(err.value) and "\n" not in str(err.value)
    assert mine.read_text() == "task: mine\n" and "# my note" in edited.read_text()
    mine.unlink()
    edited.unlink()
    assert install.install(source, target).startswith("refreshed")
    assert install.uninstall(target).startswith("removed") and not target.exists()


_STATUS = """
import sys
from pathlib import Path
from coldbias_tasks.lmeval import install
target = Path(sys.argv[1])
print(install.status(Path(sys.argv[2]), target).describe())
try:
    install.uninstall(target)
except Exception as err:
    print(type(err).__name__, err)
"""


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "symlink", "huge"])
def test_odd_markers_are_refused_without_hanging(
    target: Path, source: Path, tmp_path: Path, kind: str
) -> None:
    install.install(source, target)
    marker = target / install.MARKER
    good = marker.read_text()
    marker.unlink()
    if kind == "fifo":
        os.mkfifo(marker)
    elif kind == "dev-zero":
        marker.symlink_to("/dev/zero")
    elif kind == "symlink":
        (tmp_path / "elsewhere.json").write_text(good)
        marker.symlink_to(tmp_path / "elsewhere.json")
    else:
        with marker.open("w") as out:
            out.write(good[:-2] + ', "pad": "')
            out.truncate(install.MARKER_LIMIT * 4)
    proc = _run(_STATUS, str(target), str(source), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "not written by coldbias" in proc.stdout and "OutputError" in proc.stdout
    assert (target / "movie").is_dir()


_KILLED = """
import os, signal, sys
from pathlib import Path
from coldbias_tasks.lmeval import install
real = os.replace
def replace(src, dst):
    if Path(dst) == Path(sys.argv[1]):  # the new copy about to go in: the old one moved aside
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst)
install.os.replace = replace
install.install(Path(sys.argv[2]), Path(sys.argv[1]))
"""


def test_a_killed_install_is_named_and_cleaned_by_the_next(target: Path, source: Path) -> None:
    install.install(source, target)
    (source / "movie" / "coldbias_movie_gender.yaml").write_text("task: regenerated\n")
    proc = _run(_KILLED, str(target), str(source))
    assert proc.returncode == -9
    staged = list(target.parent.parent.glob(".coldbias-staging-*"))
    assert len(staged) == 1 and not target.exists()
    line = install.status(source, target).describe()
    assert str(staged[0]) in line and "killed install" in line
    assert install.install(source, target).startswith(("refreshed", "installed"))
    assert not list(target.parent.parent.glob(".coldbias-staging-*"))
    assert (target / "movie" / "coldbias_movie_gender.yaml").read_text() == "task: regenerated\n"
    assert install.status(source, target).fresh


def test_a_stranger_staging_folder_is_named_not_deleted(target: Path, source: Path) -> None:
    stranger = target.parent.parent / ".coldbias-staging-mine"
    stranger.mkdir()
    (stranger / "keep.txt").write_text("mine")
    install.install(source, target)
    assert (stranger / "keep.txt").read_text() == "mine"
    assert str(stranger) in install.status(source, target).describe()
    json.loads((target / install.MARKER).read_text())  # a good marker was written
