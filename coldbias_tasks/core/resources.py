"""Where the package's task YAMLs and data live: inside the wheel, or beside it in a checkout;
and the user's extra data folders (:data:`DATA_PATH_ENV`)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from coldbias_tasks.core.errors import SettingsError

__all__ = ["DATA_PATH_ENV", "data_dir", "data_folders", "tasks_dir"]

_PACKAGE = Path(__file__).resolve().parent.parent
#: Environment variable listing extra data folders (``os.pathsep``-separated: ``:`` on Linux and
#: macOS, ``;`` on Windows). Each may hold ``domains/<name>.yaml`` (a domain and, beside it, its
#: catalog), ``lang/<code>.yaml`` (a language) and ``reference/`` lists, read in addition to the
#: package's ``data/`` (data/README.md, "Extra data folders").
DATA_PATH_ENV = "COLDBIAS_DATA_PATH"


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
    """Folder holding the package's catalogs, domains/, lang/ and personas.yaml."""
    return _find("data")


def data_folders() -> tuple[Path, ...]:
    """The package's ``data/`` first, then every folder of :data:`DATA_PATH_ENV` in its order
    (empty entries skipped, repeats once). A listed path that is no folder raises a
    SettingsError naming it."""
    return _folders(os.environ.get(DATA_PATH_ENV, ""))


@lru_cache(maxsize=16)
def _folders(listed: str) -> tuple[Path, ...]:
    out = [data_dir().resolve()]
    for part in listed.split(os.pathsep):
        if not part.strip():
            continue
        folder = Path(part.strip()).expanduser().resolve()
        if not folder.is_dir():
            raise SettingsError(
                f"{DATA_PATH_ENV}: {part!r} is not a folder; list existing folders (each holding "
                f"domains/, lang/ or reference/) separated by {os.pathsep!r}, or unset it."
            )
        if folder not in out:
            out.append(folder)
    return tuple(out)
