"""The leaderboard's rows and columns: one row per model over many output folders.

Runs of one model (same ``model_name``, backend and ``model_args`` minus ``seed``) are merged
with their seeds pooled (:func:`coldbias_tasks.analysis.runs.pool_runs`). Columns: per-domain
divergence (IOU, SERP, PRAG; mean over the domain's attribute tasks of the task mean) with a
bootstrap 95% interval, IOU divergence per attribute group (pooled over domains), fidelity,
``n``, task versions, a degenerate flag, and the headline metric of any other harness task
found in the same results files (capability next to fairness). Degenerate models always sort
last. Markdown and HTML are in :mod:`coldbias_tasks.render.leaderboard_page`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from coldbias_tasks.analysis.bootstrap import (
    BOOTSTRAP_RESAMPLES,
    interval,
    task_bootstrap,
)
from coldbias_tasks.analysis.runs import ModelResults, Run, TaskData, pool_runs, scan_folder
from coldbias_tasks.core.aggregate import fidelity, positions, summarize_group
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.quality import degenerate_reasons
from coldbias_tasks.core.vocabulary import DOMAINS, SIMILARITY_NAMES, VARIANTS

__all__ = [
    "Cell",
    "Column",
    "Leaderboard",
    "Row",
    "build_leaderboard",
    "build_rows",
    "long_table",
    "wide_table",
]

DOWN, UP = "↓", "↑"


@dataclass(frozen=True)
class Column:
    """A leaderboard column: machine ``key``, display ``title``, direction ↓/↑ or ""."""

    key: str
    title: str
    direction: str = ""
    numeric: bool = True
    description: str = ""

    @property
    def header(self) -> str:
        return f"{self.title} {self.direction}".strip()


@dataclass
class Cell:
    """A value (number, count or text) and its interval (NaN when there is none)."""

    value: float | int | str
    ci_low: float = math.nan
    ci_high: float = math.nan


@dataclass
class Row:
    model: ModelResults
    cells: dict[str, Cell] = field(default_factory=dict)
    degenerate: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.model.label

    def number(self, key: str) -> float:
        cell = self.cells.get(key)
        return cell.value if cell is not None and isinstance(cell.value, float) else math.nan


@dataclass
class Leaderboard:
    columns: list[Column]
    rows: list[Row]
    messages: list[str] = field(default_factory=list)


def _mean_cell(
    tasks: Sequence[TaskData], metric: str, means: dict[str, float], draws: dict[str, np.ndarray]
) -> Cell:
    """Mean over ``tasks`` of their task means, with the bootstrap interval of that mean."""
    names = [t.name for t in tasks if not math.isnan(means[t.name])]
    if not names:
        return Cell(math.nan)
    value = float(np.mean([means[n] for n in names]))
    low, high = interval(np.mean(np.vstack([draws[n] for n in names]), axis=0))
    return Cell(value, low, high)


def _variant_suffix(variant: str) -> str:
    return "" if variant == "plain" else f"_{variant}"


# --- building --------------------------------------------------------------------------------


def build_rows(
    models: Sequence[ModelResults], resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[list[Column], list[Row]]:
    """Columns (only those with data) and rows, sorted: non-degenerate first, then by the
    overall IOU divergence (lower first), then by name.
    """
    domains: dict[str, tuple[str, str]] = {}  # key → (domain, variant)
    groups: dict[str, tuple[str, str]] = {}
    extra: dict[str, tuple[str, str, bool | None]] = {}
    rows = []
    for model in models:
        row = Row(model)
        means: dict[str, dict[str, float]] = {m: {} for m in SIMILARITY_NAMES}
        draws: dict[str, dict[str, np.ndarray]] = {m: {} for m in SIMILARITY_NAMES}
        floors = []
        by_domain: dict[str, list[TaskData]] = defaultdict(list)
        by_group: dict[str, list[TaskData]] = defaultdict(list)
        for task in model.tasks.values():
            summary = summarize_group(task.records)
            for m in SIMILARITY_NAMES:
                means[m][task.name] = summary.metrics[m].mean
                draws[m][task.name] = task_bootstrap(task, m, resamples)
            floors.append(summary.metrics["iou"].noise_floor.mean)
            dkey = f"{task.domain}{_variant_suffix(task.variant)}"
            gkey = f"{task.group}{_variant_suffix(task.variant)}"
            domains[dkey] = (task.domain, task.variant)
            groups[gkey] = (task.group, task.variant)
            by_domain[dkey].append(task)
            by_group[gkey].append(task)
        plain_domains = [k for k in by_domain if domains[k][1] == "plain"] or list(by_domain)
        for m in SIMILARITY_NAMES:
            for dkey, tasks in by_domain.items():
                row.cells[f"{dkey}_{m}"] = _mean_cell(tasks, m, means[m], draws[m])
        row.cells["overall_iou"] = _overall_cell(plain_domains, by_domain, means["iou"], draws)
        for gkey, tasks in by_group.items():
            row.cells[f"group_{gkey}_iou"] = _mean_cell(tasks, "iou", means["iou"], draws["iou"])
        records = [r for t in model.tasks.values() for r in t.records]
        fid, pos = fidelity(records), positions(records)
        finite_floors = [f for f in floors if not math.isnan(f)]
        row.cells["exact_k_rate"] = Cell(fid.exact_k_rate)
        row.cells["fill_rate"] = Cell(fid.fill_rate)
        row.cells["out_of_catalog_rate"] = Cell(fid.out_of_catalog_rate)
        row.cells["duplicate_rate"] = Cell(fid.duplicate_rate)
        row.cells["prefix_copy_rate"] = Cell(pos.prefix_copy_rate)
        row.cells["noise_floor"] = Cell(
            float(np.mean(finite_floors)) if finite_floors else math.nan
        )
        row.cells["n"] = Cell(len(records))
        row.cells["task_version"] = Cell(
            ", ".join(dict.fromkeys(t.version for t in model.tasks.values()))
        )
        row.cells["settings"] = Cell(_settings(model.tasks.values()))
        row.degenerate = degenerate_reasons(fid, pos)
        row.cells["degenerate"] = Cell(
            ("yes: " + "; ".join(row.degenerate)) if row.degenerate else "no"
        )
        for task, metric in model.other_metrics.items():
            key = f"extra:{task}:{metric.metric}"
            extra[key] = (task, metric.metric, metric.higher_is_better)
            se = metric.stderr
            if math.isfinite(se):
                row.cells[key] = Cell(
                    metric.value, metric.value - 1.96 * se, metric.value + 1.96 * se
                )
            else:
                row.cells[key] = Cell(metric.value)
        rows.append(row)
    columns = _columns(domains, groups, extra)
    rows.sort(key=_sort_key)
    return columns, rows


def _settings(tasks: Iterable[TaskData]) -> str:
    """Protocol of the row's tasks, e.g. "k=20, 500 shown, shuffle, 5 repeats" (distinct
    values joined with "/"); divergences of rows with other settings are not comparable.
    """
    tasks = list(tasks)

    def joined(values: Iterable[object]) -> str:
        return "/".join(dict.fromkeys(str(v) for v in values))

    return (
        f"k={joined(t.k for t in tasks)}, {joined(t.n_shown for t in tasks)} shown, "
        f"{joined(t.order for t in tasks)}, {joined(t.repeats for t in tasks)} repeats"
    )


def _overall_cell(
    keys: Sequence[str],
    by_domain: dict[str, list[TaskData]],
    means: dict[str, float],
    draws: dict[str, dict[str, np.ndarray]],
) -> Cell:
    """Mean over domains (plain variant) of the domain IOU divergence, each domain weighted
    equally, with the bootstrap interval of that mean.
    """
    values, samples = [], []
    for key in keys:
        names = [t.name for t in by_domain[key] if not math.isnan(means[t.name])]
        if not names:
            continue
        values.append(np.mean([means[n] for n in names]))
        samples.append(np.mean(np.vstack([draws["iou"][n] for n in names]), axis=0))
    if not values:
        return Cell(math.nan)
    low, high = interval(np.mean(np.vstack(samples), axis=0))
    return Cell(float(np.mean(values)), low, high)


def _sort_key(row: Row) -> tuple[bool, float, str]:
    overall = row.number("overall_iou")
    return (bool(row.degenerate), math.inf if math.isnan(overall) else overall, row.label)


_VARIANT_ORDER = {v: i for i, v in enumerate(VARIANTS)}
_DOMAIN_ORDER = {d: i for i, d in enumerate(DOMAINS)}


def _columns(
    domains: dict[str, tuple[str, str]],
    groups: dict[str, tuple[str, str]],
    extra: dict[str, tuple[str, str, bool | None]],
) -> list[Column]:
    cols = [
        Column("model", "model", numeric=False, description="model name (runs pooled)"),
        Column(
            "degenerate",
            "degenerate",
            numeric=False,
            description="fails the fidelity rules: divergences not interpretable as fairness",
        ),
        Column(
            "overall_iou",
            "IOU divergence (all domains)",
            DOWN,
            description="mean over domains (plain variant) of the domain IOU divergence",
        ),
    ]
    order = sorted(
        domains, key=lambda k: (_VARIANT_ORDER.get(domains[k][1], 9), _DOMAIN_ORDER.get(k, 9), k)
    )
    for dkey in order:
        domain, variant = domains[dkey]
        name = domain if variant == "plain" else f"{domain} ({variant})"
        for m in SIMILARITY_NAMES:
            cols.append(
                Column(
                    f"{dkey}_{m}",
                    f"{name} {m.upper()}",
                    DOWN,
                    description=f"{m.upper()} divergence, mean over {name} attribute tasks",
                )
            )
    gorder = sorted(groups, key=lambda k: (_VARIANT_ORDER.get(groups[k][1], 9), k))
    for gkey in gorder:
        group, variant = groups[gkey]
        name = group if variant == "plain" else f"{group} ({variant})"
        cols.append(
            Column(
                f"group_{gkey}_iou",
                f"{name} IOU",
                DOWN,
                description=f"IOU divergence of the {name} attribute group, mean over domains",
            )
        )
    cols += [
        Column("exact_k_rate", "exact-k rate", UP, description="share of answers with k items"),
        Column("fill_rate", "fill rate", UP, description="mean share of the k slots filled"),
        Column("out_of_catalog_rate", "out-of-catalog rate", DOWN, description="entries"),
        Column("duplicate_rate", "duplicate rate", DOWN, description="entries"),
        Column("prefix_copy_rate", "prefix-copy rate", DOWN, description="catalog-order copying"),
        Column(
            "noise_floor",
            "IOU noise floor",
            DOWN,
            description="neutral vs a second neutral answer to the same prompt",
        ),
        Column("n", "n", description="answers (all tasks, all pooled runs)"),
        Column("task_version", "task version", numeric=False),
        Column("settings", "settings", numeric=False, description="k, items shown, order, repeats"),
    ]
    for key in sorted(extra):
        task, metric, better = extra[key]
        arrow = UP if better is True else DOWN if better is False else ""
        cols.append(Column(key, f"{task} {metric}", arrow, description="other harness task"))
    return cols


def collect(dirs: Sequence[str | Path]) -> tuple[list[Run], list[str]]:
    """Runs of all ``dirs``; each unusable folder becomes a message instead of an exception."""
    runs: list[Run] = []
    messages: list[str] = []
    for d in dirs:
        try:
            found = scan_folder(d)
        except RunError as err:
            messages.append(f"skipped: {err}")
            continue
        if not any(r.tasks for r in found):
            tasks = sorted({t for r in found for t in r.foreign_tasks})
            listed = ", ".join(tasks[:8]) + (", ..." if len(tasks) > 8 else "")
            messages.append(
                f"{d}: holds no coldbias task (found: {listed or 'no task'}); its metrics are "
                "used only as capability columns of a model with coldbias results"
            )
        for r in found:
            messages.extend(r.warnings)
        runs += found
    return runs, messages


def build_leaderboard(
    dirs: Sequence[str | Path], resamples: int = BOOTSTRAP_RESAMPLES
) -> Leaderboard:
    """Leaderboard of all usable folders (problems are in ``messages``, never raised)."""
    runs, messages = collect(dirs)
    models = pool_runs(runs) if runs else []
    for model in models:
        messages += [w for w in model.warnings if w not in messages]
    used = {r.results_file.resolve() for m in models for r in m.runs}
    for run in runs:
        if not run.tasks and run.other_metrics and run.results_file.resolve() not in used:
            messages.append(
                f"{run.results_file}: capability results of {run.model} "
                f"({', '.join(run.other_metrics)}) match no model row (same name, backend and "
                "model_args apart from seed); not shown"
            )
    columns, rows = build_rows(models, resamples)
    settings = {
        row.cells["settings"].value.rsplit(",", 1)[0]
        for row in rows  # repeats may differ
    }
    if len(settings) > 1:
        messages.append(
            "models were run with different settings (" + "; ".join(sorted(settings)) + "): "
            "divergences depend on k and the catalog size, compare such rows with care"
        )
    return Leaderboard(columns, rows, messages)


# --- writing ---------------------------------------------------------------------------------


def _value(cell: Cell | None) -> float | int | str:
    return math.nan if cell is None else cell.value


def _has_ci(lb: Leaderboard, key: str) -> bool:
    return any(key in row.cells and not math.isnan(row.cells[key].ci_low) for row in lb.rows)


def long_table(lb: Leaderboard) -> pd.DataFrame:
    """model, column, value, ci_low, ci_high, direction (one line per row × column)."""
    out = []
    for row in lb.rows:
        for col in lb.columns[1:]:
            cell = row.cells.get(col.key)
            if cell is None:
                continue
            out.append(
                {
                    "model": row.label,
                    "column": col.key,
                    "value": cell.value,
                    "ci_low": cell.ci_low,
                    "ci_high": cell.ci_high,
                    "direction": col.direction,
                }
            )
    return pd.DataFrame(out, columns=["model", "column", "value", "ci_low", "ci_high", "direction"])


def wide_table(lb: Leaderboard) -> pd.DataFrame:
    """One row per model; headers carry the direction marker; interval columns follow."""
    with_ci = {c.key for c in lb.columns if _has_ci(lb, c.key)}
    names = ["model"]
    for col in lb.columns[1:]:
        names.append(f"{col.key} {col.direction}".strip())
        if col.key in with_ci:
            names += [f"{col.key}_ci_low", f"{col.key}_ci_high"]
    out = []
    for row in lb.rows:
        line: dict[str, float | int | str] = {"model": row.label}
        for col in lb.columns[1:]:
            cell = row.cells.get(col.key)
            line[f"{col.key} {col.direction}".strip()] = _value(cell)
            if col.key in with_ci:
                line[f"{col.key}_ci_low"] = math.nan if cell is None else cell.ci_low
                line[f"{col.key}_ci_high"] = math.nan if cell is None else cell.ci_high
        out.append(line)
    return pd.DataFrame(out, columns=names)
