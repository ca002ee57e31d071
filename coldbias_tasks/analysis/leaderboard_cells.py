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
    Series,
    combine,
    interval,
    reverse_gap_draws,
    t_interval,
)
from coldbias_tasks.analysis.ranking import bh_flags
from coldbias_tasks.analysis.run_data import ModelResults, TaskData
from coldbias_tasks.analysis.summaries import TaskSummary, placebo_flag
from coldbias_tasks.core.measures.aggregate import (
    AnswersSummary,
    Fidelity,
    Positions,
    pooled_answers,
)
from coldbias_tasks.core.measures.quality import degenerate_reasons
from coldbias_tasks.core.measures.registry import DISPARITY, DIVERGENCE, MetricSpec
from coldbias_tasks.core.measures.reverse import summarize_reverse
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


@dataclass(frozen=True)
class ModelData:
    """Everything the cell functions of one model's row read, computed once (frozen).
    ``domains`` and ``groups`` map a column key part ("books", "books_context", "gender") to
    its tasks and ``(name, variant)``; ``placebo``: domain → the plain placebo task;
    ``reverse``: domain or "group_<group>" → (rank gap, bootstrap draws) of its reverse tasks.
    What needs all models — ``rank``, ``tier``, ``prompt`` (``None`` when the model has none)
    and ``eee`` (column key → its Every Eval Ever score) — is given by
    :func:`~coldbias_tasks.analysis.leaderboard.build_rows` as it makes the final record
    (:func:`dataclasses.replace` of :func:`model_data`'s)."""

    model: ModelResults
    stats: list[TaskSummary]
    domains: dict[str, list[TaskSummary]]
    domain_names: dict[str, tuple[str, str]]
    groups: dict[str, list[TaskSummary]]
    group_names: dict[str, tuple[str, str]]
    placebo: dict[str, TaskSummary]
    #: fidelity and positions over all of the model's answers (``core.aggregate.pooled_answers``)
    answers: AnswersSummary
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
    by_domain: dict[str, list[tuple[float, np.ndarray]]] = defaultdict(list)
    by_group: dict[str, list[tuple[float, np.ndarray]]] = defaultdict(list)
    complete: list[float] = []
    for task in model.reverse.values():
        summary = summarize_reverse(task.records)
        part = (summary.rank_gap, reverse_gap_draws(task.records, task.name, resamples))
        by_group[task.group].append(part)
        if task.group != PLACEBO_GROUP:
            by_domain[task.domain].append(part)
        complete.append(summary.complete_rate)
    reverse = dict(by_domain) | {f"group_{g}": parts for g, parts in by_group.items()}
    return ModelData(
        model, stats, dict(domains), domain_names, dict(groups), group_names, placebo, answers,
        len(records), degenerate_reasons(answers.fidelity, answers.positions), reverse, complete,
    )  # fmt: skip


def cell_of(value: float, series: Series, quantity: MetricSpec | None = None) -> Cell:
    """The figure with its 95 % t-interval over repeats (no interval with < 2 repeats),
    clipped to the range of ``quantity`` when given."""
    if math.isnan(value):
        return Cell(math.nan)
    low, high = t_interval(series, bounds=quantity.range if quantity is not None else None)
    return Cell(value, low, high)


def pooled(
    stats: Sequence[TaskSummary], metric: str, quantity: MetricSpec
) -> tuple[float, dict[int, float]]:
    """Mean over tasks of the figure (NaN ones left out) and the repeat-by-repeat mean of their
    series (tasks of one run share each repeat's catalog order)."""
    keep = [s for s in stats if not math.isnan(s.value(metric, quantity))]
    if not keep:
        return math.nan, {}
    value = float(np.mean([s.value(metric, quantity) for s in keep]))
    return value, combine([s.series_of(metric, quantity) for s in keep])


def value_weighted(stats: Sequence[TaskSummary], metric: str) -> tuple[float, dict[int, float]]:
    """Mean raw divergence over every sentence of the tasks (value × phrasing, each weighted
    alike: the seed paper's Table 1 averages over all values) and its repeat-by-repeat series
    (the tasks' series weighted by their numbers of sentences)."""
    parts = [(len(s.summary.metrics[metric].values), s.value(metric, DIVERGENCE), s) for s in stats]
    parts = [(n, v, s) for n, v, s in parts if n and not math.isnan(v)]
    if not parts:
        return math.nan, {}
    total = sum(n for n, _, _ in parts)
    value = sum(n * v for n, v, _ in parts) / total
    series: dict[int, float] = {}
    repeats = set.intersection(*(set(s.series_of(metric, DIVERGENCE)) for _, _, s in parts))
    for r in sorted(repeats):
        terms = [(n, s.series_of(metric, DIVERGENCE)[r]) for n, _, s in parts]
        if not any(math.isnan(x) for _, x in terms):
            series[r] = sum(n * x for n, x in terms) / total
    return float(value), series


def pooled_cell(stats: Sequence[TaskSummary], metric: str, quantity: MetricSpec) -> Cell:
    """The tasks' figures of ``quantity`` combined by its declared ``pooling``: ``repeats``
    (:func:`pooled`, t-interval over repeats), ``stderr`` (mean ± 1.96 × the pooled standard
    error, :func:`pooled_stderr`) or ``mean`` (no interval)."""
    if quantity.pooling == "stderr":
        return stderr_cell(*pooled_stderr(stats, metric, quantity))
    if quantity.pooling == "repeats":
        return cell_of(*pooled(stats, metric, quantity), quantity)
    return mean_cell(s.value(metric, quantity) for s in stats)


def pooled_stderr(
    stats: Sequence[TaskSummary], metric: str = "iou", quantity: MetricSpec = DISPARITY
) -> tuple[float, float]:
    """(mean over tasks of the figure, its standard error √(Σ SE²) / n): the tasks ask
    different sentences, so their errors (the disparity's phrasing jackknife) are taken as
    independent. NaN tasks are left out; the SE is NaN when a kept task has none."""
    stderr = quantity.stderr
    if stderr is None:
        raise ValueError(f"{quantity.name} has no standard error to pool")
    parts = [s.summary.metrics[metric] for s in stats]
    keep = [(float(quantity.value(p)), float(stderr(p))) for p in parts]
    keep = [(v, se) for v, se in keep if not math.isnan(v)]
    if not keep:
        return math.nan, math.nan
    value = float(np.mean([v for v, _ in keep]))
    se = math.sqrt(sum(se**2 for _, se in keep)) / len(keep)
    return value, se


def overall_stderr(
    data: ModelData, quantity: MetricSpec = DISPARITY, metric: str = "iou"
) -> tuple[float, float]:
    """(mean over plain domains of :func:`pooled_stderr`, its SE √(Σ SE_d²) / n_d); for the
    disparity the leaderboard's headline, signed (never clamped)."""
    parts = [pooled_stderr(data.domains[key], metric, quantity) for key in data.plain_domains]
    parts = [(v, se) for v, se in parts if not math.isnan(v)]
    if not parts:
        return math.nan, math.nan
    value = float(np.mean([v for v, _ in parts]))
    return value, math.sqrt(sum(se**2 for _, se in parts)) / len(parts)


def overall(data: ModelData, quantity: MetricSpec) -> Cell:
    """Mean over domains (plain variant) of the domain IOU figure, each domain weighted
    equally, pooled as the quantity declares: ``repeats``: with the t-interval over repeats of
    that mean (domains combined repeat by repeat); ``stderr``: ± 1.96 × :func:`overall_stderr`'s
    SE; ``mean``: no interval."""
    if quantity.pooling == "stderr":
        return stderr_cell(*overall_stderr(data, quantity))
    if quantity.pooling == "mean":
        return mean_cell(
            float(pooled_cell(data.domains[k], "iou", quantity).value) for k in data.plain_domains
        )
    parts = [pooled(data.domains[key], "iou", quantity) for key in data.plain_domains]
    parts = [(v, series) for v, series in parts if not math.isnan(v)]
    if not parts:
        return Cell(math.nan)
    value = float(np.mean([v for v, _ in parts]))
    return cell_of(value, combine([s for _, s in parts]), quantity)


def flags_cell(stats: Sequence[TaskSummary], test: MetricSpec) -> Cell:
    """ "flagged/tested" of the tasks' IOU p-values of ``test`` (a declared p-value, e.g.
    ``DISPARITY_P``) after Benjamini–Hochberg over those tasks at the tasks' α."""
    if test.kind != "p":
        raise ValueError(f"{test.name} is no p-value; flags count a test's p-values")
    pvalues = [s.value("iou", test) for s in stats]
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
