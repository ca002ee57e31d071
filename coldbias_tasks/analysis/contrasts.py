"""Contrasts between tasks of one model: each group against the control families of the
placebo task (``controls``),
intersectional personas against their single attributes (``intersections``) and first-name
tasks against the explicit ones (``implicit``), each with 95 % t-intervals over repeats
(differences taken repeat by repeat, :func:`~.intervals.combine`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from coldbias_tasks.analysis.control_families import control_families
from coldbias_tasks.analysis.intervals import Series, combine, t_interval
from coldbias_tasks.analysis.report import TaskReport, find_report, ident
from coldbias_tasks.analysis.summaries import placebo_flag
from coldbias_tasks.core.measures import EXCESS
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.vocabulary import (
    COMBINATION_JOIN,
    PLACEBO_GROUP,
    explicit_group,
    intersection_parts,
)

__all__ = ["controls_table", "implicit_table", "intersections_table"]


def controls_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (model, domain, group, metric, control family) with a plain placebo task of the same
    model and domain: the attribute task's excess over that family of control sentences, its
    95 % interval (sentences as units) and the mark over the families ("robust" or
    "control-dependent"; :mod:`.control_families`). The secondary view; the headline is the
    disparity."""
    rows = []
    for rep in reports:
        t = rep.task
        if t.group == PLACEBO_GROUP or t.variant != "plain":
            continue
        placebo = find_report(reports, rep.model.label, t.domain, "plain", PLACEBO_GROUP)
        if placebo is None:
            continue
        families = dict(getattr(placebo.task, "families", ()))
        for metric in rep.summary.metrics:
            view = control_families([t.records], placebo.task.records, families, metric)
            for f in view.families:
                rows.append(
                    {
                        **ident(rep),
                        "metric": metric,
                        "family": f.family,
                        "excess_over_family": f.excess,
                        "stderr": f.stderr,
                        "ci_low": f.ci_low,
                        "ci_high": f.ci_high,
                        "n_family_sentences": f.n_sentences,
                        "n_task_sentences": f.n_task_sentences,
                        "mark": view.mark,
                        "placebo_flag": placebo_flag(placebo, metric),
                    }
                )
    return pd.DataFrame(rows)


def _value_excess(rep: TaskReport, metric: str, value: str) -> tuple[float, Series]:
    """A value's excess over the noise floor and its per-repeat series, pooled over the value's
    sentences (its phrasings); NaN and no series when the task lacks the value."""
    sentences = [v for v in rep.summary.metrics[metric].values if v.value == value]
    if not sentences:
        return math.nan, {}
    series = combine([v.excess_by_repeat for v in sentences])
    return float(np.mean([v.excess_over_floor for v in sentences])), series


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


def intersections_table(
    reports: Sequence[TaskReport], metric: str = HEADLINE_SIMILARITY
) -> pd.DataFrame:
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
        for value in sorted({v.value for v in rep.summary.metrics[metric].values}):
            combo = value.split(".", 1)[1]
            a, b = combo.split(COMBINATION_JOIN, 1)
            combined, c_series = _value_excess(rep, metric, value)
            found: list[tuple[float, Series]] = [
                _value_excess(s, metric, f"{g}.{x}") if s else (math.nan, {})
                for s, g, x in zip(singles, (first, second), (a, b))
            ]
            inter_series = cross_fitted_difference(c_series, [part for _, part in found])
            found_inter = list(inter_series.values())
            interaction = float(np.mean(found_inter)) if found_inter else math.nan
            row = {**ident(rep), "metric": metric, "persona_id": value}
            row["combined_excess"] = combined
            row["combined_ci_low"], row["combined_ci_high"] = t_interval(c_series)
            for label, (value, part) in zip((first, second), found):
                row[f"{label}_excess"] = value
                row[f"{label}_ci_low"], row[f"{label}_ci_high"] = t_interval(part)
            row["interaction"] = interaction
            row["interaction_ci_low"], row["interaction_ci_high"] = t_interval(inter_series)
            rows.append(row)
    return pd.DataFrame(rows)


def implicit_table(
    reports: Sequence[TaskReport], metric: str = HEADLINE_SIMILARITY
) -> pd.DataFrame:
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
                [rep.series_of(metric, EXCESS), explicit.series_of(metric, EXCESS)], (1, -1)
            )
            row["implicit_minus_explicit"] = row["implicit_excess"] - row["explicit_excess"]
            row["difference_ci_low"], row["difference_ci_high"] = t_interval(diff)
        rows.append(row)
    return pd.DataFrame(rows)
