"""The report's forward numbers: per-task reports, verdicts and the forward CSV tables.

All numbers are recomputed from the logged answers (:mod:`.summaries`, with
:func:`coldbias_tasks.core.measures.exposure.exposure_stats` for exposure), so they equal the
lm-eval
aggregations of the run; intervals are Student-t over repeats (:mod:`.intervals`). Tables (one
CSV each): ``values`` (per value: raw divergence, excess, p, Holm-adjusted p, verdict),
``groups`` (per task: raw divergence and FaiRLLM's SNSR/SNSV, excess with interval, group
test, flagged share, power), ``fidelity``, ``exposure`` (signed, tested) and
``disparity_pairs``. The contrasts between tasks (placebo, intersections, implicit) are in
:mod:`.contrasts`, the reverse task's in :mod:`.reverse_report`, the whole set of tables in
:mod:`.tables`. Rendering (plots, HTML, the terminal summary) is in
:mod:`coldbias_tasks.render`; writing files in :mod:`coldbias_tasks.app.commands`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pandas as pd

from coldbias_tasks.analysis.presentation import ordered, report_values
from coldbias_tasks.analysis.run_data import ModelResults, ReverseTaskData, TaskData
from coldbias_tasks.analysis.summaries import TaskSummary, summarize_task
from coldbias_tasks.analysis.verdicts import disparity_verdict, value_verdict
from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.measures import EXCESS
from coldbias_tasks.core.measures.coverage import COVERAGE_MEASURES
from coldbias_tasks.core.measures.exposure import ExposureStat, exposure_stats
from coldbias_tasks.core.measures.exposure_disparity import ShareDisparity, share_disparity
from coldbias_tasks.core.parsing.open_answers import GROUNDING_FIELD, catalog_items, level_labels
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.stats.series import t_interval
from coldbias_tasks.core.vocabulary import OPEN, VARIANTS
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.domains import domains

__all__ = [
    "EXPOSURE_COLUMNS",
    "IDENT_COLUMNS",
    "TaskReport",
    "analyze",
    "category_labels",
    "disparity_pairs_table",
    "disparity_verdict",
    "exposure_table",
    "fidelity_table",
    "find_report",
    "groups_table",
    "ident",
    "most_divergent",
    "task_order",
    "value_verdict",
    "values_table",
]


@dataclass
class TaskReport(TaskSummary):
    """Everything reported for one (model, task): the task's summary and per-repeat series
    (:class:`~.summaries.TaskSummary`), the model, exposure statistics per field, and notes."""

    model: ModelResults
    exposure: dict[str, list[ExposureStat]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: field → per category, how differently the values are exposed to it (no neutral user)
    exposure_between: dict[str, list[ShareDisparity]] = field(default_factory=dict)


def category_labels(catalog_field: str, cats: Mapping[int, list[str]]) -> dict[int, list[str]]:
    """Boolean fields get readable labels ("Western" / "non-Western" for ``western``)."""
    values = {c for labels in cats.values() for c in labels}
    if values <= {"True", "False"}:
        name = catalog_field.replace("_", " ")
        name = name[:1].upper() + name[1:]
        names = {"True": name, "False": f"non-{name}"}
        return {i: [names[c] for c in labels] for i, labels in cats.items()}
    return dict(cats)


def _exposure(
    task: TaskData, fields: Sequence[str] | None
) -> tuple[dict[str, list[ExposureStat]], list[str], dict[str, list[ShareDisparity]]]:
    """field → exposure statistics, for the task's catalog; notes on skipped fields; field →
    the between-values share tests. An open task's catalog fields count its grounded catalog
    items only, and its pseudo field ``grounding`` labels every listed item catalog /
    reference / ungrounded (base rate: the share of the distinct listed items)."""
    spec = domains().get(task.domain)
    wanted = list(fields) if fields else list(spec.exposure_fields if spec else ())
    if not wanted:
        return {}, [], {}
    try:
        catalog = load_catalog(task.catalog)
    except (CatalogError, OSError) as err:
        return {}, [f"exposure skipped: catalog {task.catalog!r} cannot be loaded ({err})"], {}
    if task.catalog_sha256 and catalog.sha256 != task.catalog_sha256:
        return (
            {},
            [
                f"exposure skipped: catalog {task.catalog!r} changed since the run "
                f"({catalog.sha256[:10]} ≠ {task.catalog_sha256[:10]}), item ids may not match"
            ],
            {},
        )
    out, notes, between = {}, [], {}
    shown = task.shown or tuple(range(len(catalog)))
    # an open task: exposure over its grounded catalog items (the only ones with categories)
    records = [catalog_items(r) for r in task.records] if task.variant == OPEN else task.records
    for name in wanted:
        if name not in catalog.table.columns:
            if fields:
                notes.append(f"exposure field {name!r} not in catalog {task.catalog!r}")
            continue
        cats = category_labels(name, catalog.categories(name))
        out[name] = exposure_stats(records, cats, shown)
        between[name] = share_disparity(records, cats)
    if task.variant == OPEN:  # which values are given more ungrounded (possibly invented) items
        levels = level_labels(task.records)
        out[GROUNDING_FIELD] = exposure_stats(task.records, levels, sorted(levels))
        between[GROUNDING_FIELD] = share_disparity(task.records, levels)
    return out, notes, between


def task_order(task: TaskData) -> tuple[int, str, int, str, str]:
    """Domains in display order (``order`` of the domain files); then variant in
    :data:`VARIANTS` order; then group."""
    names = list(domains())
    return (
        names.index(task.domain) if task.domain in names else len(names),
        task.domain,
        VARIANTS.index(task.variant) if task.variant in VARIANTS else len(VARIANTS),
        task.group,
        task.name,
    )


def analyze(
    models: Sequence[ModelResults], exposure_fields: Sequence[str] | None = None
) -> list[TaskReport]:
    """Summaries, per-repeat series and exposure of every task of every model, in model then
    task order."""
    reports = []
    for model in models:
        for task in sorted(model.tasks.values(), key=task_order):
            s = summarize_task(task)
            stats, notes, between = _exposure(task, exposure_fields)
            reports.append(TaskReport(s.task, s.result, model, stats, notes, between))
    return reports


# --- tables ----------------------------------------------------------------------------------


IDENT_COLUMNS = (
    "model", "task", "task_version", "domain", "variant", "attribute_group", "partial",
)  # fmt: skip


class _Reported(Protocol):
    model: ModelResults
    task: TaskData | ReverseTaskData


def ident(rep: _Reported) -> dict[str, Any]:
    """The identifying columns (:data:`IDENT_COLUMNS`) of a forward or reverse task's row."""
    t = rep.task
    return {
        "model": rep.model.label,
        "task": t.name,
        "task_version": t.version,
        "domain": t.domain,
        "variant": getattr(t, "variant", ""),
        "attribute_group": t.group,
        "partial": t.partial,
    }


def values_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (task, attribute value, metric): raw divergence, excess, tests and verdict."""
    rows = []
    for rep in reports:
        for metric, ms in rep.summary.metrics.items():
            for v in sorted(ms.values, key=lambda v: (v.value, v.phrasing, v.persona_id)):
                low, high = t_interval(v.excess_by_repeat, bounds=EXCESS.range)
                rows.append(
                    {
                        **ident(rep),
                        "persona_id": v.persona_id,
                        "metric": metric,
                        "divergence_mean": v.mean,
                        "divergence_std": v.std,
                        "n_repeats": v.n_repeats,
                        "noise_floor": ms.noise_floor.mean,
                        "excess_over_floor": v.excess_over_floor,
                        "excess_ci_low": low,
                        "excess_ci_high": high,
                        "value": v.value,
                        "phrasing": v.phrasing,
                        "p_value": v.p_value,
                        "p_adjusted": v.p_adjusted,
                        "alpha": ms.alpha,
                        "flagged": v.flagged,
                        "verdict": value_verdict(ms, v.p_adjusted, v.flagged),
                    }
                )
    return pd.DataFrame(rows)


#: Column order of the groups table after the identifying columns and ``metric``; the
#: registered per-similarity measures (:mod:`coldbias_tasks.analysis.presentation`) fill the columns
#: their specs name (value, interval, stderr, verdict); any further declared one goes last.
GROUPS_LAYOUT = (
    "disparity", "disparity_ci_low", "disparity_ci_high", "disparity_stderr", "disparity_p",
    "disparity_min_p", "disparity_mde", "disparity_verdict", "disparity_within",
    "disparity_between", "n_phrasings",
    "mean", "mean_ci_low", "mean_ci_high", "std", "snsr", "snsv", "noise_floor",
    "noise_floor_std", "noise_floor_pairs", "noise_floor_kind", "cross_repeat_floor", "excess",
    "excess_ci_low", "excess_ci_high", "group_p", "min_group_p", "group_verdict",
    "flagged_share", "min_adjusted_p", "underpowered", "alpha", "n_values", "n_repeats",
    "n_replicates",
)  # fmt: skip


def groups_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (task, metric): every declared per-similarity quantity with its interval, standard
    error and verdict (:func:`~coldbias_tasks.analysis.presentation.report_values`), and the
    descriptive columns of the tests (noise floor, attainable p, counts)."""
    rows = []
    for rep in reports:
        for metric, ms in rep.summary.metrics.items():
            d = ms.disparity
            described = {
                "disparity_min_p": d.min_p,
                "disparity_mde": d.mde,
                "disparity_within": d.within,
                "disparity_between": d.between,
                "n_phrasings": d.n_phrasings,
                "std": ms.std,
                "noise_floor": ms.noise_floor.mean,
                "noise_floor_std": ms.noise_floor.std,
                "noise_floor_pairs": ms.noise_floor.n_pairs,
                "noise_floor_kind": ms.noise_floor.kind,
                "cross_repeat_floor": ms.noise_floor.cross_repeat_mean,
                "min_group_p": ms.min_group_p,
                "min_adjusted_p": ms.min_adjusted_p,
                "underpowered": ms.underpowered,
                "alpha": ms.alpha,
                "n_values": len({v.value for v in ms.values}),
                "n_repeats": len(rep.summary.repeats),
                "n_replicates": rep.summary.n_replicates,
            }
            values = report_values(rep.result, "similarity", metric) | described
            rows.append({**ident(rep), "metric": metric, **ordered(GROUPS_LAYOUT, values)})
    return pd.DataFrame(rows)


#: Column order of the fidelity table after the identifying columns (see :data:`GROUPS_LAYOUT`).
FIDELITY_LAYOUT = (
    "n_answers", "exact_k_rate", "fill_rate", "empty_rate", "out_of_catalog_rate",
    "duplicate_rate", "mean_items", "invalid_pair_rate", "mean_catalog_position",
    "position_bias", "prefix_copy_rate", "degenerate", "degenerate_reasons",
)  # fmt: skip


def fidelity_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per task: the declared per-task metrics (fidelity and position diagnostics), answer
    counts, the mean catalog position and the degenerate flag."""
    rows = []
    for rep in reports:
        reasons = rep.degenerate
        described = {
            "n_answers": rep.summary.fidelity.n_answers,
            "mean_items": rep.summary.fidelity.mean_items,
            "mean_catalog_position": rep.summary.positions.mean_position,
            "degenerate": bool(reasons),
            "degenerate_reasons": "; ".join(reasons),
        }
        values = report_values(rep.result, "task", exclude=COVERAGE_MEASURES) | described
        rows.append({**ident(rep), **ordered(FIDELITY_LAYOUT, values)})
    return pd.DataFrame(rows)


EXPOSURE_COLUMNS = (
    "persona_id", "field", "category", "share", "neutral_share", "diff", "diff_ci_low",
    "diff_ci_high", "p_value", "q_value", "base_rate", "jsd", "jsd_floor", "n_repeats",
)  # fmt: skip


def exposure_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (task, value, field, category): signed exposure difference from the neutral answers
    with its interval, relabelling p and BH q, the base rate, and the JSD with its floor."""
    rows = []
    for rep in reports:
        for name, stats in rep.exposure.items():
            for s in stats:
                rows.append(
                    {
                        **ident(rep),
                        "persona_id": s.persona_id,
                        "field": name,
                        "category": s.category,
                        "share": s.share,
                        "neutral_share": s.neutral_share,
                        "diff": s.diff,
                        "diff_ci_low": s.ci_low,
                        "diff_ci_high": s.ci_high,
                        "p_value": s.p_value,
                        "q_value": s.q_value,
                        "base_rate": s.base_rate,
                        "jsd": s.jsd,
                        "jsd_floor": s.jsd_floor,
                        "n_repeats": s.n_repeats,
                    }
                )
    return pd.DataFrame(rows, columns=[*IDENT_COLUMNS, *EXPOSURE_COLUMNS])


def exposure_between_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (task, field, category, pair of values): how differently two values are exposed to
    the category (share difference, exact sign-flip p, Holm over the category's pairs), with the
    category's omnibus test over all values (within-repeat label permutation; no neutral user)."""
    rows = []
    for rep in reports:
        for name, found in rep.exposure_between.items():
            for d in found:
                for pair in d.pairs:
                    rows.append(
                        {
                            **ident(rep),
                            "field": name,
                            "category": d.category,
                            "value_a": pair.a,
                            "value_b": pair.b,
                            "share_a": d.shares[pair.a],
                            "share_b": d.shares[pair.b],
                            "diff": pair.value,
                            "p_value": pair.p_value,
                            "p_adjusted": pair.p_adjusted,
                            "min_p": pair.min_p,
                            "category_spread": d.spread,
                            "category_p": d.p_value,
                            "n_repeats": d.n_repeats,
                        }
                    )
    return pd.DataFrame(rows)


def find_report(
    reports: Sequence[TaskReport], model: str, domain: str, variant: str, group: str
) -> TaskReport | None:
    """The report of (model label, domain, variant, group), or None."""
    for r in reports:
        t = r.task
        if (r.model.label, t.domain, t.variant, t.group) == (model, domain, variant, group):
            return r
    return None


def most_divergent(
    rep: TaskReport, metric: str = HEADLINE_SIMILARITY
) -> tuple[str, float, float] | None:
    """(value, excess, adjusted p) of the value with the largest excess, or None."""
    vals = [v for v in rep.summary.metrics[metric].values if not math.isnan(v.excess_over_floor)]
    if not vals:
        return None
    top = max(vals, key=lambda v: v.excess_over_floor)
    return top.persona_id, top.excess_over_floor, top.p_adjusted


def disparity_pairs_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (task, metric, pair of values): the pair's disparity, exact p, Holm-adjusted p over
    the group's pairs, flagged, and whether any pair could be flagged with these repeats."""
    rows = []
    for rep in reports:
        for metric, ms in rep.summary.metrics.items():
            d = ms.disparity
            for pair in d.pairs:
                rows.append(
                    {
                        **ident(rep),
                        "metric": metric,
                        "value_a": pair.a,
                        "value_b": pair.b,
                        "disparity": pair.value,
                        "p_value": pair.p_value,
                        "p_adjusted": pair.p_adjusted,
                        "flagged": pair.flagged,
                        "min_p": pair.min_p,
                        "underpowered": d.pairs_underpowered,
                    }
                )
    return pd.DataFrame(rows)
