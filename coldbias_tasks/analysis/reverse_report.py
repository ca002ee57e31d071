"""The reverse task's report (rank users for an item): per-task summaries with the bootstrap
draws of the rank gap, and its CSV tables ``reverse_values``, ``reverse_groups``,
``reverse_categories`` and ``framing`` (the forward IOU excess next to the reverse rank gap)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from coldbias_tasks.analysis.intervals import BOOTSTRAP_RESAMPLES, interval, reverse_gap_draws
from coldbias_tasks.analysis.presentation import ordered, report_values
from coldbias_tasks.analysis.report import TaskReport, category_labels, find_report, ident
from coldbias_tasks.analysis.run_data import ModelResults, ReverseTaskData
from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.measures.quality import reverse_degenerate_reasons
from coldbias_tasks.core.measures.reverse import (
    ReverseSummary,
    category_ranks,
    ranked_first_most,
)
from coldbias_tasks.core.result import TaskResult, task_result
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.domains import domains

__all__ = [
    "ReverseReport",
    "analyze_reverse",
    "framing_table",
    "reverse_categories_table",
    "reverse_groups_table",
    "reverse_tables",
    "reverse_values_table",
]


@dataclass
class ReverseReport:
    """One (model, reverse task): its summary and the bootstrap draws of its rank gap."""

    model: ModelResults
    task: ReverseTaskData
    result: TaskResult
    gap_draws: np.ndarray

    @property
    def summary(self) -> ReverseSummary:
        return self.result.summary  # type: ignore[return-value]

    def interval(self) -> tuple[float, float]:
        return interval(self.gap_draws)

    @property
    def degenerate(self) -> list[str]:
        """:func:`~coldbias_tasks.core.measures.quality.reverse_degenerate_reasons` of the
        answers."""
        return reverse_degenerate_reasons(self.summary)


def analyze_reverse(
    models: Sequence[ModelResults], resamples: int = BOOTSTRAP_RESAMPLES
) -> list[ReverseReport]:
    """Summaries of every reverse task of every model (domain order, then group)."""
    out = []
    for model in models:
        order = {d: i for i, d in enumerate(domains())}
        for task in sorted(
            model.reverse.values(), key=lambda t: (order.get(t.domain, 99), t.group)
        ):
            out.append(
                ReverseReport(
                    model,
                    task,
                    task_result(task.records),
                    reverse_gap_draws(task.records, task.name, resamples),
                )
            )
    return out


def _reverse_ident(rep: ReverseReport) -> dict[str, Any]:
    """The identifying columns of a reverse task (no variant)."""
    return {k: v for k, v in ident(rep).items() if k != "variant"}


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


#: Column order of the reverse groups table after the identifying columns; the
#: registered reverse measures (:mod:`coldbias_tasks.analysis.presentation`) fill their columns.
REVERSE_GROUPS_LAYOUT = (
    "rank_gap", "rank_gap_ci_low", "rank_gap_ci_high", "top1_gap", "exposure_gap", "group_p",
    "flagged_share", "keep_order_rate", "first_shown_rank", "first_position_bias",
    "complete_rate", "invalid_rate", "duplicate_rate", "fill_rate", "degenerate",
    "degenerate_reasons", "n_items", "n_repeats", "n_answers", "n_users",
)  # fmt: skip


def reverse_groups_table(reports: Sequence[ReverseReport]) -> pd.DataFrame:
    """Per reverse task: the declared reverse metrics (gaps, test, position and fidelity
    diagnostics), the rank gap's interval and counts."""
    rows = []
    for rep in reports:
        s = rep.summary
        low, high = rep.interval()
        described = {
            "rank_gap_ci_low": low,
            "rank_gap_ci_high": high,
            "first_shown_rank": s.first_shown_rank,
            "invalid_rate": s.invalid_rate,
            "duplicate_rate": s.duplicate_rate,
            "fill_rate": s.fill_rate,
            "degenerate": bool(rep.degenerate),
            "degenerate_reasons": "; ".join(rep.degenerate),
            "n_items": rep.task.n_items,
            "n_repeats": rep.task.repeats,
            "n_answers": s.n_answers,
            "n_users": s.n_users,
        }
        values = report_values(rep.result, "reverse") | described
        rows.append({**_reverse_ident(rep), **ordered(REVERSE_GROUPS_LAYOUT, values)})
    return pd.DataFrame(rows)


def reverse_categories_table(reports: Sequence[ReverseReport]) -> pd.DataFrame:
    """Per (reverse task, item field, category, value): mean normalized rank and top-1 share
    over the items of that category (e.g. which gender is ranked first for Action films), and
    which value is ranked first most often there (``ranked_first_most``: the highest top-1
    share; a tie goes to the lower mean normalized rank, then to the first persona id in
    alphabetical order, so exactly one value per category is marked)."""
    rows = []
    for rep in reports:
        t = rep.task
        spec = domains().get(t.domain)
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
            labels = category_labels(name, catalog.categories(name))
            for cat, (n_answers, stats) in category_ranks(t.records, labels).items():
                leader = ranked_first_most(stats)
                for u in stats:
                    rows.append(
                        {
                            **_reverse_ident(rep),
                            "field": name,
                            "category": cat,
                            "persona_id": u,
                            "mean_rank": stats[u][0],
                            "top1_share": stats[u][1],
                            "ranked_first_most": u == leader,
                            "n_answers": n_answers,
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
        fwd = find_report(reports, rev.model.label, t.domain, "plain", t.group)
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
            ms = fwd.summary.metrics[HEADLINE_SIMILARITY]
            low, high = fwd.interval(HEADLINE_SIMILARITY)
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
