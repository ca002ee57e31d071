"""The report's numbers: per-task summaries, exposure shares and the CSV tables.

All numbers are recomputed from the logged answers with
:func:`coldbias_tasks.core.aggregate.summarize_group` and
:func:`coldbias_tasks.core.exposure.exposure`, so they equal the lm-eval aggregations of the
run. Rendering (plots, HTML, the terminal summary) is in :mod:`coldbias_tasks.render`; writing
the files in :mod:`coldbias_tasks.app.commands`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from coldbias_tasks.analysis.runs import ModelResults, TaskData
from coldbias_tasks.core.aggregate import GroupSummary, summarize_group
from coldbias_tasks.core.catalog import load_catalog
from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.exposure import exposure, exposure_gap
from coldbias_tasks.core.quality import degenerate_reasons
from coldbias_tasks.core.vocabulary import ALPHA, DOMAINS, NEUTRAL_ID, VARIANTS

__all__ = [
    "EXPOSURE_COLUMNS",
    "IDENT_COLUMNS",
    "TaskReport",
    "analyze",
    "exposure_table",
    "fidelity_table",
    "groups_table",
    "most_divergent",
    "tables",
    "task_order",
    "values_table",
]


@dataclass
class TaskReport:
    """Everything reported for one (model, task)."""

    model: ModelResults
    task: TaskData
    summary: GroupSummary
    exposure: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def degenerate(self) -> list[str]:
        """:func:`~coldbias_tasks.core.quality.degenerate_reasons` of the task's answers."""
        return degenerate_reasons(self.summary.fidelity, self.summary.positions)


def _category_labels(catalog_field: str, cats: Mapping[int, list[str]]) -> dict[int, list[str]]:
    """Boolean fields get readable labels ("Western" / "non-Western" for ``western``)."""
    values = {c for labels in cats.values() for c in labels}
    if values <= {"True", "False"}:
        name = catalog_field.replace("_", " ")
        name = name[:1].upper() + name[1:]
        names = {"True": name, "False": f"non-{name}"}
        return {i: [names[c] for c in labels] for i, labels in cats.items()}
    return dict(cats)


def _exposure(task: TaskData, fields: Sequence[str] | None) -> tuple[dict, list[str]]:
    """field → persona → category → share, for the task's catalog; notes on skipped fields."""
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
    for name in wanted:
        if name not in catalog.table.columns:
            if fields:
                notes.append(f"exposure field {name!r} not in catalog {task.catalog!r}")
            continue
        cats = _category_labels(name, catalog.categories(name))
        out[name] = exposure(task.records, cats)
    return out, notes


def task_order(task: TaskData) -> tuple[int, str, str, int, str]:
    """Domains in :data:`DOMAINS` order; then attribute group; then :data:`VARIANTS` order."""
    domains, variants = list(DOMAINS), VARIANTS
    return (
        domains.index(task.domain) if task.domain in domains else len(domains),
        task.domain,
        task.group,
        variants.index(task.variant) if task.variant in variants else len(variants),
        task.name,
    )


def analyze(
    models: Sequence[ModelResults], exposure_fields: Sequence[str] | None = None
) -> list[TaskReport]:
    """Summaries (and exposure) of every task of every model, in model then task order."""
    reports = []
    for model in models:
        for task in sorted(model.tasks.values(), key=task_order):
            shares, notes = _exposure(task, exposure_fields)
            reports.append(TaskReport(model, task, summarize_group(task.records), shares, notes))
    return reports


# --- tables ----------------------------------------------------------------------------------


IDENT_COLUMNS = ("model", "task", "task_version", "domain", "variant", "attribute_group")
EXPOSURE_COLUMNS = ("persona_id", "field", "category", "share", "neutral_share", "gap_vs_neutral")


def _ident(rep: TaskReport) -> dict[str, Any]:
    t = rep.task
    return {
        "model": rep.model.label,
        "task": t.name,
        "task_version": t.version,
        "domain": t.domain,
        "variant": t.variant,
        "attribute_group": t.group,
    }


def _verdict(p: float) -> str:
    if math.isnan(p):
        return "n/a (fewer than 2 neutral repeats)"
    return "above noise floor" if p <= ALPHA else "not distinguishable from noise"


def values_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (task, attribute value, metric): divergence mean/std over repeats and the test."""
    rows = []
    for rep in reports:
        for metric, ms in rep.summary.metrics.items():
            for v in sorted(ms.values, key=lambda v: v.persona_id):
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
                        "p_value": v.p_value,
                        "alpha": ALPHA,
                        "verdict": _verdict(v.p_value),
                    }
                )
    return pd.DataFrame(rows)


def groups_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (task, metric): mean over values, std over repeats, SNSR, SNSV, noise floor."""
    rows = []
    for rep in reports:
        for metric, ms in rep.summary.metrics.items():
            rows.append(
                {
                    **_ident(rep),
                    "metric": metric,
                    "mean": ms.mean,
                    "std": ms.std,
                    "snsr": ms.snsr,
                    "snsv": ms.snsv,
                    "noise_floor": ms.noise_floor.mean,
                    "noise_floor_std": ms.noise_floor.std,
                    "noise_floor_pairs": ms.noise_floor.n_pairs,
                    "noise_floor_kind": ms.noise_floor.kind,
                    "cross_repeat_floor": ms.noise_floor.cross_repeat_mean,
                    "n_values": len(ms.values),
                    "n_repeats": len(rep.summary.repeats),
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
                "prefix_copy_rate": p.prefix_copy_rate,
                "degenerate": bool(reasons),
                "degenerate_reasons": "; ".join(reasons),
            }
        )
    return pd.DataFrame(rows)


def exposure_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per (task, persona, field, category): share of recommended items and gap vs neutral."""
    rows = []
    for rep in reports:
        for name, shares in rep.exposure.items():
            gaps = exposure_gap(shares)
            neutral = shares.get(NEUTRAL_ID, {})
            for persona in sorted(shares, key=lambda p: (p != NEUTRAL_ID, p)):
                for category, share in shares[persona].items():
                    rows.append(
                        {
                            **_ident(rep),
                            "persona_id": persona,
                            "field": name,
                            "category": category,
                            "share": share,
                            "neutral_share": neutral.get(category, math.nan),
                            "gap_vs_neutral": gaps.get(persona, {}).get(category, 0.0)
                            if neutral
                            else math.nan,
                        }
                    )
    return pd.DataFrame(rows, columns=[*IDENT_COLUMNS, *EXPOSURE_COLUMNS])


def most_divergent(rep: TaskReport) -> tuple[str, float, float] | None:
    vals = [v for v in rep.summary.metrics["iou"].values if not math.isnan(v.mean)]
    if not vals:
        return None
    top = max(vals, key=lambda v: v.mean)
    return top.persona_id, top.mean, top.p_value


def tables(reports: Sequence[TaskReport]) -> dict[str, pd.DataFrame]:
    """The report's CSV tables by file stem: values, groups, fidelity, exposure."""
    return {
        "values": values_table(reports),
        "groups": groups_table(reports),
        "fidelity": fidelity_table(reports),
        "exposure": exposure_table(reports),
    }
