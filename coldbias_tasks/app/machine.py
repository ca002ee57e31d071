"""What this machine can do: CPU flags, the dtype to run models in, a quick matmul speed probe.

:func:`choose_dtype` is the one place that decides the model dtype (demo, ``coldbias eval``
defaults, ``leaderboards/make.sh``, the benchmark, the test fixtures):

- CUDA: ``bfloat16`` where the GPU supports it, else ``float16``;
- CPU with native bf16 (``avx512_bf16`` or ``amx_bf16``): ``bfloat16``;
- any other CPU: ``float32``. Without native bf16 torch emulates bf16 matmuls, measured here
  ~180× slower than float32 on two AVX2 cores (see BENCHMARKS.md).

``python -m coldbias_tasks.app.machine`` prints the chosen dtype (for shell scripts).
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BF16_FLAGS",
    "FLAGS_OF_INTEREST",
    "CpuInfo",
    "choose_dtype",
    "cpu_info",
    "matmul_gflops",
]

#: CPU flags that mean native bf16 matrix arithmetic.
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
#: Flags ``coldbias doctor`` reports.
FLAGS_OF_INTEREST = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile")


@dataclass(frozen=True)
class CpuInfo:
    """``model``: the CPU model name; ``flags``: the kernel's CPU flags; ``cores``: usable
    cores (the process's affinity set)."""

    model: str
    flags: frozenset[str]
    cores: int

    @property
    def native_bf16(self) -> bool:
        return bool(self.flags & BF16_FLAGS)


def cpu_info(cpuinfo_text: str | None = None) -> CpuInfo:
    """Parse ``/proc/cpuinfo`` (or the given text); unknown fields stay empty on other OSes."""
    if cpuinfo_text is None:
        path = Path("/proc/cpuinfo")
        cpuinfo_text = path.read_text(errors="replace") if path.exists() else ""
    model, flags = "", frozenset[str]()
    for line in cpuinfo_text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and not model:
            model = value.strip()
        elif key in ("flags", "Features") and not flags:
            flags = frozenset(value.split())
    model = model or platform.processor() or "unknown"
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return CpuInfo(model, flags, cores)


def choose_dtype(
    flags: Iterable[str] | None = None, cuda: bool | None = None, cuda_bf16: bool | None = None
) -> str:
    """The model dtype for this machine (see the module docstring). ``flags``, ``cuda`` and
    ``cuda_bf16`` override what is detected (for tests and for ``--device cpu`` runs).
    """
    if cuda is None:
        cuda, cuda_bf16 = _cuda()
    if cuda:
        return "bfloat16" if cuda_bf16 else "float16"
    found = frozenset(flags) if flags is not None else cpu_info().flags
    return "bfloat16" if found & BF16_FLAGS else "float32"


def _cuda() -> tuple[bool, bool]:
    """(a CUDA GPU is usable, it supports bf16); (False, False) without torch or CUDA."""
    try:
        import torch
    except ImportError:
        return False, False
    if not torch.cuda.is_available():
        return False, False
    return True, bool(torch.cuda.is_bf16_supported())


def matmul_gflops(
    dtype: str = "float32", size: int = 1024, seconds: float = 0.2, trials: int = 3
) -> float:
    """GFLOP/s of a square ``size`` matmul in ``dtype`` with torch's threads: the best of
    ``trials`` timings of about ``seconds`` each (the best is the least disturbed by load).
    """
    import torch

    kind = getattr(torch, dtype)
    a = torch.randn(size, size, dtype=kind)
    b = torch.randn(size, size, dtype=kind)
    torch.mm(a, b)
    best = 0.0
    for _ in range(trials):
        n, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds or n == 0:
            torch.mm(a, b)
            n += 1
        best = max(best, 2 * size**3 * n / elapsed / 1e9)
    return best


if __name__ == "__main__":
    print(choose_dtype())
