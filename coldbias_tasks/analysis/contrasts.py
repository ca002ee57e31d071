"""Contrasts between tasks of one model: each group against the placebo (``controls``),
intersectional personas against their single attributes (``intersections``) and first-name
tasks against the explicit ones (``implicit``), each with 95 % t-intervals over repeats
(differences taken repeat by repeat, :func:`~.intervals.combine`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from coldbias_tasks.analysis.intervals import Series, combine, t_interval
from coldbias_tasks.analysis.report import TaskReport, find_report, ident
from coldbias_tasks.analysis.summaries import placebo_flag
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP

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


def intersections_table(reports: Sequence[TaskReport], metric: str = "iou") -> pd.DataFrame:
    """Per combined persona of an intersectional task: its excess, the two single-attribute
    excesses (same model, domain, variant) and the interaction = combined − the larger single
    one, each with a 95 % t-interval over repeats (the interaction taken repeat by repeat)."""
    rows = []
    for rep in reports:
        t = rep.task
        if "_x_" not in t.group:
            continue
        first, second = t.group.split("_x_", 1)
        singles = [
            find_report(reports, rep.model.label, t.domain, t.variant, g) for g in (first, second)
        ]
        for v in rep.summary.metrics[metric].values:
            combo = v.persona_id.split(".", 1)[1]
            a, b = combo.split("+", 1)
            combined, c_series = _value_excess(rep, metric, v.persona_id)
            found: list[tuple[float, Series]] = [
                _value_excess(s, metric, f"{g}.{x}") if s else (math.nan, {})
                for s, g, x in zip(singles, (first, second), (a, b))
            ]
            larger = max(
                range(2), key=lambda i: -math.inf if math.isnan(found[i][0]) else found[i][0]
            )
            interaction = combined - found[larger][0]
            inter_series = combine([c_series, found[larger][1]], (1, -1))
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
        explicit = find_report(
            reports, rep.model.label, t.domain, "plain", t.group.removeprefix("implicit_")
        )
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
