"""The declarations file ``data/metrics.yaml`` read once, below the modules that need it.

:mod:`.metric_specs` builds and checks the quantities from its entries (and imports the summary
types to check their paths); :mod:`.determinism`, which builds those summaries, only needs to
know which fields of a similarity's summary depend on sampling (:func:`sampled_fields`). Both
read the entries here, so the file stays the one place a quantity is declared, without an
import cycle.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.files.yamlio import load_yaml
from coldbias_tasks.core.resources import data_dir

__all__ = ["metric_entries", "sampled_fields"]


def metric_entries(path: Path | None = None) -> list[Any]:
    """The entries of ``path`` (default: the package's ``data/metrics.yaml``), unchecked;
    SettingsError when the file is no list."""
    if path is None:
        return list(_package_entries())
    return _entries(path)


@lru_cache(maxsize=1)
def _package_entries() -> tuple[Any, ...]:
    return tuple(_entries(data_dir() / "metrics.yaml"))


def _entries(path: Path) -> list[Any]:
    entries = load_yaml(path, SettingsError)
    if not isinstance(entries, list):
        raise SettingsError(f"{path}: expected a list of metric entries")
    return entries


@lru_cache(maxsize=1)
def sampled_fields() -> tuple[str, ...]:
    """The fields of :class:`~coldbias_tasks.core.measures.aggregate.MetricSummary` declared with
    ``sampling: true`` (per-similarity quantities that assume sampled answers: deterministic
    answers blank them). A sampled quantity must read a field itself (its ``value`` path has
    no dot): SettingsError otherwise."""
    out = []
    for entry in _package_entries():
        if isinstance(entry, dict) and entry.get("sampling") is True:
            source = str(entry.get("value", ""))
            if entry.get("scope") != "similarity" or not source or "." in source:
                raise SettingsError(
                    f"{data_dir() / 'metrics.yaml'}: {entry.get('name')}: a quantity that "
                    "depends on sampling is a per-similarity quantity reading a field of "
                    "MetricSummary (value: <field>); fix the entry"
                )
            out.append(source)
    return tuple(out)
