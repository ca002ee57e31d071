"""This machine's CPU: model name, kernel flags, usable cores (provenance of timed and
simulated results; ``app/machine`` decides the model dtype from it).

Reads ``/proc/cpuinfo``; on other systems the model falls back to ``platform.processor()`` and
the flags stay empty.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BF16_FLAGS", "FLAGS_OF_INTEREST", "CpuInfo", "cpu_info"]

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
