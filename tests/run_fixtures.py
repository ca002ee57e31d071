"""Shared helpers of the tests that edit a real run's files or run the CLI in a subprocess
(a run written by lm-eval's own evaluator with synthetic answers, copied and edited)."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coldbias_tasks.core.parsing.sample_check import answer_id
from coldbias_tasks.core.vocabulary import ANSWER_KEY

ROOT = Path(__file__).resolve().parents[1]
DEEP = "[" * 100_000 + "]" * 100_000
SHALLOW = "[" * 5_000 + "]" * 5_000  # deep enough, short enough for a command line
TASK = "coldbias_movie_gender"
SMALL = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}


def run_cli(
    *argv: str, timeout: float = 120, env: dict | None = None
) -> subprocess.CompletedProcess:
    """``coldbias ARGV`` in a subprocess of this checkout (a hang fails the test)."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    cmd = [sys.executable, "-m", "coldbias_tasks", *argv]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=environ)


def one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode not in (0,), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def synthetic_run(factory: pytest.TempPathFactory, tasks: list[str]) -> Path:
    """An lm-eval output folder of ``tasks`` written by lm-eval's own evaluator (synthetic
    answers, seed 2, the SMALL settings)."""
    from tests.synthetic import SyntheticRecommender, run_synthetic

    out = factory.mktemp("run") / "out"
    run_synthetic(SyntheticRecommender(seed=2), tasks, SMALL, output_path=out)
    return out


def copy_run(real_run: Path, dest: Path) -> Path:
    shutil.copytree(real_run, dest)
    return dest


def samples_of(run: Path, task: str = TASK) -> Path:
    (path,) = run.rglob(f"samples_{task}_*.jsonl")
    return path


def with_new_ids(sample: dict) -> dict:
    """``sample`` with the answer id under every metric key recomputed from its (edited)
    record, as someone who knows the id rule would write it: the checks after the id check
    are what a test of such an edit exercises."""
    payload = sample.get(ANSWER_KEY)
    payload = ast.literal_eval(payload) if isinstance(payload, str) else payload
    if isinstance(payload, dict):
        for key in sample.get("metrics") or []:
            if key != ANSWER_KEY and isinstance(sample.get(key), str):
                sample[key] = answer_id(payload)
    return sample


def edit_samples(run: Path, edit) -> Path:
    """Apply ``edit`` to the lines of the run's samples file of TASK (ids recomputed)."""
    path = samples_of(run)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    edit(lines)
    path.write_text("".join(json.dumps(with_new_ids(line)) + "\n" for line in lines))
    return path


def set_results(run: Path, edit) -> None:
    (results,) = run.rglob("results_*.json")
    data = json.loads(results.read_text())
    edit(data)
    results.write_text(json.dumps(data))
