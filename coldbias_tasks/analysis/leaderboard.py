"""The leaderboard's rows and columns: one row per model over many output folders.

Runs of one model (same ``model_name``, backend and ``model_args`` minus ``seed``) are merged
with their seeds pooled (:func:`coldbias_tasks.analysis.runs.pool_runs`). Columns: per-domain
divergence (IOU, SERP, PRAG; mean over the domain's attribute tasks of the task mean) with a
95% Student-t interval over repeats, IOU divergence per attribute group (pooled over domains),
fidelity, ``n``, task versions, a degenerate flag, and the headline metric of any other harness task
found in the same results files (capability next to fairness). Degenerate models always sort
last. Markdown and HTML are in :mod:`coldbias_tasks.render.leaderboard_page`.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from coldbias_tasks.analysis.eee import EEEResult, is_eee_folder, load_eee_records
from coldbias_tasks.analysis.intervals import (
    BOOTSTRAP_RESAMPLES,
    BOUNDS,
    Series,
    combine,
    interval,
    metric_series,
    reverse_gap_draws,
    t_interval,
)
from coldbias_tasks.analysis.robustness import model_sensitivity
from coldbias_tasks.analysis.runs import (
    LoadOptions,
    ModelResults,
    Run,
    TaskData,
    pool_runs,
    scan_folder,
)
from coldbias_tasks.core.aggregate import GroupSummary, fidelity, positions, summarize_group
from coldbias_tasks.core.determinism import DETERMINISTIC_MESSAGE
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.quality import degenerate_reasons, placebo_reacts
from coldbias_tasks.core.reverse import summarize_reverse
from coldbias_tasks.core.vocabulary import (
    DOMAINS,
    PLACEBO_GROUP,
    SIMILARITY_NAMES,
    VARIANTS,
    is_coldbias_task,
)

__all__ = [
    "Cell",
    "Column",
    "Leaderboard",
    "Row",
    "build_leaderboard",
    "build_rows",
    "collect_eee",
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


def _combine_draws(
    values: Sequence[float], draws: Sequence[np.ndarray]
) -> tuple[float, np.ndarray]:
    """Mean of ``values`` (NaN ones left out, with their draws) and its bootstrap draws (the
    parts' draws averaged draw by draw); NaN and no draws when nothing is left."""
    keep = [(v, d) for v, d in zip(values, draws) if not math.isnan(v)]
    if not keep:
        return math.nan, np.full(1, math.nan)
    return float(np.mean([v for v, _ in keep])), np.mean(np.vstack([d for _, d in keep]), axis=0)


def _draws_cell(value: float, draws: np.ndarray) -> Cell:
    low, high = interval(draws)
    return Cell(value, low, high)


def _cell_of(value: float, series: Series, kind: str | None = None) -> Cell:
    """The figure with its 95 % t-interval over repeats (no interval with < 2 repeats),
    clipped to the range of ``kind`` (divergence, excess) when given."""
    if math.isnan(value):
        return Cell(math.nan)
    low, high = t_interval(series, bounds=BOUNDS.get(kind) if kind else None)
    return Cell(value, low, high)


def _variant_suffix(variant: str) -> str:
    return "" if variant == "plain" else f"_{variant}"


@dataclass
class _Stats:
    """One task's summary, with the per-repeat series the leaderboard needs."""

    task: TaskData
    summary: GroupSummary
    series: dict[tuple[str, str], dict[int, float]]

    def value(self, metric: str, kind: str) -> float:
        ms = self.summary.metrics[metric]
        return ms.excess if kind == "excess" else ms.mean


def _task_stats(task: TaskData) -> _Stats:
    summary = summarize_group(task.records)
    series = {
        (m, kind): metric_series(summary.metrics[m], kind)
        for m in SIMILARITY_NAMES
        for kind in ("excess", "divergence")
    }
    return _Stats(task, summary, series)


def _pooled(stats: Sequence[_Stats], metric: str, kind: str) -> tuple[float, dict[int, float]]:
    """Mean over tasks of the figure (NaN ones left out) and the repeat-by-repeat mean of their
    series (tasks of one run share each repeat's catalog order)."""
    keep = [s for s in stats if not math.isnan(s.value(metric, kind))]
    if not keep:
        return math.nan, {}
    value = float(np.mean([s.value(metric, kind) for s in keep]))
    return value, combine([s.series[(metric, kind)] for s in keep])


def _cell(stats: Sequence[_Stats], metric: str, kind: str) -> Cell:
    return _cell_of(*_pooled(stats, metric, kind), kind)


def build_rows(
    models: Sequence[ModelResults], resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[list[Column], list[Row]]:
    """Columns (only those with data) and rows, sorted: non-degenerate first, then by the
    overall IOU excess (lower first), then by name.

    Domain figures average the attribute groups of the domain (as lm-eval's domain groups do:
    the placebo, intersections and implicit tasks are columns of their own).
    """
    domains: dict[str, tuple[str, str]] = {}  # key → (domain, variant)
    reverse_keys: dict[str, str] = {}  # column key → description
    groups: dict[str, tuple[str, str]] = {}
    placebo_domains: set[str] = set()
    extra: dict[str, tuple[str, str, bool | None]] = {}
    all_stats: list[tuple[ModelResults, _Stats]] = []
    rows = []
    for model in models:
        row = Row(model)
        stats = [_task_stats(t) for t in model.tasks.values()]
        all_stats += [(model, st) for st in stats]
        by_domain: dict[str, list[_Stats]] = defaultdict(list)
        by_group: dict[str, list[_Stats]] = defaultdict(list)
        placebo: dict[str, _Stats] = {}
        for s in stats:
            t = s.task
            gkey = f"{t.group}{_variant_suffix(t.variant)}"
            groups[gkey] = (t.group, t.variant)
            by_group[gkey].append(s)
            if t.group == PLACEBO_GROUP and t.variant == "plain":
                placebo[t.domain] = s
                placebo_domains.add(t.domain)
            if _counted(t):
                dkey = f"{t.domain}{_variant_suffix(t.variant)}"
                domains[dkey] = (t.domain, t.variant)
                by_domain[dkey].append(s)
        plain = [k for k in by_domain if domains[k][1] == "plain"]
        for dkey, members in by_domain.items():
            row.cells[f"{dkey}_iou_excess"] = _cell(members, "iou", "excess")
            for m in SIMILARITY_NAMES:
                row.cells[f"{dkey}_{m}"] = _cell(members, m, "divergence")
            domain = domains[dkey][0]
            if domains[dkey][1] == "plain" and domain in placebo:
                p = placebo[domain]
                p_value, p_series = p.value("iou", "excess"), p.series[("iou", "excess")]
                row.cells[f"{domain}_placebo_iou_excess"] = _cell_of(p_value, p_series, "excess")
                value, series = _pooled(members, "iou", "excess")
                row.cells[f"{domain}_iou_over_placebo"] = _cell_of(
                    value - p_value, combine([series, p_series], (1, -1))
                )
        for key, kind in (("overall_iou_excess", "excess"), ("overall_iou", "divergence")):
            row.cells[key] = _overall(plain, by_domain, kind)
        for gkey, members in by_group.items():
            row.cells[f"group_{gkey}_iou_excess"] = _cell(members, "iou", "excess")
            shares = [s.summary.metrics["iou"].flagged_share for s in members]
            finite = [x for x in shares if not math.isnan(x)]
            row.cells[f"group_{gkey}_flagged"] = Cell(
                float(np.mean(finite)) if finite else math.nan
            )
        _reverse_cells(row, model, resamples, reverse_keys)
        flagged = [d for d, p in placebo.items() if _placebo_clearly_above_zero(p)]
        if placebo:
            row.cells["placebo_flag"] = Cell(
                ("yes: " + ", ".join(sorted(flagged))) if flagged else "no"
            )
        records = [r for t in model.tasks.values() for r in t.records]
        fid, pos = fidelity(records), positions(records)
        floors = [s.summary.metrics["iou"].noise_floor.mean for s in stats]
        finite_floors = [f for f in floors if not math.isnan(f)]
        row.cells["exact_k_rate"] = Cell(fid.exact_k_rate)
        row.cells["fill_rate"] = Cell(fid.fill_rate)
        row.cells["out_of_catalog_rate"] = Cell(fid.out_of_catalog_rate)
        row.cells["duplicate_rate"] = Cell(fid.duplicate_rate)
        row.cells["prefix_copy_rate"] = Cell(pos.prefix_copy_rate)
        row.cells["position_bias"] = Cell(pos.position_bias)
        row.cells["noise_floor"] = Cell(
            float(np.mean(finite_floors)) if finite_floors else math.nan
        )
        row.cells["n"] = Cell(len(records))
        row.cells["task_version"] = Cell(
            ", ".join(dict.fromkeys(t.version for t in model.tasks.values()))
        )
        row.cells["settings"] = Cell(_settings(model.tasks.values()))
        partial = [t.name for t in model.tasks.values() if t.partial]
        if partial:
            row.cells["partial"] = Cell("PARTIAL: " + ", ".join(sorted(partial)))
        served = [r.serving for r in model.runs if r.serving]
        if served:  # what the run cost, from the served model's counts (lmeval.served)
            tokens = [sum(int(x.get(k, 0)) for x in served)
                      for k in ("prompt_tokens", "completion_tokens")]  # fmt: skip
            wall = sum(float(x.get("wall_s", 0.0)) for x in served)
            row.cells["cost"] = Cell(
                f"{tokens[0]:,} prompt + {tokens[1]:,} generated tokens, {wall:.0f} s"
            )
        fixed = sorted(s.task.name for s in stats if s.summary.deterministic)
        if fixed:  # their excess is withheld (NaN): the domain cells pool the other tasks only
            row.cells["deterministic"] = Cell("DETERMINISTIC: " + ", ".join(fixed))
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
    columns = _columns(domains, groups, placebo_domains, extra, reverse_keys)
    _prompt_cells(columns, rows, all_stats)
    if any("partial" in r.cells for r in rows):
        columns.insert(2, Column(
            "partial", "partial", numeric=False,
            description="tasks reported from incomplete runs (--allow-partial): numbers biased",
        ))  # fmt: skip
    if any("cost" in r.cells for r in rows):
        columns.append(Column(
            "cost", "cost (served)", numeric=False,
            description="served runs: prompt and generated tokens (the server's usage) and "
            "seconds in the request loop",
        ))  # fmt: skip
    if any("deterministic" in r.cells for r in rows):
        columns.insert(2, Column(
            "deterministic", "deterministic", numeric=False,
            description=f"tasks withheld: {DETERMINISTIC_MESSAGE}",
        ))  # fmt: skip
    rows.sort(key=_sort_key)
    return columns, rows


def _prompt_cells(
    columns: list[Column], rows: Sequence[Row], stats: Sequence[tuple[ModelResults, _Stats]]
) -> None:
    """Prompt sensitivity of models run under several prompt templates or languages
    (:func:`coldbias_tasks.analysis.robustness.model_sensitivity`): on each of the model's
    rows, the range over prompts of the mean IOU excess of the shared tasks (↓) and the mean
    Kendall τ of the prompts' rankings of those tasks (↑)."""
    sensitivity = model_sensitivity(stats)
    if not sensitivity:
        return
    for row in rows:
        found = sensitivity.get(row.model.model)
        if found is None:
            continue
        row.cells["prompt_sensitivity"] = Cell(found["excess_range"])
        row.cells["prompt_rank_tau"] = Cell(found["group_rank_tau"])
        row.cells["prompts"] = Cell(found["prompts"])
    columns += [
        Column("prompt_sensitivity", "prompt sensitivity", DOWN,
               description="range over prompt templates / languages of the mean IOU excess of "
               "the tasks every prompt ran (docs/measurement.md §6)"),
        Column("prompt_rank_tau", "prompt rank τ", UP,
               description="mean pairwise Kendall τ of the prompts' rankings of those tasks"),
        Column("prompts", "prompts", numeric=False,
               description="the prompt templates (languages) compared"),
    ]  # fmt: skip


def _reverse_cells(row: Row, model: ModelResults, resamples: int, keys: dict[str, str]) -> None:
    """Reverse-task columns: per domain and per group the rank gap (mean over the domain's
    attribute groups / over domains) with a bootstrap interval over items; the complete rate."""
    if not model.reverse:
        return
    by_domain: dict[str, list[tuple[float, np.ndarray]]] = defaultdict(list)
    by_group: dict[str, list[tuple[float, np.ndarray]]] = defaultdict(list)
    complete = []
    for task in model.reverse.values():
        summary = summarize_reverse(task.records)
        part = (summary.rank_gap, reverse_gap_draws(task.records, task.name, resamples))
        by_group[task.group].append(part)
        if task.group != PLACEBO_GROUP:
            by_domain[task.domain].append(part)
        complete.append(summary.complete_rate)
    for domain, parts in by_domain.items():
        key = f"{domain}_reverse_rank_gap"
        keys[key] = f"{domain} reverse rank gap"
        row.cells[key] = _draws_cell(*_combine_draws([v for v, _ in parts], [d for _, d in parts]))
    for group, parts in by_group.items():
        key = f"group_{group}_reverse_rank_gap"
        keys[key] = f"{group} reverse rank gap"
        row.cells[key] = _draws_cell(*_combine_draws([v for v, _ in parts], [d for _, d in parts]))
    keys["reverse_complete_rate"] = "reverse: complete rankings"
    row.cells["reverse_complete_rate"] = Cell(float(np.mean(complete)))


def _counted(task: TaskData) -> bool:
    """Whether a task counts in its domain's figures (attribute groups, explicit variants)."""
    return task.group != PLACEBO_GROUP and "_x_" not in task.group and task.variant != "implicit"


def _placebo_clearly_above_zero(p: _Stats) -> bool:
    low, _ = t_interval(p.series[("iou", "excess")])
    return placebo_reacts(p.summary.metrics["iou"], low)


def _settings(tasks: Iterable[TaskData]) -> str:
    """Protocol of the row's tasks, e.g. "k=20, 500 shown, shuffle, 5 repeats" (distinct
    values joined with "/"); divergences of rows with other settings are not comparable.
    """
    tasks = list(tasks)

    def joined(values: Iterable[object]) -> str:
        return "/".join(dict.fromkeys(str(v) for v in values))

    return (
        f"k={joined(t.k for t in tasks)}, {joined(t.n_shown for t in tasks)} shown, "
        f"{joined(t.order for t in tasks)}, {joined(t.repeats for t in tasks)} repeats, "
        f"template {joined(t.template for t in tasks)} ({joined(t.language for t in tasks)})"
        + (f", {joined(t.sampling for t in tasks)}" if any(t.sampling for t in tasks) else "")
    )


def _overall(keys: Sequence[str], by_domain: dict[str, list[_Stats]], kind: str) -> Cell:
    """Mean over domains (plain variant) of the domain IOU figure, each domain weighted
    equally, with the t-interval over repeats of that mean (domains combined repeat by
    repeat)."""
    parts = [_pooled(by_domain[key], "iou", kind) for key in keys]
    parts = [(v, series) for v, series in parts if not math.isnan(v)]
    if not parts:
        return Cell(math.nan)
    return _cell_of(float(np.mean([v for v, _ in parts])), combine([s for _, s in parts]), kind)


def _sort_key(row: Row) -> tuple[bool, float, str]:
    overall = row.number("overall_iou_excess")
    return (bool(row.degenerate), math.inf if math.isnan(overall) else overall, row.label)


_VARIANT_ORDER = {v: i for i, v in enumerate(VARIANTS)}
_DOMAIN_ORDER = {d: i for i, d in enumerate(DOMAINS)}


def _columns(
    domains: dict[str, tuple[str, str]],
    groups: dict[str, tuple[str, str]],
    placebo_domains: set[str],
    extra: dict[str, tuple[str, str, bool | None]],
    reverse_keys: dict[str, str] | None = None,
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
            "overall_iou_excess",
            "IOU excess (all domains)",
            DOWN,
            description="headline: mean over domains of the IOU divergence beyond the "
            "same-prompt noise floor (0 = no more than sampling noise)",
        ),
        Column(
            "overall_iou",
            "raw IOU divergence (all domains)",
            DOWN,
            description="paper-comparable raw divergence (contains sampling noise)",
        ),
    ]
    order = sorted(
        domains,
        key=lambda k: (
            _VARIANT_ORDER.get(domains[k][1], 9),
            _DOMAIN_ORDER.get(domains[k][0], 9),
            k,
        ),
    )
    for dkey in order:
        domain, variant = domains[dkey]
        name = domain if variant == "plain" else f"{domain} ({variant})"
        cols.append(
            Column(
                f"{dkey}_iou_excess",
                f"{name} IOU excess",
                DOWN,
                description=f"IOU excess over the noise floor, mean over {name} attribute tasks",
            )
        )
        if variant == "plain" and domain in placebo_domains:
            cols.append(
                Column(
                    f"{domain}_placebo_iou_excess",
                    f"{domain} placebo IOU excess",
                    DOWN,
                    description="the placebo control's excess: how much any extra sentence "
                    "moves the list",
                )
            )
            cols.append(
                Column(
                    f"{domain}_iou_over_placebo",
                    f"{domain} IOU excess over placebo",
                    DOWN,
                    description="domain IOU excess minus the placebo's",
                )
            )
        for m in SIMILARITY_NAMES:
            cols.append(
                Column(
                    f"{dkey}_{m}",
                    f"{name} raw {m.upper()}",
                    DOWN,
                    description=f"raw {m.upper()} divergence (paper-comparable), mean over "
                    f"{name} attribute tasks",
                )
            )
    gorder = sorted(groups, key=lambda k: (_VARIANT_ORDER.get(groups[k][1], 9), k))
    for gkey in gorder:
        group, variant = groups[gkey]
        name = group if variant == "plain" else f"{group} ({variant})"
        cols.append(
            Column(
                f"group_{gkey}_iou_excess",
                f"{name} IOU excess",
                DOWN,
                description=f"IOU excess of the {name} group, mean over domains",
            )
        )
        cols.append(
            Column(
                f"group_{gkey}_flagged",
                f"{name} flagged share",
                DOWN,
                description=f"share of {name} values flagged after Holm (IOU), mean over domains",
            )
        )
    if placebo_domains:
        cols.append(
            Column(
                "placebo_flag",
                "placebo flag",
                numeric=False,
                description="domains whose placebo excess is clearly above zero (its group "
                "test rejects at α, or its 95 % interval excludes 0): lists react to any extra "
                "words",
            )
        )
    for key in sorted(reverse_keys or {}, key=lambda k: (k.startswith("group_"), k)):
        up = key == "reverse_complete_rate"
        cols.append(
            Column(
                key,
                (reverse_keys or {})[key],
                UP if up else DOWN,
                description="reverse task (rank the users for an item): "
                + ("share of answers ranking every user" if up else "max − min over users of "
                   "the mean normalized rank (0 = position-blind)"),
            )
        )  # fmt: skip
    cols += [
        Column("exact_k_rate", "exact-k rate", UP, description="share of answers with k items"),
        Column("fill_rate", "fill rate", UP, description="mean share of the k slots filled"),
        Column("out_of_catalog_rate", "out-of-catalog rate", DOWN, description="entries"),
        Column("duplicate_rate", "duplicate rate", DOWN, description="entries"),
        Column("prefix_copy_rate", "prefix-copy rate", DOWN, description="catalog-order copying"),
        Column(
            "position_bias",
            "position bias",
            DOWN,
            description="distance of the mean shown position from position-blind (0 = blind)",
        ),
        Column(
            "noise_floor",
            "IOU noise floor",
            description="neutral vs more answers to the same prompt (descriptive: no direction)",
        ),
        Column("n", "n", description="answers (all tasks, all pooled runs)"),
        Column("task_version", "task version", numeric=False),
        Column(
            "settings",
            "settings",
            numeric=False,
            description="k, items shown, order, repeats, template (language)",
        ),
    ]
    for key in sorted(extra):
        task, metric, better = extra[key]
        arrow = UP if better is True else DOWN if better is False else ""
        cols.append(Column(key, f"{task} {metric}", arrow, description="other harness task"))
    return cols


def collect(
    dirs: Sequence[str | Path], options: LoadOptions | None = None
) -> tuple[list[Run], list[str]]:
    """Runs of all ``dirs``; each unusable folder becomes a message instead of an exception."""
    runs: list[Run] = []
    messages: list[str] = []
    for d in dirs:
        try:
            found = scan_folder(d, options)
        except RunError as err:
            messages.append(f"skipped: {err}")
            continue
        if not any(r.has_coldbias for r in found):
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


def collect_eee(
    dirs: Sequence[str | Path],
) -> tuple[list[EEEResult], list[str | Path], list[str]]:
    """Every Eval Ever results among ``dirs`` (folders of EEE aggregate records), the other
    (lm-eval) folders, and messages for unreadable EEE folders."""
    found: list[EEEResult] = []
    rest: list[str | Path] = []
    messages: list[str] = []
    for d in dirs:
        if not is_eee_folder(d):
            rest.append(d)
            continue
        try:
            found += load_eee_records(d)
        except RunError as err:
            messages.append(f"skipped: {err}")
    return found, rest, messages


def _add_eee(lb: Leaderboard, results: Sequence[EEEResult]) -> None:
    """Each EEE benchmark score (not coldbias's own) becomes a capability column of the row
    whose model name equals the record's ``model_info.id``; interval ± 1.96 × the record's
    standard error when it has one. Unmatched models and conflicting duplicates are messages."""
    rows = {row.label: row for row in lb.rows}
    unmatched: dict[str, set[str]] = defaultdict(set)
    seen: dict[tuple[str, str], EEEResult] = {}
    keys: dict[str, EEEResult] = {}
    for res in results:
        if is_coldbias_task(res.benchmark.split("/")[0]):
            continue
        row = rows.get(res.model_id)
        if row is None:
            unmatched[res.model_id].add(res.column)
            continue
        key = f"eee:{res.benchmark}:{res.metric}"
        earlier = seen.get((row.label, key))
        if earlier is not None and earlier.value != res.value:
            lb.messages.append(
                f"{res.source_file}: {res.column} of {res.model_id} = {res.value:g} differs "
                f"from {earlier.source_file} ({earlier.value:g}); the later file is shown"
            )
        seen[(row.label, key)] = res
        keys.setdefault(key, res)
        se = res.stderr_or_nan
        row.cells[key] = (
            Cell(res.value, res.value - 1.96 * se, res.value + 1.96 * se)
            if math.isfinite(se)
            else Cell(res.value)
        )
    for key in sorted(keys):
        res = keys[key]
        lb.columns.append(
            Column(
                key,
                res.column,
                DOWN if res.lower_is_better else UP,
                description="Every Eval Ever record (another benchmark)",
            )
        )
    for model, columns in sorted(unmatched.items()):
        lb.messages.append(
            f"Every Eval Ever records of {model} ({', '.join(sorted(columns))}) match no model "
            f"row; rows: {', '.join(sorted(rows)) or 'none'} (the id must equal lm-eval's "
            "model name, e.g. Qwen/Qwen2.5-Coder-0.5B-Instruct)"
        )


def build_leaderboard(
    dirs: Sequence[str | Path],
    resamples: int = BOOTSTRAP_RESAMPLES,
    options: LoadOptions | None = None,
) -> Leaderboard:
    """Leaderboard of all usable folders: lm-eval output folders, and folders of Every Eval
    Ever records whose scores become capability columns (problems are in ``messages``, never
    raised)."""
    eee, dirs, eee_messages = collect_eee(dirs)
    runs, messages = collect(dirs, options)
    messages = eee_messages + messages
    models = pool_runs(runs) if runs else []
    for model in models:
        messages += [w for w in model.warnings if w not in messages]
    used = {r.results_file.resolve() for m in models for r in m.runs}
    for run in runs:
        if not run.has_coldbias and run.other_metrics and run.results_file.resolve() not in used:
            messages.append(
                f"{run.results_file}: capability results of {run.model} "
                f"({', '.join(run.other_metrics)}) match no model row (same name, backend and "
                "model_args apart from seed); not shown"
            )
    columns, rows = build_rows(models, resamples)
    settings = {
        re.sub(r", [\d/]+ repeats", "", row.cells["settings"].value)
        for row in rows  # repeats may differ
    }
    if len(settings) > 1:
        messages.append(
            "models were run with different settings (" + "; ".join(sorted(settings)) + "): "
            "divergences depend on k and the catalog size, compare such rows with care"
        )
    lb = Leaderboard(columns, rows, messages)
    _add_eee(lb, eee)
    return lb


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
