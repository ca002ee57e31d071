"""The committed leaderboard is rebuilt from the repository alone: `coldbias leaderboard
leaderboards/results` (the results JSON and gzipped samples `leaderboards/make.sh` commits) writes
the committed leaderboard files again, every number at the precision it is written (float sums
differ in the last digits between CPU kinds: :func:`tests.golden_run.differences`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coldbias_tasks.app import cli
from tests.golden_run import differences

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "leaderboards"
FILES = ("leaderboard_long.csv", "leaderboard_wide.csv", "leaderboard.md")


def test_committed_runs_carry_their_samples() -> None:
    """Every committed results file has its samples beside it, gzipped."""
    folders = sorted(p for p in (BOARD / "results").iterdir() if p.is_dir())
    assert len(folders) >= 3
    for folder in folders:
        (results,) = folder.glob("results_*.json")
        stamp = results.stem.removeprefix("results_")
        samples = list(folder.glob(f"samples_*_{stamp}.jsonl.gz"))
        assert len(samples) >= 9, folder


@pytest.mark.slow
def test_leaderboard_rebuilds_from_the_repository(tmp_path: Path) -> None:
    out = tmp_path / "board"
    assert cli.main(["leaderboard", str(BOARD / "results"), "--output", str(out)]) == 0
    for name in FILES:
        expected = (BOARD / name).read_text(encoding="utf-8")
        produced = (out / name).read_text(encoding="utf-8")
        assert differences(expected, produced) == [], name
