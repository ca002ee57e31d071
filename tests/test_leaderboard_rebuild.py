"""The committed leaderboards are rebuilt from the repository alone: `coldbias leaderboard
leaderboards/results` (the results JSON and gzipped samples `leaderboards/make.sh` commits)
writes the committed leaderboard files again, and so does `leaderboards/pref/results` (the pref
runs), every number at the precision it is written (float sums differ in the last digits
between CPU kinds: :func:`tests.golden_run.differences`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coldbias_tasks.app import cli
from tests.golden_run import differences

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "leaderboards"
FILES = ("leaderboard_long.csv", "leaderboard_wide.csv", "leaderboard.md")


#: (folder of the committed leaderboard, tasks per model)
BOARDS = [(BOARD, 9), (BOARD / "pref", 2)]


@pytest.mark.parametrize(("board", "tasks"), BOARDS, ids=["catalog", "pref"])
def test_committed_runs_carry_their_samples(board: Path, tasks: int) -> None:
    """Every committed results file has its samples beside it, gzipped."""
    folders = sorted(p for p in (board / "results").iterdir() if p.is_dir())
    assert len(folders) >= 3
    for folder in folders:
        (results,) = folder.glob("results_*.json")
        stamp = results.stem.removeprefix("results_")
        samples = list(folder.glob(f"samples_*_{stamp}.jsonl.gz"))
        assert len(samples) == tasks, folder


@pytest.mark.slow
@pytest.mark.parametrize("board", [b for b, _ in BOARDS], ids=["catalog", "pref"])
def test_leaderboard_rebuilds_from_the_repository(board: Path, tmp_path: Path) -> None:
    out = tmp_path / "board"
    assert cli.main(["leaderboard", str(board / "results"), "--output", str(out)]) == 0
    for name in FILES:
        expected = (board / name).read_text(encoding="utf-8")
        produced = (out / name).read_text(encoding="utf-8")
        assert differences(expected, produced) == [], name
