"""Bytes per logged answer in lm-eval's samples files (issue 32 item 2).

Runs the synthetic recommender (``tests/synthetic.py``) through lm-eval's own evaluator and
sample logging (``run_synthetic``: ``simple_evaluate(log_samples=True)`` and the
EvaluationTracker's writer) at 60 items shown, k = 10, 2 repeats, and prints per task the mean
bytes of a samples line and its largest fields.

    PYTHONPATH=$PWD python bench/speed/sample_bytes.py [TASK ...]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.synthetic import SyntheticRecommender, run_synthetic

SETTING = {"coldbias_n_items": 60, "coldbias_k": 10, "coldbias_repeats": 2}
TASKS = ("coldbias_movie_gender", "coldbias_movie_placebo", "coldbias_reverse_movie_gender")


def measure(folder: Path) -> dict[str, tuple[int, float, list[tuple[str, int]]]]:
    """Per samples file: (answers, mean bytes per line, the six largest fields in bytes)."""
    out = {}
    for path in sorted(folder.rglob("samples_*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        first = json.loads(lines[0])
        fields = {k: len(json.dumps(v, ensure_ascii=False).encode()) for k, v in first.items()}
        top = sorted(fields.items(), key=lambda kv: -kv[1])[:6]
        task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        out[task] = (len(lines), sum(len(ln.encode()) for ln in lines) / len(lines), top)
    return out


def main(tasks: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_synthetic(SyntheticRecommender(seed=1), tasks, SETTING, output_path=Path(tmp))
        print(f"run {time.perf_counter() - start:.1f} s")
        for task, (n, size, top) in measure(Path(tmp)).items():
            print(f"{task}: {n} answers, {size:,.0f} bytes per answer; largest fields {top}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:] or list(TASKS)))
