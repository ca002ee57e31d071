"""``coldbias eval``'s last step: the results files lm-eval just wrote, made readable.

lm-eval writes a standard error ``X_stderr`` for every metric key X, including coldbias' own
standard errors, p-values, bounds and verdicts (``iou_disparity_stderr_stderr: "N/A"``,
``iou_disparity_p_stderr: "N/A"``): those are dropped. Each group (``coldbias``,
``coldbias_movie`` …) gets the interval and verdict of its headline next to the mean and
standard error lm-eval computed (the same √(Σ SE²) / n): ``{sim}_disparity_ci_low``,
``_ci_high`` and ``_verdict``, pooled from its member tasks' estimates by the function the
report and the leaderboard use (:func:`~coldbias_tasks.analysis.leaderboard_cells.pooled_estimate`,
Student t with Welch–Satterthwaite degrees of freedom). A results file coldbias cannot read
back (no samples: a plain lm_eval run) keeps lm-eval's groups as they are.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from coldbias_tasks.analysis.leaderboard_cells import pooled_estimate
from coldbias_tasks.analysis.run_files import scan_folder
from coldbias_tasks.analysis.summaries import TaskSummary, summarize_task
from coldbias_tasks.core.errors import ColdbiasError, RunError
from coldbias_tasks.core.files.jsonl import json_file
from coldbias_tasks.core.measures import DISPARITY, lm_keys
from coldbias_tasks.core.similarities import SIMILARITY_NAMES
from coldbias_tasks.core.stats.estimate import NOT_APPLICABLE
from coldbias_tasks.core.vocabulary import ANSWER_KEY, FILTER_NAME, is_coldbias_task

__all__ = ["tidy_results", "untidy_key"]

_KEYS = {**lm_keys(), **lm_keys(reverse=True)}


def untidy_key(key: str) -> bool:
    """A results key lm-eval writes that says nothing: the "standard error" of a standard
    error, p-value, bound, verdict or answer count."""
    name = key.partition(",")[0]
    if not name.endswith("_stderr"):
        return False
    base = name.removesuffix("_stderr")
    found = _KEYS.get(base)
    return base == ANSWER_KEY or (found is not None and found.part != "value")


def _group_parts(
    subtasks: dict[str, list[str]], group: str, seen: frozenset[str] = frozenset()
) -> list[str]:
    """The leaf tasks of ``group`` (lm-eval's ``group_subtasks``, nested groups expanded)."""
    out: list[str] = []
    for member in subtasks.get(group, []):
        if member in subtasks and member not in seen:
            out += _group_parts(subtasks, member, seen | {group})
        else:
            out.append(member)
    return out


def _tidy_file(path: Path, tasks: dict[str, TaskSummary]) -> bool:
    data = json_file(path, RunError, "rerun lm_eval (the results file is unreadable)")
    if not isinstance(data, dict):
        return False
    changed = False
    for section in ("results", "groups"):
        for name, entry in (data.get(section) or {}).items():
            if not (isinstance(entry, dict) and is_coldbias_task(name)):
                continue
            for key in [k for k in entry if untidy_key(k)]:
                del entry[key]
                changed = True
    subtasks = {k: list(v) for k, v in (data.get("group_subtasks") or {}).items()}
    for group in subtasks:
        members = [tasks[t] for t in _group_parts(subtasks, group) if t in tasks]
        if not members or not is_coldbias_task(group):
            continue
        for section in ("results", "groups"):
            entry = (data.get(section) or {}).get(group)
            if not isinstance(entry, dict):
                continue
            for sim in SIMILARITY_NAMES:
                found = pooled_estimate(members, sim, DISPARITY)
                names = DISPARITY.key_names(sim)
                entry[f"{names['ci_low']},{FILTER_NAME}"] = found.ci_low
                entry[f"{names['ci_high']},{FILTER_NAME}"] = found.ci_high
                entry[f"{names['verdict']},{FILTER_NAME}"] = found.verdict_text or NOT_APPLICABLE
            changed = True
    if changed:
        path.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    return changed


def tidy_results(output_path: str | Path, since: float) -> list[str]:
    """Tidy the results files under ``output_path`` written after ``since`` (a timestamp:
    this run's own); returns one message per file tidied."""
    root = Path(output_path)
    files: Iterable[Path] = (
        p for p in root.rglob("results_*.json") if p.is_file() and p.stat().st_mtime >= since
    ) if root.is_dir() else ()  # fmt: skip
    out = []
    for path in sorted(files):
        if _tidy_file(path, _tasks_of(path)):
            out.append(f"tidied {path}")
    return out


def _tasks_of(results_file: Path) -> dict[str, TaskSummary]:
    """The forward tasks logged with ``results_file`` (its own run only, read back with every
    check of the loader), summarized; empty when they cannot be read (no samples)."""
    try:
        runs = scan_folder(results_file.parent)
    except ColdbiasError:
        return {}
    found = [r for r in runs if r.results_file.resolve() == results_file.resolve()]
    return {n: summarize_task(t) for r in found for n, t in r.tasks.items()}
