"""The ``lm_eval.tasks`` entry point as the upstream proposal reads it (docs/lm-eval.md §4).

lm-eval 0.4.13 reads no plugin entry points. Task discovery by entry point is
EleutherAI/lm-evaluation-harness PR #4015 (open, in no release). Its resolver, as of the PR's
head, takes an ``lm_eval.tasks`` entry point's value as an import target (anything after a
colon dropped, nothing called), locates that package's folder with
:func:`importlib.util.find_spec` (``submodule_search_locations``, else the folder of
``origin``) and scans it recursively for YAML files. :func:`resolve` does the same for one
entry point value; :func:`installed` for every entry point the installed distributions declare
in the group, so ``coldbias doctor`` can say what such an lm-eval would load. Both only locate
and list files: no YAML is parsed, no task built.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GROUP", "Resolved", "installed", "resolve"]

#: The entry point group of PR #4015 (named like the merged ``lm_eval.models`` group).
GROUP = "lm_eval.tasks"


@dataclass(frozen=True)
class Resolved:
    """One entry point resolved: ``name`` and ``value`` as declared, ``folders`` searched,
    ``yaml`` every YAML file under them (sorted), ``error`` why nothing was found (empty when
    the value resolved)."""

    name: str
    value: str
    folders: tuple[Path, ...] = ()
    yaml: tuple[Path, ...] = ()
    error: str = ""

    @property
    def task_names(self) -> tuple[str, ...]:
        """The ``task:`` / ``group:`` names the YAML files declare (top-level keys read from
        the lines only: a cheap look, not lm-eval's loader)."""
        found: list[str] = []
        for path in self.yaml:
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                key, _, rest = line.partition(":")
                if key in ("task", "group") and rest.strip() and not rest.strip().startswith("["):
                    found.append(rest.strip().strip("'\""))
        return tuple(sorted(set(found)))


def resolve(name: str, value: str) -> Resolved:
    """The folders and YAML files PR #4015's resolver finds for entry point ``name = value``."""
    target = value.split(":", 1)[0].strip()
    try:
        spec = importlib.util.find_spec(target)
    except (ImportError, ValueError) as err:
        return Resolved(name, value, error=f"{target!r} cannot be located: {err}")
    if spec is None:
        return Resolved(name, value, error=f"{target!r} is not importable")
    if spec.submodule_search_locations:
        folders = tuple(Path(p) for p in spec.submodule_search_locations)
    elif spec.origin:
        folders = (Path(spec.origin).parent,)
    else:
        return Resolved(name, value, error=f"{target!r} has no folder")
    yaml = sorted({p for f in folders for pattern in ("*.yaml", "*.yml") for p in f.rglob(pattern)})
    return Resolved(name, value, folders, tuple(yaml), "" if yaml else "no YAML under it")


def installed(distribution: str | None = None) -> list[tuple[str, Resolved]]:
    """(distribution name, resolved) for every installed ``lm_eval.tasks`` entry point, only
    ``distribution``'s when given (an empty list when it declares none or is not installed)."""
    out: list[tuple[str, Resolved]] = []
    for ep in importlib.metadata.entry_points(group=GROUP):
        dist = ep.dist.name if ep.dist is not None else ""
        if distribution is None or dist.lower() == distribution.lower():
            out.append((dist, resolve(ep.name, ep.value)))
    return out
