"""A task's result, computed once: the one function from a task's answer records to every number
lm-eval, Inspect, the report and the leaderboard show for it.

:func:`task_result` takes the parsed answers of one task (forward:
:class:`~coldbias_tasks.core.records.AnswerRecord`, reverse:
:class:`~coldbias_tasks.core.records.UserRankRecord`) and returns a frozen :class:`TaskResult`;
:meth:`TaskResult.lm_numbers` gives every lm-eval metric key of the task with the value lm-eval's
results hold (the harness's aggregations read exactly these), and the offline analysis reads the
same object. A control group's task (the placebo: its sentences are controls, not values of one
attribute) has no headline and no diversity contrast.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from coldbias_tasks.core.measures.aggregate import AnswersSummary, summarize_answers
from coldbias_tasks.core.measures.disparity import PhrasingDisparity
from coldbias_tasks.core.measures.diversity import DiversitySummary
from coldbias_tasks.core.measures.registry import LmMetric, lm_metrics
from coldbias_tasks.core.measures.reverse import ReverseSummary, summarize_reverse
from coldbias_tasks.core.records import AnswerRecord, UserRankRecord
from coldbias_tasks.core.vocabulary import OPEN

__all__ = ["TaskResult", "task_metrics", "task_result"]

Kind = Literal["forward", "reverse"]


def task_metrics(
    control: bool = False, variant: str = "plain", reverse: bool = False
) -> dict[str, LmMetric]:
    """The lm-eval metrics of one task (its YAML's ``metric_list``), key → metric: a reverse
    task's; a control group's forward task drops those without ``controls``; an open task (no
    catalog shown) has the grounding metrics and none of the catalog-only ones, a catalog task
    none of the open-only ones (``protocol`` of each declaration)."""
    if reverse:
        return lm_metrics(reverse=True)
    dropped = "catalog" if variant == OPEN else "open"
    listed = lm_metrics(control=control)
    return {key: m for key, m in listed.items() if m.spec.protocol != dropped}


@dataclass(frozen=True)
class TaskResult:
    """Everything computed from one task's answers. ``summary``: the forward
    :class:`~coldbias_tasks.core.measures.aggregate.AnswersSummary` or the reverse
    :class:`~coldbias_tasks.core.measures.reverse.ReverseSummary`; ``control``: the task's
    sentences are control sentences (no headline); ``variant``: the prompt variant (which
    metrics the task lists)."""

    kind: Kind
    summary: AnswersSummary | ReverseSummary
    control: bool = False
    variant: str = "plain"

    @property
    def metrics(self) -> dict[str, LmMetric]:
        """The task's lm-eval metrics, key → metric (:func:`task_metrics`)."""
        return task_metrics(self.control, self.variant, self.kind == "reverse")

    def number(self, key: str) -> float | str:
        """The value lm-eval's results hold under metric ``key`` (KeyError naming the task's
        metrics when it lists no such key)."""
        metric = self.metrics.get(key)
        if metric is None:
            raise KeyError(f"this task lists no metric {key!r}; it lists {', '.join(self.metrics)}")
        return metric.compute(self.summary)

    def lm_numbers(self, keys: Iterable[str] | None = None) -> dict[str, float | str]:
        """lm-eval metric key → value, for ``keys`` (default: every metric the task lists)."""
        listed = self.metrics
        return {key: self.number(key) for key in (listed if keys is None else keys)}


def _is_control(records: Sequence[AnswerRecord]) -> bool:
    """Whether the answers are those of a control group's task (records of task version ≥ 4.2
    say so; the offline loader passes ``control`` for older runs)."""
    return any(r.control for r in records)


def task_result(
    records: Iterable[AnswerRecord] | Iterable[UserRankRecord],
    *,
    control: bool | None = None,
    variant: str | None = None,
    catalog: str | None = None,
    catalog_sha256: str = "",
) -> TaskResult:
    """The result of one task's answers (module docstring). ``control``: the task is a control
    group's (default: read from the records); ``variant``: its prompt variant (default: "open"
    when the answers carry grounding keys, else "plain"); ``catalog`` / ``catalog_sha256``: the
    items' catalog and its hash at run time (diversity; see
    :func:`~coldbias_tasks.core.measures.aggregate.summarize_answers`)."""
    records = list(records)
    if records and isinstance(records[0], UserRankRecord):
        return TaskResult("reverse", summarize_reverse(records))  # type: ignore[arg-type]
    forward: list[AnswerRecord] = records  # type: ignore[assignment]
    is_control = _is_control(forward) if control is None else control
    if variant is None:
        variant = OPEN if any(r.keys for r in forward) else "plain"
    summary = summarize_answers(forward, catalog=catalog, catalog_sha256=catalog_sha256)
    if is_control:  # control sentences are not values of one attribute
        summary = replace(
            summary,
            metrics={
                m: replace(ms, disparity=PhrasingDisparity(alpha=ms.alpha))
                for m, ms in summary.metrics.items()
            },
            diversity=DiversitySummary(note="control sentences, not values of one attribute"),
        )
    return TaskResult("forward", summary, is_control, variant)
