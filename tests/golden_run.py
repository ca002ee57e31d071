"""A fixed synthetic run whose outputs are kept byte for byte in ``tests/golden/``.

``python -m tests.golden_run`` rewrites the golden files (do it only when a change of the
numbers or tables is intended, and say so in the commit); ``tests/test_golden.py`` checks that
the current code reproduces them exactly.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.synthetic import SyntheticRecommender, metric_table, run_synthetic

GOLDEN = Path(__file__).with_name("golden")
TASKS = ("coldbias_movie_gender", "coldbias_music_religion", "coldbias_college_context_country")
METADATA = {"coldbias_n_items": 40, "coldbias_k": 5, "coldbias_repeats": 3, "coldbias_seed": 7}
#: "a girl" is shown every third catalog item four times as often; everyone else: no effect.
EFFECT = {"gender.girl": lambda item: 4.0 if item % 3 == 0 else 1.0}
#: report and leaderboard files compared byte for byte (plots and HTML embed PNGs: not compared)
FILES = (
    "report/values.csv",
    "report/groups.csv",
    "report/fidelity.csv",
    "report/exposure.csv",
    "leaderboard/leaderboard_long.csv",
    "leaderboard/leaderboard_wide.csv",
    "leaderboard/leaderboard.md",
)


def produce(root: Path) -> dict[str, str]:
    """Run the fixed synthetic evaluation under ``root``; golden file name → text."""
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.app.commands import build_report, write_leaderboard

    out = root / "run"
    results = run_synthetic(
        SyntheticRecommender(seed=3, effect=EFFECT, skew=2.0), TASKS, METADATA, out
    )
    build_report(out, root / "report")
    lb = build_leaderboard([out], resamples=200)
    write_leaderboard(lb, root / "leaderboard")
    texts = {"lm_eval_metrics.json": metric_table(results)}
    for rel in FILES:
        texts[rel.replace("/", "__")] = (root / rel).read_text(encoding="utf-8")
    return texts


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        texts = produce(Path(tmp))
    GOLDEN.mkdir(exist_ok=True)
    for old in GOLDEN.iterdir():
        old.unlink()
    for name, text in texts.items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(texts)} golden files to {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
