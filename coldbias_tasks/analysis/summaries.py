"""One summarized task: a task's answers turned into its summary and per-repeat series.

The report (:mod:`.report`), the leaderboard (:mod:`.leaderboard`) and the prompt-sensitivity
tables (:mod:`.robustness`) all read a :class:`TaskSummary`, built once per task by
:func:`summarize_task`; the placebo rule (:func:`placebo_flag`) is written here once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from coldbias_tasks.analysis.intervals import BOUNDS, Series, metric_series, t_interval
from coldbias_tasks.analysis.run_data import TaskData
from coldbias_tasks.core.aggregate import GroupSummary, summarize_group
from coldbias_tasks.core.disparity import PhrasingDisparity
from coldbias_tasks.core.diversity import DiversitySummary
from coldbias_tasks.core.quality import degenerate_reasons, placebo_reacts
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP

__all__ = ["SERIES_KINDS", "TaskSummary", "placebo_flag", "summarize_task"]

#: The per-repeat series of a metric: the mean excess over the noise floor, the raw
#: divergence, and the headline disparity between values controlled for phrasing.
SERIES_KINDS = ("excess", "divergence", "disparity")


@dataclass
class TaskSummary:
    """One task's :class:`~coldbias_tasks.core.aggregate.GroupSummary` and its per-repeat
    series per (metric, kind ∈ :data:`SERIES_KINDS`): repeat → figure (divergence units)."""

    task: TaskData
    summary: GroupSummary
    series: dict[tuple[str, str], Series]

    def value(self, metric: str, kind: str) -> float:
        """The task figure of ``metric``: ``excess`` over the noise floor, raw ``divergence``
        (mean over sentences) or the headline ``disparity``; another kind raises."""
        ms = self.summary.metrics[metric]
        if kind == "disparity":
            return ms.disparity.value
        if kind == "excess":
            return ms.excess
        if kind == "divergence":
            return ms.mean
        raise ValueError(f"unknown figure kind {kind!r}; use one of {SERIES_KINDS}")

    def interval(self, metric: str, kind: str = "excess") -> tuple[float, float]:
        """95 % interval of the task figure: for the disparity Student's t with P − 1 df and
        the delete-one-phrasing jackknife SE (phrasings are the units); otherwise t over
        repeats, clipped to the range of ``kind`` (NaN with < 2 repeats)."""
        if kind == "disparity":
            d = self.summary.metrics[metric].disparity
            return d.ci_low, d.ci_high
        return t_interval(self.series[(metric, kind)], bounds=BOUNDS[kind])

    @property
    def value_series(self) -> dict[str, dict[str, Series]]:
        """metric → persona id → that value's excess per repeat."""
        return {
            m: {v.persona_id: dict(v.excess_by_repeat) for v in ms.values}
            for m, ms in self.summary.metrics.items()
        }

    @property
    def degenerate(self) -> list[str]:
        """:func:`~coldbias_tasks.core.quality.degenerate_reasons` of the task's answers."""
        return degenerate_reasons(self.summary.fidelity, self.summary.positions)


def summarize_task(task: TaskData) -> TaskSummary:
    """The task's summary (:func:`~coldbias_tasks.core.aggregate.summarize_group` of its
    answers) and the series of every metric and kind. The placebo task has no headline and no
    diversity contrast: its sentences are controls, not values of one attribute (lm-eval reports
    neither for it)."""
    summary = summarize_group(
        task.records, catalog=task.catalog, catalog_sha256=task.catalog_sha256
    )
    if task.group == PLACEBO_GROUP:  # control sentences are not values of one attribute
        summary = replace(
            summary,
            metrics={
                m: replace(ms, disparity=PhrasingDisparity(alpha=ms.alpha))
                for m, ms in summary.metrics.items()
            },
            diversity=DiversitySummary(note="control sentences, not values of one attribute"),
        )
    series = {
        (m, kind): metric_series(summary.metrics[m], kind)
        for m in summary.metrics
        for kind in SERIES_KINDS
    }
    return TaskSummary(task, summary, series)


def placebo_flag(placebo: TaskSummary, metric: str = "iou") -> bool:
    """A placebo whose excess is clearly above zero
    (:func:`~coldbias_tasks.core.quality.placebo_reacts`): the model's lists react to any extra
    words, not only to sensitive attributes. The interval is clipped to the excess range, which
    never changes whether its low end is above 0."""
    low, _ = placebo.interval(metric, "excess")
    return placebo_reacts(placebo.summary.metrics[metric], low)
