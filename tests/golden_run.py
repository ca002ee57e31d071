"""A fixed synthetic run whose outputs are kept in ``tests/golden/``.

``python -m tests.golden_run`` rewrites the golden files (do it only when a change of the
numbers or tables is intended, and say so in the commit); ``tests/test_golden.py`` checks that
the current code reproduces them: text, order and column names exactly, numbers at the
precision they are written (:func:`differences`), so the goldens hold on every CPU kind.
"""

from __future__ import annotations

import math
import re
import sys
import tempfile
from pathlib import Path

from tests.synthetic import SyntheticRecommender, metric_table, run_synthetic

GOLDEN = Path(__file__).with_name("golden")
#: two variants of one domain (movie plain and context), its placebo (the control families), and
#: other domains
TASKS = ("coldbias_movie_gender", "coldbias_movie_context_gender", "coldbias_movie_placebo",
         "coldbias_music_religion", "coldbias_college_context_country")  # fmt: skip
METADATA = {"coldbias_n_items": 40, "coldbias_k": 5, "coldbias_repeats": 2, "coldbias_seed": 7,
            "coldbias_phrasings": 4}  # fmt: skip
#: the female value (every phrasing) is shown every third catalog item four times as often;
#: everyone else: no effect.
EFFECT = {"gender.female": lambda item: 4.0 if item % 3 == 0 else 1.0}
#: a second model (no effect: the leaderboard's ranks and tiers) and a second seed of the first
#: (pooled into one row)
OTHER = ("org/wording-only", {"wording": 1.0}, 5)
#: report and leaderboard files compared byte for byte (plots and HTML embed PNGs: not compared)
FILES = (
    "report/values.csv",
    "report/groups.csv",
    "report/fidelity.csv",
    "report/exposure.csv",
    "report/controls.csv",
    "report/diversity.csv",
    "leaderboard/leaderboard_long.csv",
    "leaderboard/leaderboard_wide.csv",
    "leaderboard/leaderboard.md",
)


#: A number as the CSV, Markdown and JSON outputs write it (``nan``/``inf`` are text).
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
#: Relative tolerance for numbers written at full precision (lm-eval's results JSON): float
#: sums differ between CPU kinds in the 14th-16th significant digit, never before the 10th.
REL_TOL = 1e-9


def _last_digit_unit(token: str) -> float:
    """One unit in the last written digit of ``token`` (``0.1235`` → 1e-4, ``1.5e-05`` →
    1e-6, ``12`` → 1)."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def differences(expected: str, produced: str, *, limit: int = 5) -> list[str]:
    """Where ``produced`` departs from ``expected``: any change of the text between numbers, of
    the count of numbers, or of a number by more than one unit in its last written digit (a
    rounding flip) or :data:`REL_TOL` relative. Empty when they agree."""
    exp_nums, got_nums = list(_NUMBER.finditer(expected)), list(_NUMBER.finditer(produced))
    if _NUMBER.split(expected) != _NUMBER.split(produced) or len(exp_nums) != len(got_nums):
        for i, (a, b) in enumerate(zip(expected.splitlines(), produced.splitlines()), 1):
            if _NUMBER.split(a) != _NUMBER.split(b):
                return [f"line {i}: text differs: {a[:120]!r} vs {b[:120]!r}"]
        return ["the text differs (lines added or removed)"]
    found = []
    for a, b in zip(exp_nums, got_nums):
        tol = max(_last_digit_unit(a[0]), _last_digit_unit(b[0])) * 1.000001
        if not math.isclose(float(a[0]), float(b[0]), rel_tol=REL_TOL, abs_tol=tol):
            line = expected.count("\n", 0, a.start()) + 1
            found.append(f"line {line}: expected {a[0]}, produced {b[0]}")
            if len(found) >= limit:
                break
    return found


def _retag_seed(folder: Path, seed: int) -> None:
    """Record ``seed`` as the run's model seed in its results JSON (lm-eval records the
    ``--seed`` it was given; the synthetic runs all carry the default)."""
    import json

    for path in folder.rglob("results_*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        config = data.setdefault("config", {})
        config["model_args"] = f"{config.get('model_args') or ''},seed={seed}".lstrip(",")
        path.write_text(json.dumps(data), encoding="utf-8")


def produce(root: Path) -> dict[str, str]:
    """Run the fixed synthetic evaluation under ``root``; golden file name → text."""
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.app.commands import build_report, write_leaderboard

    out = root / "run"
    results = run_synthetic(
        SyntheticRecommender(seed=3, effect=EFFECT, skew=2.0), TASKS, METADATA, out
    )
    build_report(out, root / "report")
    # the same model with another sampling seed (pooled), and a second model (ranked against it)
    seed2 = root / "run_seed2"
    run_synthetic(SyntheticRecommender(seed=4, effect=EFFECT, skew=2.0), TASKS[:3], METADATA,
                  seed2)  # fmt: skip
    _retag_seed(seed2, 4)
    name, kwargs, seed = OTHER
    other = root / "other"
    run_synthetic(SyntheticRecommender(seed=seed, skew=2.0, **kwargs), TASKS[:3], METADATA, other,
                  model_name=name)  # fmt: skip
    lb = build_leaderboard([out, seed2, other], resamples=200)
    write_leaderboard(lb, root / "leaderboard")
    from coldbias_tasks import __version__

    texts = {"lm_eval_metrics.json": metric_table(results)}
    for rel in FILES:
        texts[rel.replace("/", "__")] = (root / rel).read_text(encoding="utf-8")
    # the package version is provenance, not output: a version bump must not change a golden
    return {name: text.replace(f"coldbias {__version__}", "coldbias <version>")
            for name, text in texts.items()}  # fmt: skip


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
