"""Do same-prompt replicates come back correlated across vLLM data-parallel engines?

lm-eval's vLLM backend builds every ``data_parallel_size`` engine with the same seed and deals
request i to engine i mod D; a neutral prompt and its replicate on two engines may then draw
the same random numbers (docs/serving.md). This check runs one small task set twice, with
``data_parallel_size=1`` and ``=D`` (same seeds, prompts, settings), and compares per task the
share of replicates whose ranked list equals their neutral answer's (Fisher's exact test, one
sided) and the IOU noise floor (95 % t-intervals over repeats)::

    python bench/studies/dp_replicates.py --model MODEL --dp 2 --out runs/dp_check   # needs D GPUs
    python bench/studies/dp_replicates.py --compare runs/dp_check/dp1 runs/dp_check/dp2

Exit status 1 when any task looks correlated (more identical replicates at p < 0.05, or the
D-engine floor interval entirely below the single-engine one).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from coldbias_tasks.analysis.intervals import t_interval
from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.core.measures.design import arrange
from coldbias_tasks.core.measures.summary import summarize_answers

TASKS = "coldbias_movie_gender,coldbias_movie_religion,coldbias_music_gender"
#: Many replicates per repeat: the statistic is the share of identical replicates.
METADATA = {"coldbias_n_items": 100, "coldbias_k": 10, "coldbias_repeats": 5,
            "coldbias_replicates": 5}  # fmt: skip


@dataclass(frozen=True)
class TaskCheck:
    """One task in both runs: identical replicates / replicates, IOU floor intervals, p."""

    task: str
    identical_single: tuple[int, int]
    identical_multi: tuple[int, int]
    floor_single: tuple[float, float]
    floor_multi: tuple[float, float]
    p_more_identical: float

    @property
    def correlated(self) -> bool:
        below = self.floor_multi[1] < self.floor_single[0]
        return self.p_more_identical < 0.05 or below


def _tasks(folder: Path) -> dict:
    (model,) = pool_runs(load_folder(folder))
    return model.tasks


def identical_replicates(records: list) -> tuple[int, int]:
    """(replicates whose list equals their repeat's neutral list, replicates with a neutral)."""
    table = arrange(records)
    pairs = [(rep, table.neutral[r]) for r, reps in table.replicates.items()
             if r in table.neutral for rep in reps]  # fmt: skip
    return sum(a.items == n.items for a, n in pairs), len(pairs)


def compare(single: Path, multi: Path) -> list[TaskCheck]:
    """Per task present in both output folders: the comparison above."""
    from scipy.stats import fisher_exact

    one, many = _tasks(single), _tasks(multi)
    out = []
    for name in sorted(set(one) & set(many)):
        a, b = one[name].records, many[name].records
        ia, ib = identical_replicates(a), identical_replicates(b)
        table = [[ib[0], ib[1] - ib[0]], [ia[0], ia[1] - ia[0]]]
        p = float(fisher_exact(table, alternative="greater").pvalue)
        fa = summarize_answers(a).metrics["iou"].noise_floor.by_repeat
        fb = summarize_answers(b).metrics["iou"].noise_floor.by_repeat
        out.append(TaskCheck(name, ia, ib, t_interval(fa), t_interval(fb), p))
    return out


def run_pair(model: str, dp: int, out: Path) -> tuple[Path, Path]:
    """``coldbias eval`` with data_parallel_size 1 and ``dp`` into ``out/dp1``, ``out/dp<dp>``."""
    folders = []
    for size in (1, dp):
        folder = out / f"dp{size}"
        args = (f"pretrained={model},enable_prefix_caching=True,seed=1234,max_model_len=8192,"
                f"data_parallel_size={size}")  # fmt: skip
        cmd = [sys.executable, "-m", "coldbias_tasks", "eval", "--model", "vllm",
               "--model_args", args, "--batch_size", "auto", "--tasks", TASKS,
               "--metadata", json.dumps(METADATA), "--output_path", str(folder)]  # fmt: skip
        subprocess.run(cmd, check=True)
        folders.append(folder)
    return folders[0], folders[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="hub id or folder (runs both settings)")
    parser.add_argument("--dp", type=int, default=2, help="data_parallel_size to check")
    parser.add_argument("--out", type=Path, default=Path("runs/dp_check"))
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("SINGLE", "MULTI"))
    args = parser.parse_args(argv)
    if args.compare:
        single, multi = args.compare
    elif args.model:
        single, multi = run_pair(args.model, args.dp, args.out)
    else:
        parser.error("give --model (run both) or --compare SINGLE MULTI")
    checks = compare(single, multi)
    for c in checks:
        print(
            f"{c.task}: identical replicates {c.identical_single[0]}/{c.identical_single[1]} "
            f"(one engine) vs {c.identical_multi[0]}/{c.identical_multi[1]} (data parallel), "
            f"p = {c.p_more_identical:.3g}; IOU floor [{c.floor_single[0]:.3f}, "
            f"{c.floor_single[1]:.3f}] vs [{c.floor_multi[0]:.3f}, {c.floor_multi[1]:.3f}]: "
            + ("correlated" if c.correlated else "ok")
        )
    return 1 if any(c.correlated for c in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
