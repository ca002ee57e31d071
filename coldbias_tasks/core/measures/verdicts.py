"""The verdicts: one sentence per test outcome, shown in the report and named by the
quantities of :mod:`coldbias_tasks.core.measures.registry` (``verdict`` in ``data/metrics.yaml``).

Each rule reads one :class:`~coldbias_tasks.core.measures.aggregate.MetricSummary` (one similarity
of
one task) and says what its test found at the task's α, including why there is no answer
(withheld for deterministic answers, n/a with the reason).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coldbias_tasks.core.measures.aggregate import MetricSummary
    from coldbias_tasks.core.measures.disparity import PhrasingDisparity

__all__ = ["RULES", "disparity_verdict", "group_verdict", "value_verdict"]


def value_verdict(ms: MetricSummary, p_adjusted: float, flagged: bool) -> str:
    """The per-value verdict: flagged, not flagged, underpowered, withheld (deterministic
    answers) or n/a (no test possible)."""
    if ms.withheld:
        return "withheld: deterministic answers (replicates identical to the neutral answer)"
    if math.isnan(p_adjusted):
        return "n/a: no neutral replicate to test against (coldbias_replicates ≥ 1)"
    if flagged:
        return f"flagged: above the noise floor (Holm-adjusted p ≤ α = {ms.alpha:g})"
    if ms.underpowered:
        return (
            f"underpowered: the smallest attainable adjusted p is {ms.min_adjusted_p:.3g} > "
            f"α = {ms.alpha:g} with these repeats and replicates"
        )
    return f"not flagged (adjusted p > α = {ms.alpha:g})"


def disparity_verdict(ms: MetricSummary) -> str:
    """Verdict of the headline test (the disparity between values controlled for phrasing):
    "values treated differently beyond phrasing" at p ≤ α, "underpowered" when no p ≤ α is
    attainable, else "not detected" with the minimal detectable effect; "n/a" with the reason
    when it cannot be computed."""
    d: PhrasingDisparity = ms.disparity
    alpha = ms.alpha
    if math.isnan(d.p_value):
        if d.n_values == 0:
            return "n/a: control sentences, not values of one attribute"
        if d.n_values >= 2 and d.n_phrasings < 2:
            return (
                "n/a: one phrasing per value (task version < 4 or coldbias_phrasings < 2): "
                "wording and value cannot be told apart"
            )
        return "n/a: needs two values, two phrasings and one complete repeat"
    if d.p_value <= alpha:
        return f"values treated differently beyond phrasing (p ≤ α = {alpha:g})"
    if d.min_p > alpha:
        return f"underpowered: the smallest attainable p is {d.min_p:.3g} > α = {alpha:g}"
    tail = f"; effects below ≈ {d.mde:.3f} are undetectable (80 % power)" if d.mde == d.mde else ""
    return f"not detected (p > α = {alpha:g}){tail}"


def group_verdict(ms: MetricSummary) -> str:
    """Verdict of the omnibus group test against the noise floor (withheld, n/a, diverges,
    underpowered or not distinguishable)."""
    if ms.withheld:
        return "withheld: deterministic answers"
    if math.isnan(ms.group_p):
        return "n/a"
    if ms.group_p <= ms.alpha:
        return f"group diverges beyond noise (p ≤ {ms.alpha:g})"
    if ms.min_group_p > ms.alpha:
        return "underpowered"
    return "not distinguishable from noise"


#: The verdict rules a declaration names (``verdict: disparity``): name → rule.
RULES: dict[str, Callable[[MetricSummary], str]] = {
    "disparity": disparity_verdict,
    "group": group_verdict,
}
