"""Contrasts between tasks of one model: each group against the placebo (``controls``),
intersectional personas against their single attributes (``intersections``) and first-name
tasks against the explicit ones (``implicit``), each with 95 % t-intervals over repeats
(differences taken repeat by repeat, :func:`~.intervals.combine`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from coldbias_tasks.analysis.intervals import Series, combine, t_interval
from coldbias_tasks.analysis.report import TaskReport, find_report, ident
from coldbias_tasks.analysis.summaries import placebo_flag
from coldbias_tasks.core.vocabulary import (
    COMBINATION_JOIN,
    PLACEBO_GROUP,
    explicit_group,
    intersection_parts,
)

__all__ = ["controls_table", "implicit_table", "intersections_table"]


def controls_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (model, domain, variant, group, metric) with a placebo task of the same model,
    domain and variant: the group's excess, the placebo's, and excess over placebo, each with a
    95 % t-interval over the repeats both tasks have (the difference taken repeat by repeat)."""
    rows = []
    for rep in reports:
        t = rep.task
        if t.group == PLACEBO_GROUP or rep.summary.metrics is None:
            continue
        placebo = find_report(reports, rep.model.label, t.domain, t.variant, PLACEBO_GROUP)
        if placebo is None:
            continue
        for metric in rep.summary.metrics:
            diff = combine(
                [rep.series[(metric, "excess")], placebo.series[(metric, "excess")]], (1, -1)
            )
            low, high = t_interval(diff)
            g_low, g_high = rep.interval(metric)
            p_low, p_high = placebo.interval(metric)
            rows.append(
                {
                    **ident(rep),
                    "metric": metric,
                    "excess": rep.summary.metrics[metric].excess,
                    "excess_ci_low": g_low,
                    "excess_ci_high": g_high,
                    "placebo_excess": placebo.summary.metrics[metric].excess,
                    "placebo_ci_low": p_low,
                    "placebo_ci_high": p_high,
                    "excess_over_placebo": rep.summary.metrics[metric].excess
                    - placebo.summary.metrics[metric].excess,
                    "over_placebo_ci_low": low,
                    "over_placebo_ci_high": high,
                    "placebo_flag": placebo_flag(placebo, metric),
                }
            )
    return pd.DataFrame(rows)


def _value_excess(rep: TaskReport, metric: str, persona: str) -> tuple[float, Series]:
    value = next((v for v in rep.summary.metrics[metric].values if v.persona_id == persona), None)
    if value is None:
        return math.nan, {}
    return value.excess_over_floor, value.excess_by_repeat


def cross_fitted_difference(combined: Series, singles: Sequence[Series]) -> dict[int, float]:
    """Per repeat r: combined[r] − singles[j][r], j the single series with the larger mean over
    the repeats other than r (ties: the first). Unbiased under the null that the combined
    persona is one of the singles; choosing j on repeat r itself would bias it downward (the
    larger of two noisy means is biased upward). Repeats missing anywhere are left out."""
    singles = [s for s in singles if s]  # a missing single task: compare with the other
    if not singles:
        return {}
    common = sorted(set(combined).intersection(*(set(s) for s in singles)))
    out: dict[int, float] = {}
    for r in common:
        means = [np.mean([s[q] for q in common if q != r]) if len(common) > 1 else s[r]
                 for s in singles]  # fmt: skip
        pick = max(range(len(singles)), key=lambda i: (-math.inf if math.isnan(means[i]) else
                   means[i], -i))  # fmt: skip
        value = combined[r] - singles[pick][r]
        if not math.isnan(value):
            out[r] = float(value)
    return out


def intersections_table(reports: Sequence[TaskReport], metric: str = "iou") -> pd.DataFrame:
    """Per combined persona of an intersectional task: its excess, the two single-attribute
    excesses (same model, domain, variant) and the interaction = combined − the larger single
    one, each with a 95 % t-interval over repeats. The interaction is cross-fitted: in repeat r
    "the larger single one" is chosen on the other repeats (:func:`cross_fitted_difference`),
    so choosing it from the data does not bias the interaction downward."""
    rows = []
    for rep in reports:
        t = rep.task
        parents = intersection_parts(t.group)
        if parents is None:
            continue
        first, second = parents
        singles = [
            find_report(reports, rep.model.label, t.domain, t.variant, g) for g in (first, second)
        ]
        for v in rep.summary.metrics[metric].values:
            combo = v.persona_id.split(".", 1)[1]
            a, b = combo.split(COMBINATION_JOIN, 1)
            combined, c_series = _value_excess(rep, metric, v.persona_id)
            found: list[tuple[float, Series]] = [
                _value_excess(s, metric, f"{g}.{x}") if s else (math.nan, {})
                for s, g, x in zip(singles, (first, second), (a, b))
            ]
            inter_series = cross_fitted_difference(c_series, [part for _, part in found])
            found_inter = list(inter_series.values())
            interaction = float(np.mean(found_inter)) if found_inter else math.nan
            row = {**ident(rep), "metric": metric, "persona_id": v.persona_id}
            row["combined_excess"] = combined
            row["combined_ci_low"], row["combined_ci_high"] = t_interval(c_series)
            for label, (value, part) in zip((first, second), found):
                row[f"{label}_excess"] = value
                row[f"{label}_ci_low"], row[f"{label}_ci_high"] = t_interval(part)
            row["interaction"] = interaction
            row["interaction_ci_low"], row["interaction_ci_high"] = t_interval(inter_series)
            rows.append(row)
    return pd.DataFrame(rows)


def implicit_table(reports: Sequence[TaskReport], metric: str = "iou") -> pd.DataFrame:
    """Per implicit (first-name) task: its group excess next to the explicit task's (plain
    variant, same model and domain), and the difference, with 95 % intervals."""
    rows = []
    for rep in reports:
        t = rep.task
        if t.variant != "implicit":
            continue
        explicit = find_report(reports, rep.model.label, t.domain, "plain", explicit_group(t.group))
        row = {
            **ident(rep),
            "metric": metric,
            "implicit_excess": rep.summary.metrics[metric].excess,
        }
        row["implicit_ci_low"], row["implicit_ci_high"] = rep.interval(metric)
        if explicit is not None:
            row["explicit_excess"] = explicit.summary.metrics[metric].excess
            row["explicit_ci_low"], row["explicit_ci_high"] = explicit.interval(metric)
            diff = combine(
                [rep.series[(metric, "excess")], explicit.series[(metric, "excess")]], (1, -1)
            )
            row["implicit_minus_explicit"] = row["implicit_excess"] - row["explicit_excess"]
            row["difference_ci_low"], row["difference_ci_high"] = t_interval(diff)
        rows.append(row)
    return pd.DataFrame(rows)
