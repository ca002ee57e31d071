"""The answer a reader meets first: one model's overall headline and its size in items.

:func:`model_answer` pools the model's plain attribute tasks exactly as the leaderboard's
"IOU disparity (all domains)" cell and lm-eval's group ``coldbias`` do
(:func:`~coldbias_tasks.analysis.leaderboard_cells.model_estimate`: mean over tasks, SE
√(Σ SE²) / n, Student t with Welch degrees of freedom, the verdict read from the interval), so
the report, the terminal summary and the leaderboard print the same number.

:func:`items_shared_gap` says what a disparity in IOU divergence means in the user's units: two
complete lists of k items that share o items have IOU similarity s = o / (2k − o), so
o = 2ks / (1 + s). With ``within`` the mean IOU divergence between two phrasings of one value
and ``within + γ`` that between two values, the gap is o(within) − o(within + γ): how many
fewer of their k items two users who state different values share than two users who state the
same value in other words. Exact for complete lists; an approximation when lists fall short of
k (the fill rate is in the fidelity column). NaN when undefined.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from coldbias_tasks.analysis.leaderboard_cells import counted, model_estimate
from coldbias_tasks.analysis.summaries import TaskSummary
from coldbias_tasks.analysis.verdicts import disparity_verdict
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.stats.estimate import Estimate

__all__ = ["ModelAnswer", "items_shared_gap", "model_answer", "size_words"]

NAN = float("nan")


def _shared(divergence: float, k: int) -> float:
    """Items shared by two complete lists of ``k`` items at IOU divergence ``divergence``."""
    s = min(max(1.0 - divergence, 0.0), 1.0)
    return 2.0 * k * s / (1.0 + s)


def items_shared_gap(gamma: float, within: float, k: int) -> float:
    """How many fewer of their ``k`` items two users of different values share than two users
    of one value in other words (module docstring); NaN when ``gamma`` or ``within`` is NaN or
    ``k`` < 1. Positive when the values' lists are further apart (γ > 0)."""
    if math.isnan(gamma) or math.isnan(within) or k < 1:
        return NAN
    return _shared(within, k) - _shared(within + gamma, k)


def size_words(gap: float, k: int) -> str:
    """The gap in a sentence ("share 0.4 fewer of their 10 items"); "" when undefined."""
    if math.isnan(gap) or k < 1:
        return ""
    if abs(gap) < 0.05:
        return f"users who state different values share as many of their {k} items as users "\
            "who state one value in other words"  # fmt: skip
    more = "fewer" if gap > 0 else "more"
    return (
        f"two users who state different values share {abs(gap):.1f} {more} of their {k} "
        "recommended items than two users who state the same value in other words"
    )


@dataclass(frozen=True)
class ModelAnswer:
    """One model's overall headline: ``estimate`` (IOU disparity pooled over ``n_tasks`` plain
    attribute tasks, with interval and verdict), ``verdict`` in a reader's words, ``items``
    (mean over those tasks of :func:`items_shared_gap`), ``k`` (the tasks' list length; 0
    when they differ) and ``why``: why there is no overall figure ("" when there is one)."""

    label: str
    estimate: Estimate
    verdict: str
    n_tasks: int
    items: float
    k: int
    why: str = ""

    @property
    def size(self) -> str:
        return size_words(self.items, self.k)


def model_answer(label: str, stats: Sequence[TaskSummary]) -> ModelAnswer:
    """The overall answer of one model from its task summaries (module docstring)."""
    estimate = model_estimate(stats)
    tasks = [s for s in stats if counted(s.task) and s.task.variant == "plain"]
    gaps = []
    for s in tasks:
        d = s.summary.metrics[HEADLINE_SIMILARITY].disparity
        gaps.append(items_shared_gap(d.value, d.within, s.task.k))
    defined = [g for g in gaps if not math.isnan(g)]
    ks = {s.task.k for s in tasks}
    why = ""
    if not estimate.defined:
        others = sorted({s.task.variant for s in stats if counted(s.task)} - {"plain"})
        why = (
            f"the overall figure pools the plain attribute tasks; this run has {', '.join(others)} "
            "tasks only: each task's own figure is below"
            if others and not tasks
            else "no attribute task with two or more phrasings per value"
        )
    return ModelAnswer(
        label=label,
        estimate=estimate,
        verdict=disparity_verdict(estimate),
        n_tasks=len(tasks),
        items=sum(defined) / len(defined) if defined else NAN,
        k=ks.pop() if len(ks) == 1 else 0,
        why=why,
    )
