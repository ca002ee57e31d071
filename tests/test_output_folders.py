"""Output folders (report, leaderboard, eee): nothing is deleted outside the folder or that
coldbias did not write and list in its manifest, crafted manifests and symlinks lead nowhere, a
failure or a kill partway leaves the previous output, scratch folders without coldbias's marker
are kept (issues 24 and 31). Every test works inside ``tmp_path``; a "victim" file lives outside
the output folder, so a regression deletes nothing else even when a test fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coldbias_tasks.app import cli, outputs
from coldbias_tasks.app.outputs import MANIFEST, OutputFolder
from coldbias_tasks.core.errors import (
    OutputError,
)
from tests.run_fixtures import DEEP, ROOT, synthetic_run

TASK = "coldbias_movie_gender"
SMALL = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder of one task (synthetic answers)."""
    return synthetic_run(tmp_path_factory, [TASK])


def _write(dest: Path, files: dict[str, str], generator: str = "test") -> OutputFolder:
    output = OutputFolder(dest, generator)
    with output as tmp:
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text)
    return output


def _forge(dest: Path, entries: list[object], generator: str = "test") -> None:
    (dest / MANIFEST).write_text(json.dumps({"generated_by": generator, "files": entries}))


# --- 1. output folders -----------------------------------------------------------------------


def test_crafted_manifest_deletes_nothing_outside_its_folder(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "b.txt").write_text("keep me too")
    _write(dest, {"a.txt": "1"})
    (dest / "link").symlink_to(elsewhere)
    (dest / "linked_file").symlink_to(victim)
    _forge(dest, [str(victim), "../victim.txt", "link/b.txt", "linked_file", "a.txt", 5, ""])
    output = _write(dest, {"a.txt": "2"})
    assert victim.read_text() == "keep me" and (elsewhere / "b.txt").read_text() == "keep me too"
    assert (dest / "linked_file").is_symlink() and (dest / "a.txt").read_text() == "2"
    assert any("ignored 6 entr" in m and "nothing outside" in m for m in output.messages)


def test_crafted_manifest_through_the_commands(real_run: Path, tmp_path: Path, capsys) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    rep, lb = tmp_path / "rep", tmp_path / "lb"
    rep.mkdir()
    lb.mkdir()
    _forge(rep, [str(victim)], "coldbias report")
    _forge(lb, ["../victim.txt"], "coldbias leaderboard")
    assert cli.main(["report", str(real_run), "--output", str(rep)]) == 0
    assert cli.main(["leaderboard", str(real_run), "--output", str(lb)]) == 0
    assert victim.read_text() == "keep me"
    assert "ignored 1 entr" in capsys.readouterr().out


def test_leaderboard_into_a_report_folder_and_vice_versa_is_refused(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    rep, lb = tmp_path / "rep", tmp_path / "lb"
    assert cli.main(["report", str(real_run), "--output", str(rep)]) == 0
    assert cli.main(["leaderboard", str(real_run), "--output", str(lb)]) == 0
    before = {p.name: p.read_bytes() for p in rep.iterdir()}
    capsys.readouterr()
    assert cli.main(["leaderboard", str(real_run), "--output", str(rep)]) == 1
    err = capsys.readouterr().err
    assert "holds the output of 'coldbias report'" in err and "--output" in err
    assert cli.main(["report", str(real_run), "--output", str(lb)]) == 1
    assert "'coldbias leaderboard'" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in rep.iterdir()} == before


@pytest.mark.parametrize("where", ["root", "home", "above_home"])
def test_root_and_home_are_refused(tmp_path: Path, monkeypatch, where: str) -> None:
    home = tmp_path / "users" / "me"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    dest = {"root": Path("/"), "home": home, "above_home": home.parent}[where]

    def untouchable(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the refusal came too late: would write beside {dest}")

    monkeypatch.setattr(outputs, "_recover", untouchable)  # a regression writes nothing
    monkeypatch.setattr(outputs.tempfile, "mkdtemp", untouchable)
    with pytest.raises(OutputError, match="root or home folder"):
        _write(dest, {"a.txt": "x"})
    assert list(home.iterdir()) == []


def test_same_named_user_files_are_refused_with_the_fix(real_run: Path, tmp_path: Path, capsys):
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "report.html").write_text("my own page")
    assert cli.main(["report", str(real_run), "--output", str(rep)]) == 1
    err = capsys.readouterr().err
    assert "report.html" in err and "move them away" in err and "Nothing was written" in err
    assert (rep / "report.html").read_text() == "my own page"
    assert sorted(p.name for p in rep.iterdir()) == ["report.html"]


def test_bad_or_foreign_manifest_is_refused(tmp_path: Path) -> None:
    for text in ["not json", '{"files": ["a.txt"]}', '["a.txt"]']:
        dest = tmp_path / f"d{len(text)}"
        dest.mkdir()
        (dest / MANIFEST).write_text(text)
        with pytest.raises(OutputError, match="not a manifest coldbias wrote"):
            _write(dest, {"a.txt": "x"})
    fifo = tmp_path / "fifo_dest"
    fifo.mkdir()
    os.mkfifo(fifo / MANIFEST)
    with pytest.raises(OutputError, match="not a manifest coldbias wrote"):
        _write(fifo, {"a.txt": "x"})


def test_symlinked_subfolder_is_not_written_through(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dest = tmp_path / "out"
    _write(dest, {"top.txt": "1"})
    (dest / "plots").symlink_to(elsewhere)
    with pytest.raises(OutputError, match="outside the folder"):
        _write(dest, {"top.txt": "2", "plots/p.png": "png"})
    assert list(elsewhere.iterdir()) == [] and (dest / "top.txt").read_text() == "1"


def test_a_failure_partway_restores_every_old_file(tmp_path: Path, monkeypatch) -> None:
    dest = tmp_path / "out"
    _write(dest, {"a.txt": "old a", "b.txt": "old b", "c.txt": "old c", "stale.txt": "old s"})
    (dest / "mine.txt").write_text("mine")  # a user's file: the swap goes file by file
    calls = []

    def failing(src: Path, dst: Path) -> None:
        calls.append(dst)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        os.replace(src, dst)

    monkeypatch.setattr(outputs, "_place", failing)
    with pytest.raises(OutputError, match="nothing was changed"):
        _write(dest, {"a.txt": "new a", "b.txt": "new b", "c.txt": "new c"})
    assert {p.name: p.read_text() for p in dest.iterdir() if p.name != MANIFEST} == {
        "a.txt": "old a", "b.txt": "old b", "c.txt": "old c", "stale.txt": "old s",
        "mine.txt": "mine",
    }  # fmt: skip
    assert "stale.txt" in json.loads((dest / MANIFEST).read_text())["files"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary folder left


def test_stale_temporary_folders_are_cleaned_on_start(tmp_path: Path) -> None:
    """Only folders holding coldbias' marker for this destination, of a process that is gone
    (issue 31: names and ages are not proof of ownership)."""
    dest = tmp_path / "out"
    dead = tmp_path / ".out.999999999.abcd_123"
    old_style = tmp_path / ".out.zyxw9876"
    recent = tmp_path / ".out.recent12"
    mine = tmp_path / ".out.notmine"
    other_dest = tmp_path / ".out.999999999.other123"
    for folder in (dead, old_style, recent, mine, other_dest):
        folder.mkdir()
        (folder / "x.png").write_text("partial")
    os.utime(old_style, (1, 1))
    marker = {"pid": 999999999, "dest": str(dest.resolve()), "role": "new"}
    (dead / outputs.SCRATCH_MARKER).write_text(json.dumps(marker))
    (other_dest / outputs.SCRATCH_MARKER).write_text(json.dumps({**marker, "dest": "/elsewhere"}))
    alive = tmp_path / f".out.{os.getppid()}.live1234"  # a running process's folder
    alive.mkdir()
    (alive / outputs.SCRATCH_MARKER).write_text(json.dumps({**marker, "pid": os.getppid()}))
    _write(dest, {"a.txt": "x"})
    assert not dead.exists()
    assert old_style.exists() and recent.exists() and mine.exists() and alive.exists()
    assert other_dest.exists()


# --- 2. only what coldbias made is deleted; a kill never leaves a mix -----------------------


def test_folders_beside_the_output_named_like_scratch_are_kept(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    """`coldbias leaderboard R --output leaderboard` kept .leaderboard.previous/ (issue 31)."""
    mine = [tmp_path / ".leaderboard.previous", tmp_path / ".leaderboard.archived"]
    for folder in mine:
        folder.mkdir()
        (folder / "notes.txt").write_text("my notes")
        os.utime(folder, (1, 1))
    dead = tmp_path / ".leaderboard.999999999.abcdefgh"  # a dead process id, no marker
    dead.mkdir()
    argv = ["leaderboard", str(real_run), "--output", str(tmp_path / "leaderboard")]
    assert cli.main(argv) == 0 and cli.main(argv) == 0
    assert all((f / "notes.txt").read_text() == "my notes" for f in mine) and dead.exists()


_KILL = """
import os, signal, sys
from coldbias_tasks.app import outputs
from coldbias_tasks.app.outputs import OutputFolder
calls = []
def place(src, dst):
    calls.append(dst)
    if len(calls) == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)
    os.replace(src, dst)
outputs._place = place
with OutputFolder(sys.argv[1], "test") as tmp:
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp / name).write_text("new " + name)
"""


@pytest.mark.parametrize("at", [1, 2, 3, 4])
def test_a_kill_during_the_swap_is_rolled_back_by_the_next_run(tmp_path: Path, at: int):
    from coldbias_tasks.app.outputs import MANIFEST, OutputFolder

    dest = tmp_path / "out"
    with OutputFolder(dest, "test") as tmp:
        for name in ("a.txt", "b.txt", "c.txt", "old_only.txt"):
            (tmp / name).write_text("old " + name)
    (dest / "user.txt").write_text("mine")
    before = {p.name: p.read_text() for p in dest.iterdir()}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", _KILL, str(dest), str(at)], env=env, timeout=60, check=False
    )
    assert proc.returncode == -9
    with OutputFolder(dest, "test"):  # the next run recovers first
        recovered = {p.name: p.read_text() for p in dest.iterdir()}
        assert "old_only.txt" in json.loads((dest / MANIFEST).read_text())["files"]
        assert len(list(tmp_path.iterdir())) == 2  # the output and this run's scratch folder
    assert recovered == before


def test_a_deeply_nested_manifest_is_refused_not_a_crash(tmp_path: Path) -> None:
    from coldbias_tasks.app.outputs import MANIFEST, OutputFolder
    from coldbias_tasks.core.errors import OutputError

    dest = tmp_path / "out"
    dest.mkdir()
    (dest / MANIFEST).write_text('{"files": ' + DEEP + "}")
    with pytest.raises(OutputError, match="not a manifest coldbias wrote"), OutputFolder(dest, "t"):
        pass
