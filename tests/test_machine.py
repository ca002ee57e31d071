"""The dtype decision and ``coldbias doctor``'s machine facts, with fake CPU flags."""

from __future__ import annotations

import pytest

from coldbias_tasks.app import machine

AVX2_EPYC = """processor	: 0
vendor_id	: AuthenticAMD
model name	: AMD EPYC
flags		: fpu vme sse sse2 ssse3 fma avx f16c avx2 bmi2
"""
SAPPHIRE = """processor	: 0
model name	: Intel(R) Xeon(R) Platinum 8481C
flags		: fpu sse2 avx avx2 avx512f avx512bw avx512_bf16 amx_bf16 amx_tile
"""
ICELAKE = """model name	: Intel(R) Xeon(R) Gold 6338
flags		: avx2 avx512f avx512bw avx512vnni
"""


@pytest.mark.parametrize(
    ("text", "dtype", "native"),
    [(AVX2_EPYC, "float32", False), (SAPPHIRE, "bfloat16", True), (ICELAKE, "float32", False)],
)
def test_cpu_dtype_follows_native_bf16(text: str, dtype: str, native: bool) -> None:
    info = machine.cpu_info(text)
    assert info.native_bf16 is native
    assert machine.choose_dtype(info.flags, cuda=False) == dtype


def test_cpu_info_reads_model_and_flags() -> None:
    info = machine.cpu_info(SAPPHIRE)
    assert info.model == "Intel(R) Xeon(R) Platinum 8481C"
    assert {"avx512_bf16", "amx_bf16"} <= info.flags
    assert info.cores >= 1
    assert machine.cpu_info("").model  # never empty


def test_cuda_dtype_follows_bf16_support() -> None:
    assert machine.choose_dtype(cuda=True, cuda_bf16=True) == "bfloat16"
    assert machine.choose_dtype(cuda=True, cuda_bf16=False) == "float16"
    assert machine.choose_dtype(["avx512_bf16"], cuda=True, cuda_bf16=False) == "float16"


def test_matmul_probe_measures_something() -> None:
    assert machine.matmul_gflops("float32", size=64, seconds=0.01, trials=1) > 0
