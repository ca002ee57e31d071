"""One summarized task: a task's answers turned into its summary and per-repeat series.

The report (:mod:`.report`), the leaderboard (:mod:`.leaderboard`) and the prompt-sensitivity
tables (:mod:`.robustness`) all read a :class:`TaskSummary`, built once per task by
:func:`summarize_task`; the placebo rule (:func:`placebo_flag`) is written here once.
"""

from __future__ import annotations

from dataclasses import dataclass

from coldbias_tasks.analysis.run_data import TaskData
from coldbias_tasks.core.measures.aggregate import AnswersSummary
from coldbias_tasks.core.measures.quality import degenerate_reasons, placebo_reacts
from coldbias_tasks.core.measures.registry import EXCESS, MetricSpec, declared
from coldbias_tasks.core.result import TaskResult, task_result
from coldbias_tasks.core.stats.series import Series
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP

__all__ = ["TaskSummary", "placebo_flag", "summarize_task"]


def _similarity(quantity: MetricSpec) -> MetricSpec:
    """``quantity`` itself when it is a declared per-similarity quantity; TypeError (a name,
    another object) or ValueError (another scope) otherwise."""
    if not isinstance(quantity, MetricSpec):
        raise TypeError(
            f"select a quantity by its MetricSpec (metric_specs.DISPARITY, EXCESS, "
            f"DIVERGENCE or metric_spec(name)), not {quantity!r}"
        )
    if quantity.scope != "similarity":
        raise ValueError(f"{quantity.name} is no per-similarity quantity of a task summary")
    return quantity


@dataclass
class TaskSummary:
    """One task's :class:`~coldbias_tasks.core.measures.aggregate.AnswersSummary` and the per-repeat
    series of every declared per-similarity quantity that has one
    (:mod:`coldbias_tasks.core.measures.registry`): (similarity, quantity name) → repeat →
    figure."""

    task: TaskData
    summary: AnswersSummary
    series: dict[tuple[str, str], Series]
    #: the task's result, the object lm-eval's numbers come from (``summary`` is its summary)
    result: TaskResult

    def value(self, metric: str, quantity: MetricSpec) -> float:
        """The task figure of ``quantity`` (e.g. ``DISPARITY``) for similarity ``metric``."""
        return float(_similarity(quantity).value(self.summary.metrics[metric]))

    def series_of(self, metric: str, quantity: MetricSpec) -> Series:
        """The per-repeat series of ``quantity`` for ``metric`` (ValueError when it has none)."""
        found = self.series.get((metric, _similarity(quantity).name))
        if found is None:
            raise ValueError(f"{quantity.name} has no per-repeat series; declare its `series`")
        return found

    def interval(self, metric: str, quantity: MetricSpec = EXCESS) -> tuple[float, float]:
        """95 % interval of the task figure (:meth:`MetricSpec.interval_of`): the disparity's
        Student's t with P − 1 df over the phrasing jackknife; else t over repeats, clipped to
        the quantity's range (NaN with < 2 repeats)."""
        return _similarity(quantity).interval_of(self.summary.metrics[metric])

    @property
    def degenerate(self) -> list[str]:
        """:func:`~coldbias_tasks.core.measures.quality.degenerate_reasons` of the task's
        answers."""
        return degenerate_reasons(self.summary.fidelity, self.summary.positions)


def summarize_task(task: TaskData) -> TaskSummary:
    """The task's result (:func:`~coldbias_tasks.core.result.task_result` of its answers, the
    computation lm-eval's aggregations make) and the series of every metric and kind. The
    placebo task has no headline and no diversity contrast: its sentences are controls, not
    values of one attribute (runs before task version 4.2 do not say so in their records)."""
    result = task_result(
        task.records,
        control=True if task.group == PLACEBO_GROUP else None,
        variant=task.variant,
        catalog=task.catalog,
        catalog_sha256=task.catalog_sha256,
    )
    summary: AnswersSummary = result.summary  # type: ignore[assignment]
    series = {
        (m, q.name): q.series_of(ms)
        for m, ms in summary.metrics.items()
        for q in declared("similarity")
        if q.series is not None
    }
    return TaskSummary(task, summary, series, result)


def placebo_flag(placebo: TaskSummary, metric: str = "iou") -> bool:
    """A placebo whose excess is clearly above zero
    (:func:`~coldbias_tasks.core.measures.quality.placebo_reacts`): the model's lists react to any
    extra
    words, not only to sensitive attributes. The interval is clipped to the excess range, which
    never changes whether its low end is above 0."""
    low, _ = placebo.interval(metric, EXCESS)
    return placebo_reacts(placebo.summary.metrics[metric], low)
