"""A task's result, computed once: the one function from a task's answer records to every number
lm-eval, Inspect, the report and the leaderboard show for it.

:func:`task_result` takes the parsed answers of one task (forward:
:class:`~coldbias_tasks.core.records.AnswerRecord`, reverse:
:class:`~coldbias_tasks.core.records.UserRankRecord`), computes their summary once
(:func:`~coldbias_tasks.core.measures.summary.summarize_answers` /
:func:`~coldbias_tasks.core.measures.reverse.summarize_reverse`) and every registered measure's
:class:`~coldbias_tasks.core.stats.estimate.Estimate` from it once, and returns them in a frozen
:class:`TaskResult`. :meth:`TaskResult.lm_numbers` gives every lm-eval metric key of the task
with the value lm-eval's results hold (the harness's aggregations read exactly these); the
offline analysis reads the same object.

Rules applied here, once: a control group's task (the placebo: its sentences are controls, not
values of one attribute) has no headline and no diversity contrast; a degenerate task (the
fidelity rules of :mod:`~coldbias_tasks.core.measures.quality`) has the verdict "degenerate" on
every tested estimate (its test's verdict kept in the note).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from coldbias_tasks.core.measures import LmKey, Measure, lm_keys, measures
from coldbias_tasks.core.measures.costs import CostSummary
from coldbias_tasks.core.measures.disparity import undefined
from coldbias_tasks.core.measures.diversity import DiversitySummary
from coldbias_tasks.core.measures.quality import degenerate_reasons
from coldbias_tasks.core.measures.reverse import ReverseSummary, summarize_reverse
from coldbias_tasks.core.measures.summary import AnswersSummary, summarize_answers
from coldbias_tasks.core.records import AnswerRecord, UserRankRecord
from coldbias_tasks.core.stats.estimate import DEGENERATE, Estimate, with_verdict
from coldbias_tasks.core.vocabulary import OPEN, PREF

__all__ = ["TaskResult", "task_metrics", "task_result"]

Kind = Literal["forward", "reverse"]


def task_metrics(
    control: bool = False, variant: str = "plain", reverse: bool = False
) -> dict[str, LmKey]:
    """The lm-eval metrics of one task (its YAML's ``metric_list``), key → :class:`LmKey`: a
    reverse task's; a control group's forward task drops the measures without ``controls``;
    an open task (no catalog shown) lists the open-only measures and none of the catalog-only
    ones, a catalog task none of the open-only ones, and only a pref task the pref-only ones
    (a stated preference: undefined elsewhere)."""
    if reverse:
        return lm_keys(reverse=True)
    dropped = {"catalog", "pref"} if variant == OPEN else {"open"} if variant == PREF else {
        "open", "pref"}  # fmt: skip
    return {k: lk for k, lk in lm_keys(control=control).items()
            if lk.measure.protocol not in dropped}  # fmt: skip


@dataclass(frozen=True)
class TaskResult:
    """Everything computed from one task's answers. ``summary``: the forward
    :class:`~coldbias_tasks.core.measures.summary.AnswersSummary` or the reverse
    :class:`~coldbias_tasks.core.measures.reverse.ReverseSummary`; ``estimates``: the value key
    of each measure (``iou_disparity``, ``fill_rate``) → its estimate; ``control``: the task's
    sentences are control sentences; ``variant``: the prompt variant (which metrics the task
    lists); ``degenerate``: the fidelity rules the task breaks."""

    kind: Kind
    summary: AnswersSummary | ReverseSummary
    estimates: Mapping[str, Estimate] = field(default_factory=dict)
    control: bool = False
    variant: str = "plain"
    degenerate: tuple[str, ...] = ()

    @property
    def metrics(self) -> dict[str, LmKey]:
        """The task's lm-eval metrics, key → :class:`LmKey` (:func:`task_metrics`)."""
        return task_metrics(self.control, self.variant, self.kind == "reverse")

    def estimate(self, measure: Measure, similarity: str = "") -> Estimate:
        """The estimate of ``measure`` (for ``similarity`` when its scope is per similarity);
        an empty estimate when the task does not compute it (e.g. the placebo's headline)."""
        key = measure.key_names(similarity)["value"]
        return self.estimates.get(key, Estimate())

    def number(self, key: str) -> float | str:
        """The value lm-eval's results hold under metric ``key`` (KeyError naming the task's
        metrics when it lists no such key)."""
        found = self.metrics.get(key)
        if found is None:
            raise KeyError(f"this task lists no metric {key!r}; it lists {', '.join(self.metrics)}")
        return found.of(self.estimate(found.measure, found.similarity))

    def lm_numbers(self, keys: Iterable[str] | None = None) -> dict[str, float | str]:
        """lm-eval metric key → value, for ``keys`` (default: every metric the task lists)."""
        return {key: self.number(key) for key in (self.metrics if keys is None else keys)}


def _estimates(summary: AnswersSummary | ReverseSummary, reverse: bool) -> dict[str, Estimate]:
    """Every registered measure's estimate of the scopes ``summary`` has, by value key."""
    out: dict[str, Estimate] = {}
    for m in measures():
        if (m.scope == "reverse") != reverse:
            continue
        if m.scope == "similarity":
            for sim, part in summary.metrics.items():  # type: ignore[union-attr]
                out[m.key_names(sim)["value"]] = m.estimate(part)
        else:
            out[m.key_names()["value"]] = m.estimate(summary)
    return out


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
    when the answers carry grounding keys, "pref" when they carry a stated preference, else
    "plain"); ``catalog`` / ``catalog_sha256``: the
    items' catalog and its hash at run time (diversity; see
    :func:`~coldbias_tasks.core.measures.summary.summarize_answers`)."""
    records = list(records)
    if records and isinstance(records[0], UserRankRecord):
        reverse = summarize_reverse(records)  # type: ignore[arg-type]
        return TaskResult("reverse", reverse, _estimates(reverse, True))
    forward: list[AnswerRecord] = records  # type: ignore[assignment]
    is_control = _is_control(forward) if control is None else control
    if variant is None:
        variant = (
            OPEN if any(r.keys for r in forward)
            else PREF if any(r.preference for r in forward)
            else "plain"
        )  # fmt: skip
    summary = summarize_answers(forward, catalog=catalog, catalog_sha256=catalog_sha256)
    if is_control:  # control sentences are not values of one attribute
        summary = replace(
            summary,
            metrics={
                m: replace(ms, disparity=undefined(ms.alpha)) for m, ms in summary.metrics.items()
            },
            diversity=DiversitySummary(note="control sentences, not values of one attribute"),
            costs=CostSummary(),
        )
    estimates = _estimates(summary, False)
    reasons = tuple(degenerate_reasons(summary.fidelity, summary.positions))
    if reasons:
        note = "degenerate output: " + "; ".join(reasons)
        estimates = {
            k: with_verdict(e, DEGENERATE, note) if e.verdict and e.defined else e
            for k, e in estimates.items()
        }
    return TaskResult("forward", summary, estimates, is_control, variant, reasons)
