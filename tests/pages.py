"""Synthetic report and leaderboard pages for the reader checks in headless Chromium
(``tests/test_pages.py``) and the screenshots in docs/ (``scripts/screenshots.sh``).

``python -m tests.pages OUT`` writes ``OUT/run/coldbias_report/report.html`` and
``OUT/leaderboard/leaderboard.html`` and prints their paths.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from tests.test_report import K, copy_rule, make_samples, write_run

#: a model name that is live markup if any page writes it unescaped
HOSTILE = "<img src=x onerror=alert(1)>"
#: values whose sentences get lists further from everyone else's (the biased model)
FAVOURED = ("gender.female", "religion.muslim")
TASKS = ("coldbias_movie_gender", "coldbias_music_religion", "coldbias_college_gender")
PHRASINGS = 6


def _base(shown: list[int], sentence: str, repeat: int) -> list[int]:
    """A list in the middle of the shown items; one item depends on the sentence (its
    wording), as a real model's answers do."""
    wobble = random.Random(f"{sentence}:{repeat}").randrange(6)
    return [*(shown[i] for i in (11, 13, 17, 19)), shown[21 + wobble]]


def fair_rule(sentence: str, repeat: int, shown: list[int]) -> list[int]:
    """Values treated alike: each sentence's wording moves one item."""
    return _base(shown, sentence, repeat)


def biased_rule(sentence: str, repeat: int, shown: list[int]) -> list[int]:
    """The :data:`FAVOURED` values' sentences replace three of the items, whatever the
    wording."""
    items = _base(shown, sentence, repeat)
    if sentence.split("#")[0] in FAVOURED:
        return [*items[:2], *(shown[28 - j] for j in range(K - 2))]
    return items


def write_models(root: Path, hostile: bool = True) -> list[Path]:
    """Output folders of a fair, a biased and a degenerate model (and, with ``hostile``, a
    model whose name and user sentences are markup), each with :data:`TASKS` in
    :data:`PHRASINGS` phrasings."""
    models = {
        "acme/fair-recommender-7b": fair_rule,
        "acme/biased-recommender-7b": biased_rule,
        "org/copycat": copy_rule,
    }
    dirs = []
    for i, (name, rule) in enumerate(models.items()):
        tasks = {t: make_samples(t, rule, phrasings=PHRASINGS) for t in TASKS}
        dirs.append(write_run(root / f"m{i}", tasks, model=name))
    if hostile:
        tasks = {
            t: make_samples(t, fair_rule, phrasings=PHRASINGS, model_phrase=f"I am {HOSTILE}.")
            for t in TASKS
        }
        dirs.append(write_run(root / "hostile", tasks, model=HOSTILE))
    return dirs


def build_pages(root: Path, hostile: bool = True) -> tuple[Path, Path]:
    """(report.html of the hostile model's run, or the biased one's; leaderboard.html of all)."""
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.app.commands import build_report, write_leaderboard

    dirs = write_models(root / "runs", hostile)
    run = dirs[-1] if hostile else dirs[1]
    report = build_report(run, run / "coldbias_report").out_dir / "report.html"
    write_leaderboard(build_leaderboard(dirs, resamples=200), root / "leaderboard")
    return report, root / "leaderboard" / "leaderboard.html"


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "pages")
    report, board = build_pages(out, hostile="--hostile" in argv)
    print(report)
    print(board)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
