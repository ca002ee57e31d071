"""The report's ``costs`` table: what the disparity costs the user, per task and utility, in
the user's units (:mod:`coldbias_tasks.core.measures.costs`, docs/measurement.md §3e).

One CSV, two kinds of rows (column ``row``):

- ``gap``: per task and utility (preference served, item quality, failure) — the gap (the
  lm-eval metric: the spread between values, ≥ 0), ``signed`` (the second value minus the first
  at two values), jackknife SE and 95 % t(P − 1) interval, the relabelling p, its smallest
  attainable value, the MDE, the verdict, each value's mean utility (``mean_<value>``) and
  ``says``: the gap in the user's units ("users who state female get 1.8 fewer items of their
  stated preference in 10 than users who state male, beyond wording");
- ``pair``: with three values or more, every pair's signed contrast, p and Holm-adjusted p.

Utilities a task cannot have (no stated preference outside pref tasks, no offline quality fact
for songs and universities) are left out; the placebo task too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from coldbias_tasks.analysis.diversity_report import contrast_row
from coldbias_tasks.analysis.report import TaskReport, ident
from coldbias_tasks.core.measures.costs import UtilityGap
from coldbias_tasks.core.stats.estimate import DEGENERATE, Estimate, with_verdict
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP

__all__ = ["costs_table", "in_user_units"]

#: utility → (scale, what one scaled unit counts, the word for "less of it")
_UNITS: dict[str, tuple[float, str, str]] = {
    "preference served": (10.0, "items of their stated preference in 10", "fewer"),
    "item quality": (1.0, "critics' score points per listed film", "lower"),
    "failure": (100.0, "failed answers in 100", "fewer"),
}


def _short(value: str) -> str:
    return value.split(".", 1)[-1]


def in_user_units(gap: UtilityGap, verdict: str = "") -> str:
    """The gap in the user's units, beyond wording: the value with the lowest phrasing-
    controlled mean (ē) against the one with the highest, with ``verdict`` (default: the
    contrast's); "" without a value."""
    c = gap.contrast
    if not c.estimate.defined or len(c.by_value) < 2:
        return ""
    ordered = sorted(c.by_value, key=lambda v: (c.by_value[v], v))
    low, high = ordered[0], ordered[-1]
    scale, unit, less = _UNITS.get(gap.name, (1.0, gap.unit, "less"))
    diff = (c.by_value[high] - c.by_value[low]) * scale
    verdict = verdict or c.estimate.verdict_text or "untested"
    return (
        f"users who state {_short(low)} get {diff:.1f} {less} {unit} than users who state "
        f"{_short(high)}, beyond wording ({verdict})"
    )


def _verdict(estimate: Estimate, degenerate: Sequence[str]) -> str:
    """The estimate's verdict, "degenerate" for a task the fidelity rules flag (as lm-eval's
    results say: :func:`coldbias_tasks.core.result.task_result`)."""
    if degenerate and estimate.verdict and estimate.defined:
        note = "degenerate output: " + "; ".join(degenerate)
        estimate = with_verdict(estimate, DEGENERATE, note)
    return estimate.verdict_text


def _gap_row(gap: UtilityGap, degenerate: Sequence[str] = ()) -> dict[str, Any]:
    shared = contrast_row(gap.contrast)
    shared.pop("statistic")
    return {
        "utility": gap.name,
        "unit": gap.unit,
        "gap": shared.pop("contrast"),
        **shared,
        "n_answers": gap.n_answers,
        "n_defined": gap.n_defined,
        "verdict": _verdict(gap.contrast.estimate, degenerate),
        "says": in_user_units(gap, _verdict(gap.contrast.estimate, degenerate)),
        **{f"mean_{_short(v)}": m for v, m in gap.means.items()},
    }


def costs_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per task: a ``gap`` row per utility it has and a ``pair`` row per pair of values
    (module docstring); empty when no task has any."""
    rows = []
    for rep in reports:
        if rep.task.group == PLACEBO_GROUP:
            continue
        for gap in rep.summary.costs.gaps():
            if gap.n_defined == 0 or math.isnan(gap.contrast.spread):
                continue
            rows.append({**ident(rep), "row": "gap", **_gap_row(gap, rep.degenerate)})
            for pair in gap.pairs:
                rows.append({
                    **ident(rep), "row": "pair", "utility": gap.name, "reference": pair.a,
                    "other": pair.b, "signed": pair.contrast.signed,
                    "p_value": pair.contrast.p_value, "p_adjusted": pair.p_adjusted,
                    "verdict": "flagged" if pair.flagged else "not flagged",
                })  # fmt: skip
    return pd.DataFrame(rows)
