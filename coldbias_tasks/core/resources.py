"""Where the package's task YAMLs and data live: inside the wheel, or beside it in a checkout."""

from __future__ import annotations

from pathlib import Path

__all__ = ["data_dir", "tasks_dir"]

_PACKAGE = Path(__file__).resolve().parent.parent


def _find(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(  # a broken installation: nothing the caller can pass differently
        f"coldbias cannot find its {name}/ folder next to {_PACKAGE}; reinstall the package "
        "(pip install coldbias) or run from a checkout of the repository."
    )


def tasks_dir() -> Path:
    """Folder to pass to ``lm_eval --include_path``."""
    return _find("tasks")


def data_dir() -> Path:
    """Folder holding the catalogs and personas.yaml."""
    return _find("data")
