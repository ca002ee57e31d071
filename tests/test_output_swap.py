"""An interrupted report or leaderboard write never leaves a mixed folder: a destination that
holds only coldbias's files is replaced by renaming the complete new folder into place (the
old one renamed aside first), and a SIGKILL at any step leaves the old or the new complete
folder, which the next run recovers (coldbias_tasks.app.outputs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coldbias_tasks.app.outputs import MANIFEST, SCRATCH_MARKER, OutputFolder

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("leaderboard.html", "leaderboard.md", "leaderboard_long.csv", "sub/plot.png")

_KILL = """
import os, signal, sys
from coldbias_tasks.app import outputs
from coldbias_tasks.app.outputs import OutputFolder
def step(name):
    if name == sys.argv[2]:
        os.kill(os.getpid(), signal.SIGKILL)
outputs._step = step
with OutputFolder(sys.argv[1], "test") as tmp:
    for name in sys.argv[3:]:
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text("new " + name)
"""


def _write(dest: Path, prefix: str, names: tuple[str, ...]) -> None:
    with OutputFolder(dest, "test") as tmp:
        for name in names:
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_text(f"{prefix} {name}")


def _contents(dest: Path) -> dict[str, str]:
    return {p.relative_to(dest).as_posix(): p.read_text() for p in dest.rglob("*") if p.is_file()}


@pytest.mark.parametrize("at", ["marked", "aside", "placed", "unmarked"])
def test_a_kill_during_the_folder_swap_leaves_one_complete_folder(tmp_path: Path, at: str):
    dest = tmp_path / "leaderboard"
    _write(dest, "old", (*NAMES, "old_only.csv"))
    old = _contents(dest)
    new_names = NAMES[:2] + NAMES[3:]  # the new output drops two files
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", _KILL, str(dest), at, *new_names], env=env, timeout=60
    )
    assert proc.returncode == -9
    if dest.exists():  # at the kill: never a mix of old and new files
        now = {k: v for k, v in _contents(dest).items() if k != SCRATCH_MARKER}
        assert now == old or set(now) == {*new_names, MANIFEST}, now
    with OutputFolder(dest, "test"):  # the next run recovers before writing
        recovered = _contents(dest)
        expected_new = {n: f"new {n}" for n in new_names}
        assert recovered == old or (
            {k: v for k, v in recovered.items() if k != MANIFEST} == expected_new
        ), recovered
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] != []  # own tmp
    assert sorted(p.name for p in tmp_path.iterdir()) == ["leaderboard"]
    assert SCRATCH_MARKER not in os.listdir(dest)


def test_a_completed_swap_replaces_the_folder_and_drops_stale_files(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    _write(dest, "old", (*NAMES, "old_only.csv"))
    _write(dest, "new", NAMES)
    assert _contents(dest) == {
        **{n: f"new {n}" for n in NAMES},
        MANIFEST: (dest / MANIFEST).read_text(),
    }
    assert json.loads((dest / MANIFEST).read_text())["files"] == sorted(NAMES)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_folder_with_a_user_file_keeps_it(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    _write(dest, "old", NAMES)
    (dest / "notes.txt").write_text("mine")
    (dest / "mine").mkdir()
    _write(dest, "new", NAMES[:2])
    assert (dest / "notes.txt").read_text() == "mine" and (dest / "mine").is_dir()
    assert (dest / NAMES[0]).read_text() == f"new {NAMES[0]}"
    assert not (dest / NAMES[2]).exists()


def test_a_failure_of_the_folder_swap_keeps_the_old_folder(tmp_path: Path, monkeypatch) -> None:
    from coldbias_tasks.app import outputs
    from coldbias_tasks.core.errors import OutputError

    dest = tmp_path / "out"
    _write(dest, "old", NAMES)
    old = _contents(dest)

    def failing(src: Path, dst: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs, "_place", failing)
    with pytest.raises(OutputError, match="nothing was changed"):
        _write(dest, "new", NAMES)
    assert _contents(dest) == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
