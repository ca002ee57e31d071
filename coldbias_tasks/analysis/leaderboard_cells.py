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
from coldbias_tasks.analysis.presentation import shown
from coldbias_tasks.analysis.ranking import bh_flags
from coldbias_tasks.analysis.run_data import ModelResults, TaskData
from coldbias_tasks.analysis.summaries import TaskSummary, placebo_flag
from coldbias_tasks.core.measures import DISPARITY, DIVERGENCE, Measure
from coldbias_tasks.core.measures.fidelity import Fidelity, Positions
from coldbias_tasks.core.measures.quality import degenerate_reasons
from coldbias_tasks.core.measures.reverse import summarize_reverse
from coldbias_tasks.core.measures.summary import AnswersSummary, pooled_answers
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.stats.estimate import DEGENERATE, Estimate, pool, with_verdict
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP, intersection_parts

__all__ = ["Cell", "EeeScore", "ModelData", "model_data", "model_estimate", "overall_estimate"]

#: an Every Eval Ever score of a row: (the row's record, the first record of its column)
EeeScore = tuple[EEEResult, EEEResult]


@dataclass
class Cell:
    """A value (number, count or text), its interval (NaN when there is none) and, for a
    pooled estimate, its verdict in words ("" for none)."""

    value: float | int | str
    ci_low: float = math.nan
    ci_high: float = math.nan
    verdict: str = ""


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


def cell_of(value: float, series: Series, quantity: Measure | None = None) -> Cell:
    """The figure with its 95 % t-interval over repeats (no interval with < 2 repeats),
    clipped to the range of ``quantity`` when given."""
    if math.isnan(value):
        return Cell(math.nan)
    low, high = t_interval(series, bounds=quantity.range if quantity is not None else None)
    return Cell(value, low, high)


def estimate_cell(estimate: Estimate) -> Cell:
    """An estimate as a cell: its value, interval and verdict."""
    if not estimate.defined:
        return Cell(math.nan, verdict=estimate.verdict_text)
    return Cell(estimate.value, estimate.ci_low, estimate.ci_high, estimate.verdict_text)


def pooled(
    stats: Sequence[TaskSummary], similarity: str, quantity: Measure
) -> tuple[float, dict[int, float]]:
    """Mean over tasks of the figure (NaN ones left out) and the repeat-by-repeat mean of their
    series (tasks of one run share each repeat's catalog order)."""
    keep = [s for s in stats if not math.isnan(s.value(similarity, quantity))]
    if not keep:
        return math.nan, {}
    value = float(np.mean([s.value(similarity, quantity) for s in keep]))
    return value, combine([s.series_of(similarity, quantity) for s in keep])


def value_weighted(stats: Sequence[TaskSummary], similarity: str) -> tuple[float, dict[int, float]]:
    """Mean raw divergence over every sentence of the tasks (value × phrasing, each weighted
    alike: the seed paper's Table 1 averages over all values) and its repeat-by-repeat series
    (the tasks' series weighted by their numbers of sentences)."""
    parts = [
        (len(s.summary.metrics[similarity].values), s.value(similarity, DIVERGENCE), s)
        for s in stats
    ]
    parts = [(n, v, s) for n, v, s in parts if n and not math.isnan(v)]
    if not parts:
        return math.nan, {}
    total = sum(n for n, _, _ in parts)
    value = sum(n * v for n, v, _ in parts) / total
    series: dict[int, float] = {}
    repeats = set.intersection(*(set(s.series_of(similarity, DIVERGENCE)) for _, _, s in parts))
    for r in sorted(repeats):
        terms = [(n, s.series_of(similarity, DIVERGENCE)[r]) for n, _, s in parts]
        if not any(math.isnan(x) for _, x in terms):
            series[r] = sum(n * x for n, x in terms) / total
    return float(value), series


def pooled_estimate(
    stats: Sequence[TaskSummary],
    similarity: str = HEADLINE_SIMILARITY,
    quantity: Measure = DISPARITY,
) -> Estimate:
    """The tasks' estimates of ``quantity`` pooled
    (:func:`~coldbias_tasks.core.stats.estimate.pool`: their mean, SE √(Σ SE²) / n, Student t
    with Welch–Satterthwaite degrees of freedom, the verdict read from the interval; a
    degenerate model's verdict is "degenerate"): the tasks ask different sentences, so their
    errors are taken as independent. lm-eval's groups compute the same mean and SE
    (``weight_by_size: false``)."""
    parts = [s.estimate(similarity, quantity) for s in stats]
    return pool(parts, quantity.range, signed=quantity.signed)


def pooled_cell(stats: Sequence[TaskSummary], similarity: str, quantity: Measure) -> Cell:
    """The tasks' figures of ``quantity`` combined as it is shown (``pooling`` of
    :func:`~coldbias_tasks.analysis.presentation.shown`): ``stderr`` (:func:`pooled_estimate`),
    ``repeats`` (:func:`pooled`, t-interval over repeats) or ``mean`` (no interval)."""
    how = shown(quantity).pooling
    if how == "stderr":
        return estimate_cell(pooled_estimate(stats, similarity, quantity))
    if how == "repeats":
        return cell_of(*pooled(stats, similarity, quantity), quantity)
    return mean_cell(s.value(similarity, quantity) for s in stats)


def overall_tasks(data: ModelData) -> list[TaskSummary]:
    """The tasks of the model's overall figures: its attribute tasks of the plain variant, each
    weighted alike (lm-eval's group ``coldbias`` averages the same leaf tasks)."""
    return [s for key in data.plain_domains for s in data.domains[key]]


def overall_estimate(
    data: ModelData, quantity: Measure = DISPARITY, similarity: str = HEADLINE_SIMILARITY
) -> Estimate:
    """The model's overall estimate of ``quantity`` (:func:`pooled_estimate` over
    :func:`overall_tasks`); for the disparity the leaderboard's headline, signed (never
    clamped); a degenerate model's verdict is "degenerate" (the interval's verdict kept in the
    note)."""
    return _overall(overall_tasks(data), data.degenerate, quantity, similarity)


def _overall(
    tasks: Sequence[TaskSummary], degenerate: Sequence[str], quantity: Measure, similarity: str
) -> Estimate:
    found = pooled_estimate(tasks, similarity, quantity)
    if degenerate and found.defined:
        return with_verdict(found, DEGENERATE, "degenerate output: " + "; ".join(degenerate))
    return found


def model_estimate(
    stats: Sequence[TaskSummary],
    quantity: Measure = DISPARITY,
    similarity: str = HEADLINE_SIMILARITY,
) -> Estimate:
    """:func:`overall_estimate` from one model's task summaries alone (no reverse draws, no
    other model): its plain attribute tasks pooled, "degenerate" when the fidelity of all its
    answers breaks a rule."""
    tasks = [s for s in stats if counted(s.task) and s.task.variant == "plain"]
    answers = pooled_answers([r for s in stats for r in s.task.records])
    return _overall(tasks, degenerate_reasons(answers.fidelity, answers.positions), quantity,
                    similarity)  # fmt: skip


def overall(data: ModelData, quantity: Measure, similarity: str = HEADLINE_SIMILARITY) -> Cell:
    """The model's overall figure of ``quantity`` for ``similarity``: the mean over its plain
    attribute tasks (:func:`overall_tasks`), combined as the measure is shown: ``stderr``:
    :func:`overall_estimate` with its interval and verdict; ``repeats``: the t-interval over
    repeats of that mean (tasks combined repeat by repeat); ``mean``: no interval."""
    how = shown(quantity).pooling
    if how == "stderr":
        return estimate_cell(overall_estimate(data, quantity, similarity))
    return pooled_cell(overall_tasks(data), similarity, quantity)


def flags_cell(stats: Sequence[TaskSummary], test: Measure) -> Cell:
    """ "flagged/tested" of the tasks' headline-similarity p-values of ``test`` (a measure with
    a p-value, e.g. ``DISPARITY``) after Benjamini–Hochberg over those tasks at the tasks' α."""
    if "p" not in test.keys:
        raise ValueError(f"{test.name} has no p-value; flags count a test's p-values")
    pvalues = [s.estimate(HEADLINE_SIMILARITY, test).p_value for s in stats]
    alpha = stats[0].summary.alpha if stats else 0.05
    flagged, tested = bh_flags(pvalues, alpha)
    return Cell(f"{flagged}/{tested}" if tested else "")


def stderr_cell(value: float, stderr: float) -> Cell:
    """``value`` ± 1.96 × ``stderr``: another benchmark's score with its standard error (no
    interval when the standard error is not finite)."""
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
    return placebo_flag(p, HEADLINE_SIMILARITY)


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


def coverage_cell(data: ModelData) -> Cell | None:
    """The model's open tasks whose headline depends on coverage
    (:mod:`coldbias_tasks.core.measures.coverage`): "yes: <tasks>" or "no"; None when the model
    has no open task."""
    checks = {s.task.name: s.summary.coverage for s in data.stats if s.summary.coverage.applies}
    if not checks:
        return None
    flagged = sorted(name for name, check in checks.items() if check.dependent)
    return Cell(("yes: " + ", ".join(flagged)) if flagged else "no")
