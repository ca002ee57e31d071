"""One summarized task: a task and its result (every measure's estimate, computed once).

The report (:mod:`.report`), the leaderboard (:mod:`.leaderboard`) and the prompt-sensitivity
tables (:mod:`.robustness`) all read a :class:`TaskSummary`, built once per task by
:func:`summarize_task`; the placebo rule (:func:`placebo_flag`) is written here once.
"""

from __future__ import annotations

from dataclasses import dataclass

from coldbias_tasks.analysis.run_data import TaskData
from coldbias_tasks.core.measures import EXCESS, Measure
from coldbias_tasks.core.measures.quality import placebo_reacts
from coldbias_tasks.core.measures.summary import AnswersSummary
from coldbias_tasks.core.result import TaskResult, task_result
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.stats.estimate import Estimate
from coldbias_tasks.core.stats.series import Series
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP

__all__ = ["TaskSummary", "placebo_flag", "summarize_task"]


def _similarity(quantity: Measure) -> Measure:
    """``quantity`` itself when it is a registered per-similarity measure; TypeError (a name,
    another object) or ValueError (another scope) otherwise."""
    if not isinstance(quantity, Measure):
        raise TypeError(
            "select a measure by its Measure object (coldbias_tasks.core.measures.DISPARITY, "
            f"EXCESS, DIVERGENCE or measure(name)), not {quantity!r}"
        )
    if quantity.scope != "similarity":
        raise ValueError(f"{quantity.name} is no per-similarity measure of a task")
    return quantity


@dataclass
class TaskSummary:
    """One task and its :class:`~coldbias_tasks.core.result.TaskResult`: the object lm-eval's
    numbers come from, read here by measure and similarity."""

    task: TaskData
    result: TaskResult

    @property
    def summary(self) -> AnswersSummary:
        """The task's :class:`~coldbias_tasks.core.measures.summary.AnswersSummary`."""
        return self.result.summary  # type: ignore[return-value]

    def estimate(self, similarity: str, quantity: Measure) -> Estimate:
        """The estimate of per-similarity measure ``quantity`` (e.g. ``DISPARITY``)."""
        return self.result.estimate(_similarity(quantity), similarity)

    def value(self, similarity: str, quantity: Measure) -> float:
        """The task figure of ``quantity`` for ``similarity``."""
        return float(self.estimate(similarity, quantity).value)

    def series_of(self, similarity: str, quantity: Measure) -> Series:
        """The per-repeat series of ``quantity`` for ``similarity`` (ValueError when the
        measure has no per-repeat form)."""
        if not _similarity(quantity).series:
            raise ValueError(f"{quantity.name} has no per-repeat series")
        return self.estimate(similarity, quantity).by_repeat

    def interval(self, similarity: str, quantity: Measure = EXCESS) -> tuple[float, float]:
        """95 % interval of the task figure: the disparity's Student's t with P − 1 df over
        the phrasing jackknife; else t over repeats, clipped to the measure's range (NaN with
        < 2 repeats)."""
        return self.estimate(similarity, quantity).interval

    @property
    def degenerate(self) -> list[str]:
        """The fidelity rules the task's answers break
        (:func:`~coldbias_tasks.core.measures.quality.degenerate_reasons`)."""
        return list(self.result.degenerate)


def summarize_task(task: TaskData) -> TaskSummary:
    """The task's result (:func:`~coldbias_tasks.core.result.task_result` of its answers, the
    computation lm-eval's aggregations make). The placebo task has no headline and no diversity
    contrast: its sentences are controls, not values of one attribute (runs before task version
    4.2 do not say so in their records)."""
    result = task_result(
        task.records,
        control=True if task.group == PLACEBO_GROUP else None,
        variant=task.variant,
        catalog=task.catalog,
        catalog_sha256=task.catalog_sha256,
    )
    return TaskSummary(task, result)


def placebo_flag(placebo: TaskSummary, metric: str = HEADLINE_SIMILARITY) -> bool:
    """A placebo whose excess is clearly above zero
    (:func:`~coldbias_tasks.core.measures.quality.placebo_reacts`): the model's lists react to
    any extra words, not only to sensitive attributes. The interval is clipped to the excess
    range, which never changes whether its low end is above 0."""
    low, _ = placebo.interval(metric, EXCESS)
    return placebo_reacts(placebo.summary.metrics[metric], low)
