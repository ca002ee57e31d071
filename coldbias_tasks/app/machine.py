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

import time
from collections.abc import Iterable

from coldbias_tasks.core.cpu import BF16_FLAGS, FLAGS_OF_INTEREST, CpuInfo, cpu_info

__all__ = [
    "BF16_FLAGS",
    "FLAGS_OF_INTEREST",
    "CpuInfo",
    "choose_dtype",
    "cpu_info",
    "matmul_gflops",
]


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
