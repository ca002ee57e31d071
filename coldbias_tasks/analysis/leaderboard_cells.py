"""What a leaderboard row's cells are computed from: one model's task statistics grouped by
domain, attribute group and placebo (:class:`ModelData`), and the statistics the cell functions
of :mod:`coldbias_tasks.analysis.leaderboard_columns` share (pooling tasks, intervals over
repeats, Benjamini–Hochberg flags, reverse-task bootstrap draws)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from coldbias_tasks.analysis.eee import EEEResult
from coldbias_tasks.analysis.intervals import (
    BOUNDS,
    Series,
    combine,
    interval,
    reverse_gap_draws,
    t_interval,
)
from coldbias_tasks.analysis.ranking import bh_flags
from coldbias_tasks.analysis.run_data import ModelResults, TaskData
from coldbias_tasks.analysis.summaries import TaskSummary, placebo_flag
from coldbias_tasks.core.aggregate import Fidelity, GroupSummary, Positions, pooled_answers
from coldbias_tasks.core.quality import degenerate_reasons
from coldbias_tasks.core.reverse import summarize_reverse
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP, intersection_parts

__all__ = ["Cell", "EeeScore", "ModelData", "model_data"]

#: an Every Eval Ever score of a row: (the row's record, the first record of its column)
EeeScore = tuple[EEEResult, EEEResult]


@dataclass
class Cell:
    """A value (number, count or text) and its interval (NaN when there is none)."""

    value: float | int | str
    ci_low: float = math.nan
    ci_high: float = math.nan


def variant_suffix(variant: str) -> str:
    """ "" for the plain variant, "_<variant>" otherwise (column keys of domains and groups)."""
    return "" if variant == "plain" else f"_{variant}"


def counted(task: TaskData) -> bool:
    """Whether a task counts in its domain's figures (attribute groups, explicit variants)."""
    plain_group = task.group != PLACEBO_GROUP and intersection_parts(task.group) is None
    return plain_group and task.variant != "implicit"


@dataclass
class ModelData:
    """Everything the cell functions of one model's row read. ``domains`` and ``groups`` map a
    column key part ("books", "books_context", "gender") to its tasks and ``(name, variant)``;
    ``placebo``: domain → the plain placebo task; ``reverse``: domain or "group_<group>" → (rank
    gap, bootstrap draws) of its reverse tasks. ``rank``, ``tier`` and ``prompt`` are filled by
    passes over all models (``None`` when the model has none); ``eee``: column key → its Every
    Eval Ever score."""

    model: ModelResults
    stats: list[TaskSummary]
    domains: dict[str, list[TaskSummary]]
    domain_names: dict[str, tuple[str, str]]
    groups: dict[str, list[TaskSummary]]
    group_names: dict[str, tuple[str, str]]
    placebo: dict[str, TaskSummary]
    #: fidelity and positions over all of the model's answers (``core.aggregate.pooled_answers``)
    answers: GroupSummary
    n: int
    degenerate: list[str]
    reverse: dict[str, list[tuple[float, np.ndarray]]] = field(default_factory=dict)
    reverse_complete: list[float] = field(default_factory=list)
    rank: str | None = None
    tier: int | None = None
    prompt: dict[str, Any] | None = None
    eee: dict[str, EeeScore] = field(default_factory=dict)

    @property
    def fidelity(self) -> Fidelity:
        return self.answers.fidelity

    @property
    def positions(self) -> Positions:
        return self.answers.positions

    @property
    def plain_domains(self) -> list[str]:
        return [k for k in self.domains if self.domain_names[k][1] == "plain"]

    @property
    def counted(self) -> list[TaskSummary]:
        return [s for members in self.domains.values() for s in members]


def model_data(model: ModelResults, stats: list[TaskSummary], resamples: int) -> ModelData:
    """Group one model's task statistics (``stats``, in ``model.tasks`` order) and compute its
    fidelity and its reverse tasks' rank gaps (``resamples`` bootstrap draws over items)."""
    domains: dict[str, list[TaskSummary]] = defaultdict(list)
    groups: dict[str, list[TaskSummary]] = defaultdict(list)
    domain_names: dict[str, tuple[str, str]] = {}
    group_names: dict[str, tuple[str, str]] = {}
    placebo: dict[str, TaskSummary] = {}
    for s in stats:
        t = s.task
        gkey = f"{t.group}{variant_suffix(t.variant)}"
        group_names[gkey] = (t.group, t.variant)
        groups[gkey].append(s)
        if t.group == PLACEBO_GROUP and t.variant == "plain":
            placebo[t.domain] = s
        if counted(t):
            dkey = f"{t.domain}{variant_suffix(t.variant)}"
            domain_names[dkey] = (t.domain, t.variant)
            domains[dkey].append(s)
    records = [r for t in model.tasks.values() for r in t.records]
    answers = pooled_answers(records)
    data = ModelData(
        model, stats, dict(domains), domain_names, dict(groups), group_names, placebo, answers,
        len(records), degenerate_reasons(answers.fidelity, answers.positions),
    )  # fmt: skip
    if model.reverse:
        by_domain: dict[str, list[tuple[float, np.ndarray]]] = defaultdict(list)
        by_group: dict[str, list[tuple[float, np.ndarray]]] = defaultdict(list)
        for task in model.reverse.values():
            summary = summarize_reverse(task.records)
            part = (summary.rank_gap, reverse_gap_draws(task.records, task.name, resamples))
            by_group[task.group].append(part)
            if task.group != PLACEBO_GROUP:
                by_domain[task.domain].append(part)
            data.reverse_complete.append(summary.complete_rate)
        data.reverse = dict(by_domain) | {f"group_{g}": parts for g, parts in by_group.items()}
    return data


def cell_of(value: float, series: Series, kind: str | None = None) -> Cell:
    """The figure with its 95 % t-interval over repeats (no interval with < 2 repeats),
    clipped to the range of ``kind`` (divergence, excess) when given."""
    if math.isnan(value):
        return Cell(math.nan)
    low, high = t_interval(series, bounds=BOUNDS.get(kind) if kind else None)
    return Cell(value, low, high)


def pooled(stats: Sequence[TaskSummary], metric: str, kind: str) -> tuple[float, dict[int, float]]:
    """Mean over tasks of the figure (NaN ones left out) and the repeat-by-repeat mean of their
    series (tasks of one run share each repeat's catalog order)."""
    keep = [s for s in stats if not math.isnan(s.value(metric, kind))]
    if not keep:
        return math.nan, {}
    value = float(np.mean([s.value(metric, kind) for s in keep]))
    return value, combine([s.series[(metric, kind)] for s in keep])


def value_weighted(stats: Sequence[TaskSummary], metric: str) -> tuple[float, dict[int, float]]:
    """Mean raw divergence over every sentence of the tasks (value × phrasing, each weighted
    alike: the seed paper's Table 1 averages over all values) and its repeat-by-repeat series
    (the tasks' series weighted by their numbers of sentences)."""
    parts = [
        (len(s.summary.metrics[metric].values), s.value(metric, "divergence"), s) for s in stats
    ]
    parts = [(n, v, s) for n, v, s in parts if n and not math.isnan(v)]
    if not parts:
        return math.nan, {}
    total = sum(n for n, _, _ in parts)
    value = sum(n * v for n, v, _ in parts) / total
    series: dict[int, float] = {}
    repeats = set.intersection(*(set(s.series[(metric, "divergence")]) for _, _, s in parts))
    for r in sorted(repeats):
        terms = [(n, s.series[(metric, "divergence")][r]) for n, _, s in parts]
        if not any(math.isnan(x) for _, x in terms):
            series[r] = sum(n * x for n, x in terms) / total
    return float(value), series


def pooled_cell(stats: Sequence[TaskSummary], metric: str, kind: str) -> Cell:
    """:func:`pooled` as a cell with its interval: over repeats, or for the ``disparity`` ±
    1.96 × the pooled standard error (:func:`pooled_disparity`)."""
    if kind == "disparity":
        return stderr_cell(*pooled_disparity(stats, metric))
    return cell_of(*pooled(stats, metric, kind), kind)


def pooled_disparity(stats: Sequence[TaskSummary], metric: str = "iou") -> tuple[float, float]:
    """(mean over tasks of the disparity, its standard error √(Σ SE²) / n): the tasks ask
    different sentences, so their phrasing-jackknife errors are taken as independent. NaN
    tasks are left out; the SE is NaN when a kept task has none."""
    keep = [s.summary.metrics[metric].disparity for s in stats]
    keep = [d for d in keep if not math.isnan(d.value)]
    if not keep:
        return math.nan, math.nan
    value = float(np.mean([d.value for d in keep]))
    se = math.sqrt(sum(d.stderr**2 for d in keep)) / len(keep)
    return value, se


def overall_disparity(data: ModelData, metric: str = "iou") -> tuple[float, float]:
    """(mean over plain domains of :func:`pooled_disparity`, its SE √(Σ SE_d²) / n_d): the
    leaderboard's headline, signed (never clamped)."""
    parts = [pooled_disparity(data.domains[key], metric) for key in data.plain_domains]
    parts = [(v, se) for v, se in parts if not math.isnan(v)]
    if not parts:
        return math.nan, math.nan
    value = float(np.mean([v for v, _ in parts]))
    return value, math.sqrt(sum(se**2 for _, se in parts)) / len(parts)


def overall(data: ModelData, kind: str) -> Cell:
    """Mean over domains (plain variant) of the domain IOU figure, each domain weighted
    equally, with the t-interval over repeats of that mean (domains combined repeat by
    repeat); for the ``disparity`` ± 1.96 × :func:`overall_disparity`'s SE."""
    if kind == "disparity":
        return stderr_cell(*overall_disparity(data))
    parts = [pooled(data.domains[key], "iou", kind) for key in data.plain_domains]
    parts = [(v, series) for v, series in parts if not math.isnan(v)]
    if not parts:
        return Cell(math.nan)
    return cell_of(float(np.mean([v for v, _ in parts])), combine([s for _, s in parts]), kind)


def flags_cell(stats: Sequence[TaskSummary], test: str) -> Cell:
    """ "flagged/tested" of the tasks' IOU ``disparity`` tests after Benjamini–Hochberg over
    those tasks at the tasks' α."""
    pvalues = [getattr(s.summary.metrics["iou"], test).p_value for s in stats]
    alpha = stats[0].summary.alpha if stats else 0.05
    flagged, tested = bh_flags(pvalues, alpha)
    return Cell(f"{flagged}/{tested}" if tested else "")


def stderr_cell(value: float, stderr: float) -> Cell:
    """``value`` ± 1.96 × ``stderr`` (no interval when the standard error is not finite)."""
    if math.isnan(value):
        return Cell(math.nan)
    if math.isfinite(stderr):
        return Cell(value, value - 1.96 * stderr, value + 1.96 * stderr)
    return Cell(value)


def mean_cell(values: Iterable[float]) -> Cell:
    """Mean of the finite ``values``; NaN when there is none."""
    finite = [x for x in values if not math.isnan(x)]
    return Cell(float(np.mean(finite)) if finite else math.nan)


def draws_cell(parts: Sequence[tuple[float, np.ndarray]]) -> Cell:
    """Mean of the parts' values (NaN ones left out, with their draws) with the bootstrap
    interval of the parts' draws averaged draw by draw; NaN when nothing is left."""
    keep = [(v, d) for v, d in parts if not math.isnan(v)]
    if not keep:
        value, draws = math.nan, np.full(1, math.nan)
    else:
        value = float(np.mean([v for v, _ in keep]))
        draws = np.mean(np.vstack([d for _, d in keep]), axis=0)
    low, high = interval(draws)
    return Cell(value, low, high)


def placebo_clearly_above_zero(p: TaskSummary) -> bool:
    """The placebo rule of :func:`coldbias_tasks.analysis.summaries.placebo_flag`."""
    return placebo_flag(p, "iou")


def settings(tasks: Iterable[TaskData]) -> str:
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
