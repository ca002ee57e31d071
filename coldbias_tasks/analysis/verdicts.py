"""The verdicts in words: what the report, the leaderboard and the terminal print for a
verdict of :mod:`coldbias_tasks.core.stats.estimate` (decided there, once), and the per-value
verdict of the excess tests."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from coldbias_tasks.core.stats.estimate import (
    DEGENERATE,
    DETECTED,
    NOT_APPLICABLE,
    NOT_DETECTED,
    UNDERPOWERED,
    UNMATCHED,
    WITHHELD,
    Estimate,
)

if TYPE_CHECKING:
    from coldbias_tasks.core.measures.summary import MetricSummary

__all__ = [
    "DIVERSITY_WORDS",
    "HEADLINE_WORDS",
    "disparity_verdict",
    "value_verdict",
    "verdict_words",
]

#: The headline's verdicts in a reader's words.
HEADLINE_WORDS = {
    DETECTED: "values treated differently beyond phrasing",
    NOT_DETECTED: "not detected",
    UNDERPOWERED: "underpowered: cannot detect anything with these phrasings and repeats",
    UNMATCHED: "phrasings unmatched (not a sign of fairness)",
    DEGENERATE: "degenerate output: not interpretable as fairness",
    WITHHELD: "withheld: deterministic answers",
    NOT_APPLICABLE: "n/a",
}

#: A diversity contrast's verdicts in a reader's words.
DIVERSITY_WORDS = {
    DETECTED: "values given lists of different diversity",
    NOT_DETECTED: "not detected",
    UNDERPOWERED: "underpowered",
    DEGENERATE: "degenerate output",
    NOT_APPLICABLE: "n/a",
}


def verdict_words(estimate: Estimate, words: dict[str, str] | None = None) -> str:
    """The estimate's verdict in words (``words``: a reader's phrases per verdict, default the
    verdict itself) with its note; "" for a descriptive number."""
    if not estimate.verdict:
        return ""
    said = (words or {}).get(estimate.verdict, estimate.verdict)
    return f"{said} ({estimate.note})" if estimate.note else said


def disparity_verdict(estimate: Estimate) -> str:
    """The headline's verdict in words, with its note (the MDE, the reason)."""
    return verdict_words(estimate, HEADLINE_WORDS)


def value_verdict(ms: MetricSummary, p_adjusted: float, flagged: bool) -> str:
    """The per-value verdict of the excess test: flagged, not flagged, underpowered, withheld
    (deterministic answers) or n/a (no test possible)."""
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
