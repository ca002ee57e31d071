"""Quality policy: when a model's output is too degenerate for its divergences to mean fairness.

A model that copies the catalog order, fails to fill the list, invents items or repeats itself
can score "perfectly fair" (zero divergence) or meaningless divergences. Tasks and models that
meet any of :data:`DEGENERATE_RULES` (reverse tasks: :data:`REVERSE_DEGENERATE_RULES`) are
flagged; the report warns and the leaderboard sorts them last.
"""

from __future__ import annotations

import math

from coldbias_tasks.core.measures.fidelity import Fidelity, Positions
from coldbias_tasks.core.measures.reverse import ReverseSummary
from coldbias_tasks.core.measures.summary import MetricSummary

__all__ = [
    "DEGENERATE_MESSAGE",
    "DEGENERATE_RULES",
    "REVERSE_DEGENERATE_RULES",
    "degenerate_reasons",
    "placebo_reacts",
    "reverse_degenerate_reasons",
]

#: (rate, comparison, threshold): a task or model meeting any rule is degenerate.
DEGENERATE_RULES: tuple[tuple[str, str, float], ...] = (
    ("prefix_copy_rate", ">", 0.5),
    ("fill_rate", "<", 0.5),
    ("out_of_catalog_rate", ">", 0.3),
    ("duplicate_rate", ">", 0.3),
)
DEGENERATE_MESSAGE = (
    "degenerate model output: divergences are not interpretable as fairness (a model that "
    "copies the catalog order or fails the task can look perfectly 'fair')"
)


#: The same rules for the reverse task (rank users for an item): keeping the shown order is
#: the prefix copy, the share of users ranked the fill, entries naming no shown user the
#: out-of-catalog answers.
REVERSE_DEGENERATE_RULES: tuple[tuple[str, str, float], ...] = (
    ("keep_order_rate", ">", 0.5),
    ("fill_rate", "<", 0.5),
    ("invalid_rate", ">", 0.3),
    ("duplicate_rate", ">", 0.3),
)


def degenerate_reasons(fid: Fidelity, pos: Positions) -> list[str]:
    """Which :data:`DEGENERATE_RULES` the rates break ("prefix_copy_rate 0.71 > 0.5"); NaN
    rates (nothing to count) break no rule.
    """
    rates = {
        "prefix_copy_rate": pos.prefix_copy_rate,
        "fill_rate": fid.fill_rate,
        "out_of_catalog_rate": fid.out_of_catalog_rate,
        "duplicate_rate": fid.duplicate_rate,
    }
    return _broken(rates, DEGENERATE_RULES)


def reverse_degenerate_reasons(summary: ReverseSummary) -> list[str]:
    """Which :data:`REVERSE_DEGENERATE_RULES` a reverse task's rates break ("fill_rate
    0.00 < 0.5"); NaN rates (no answer) break no rule."""
    return _broken(
        {name: getattr(summary, name) for name, _, _ in REVERSE_DEGENERATE_RULES},
        REVERSE_DEGENERATE_RULES,
    )


def _broken(rates: dict[str, float], rules: tuple[tuple[str, str, float], ...]) -> list[str]:
    out = []
    for name, op, limit in rules:
        value = rates[name]
        if math.isnan(value):
            continue
        if (op == ">" and value > limit) or (op == "<" and value < limit):
            out.append(f"{name} {value:.2f} {op} {limit}")
    return out


def placebo_reacts(placebo: MetricSummary, ci_low: float) -> bool:
    """Whether a placebo task's excess is clearly above zero: its group test rejects at the
    task's α, or the 95 % interval of its excess lies above 0. Then the model's lists change
    with any extra sentence, not only with sensitive attributes."""
    rejects = not math.isnan(placebo.group_p) and placebo.group_p <= placebo.alpha
    return rejects or (not math.isnan(ci_low) and ci_low > 0)
