"""The report's numbers: per-task summaries, tests, exposure statistics and the CSV tables.

All numbers are recomputed from the logged answers with
:func:`coldbias_tasks.core.aggregate.summarize_group` and
:func:`coldbias_tasks.core.exposure.exposure_stats`, so they equal the lm-eval aggregations of
the run; intervals are Student-t over repeats (:mod:`.intervals`). Rendering (plots, HTML,
the terminal summary) is in :mod:`coldbias_tasks.render`; writing files in
:mod:`coldbias_tasks.app.commands`.

Tables (one CSV each): ``values`` (per value: raw divergence, excess, p, Holm-adjusted p,
verdict), ``groups`` (per task: raw divergence and FaiRLLM's SNSR/SNSV, excess with interval,
group test, flagged share, power), ``fidelity``, ``exposure`` (signed, tested), ``controls``
(each group's excess next to the placebo's, and the excess over placebo), ``intersections``
(combined excess next to the single-attribute ones, and the interaction) and ``implicit``
(first-name vs explicit excess per group), ``robustness`` (per model, task and prompt
template/language: excess with interval) and ``prompt_sensitivity`` (spread over prompts and
Kendall τ of the rankings; :mod:`.robustness`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from coldbias_tasks.analysis.intervals import (
    BOOTSTRAP_RESAMPLES,
    BOUNDS,
    Series,
    combine,
    interval,
    metric_series,
    reverse_gap_draws,
    t_interval,
)
from coldbias_tasks.analysis.robustness import sensitivity_table, variant_table
from coldbias_tasks.analysis.runs import ModelResults, ReverseTaskData, TaskData
from coldbias_tasks.core.aggregate import GroupSummary, MetricSummary, summarize_group
from coldbias_tasks.core.catalog import load_catalog
from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.exposure import ExposureStat, exposure_stats
from coldbias_tasks.core.quality import degenerate_reasons, placebo_reacts
from coldbias_tasks.core.reverse import ReverseSummary, summarize_reverse
from coldbias_tasks.core.vocabulary import DOMAINS, PLACEBO_GROUP, SIMILARITY_NAMES, VARIANTS

__all__ = [
    "IDENT_COLUMNS",
    "ReverseReport",
    "TaskReport",
    "analyze",
    "analyze_reverse",
    "controls_table",
    "exposure_table",
    "fidelity_table",
    "framing_table",
    "groups_table",
    "implicit_table",
    "intersections_table",
    "most_divergent",
    "placebo_flag",
    "reverse_categories_table",
    "reverse_groups_table",
    "reverse_tables",
    "reverse_values_table",
    "tables",
    "task_order",
    "value_verdict",
    "values_table",
]


@dataclass
class TaskReport:
    """Everything reported for one (model, task): the summary, its per-repeat series per
    (metric, kind ∈ {excess, divergence}), per-value excess series, exposure statistics per
    field, and notes."""

    model: ModelResults
    task: TaskData
    summary: GroupSummary
    exposure: dict[str, list[ExposureStat]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    series: dict[tuple[str, str], dict[int, float]] = field(default_factory=dict)
    value_series: dict[str, dict[str, Series]] = field(default_factory=dict)

    @property
    def degenerate(self) -> list[str]:
        """:func:`~coldbias_tasks.core.quality.degenerate_reasons` of the task's answers."""
        return degenerate_reasons(self.summary.fidelity, self.summary.positions)

    def interval(self, metric: str, kind: str = "excess") -> tuple[float, float]:
        """95 % t-interval over repeats of the task figure (NaN with < 2 repeats)."""
        return t_interval(self.series[(metric, kind)], bounds=BOUNDS.get(kind))


def _category_labels(catalog_field: str, cats: Mapping[int, list[str]]) -> dict[int, list[str]]:
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
) -> tuple[dict[str, list[ExposureStat]], list[str]]:
    """field → exposure statistics, for the task's catalog; notes on skipped fields."""
    spec = DOMAINS.get(task.domain)
    wanted = list(fields) if fields else list(spec.exposure_fields if spec else ())
    if not wanted:
        return {}, []
    try:
        catalog = load_catalog(task.catalog)
    except (CatalogError, OSError) as err:
        return {}, [f"exposure skipped: catalog {task.catalog!r} cannot be loaded ({err})"]
    if task.catalog_sha256 and catalog.sha256 != task.catalog_sha256:
        return {}, [
            f"exposure skipped: catalog {task.catalog!r} changed since the run "
            f"({catalog.sha256[:10]} ≠ {task.catalog_sha256[:10]}), item ids may not match"
        ]
    out, notes = {}, []
    shown = task.shown or tuple(range(len(catalog)))
    for name in wanted:
        if name not in catalog.table.columns:
            if fields:
                notes.append(f"exposure field {name!r} not in catalog {task.catalog!r}")
            continue
        cats = _category_labels(name, catalog.categories(name))
        out[name] = exposure_stats(task.records, cats, shown)
    return out, notes


def task_order(task: TaskData) -> tuple[int, str, int, str, str]:
    """Domains in :data:`DOMAINS` order; then variant in :data:`VARIANTS` order; then group."""
    domains = list(DOMAINS)
    return (
        domains.index(task.domain) if task.domain in domains else len(domains),
        task.domain,
        VARIANTS.index(task.variant) if task.variant in VARIANTS else len(VARIANTS),
        task.group,
        task.name,
    )


def analyze(
    models: Sequence[ModelResults],
    exposure_fields: Sequence[str] | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> list[TaskReport]:
    """Summaries, per-repeat series and exposure of every task of every model, in model then
    task order."""
    reports = []
    for model in models:
        for task in sorted(model.tasks.values(), key=task_order):
            summary = summarize_group(task.records)
            stats, notes = _exposure(task, exposure_fields)
            series = {
                (m, kind): metric_series(summary.metrics[m], kind)
                for m in summary.metrics
                for kind in ("excess", "divergence")
            }
            by_value = {
                m: {v.persona_id: dict(v.excess_by_repeat) for v in ms.values}
                for m, ms in summary.metrics.items()
            }
            reports.append(TaskReport(model, task, summary, stats, notes, series, by_value))
    return reports


# --- verdicts --------------------------------------------------------------------------------


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


def _group_verdict(ms: MetricSummary) -> str:
    if ms.withheld:
        return "withheld: deterministic answers"
    if math.isnan(ms.group_p):
        return "n/a"
    if ms.group_p <= ms.alpha:
        return f"group diverges beyond noise (p ≤ {ms.alpha:g})"
    if ms.min_group_p > ms.alpha:
        return "underpowered"
    return "not distinguishable from noise"


# --- tables ----------------------------------------------------------------------------------


IDENT_COLUMNS = (
    "model", "task", "task_version", "domain", "variant", "attribute_group", "partial",
)  # fmt: skip


def _ident(rep: TaskReport | ReverseReport) -> dict[str, Any]:
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
            for v in sorted(ms.values, key=lambda v: v.persona_id):
                low, high = t_interval(v.excess_by_repeat, bounds=BOUNDS["excess"])
                rows.append(
                    {
                        **_ident(rep),
                        "persona_id": v.persona_id,
                        "metric": metric,
                        "divergence_mean": v.mean,
                        "divergence_std": v.std,
                        "n_repeats": v.n_repeats,
                        "noise_floor": ms.noise_floor.mean,
                        "excess_over_floor": v.excess_over_floor,
                        "excess_ci_low": low,
                        "excess_ci_high": high,
                        "p_value": v.p_value,
                        "p_adjusted": v.p_adjusted,
                        "alpha": ms.alpha,
                        "flagged": v.flagged,
                        "verdict": value_verdict(ms, v.p_adjusted, v.flagged),
                    }
                )
    return pd.DataFrame(rows)


def groups_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (task, metric): raw divergence (paper-comparable), excess with interval, tests."""
    rows = []
    for rep in reports:
        for metric, ms in rep.summary.metrics.items():
            low, high = rep.interval(metric, "excess")
            d_low, d_high = rep.interval(metric, "divergence")
            rows.append(
                {
                    **_ident(rep),
                    "metric": metric,
                    "mean": ms.mean,
                    "mean_ci_low": d_low,
                    "mean_ci_high": d_high,
                    "std": ms.std,
                    "snsr": ms.snsr,
                    "snsv": ms.snsv,
                    "noise_floor": ms.noise_floor.mean,
                    "noise_floor_std": ms.noise_floor.std,
                    "noise_floor_pairs": ms.noise_floor.n_pairs,
                    "noise_floor_kind": ms.noise_floor.kind,
                    "cross_repeat_floor": ms.noise_floor.cross_repeat_mean,
                    "excess": ms.excess,
                    "excess_ci_low": low,
                    "excess_ci_high": high,
                    "group_p": ms.group_p,
                    "min_group_p": ms.min_group_p,
                    "group_verdict": _group_verdict(ms),
                    "flagged_share": ms.flagged_share,
                    "min_adjusted_p": ms.min_adjusted_p,
                    "underpowered": ms.underpowered,
                    "alpha": ms.alpha,
                    "n_values": len(ms.values),
                    "n_repeats": len(rep.summary.repeats),
                    "n_replicates": rep.summary.n_replicates,
                }
            )
    return pd.DataFrame(rows)


def fidelity_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per task: fidelity and position diagnostics, and the degenerate flag."""
    rows = []
    for rep in reports:
        f, p = rep.summary.fidelity, rep.summary.positions
        reasons = rep.degenerate
        rows.append(
            {
                **_ident(rep),
                "n_answers": f.n_answers,
                "exact_k_rate": f.exact_k_rate,
                "fill_rate": f.fill_rate,
                "empty_rate": f.empty_rate,
                "out_of_catalog_rate": f.out_of_catalog_rate,
                "duplicate_rate": f.duplicate_rate,
                "mean_items": f.mean_items,
                "invalid_pair_rate": rep.summary.invalid_pair_rate,
                "mean_catalog_position": p.mean_position,
                "position_bias": p.position_bias,
                "prefix_copy_rate": p.prefix_copy_rate,
                "degenerate": bool(reasons),
                "degenerate_reasons": "; ".join(reasons),
            }
        )
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
                        **_ident(rep),
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


def _find(reports: Sequence[TaskReport], model: str, domain: str, variant: str, group: str):
    for r in reports:
        t = r.task
        if (r.model.label, t.domain, t.variant, t.group) == (model, domain, variant, group):
            return r
    return None


def placebo_flag(placebo: TaskReport, metric: str = "iou") -> bool:
    """A placebo whose excess is clearly above zero
    (:func:`~coldbias_tasks.core.quality.placebo_reacts`): the model's lists react to any extra
    words, not only to sensitive attributes."""
    low, _ = placebo.interval(metric, "excess")
    return placebo_reacts(placebo.summary.metrics[metric], low)


def controls_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (model, domain, variant, group, metric) with a placebo task of the same model,
    domain and variant: the group's excess, the placebo's, and excess over placebo, each with a
    95 % t-interval over the repeats both tasks have (the difference taken repeat by repeat)."""
    rows = []
    for rep in reports:
        t = rep.task
        if t.group == PLACEBO_GROUP or rep.summary.metrics is None:
            continue
        placebo = _find(reports, rep.model.label, t.domain, t.variant, PLACEBO_GROUP)
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
                    **_ident(rep),
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
        singles = [_find(reports, rep.model.label, t.domain, t.variant, g) for g in (first, second)]
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
            row = {**_ident(rep), "metric": metric, "persona_id": v.persona_id}
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
        explicit = _find(
            reports, rep.model.label, t.domain, "plain", t.group.removeprefix("implicit_")
        )
        row = {
            **_ident(rep),
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


def most_divergent(rep: TaskReport, metric: str = "iou") -> tuple[str, float, float] | None:
    """(value, excess, adjusted p) of the value with the largest excess, or None."""
    vals = [v for v in rep.summary.metrics[metric].values if not math.isnan(v.excess_over_floor)]
    if not vals:
        return None
    top = max(vals, key=lambda v: v.excess_over_floor)
    return top.persona_id, top.excess_over_floor, top.p_adjusted


def tables(reports: Sequence[TaskReport]) -> dict[str, pd.DataFrame]:
    """The report's CSV tables by file stem (empty optional tables are left out)."""
    out = {
        "values": values_table(reports),
        "groups": groups_table(reports),
        "fidelity": fidelity_table(reports),
        "exposure": exposure_table(reports),
    }
    pairs = [(r.model, r) for r in reports]
    optional = {
        "controls": controls_table(reports),
        "intersections": intersections_table(reports),
        "implicit": implicit_table(reports),
        "robustness": variant_table(pairs),
        "prompt_sensitivity": sensitivity_table(pairs),
    }
    return out | {k: v for k, v in optional.items() if not v.empty}


#: Similarities as shown (SIMILARITY_NAMES in order).
METRIC_LABELS = {m: m.upper() for m in SIMILARITY_NAMES}


# --- reverse task ----------------------------------------------------------------------------


@dataclass
class ReverseReport:
    """One (model, reverse task): its summary and the bootstrap draws of its rank gap."""

    model: ModelResults
    task: ReverseTaskData
    summary: ReverseSummary
    gap_draws: np.ndarray

    def interval(self) -> tuple[float, float]:
        return interval(self.gap_draws)


def analyze_reverse(
    models: Sequence[ModelResults], resamples: int = BOOTSTRAP_RESAMPLES
) -> list[ReverseReport]:
    """Summaries of every reverse task of every model (domain order, then group)."""
    out = []
    for model in models:
        for task in sorted(model.reverse.values(), key=lambda t: (list(DOMAINS).index(t.domain)
                           if t.domain in DOMAINS else 99, t.group)):  # fmt: skip
            out.append(
                ReverseReport(
                    model,
                    task,
                    summarize_reverse(task.records),
                    reverse_gap_draws(task.records, task.name, resamples),
                )
            )
    return out


def _reverse_ident(rep: ReverseReport) -> dict[str, Any]:
    """The identifying columns of a reverse task (no variant)."""
    return {k: v for k, v in _ident(rep).items() if k != "variant"}


def reverse_values_table(reports: Sequence[ReverseReport]) -> pd.DataFrame:
    """Per (reverse task, value): mean normalized rank (0 = first), top-1 share, DCG exposure
    share, randomization p, Holm-adjusted p, flagged."""
    rows = []
    for rep in reports:
        for v in rep.summary.values:
            rows.append(
                {
                    **_reverse_ident(rep),
                    "persona_id": v.persona_id,
                    "mean_rank": v.mean_rank,
                    "top1_share": v.top1_share,
                    "exposure_share": v.exposure_share,
                    "position_blind": 0.5,
                    "p_value": v.p_value,
                    "p_adjusted": v.p_adjusted,
                    "flagged": v.flagged,
                    "n_answers": v.n_answers,
                }
            )
    return pd.DataFrame(rows)


def reverse_groups_table(reports: Sequence[ReverseReport]) -> pd.DataFrame:
    """Per reverse task: the gaps with the rank gap's interval, the test, position and
    fidelity diagnostics."""
    rows = []
    for rep in reports:
        s = rep.summary
        low, high = rep.interval()
        rows.append(
            {
                **_reverse_ident(rep),
                "rank_gap": s.rank_gap,
                "rank_gap_ci_low": low,
                "rank_gap_ci_high": high,
                "top1_gap": s.top1_gap,
                "exposure_gap": s.exposure_gap,
                "group_p": s.group_p,
                "flagged_share": s.flagged_share,
                "keep_order_rate": s.keep_order_rate,
                "first_shown_rank": s.first_shown_rank,
                "complete_rate": s.complete_rate,
                "invalid_rate": s.invalid_rate,
                "duplicate_rate": s.duplicate_rate,
                "n_items": rep.task.n_items,
                "n_repeats": rep.task.repeats,
                "n_answers": s.n_answers,
                "n_users": s.n_users,
            }
        )
    return pd.DataFrame(rows)


def reverse_categories_table(reports: Sequence[ReverseReport]) -> pd.DataFrame:
    """Per (reverse task, item field, category, value): mean normalized rank and top-1 share
    over the items of that category (e.g. which gender is ranked first for Action films), and
    which value is ranked first most often there."""
    rows = []
    for rep in reports:
        t = rep.task
        spec = DOMAINS.get(t.domain)
        if spec is None:
            continue
        try:
            catalog = load_catalog(t.catalog)
        except (CatalogError, OSError):
            continue
        if catalog.sha256 != t.catalog_sha256:
            continue
        for name in spec.exposure_fields:
            if name not in catalog.table.columns:
                continue
            labels = _category_labels(name, catalog.categories(name))
            by_cat: dict[str, list[dict[str, float]]] = {}
            for r in t.records:
                for cat in labels.get(r.item_id, []):
                    by_cat.setdefault(cat, []).append(r.ranks())
            for cat, answers in sorted(by_cat.items()):
                m = len(answers[0])
                users = sorted(answers[0])
                stats = {
                    u: (
                        float(np.mean([(a[u] - 1) / (m - 1) for a in answers])),
                        float(np.mean([a[u] == 1 for a in answers])),
                    )
                    for u in users
                }
                leader = max(users, key=lambda u: stats[u][1])
                for u in users:
                    rows.append(
                        {
                            **_reverse_ident(rep),
                            "field": name,
                            "category": cat,
                            "persona_id": u,
                            "mean_rank": stats[u][0],
                            "top1_share": stats[u][1],
                            "ranked_first_most": u == leader,
                            "n_answers": len(answers),
                        }
                    )
    return pd.DataFrame(rows)


def framing_table(reports: Sequence[TaskReport], reverse: Sequence[ReverseReport]) -> pd.DataFrame:
    """Per (model, domain, group) run in both framings: the forward IOU excess (rank items for
    a user) next to the reverse rank gap (rank users for an item), each with its interval and
    test."""
    rows = []
    for rev in reverse:
        t = rev.task
        fwd = _find(reports, rev.model.label, t.domain, "plain", t.group)
        row: dict[str, Any] = {
            "model": rev.model.label,
            "domain": t.domain,
            "attribute_group": t.group,
            "reverse_rank_gap": rev.summary.rank_gap,
            "reverse_ci_low": rev.interval()[0],
            "reverse_ci_high": rev.interval()[1],
            "reverse_group_p": rev.summary.group_p,
        }
        if fwd is not None:
            ms = fwd.summary.metrics["iou"]
            low, high = fwd.interval("iou")
            row |= {
                "forward_iou_excess": ms.excess,
                "forward_ci_low": low,
                "forward_ci_high": high,
                "forward_group_p": ms.group_p,
            }
        rows.append(row)
    return pd.DataFrame(rows)


def reverse_tables(
    reports: Sequence[TaskReport], reverse: Sequence[ReverseReport]
) -> dict[str, pd.DataFrame]:
    """The reverse task's CSV tables (none without reverse tasks)."""
    if not reverse:
        return {}
    return {
        "reverse_values": reverse_values_table(reverse),
        "reverse_groups": reverse_groups_table(reverse),
        "reverse_categories": reverse_categories_table(reverse),
        "framing": framing_table(reports, reverse),
    }
