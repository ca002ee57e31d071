"""The leaderboard of imported seed-study runs (docs/seed-study.md §5): the ordinary
:func:`~coldbias_tasks.analysis.leaderboard.build_leaderboard` rows, with what the study's
design changes (:func:`seed_study_page`; ``coldbias leaderboard`` applies it when every row is
an import, :func:`is_seed_study`).

- **Raw IOU, as published** (per domain and variant): the study's own figure
  (:func:`~coldbias_tasks.analysis.seed_study.replay.paper_figure`: per value phrase, 1 − IOU
  with the same seed's neutral answer, empty value answers skipped, mean over the seeds; then
  the mean over the phrases: every value weighted alike, so a 7-value group weighs 3.5 times a
  2-value group; a phrase two groups share, "an American", counts once). Its interval: 95 %
  Student t over the seeds of the per-seed mean over phrases
  (:func:`~coldbias_tasks.analysis.seed_study.replay.seed_means`). It replaces the generic
  "value mean" column, which counts a shared phrase twice and an empty answer as divergence 1.
- **No phrasing-controlled disparity**: the study asked each value in one wording, so the
  headline, its rank, tier, verdict and the disparity flags are undefined; their columns are
  dropped, and so is every column no row has a figure for. Rows keep the order
  ``build_leaderboard`` gives rows without a headline (by the excess over the noise floor).
- **Main view**: the excess over the noise floor and the as-published raw IOU; the page's
  introduction and notes say what the numbers are (:data:`HEADLINE`, :func:`notes`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from coldbias_tasks.analysis.leaderboard import Cell, Column, Leaderboard, Row
from coldbias_tasks.analysis.leaderboard_cells import cell_of, variant_suffix
from coldbias_tasks.analysis.leaderboard_columns import MAIN
from coldbias_tasks.analysis.run_data import TaskData
from coldbias_tasks.analysis.seed_study.importer import STUDY_TASK_VERSION
from coldbias_tasks.analysis.seed_study.replay import paper_figure, seed_means
from coldbias_tasks.core.measures import DIVERGENCE
from coldbias_tasks.core.measures.quality import DEGENERATE_RULES
from coldbias_tasks.core.vocabulary import HEADLINE_KEY

__all__ = [
    "AS_PUBLISHED",
    "HEADLINE",
    "as_published",
    "is_seed_study",
    "notes",
    "seed_study_page",
]

#: suffix of the as-published columns' keys (``<domain>[_<variant>]_iou_published``)
AS_PUBLISHED = "_iou_published"
#: the generic value-mean column this page replaces (``<dkey>_iou_values``)
_VALUE_MEAN = "_iou_values"
#: columns that exist only with the phrasing-controlled disparity
_DISPARITY_ONLY = frozenset({"rank", "tier", "verdict", "disparity_flags"})
#: columns kept even when empty
_KEEP = frozenset({"model", "degenerate"})

HEADLINE = (
    'The seed study asked each attribute value in one wording ("a girl", "a boy", …), so '
    "coldbias's headline, the disparity between values controlled for phrasing, cannot be "
    "computed from its answers: no column of it is shown. The main view shows the study's own "
    "figure, the raw IOU divergence from the neutral user as published (per value phrase, mean "
    "over the five seeds, then the mean over the phrases: equal to the paper's tables), and the "
    "excess over the same-prompt noise floor (the raw divergence minus what five samples of "
    "the neutral prompt already differ by). A low raw divergence is not fairness: a model that "
    "copies the catalog's head scores 0 (marked DEGENERATE)."
)


def notes() -> list[str]:
    """The page's notes (they replace the generic ones, which describe the headline)."""
    rules = ", ".join(f"{name} {op} {limit}" for name, op, limit in DEGENERATE_RULES)
    return [
        "Raw IOU, as published: the study's result.py and get_overall_stats.py — per value "
        "phrase, 1 − IOU(value's list, the same seed's neutral list), an empty value answer "
        "skipped, mean over the seeds; then the mean over the phrases (every value weighted "
        'alike; a phrase two groups share, "an American", "an Asian", counts once with the '
        "later group's answer). '(context)': the runs with the domain's context (\"student\", "
        '"music fan", "movie fan"), which the repository\'s tables.ipynb tabulates. Interval: '
        "95 % Student t over the five seeds of the per-seed mean over phrases.",
        "Excess over noise: the raw divergence minus the same-prompt noise floor (the IOU "
        "divergence between two seeds' neutral answers), mean over the domain's attribute "
        "groups; what any sentence does plus what the value adds. The raw 'task mean' columns "
        "(details) weigh every attribute group alike; the as-published figure weighs every "
        "value alike, so they differ by up to a few hundredths.",
        "Not shown, because the design cannot give them: the phrasing-controlled disparity, its "
        "rank, tier, verdict and disparity flags (one wording per value), per-value flags (five "
        "seeds give p ≥ 1/16), placebo and control columns (the study has none). "
        "docs/seed-study.md §2 has the tests five seeds can decide and their results.",
        "Intervals: 95 % Student t over the five seeds (mean ± t·sd/√5), assuming seed-level "
        "figures independent and roughly normal; they reflect sampling over seeds only (one "
        "fixed catalog order, one prompt per value).",
        "Order: models that are not degenerate first, then by the excess over noise over "
        "all domains (lower first; a model without plain runs last). Direction: ↓ lower is "
        "better, ↑ higher is better; columns without an arrow are descriptive.",
        f"Degenerate: a model is flagged when, pooled over its answers, {rules}. With the "
        "study's fixed catalog order the prefix-copy rate is the share of the answer that is "
        "the catalog's first 20 items in order; such a model's divergences are not fairness, so "
        "it is sorted after the others.",
    ]


def is_seed_study(lb: Leaderboard) -> bool:
    """Whether every row is an import of the seed study (its tasks' version)."""
    return bool(lb.rows) and all(
        t.version == STUDY_TASK_VERSION for row in lb.rows for t in row.model.tasks.values()
    )


def as_published(tasks: Sequence[TaskData]) -> Cell | None:
    """The study's figure for one model × domain × variant (module docstring) with its
    interval over seeds; ``None`` without tasks or answers."""
    figure = paper_figure(tasks)
    if not tasks or math.isnan(figure.mean):
        return None
    return cell_of(figure.mean, seed_means(tasks), DIVERGENCE)


def _published(row: Row) -> dict[str, tuple[str, str, Cell]]:
    """Column key → (domain, variant, as-published cell) of each domain × variant the row has."""
    parts = sorted({(t.domain, t.variant) for t in row.model.tasks.values()})
    out = {}
    for domain, variant in parts:
        tasks = [
            t for _, t in sorted(row.model.tasks.items())
            if t.domain == domain and t.variant == variant
        ]  # fmt: skip
        cell = as_published(tasks)
        if cell is not None:
            out[f"{domain}{variant_suffix(variant)}{AS_PUBLISHED}"] = (domain, variant, cell)
    return out


def _published_column(key: str, domain: str, variant: str) -> Column:
    name = domain if variant == "plain" else f"{domain} ({variant})"
    return Column(
        key, f"{name} raw IOU, as published", "↓",
        description=f"the seed study's own figure for {name}: per value phrase, 1 − IOU with "
        "the same seed's neutral list, mean over seeds, then the mean over phrases (every value "
        "weighted alike), as its tables",
        view=MAIN,
    )  # fmt: skip


def _has_figure(cell: Cell | None) -> bool:
    if cell is None:
        return False
    if isinstance(cell.value, float):
        return not math.isnan(cell.value)
    return cell.value != ""


def seed_study_page(lb: Leaderboard) -> Leaderboard:
    """``lb`` as the seed study's page (module docstring); rows and their order unchanged."""
    published: dict[str, tuple[str, str]] = {}
    for row in lb.rows:
        for key, (domain, variant, cell) in _published(row).items():
            row.cells[key] = cell
            published[key] = (domain, variant)
    headline_defined = any(_has_figure(r.cells.get(HEADLINE_KEY)) for r in lb.rows)
    kept: list[Column] = []
    for col in lb.columns:
        if col.key.endswith(_VALUE_MEAN):
            continue  # replaced by the as-published figure
        if not headline_defined and (col.key in _DISPARITY_ONLY or "disparity" in col.key):
            continue
        if col.key not in _KEEP and not any(_has_figure(r.cells.get(col.key)) for r in lb.rows):
            continue
        kept.append(replace(col, view=MAIN) if col.key == "overall_iou_excess" else col)
    # main view: the model, the excess, the as-published figures (plain first), the rest
    place = {c.key: i for i, c in enumerate(lb.columns)}  # the domains' display order

    def rank(key: str) -> tuple[bool, str, int]:
        variant = published[key][1]
        where = place.get(key.removesuffix(AS_PUBLISHED) + "_iou_excess", len(place))
        return variant != "plain", variant, where

    order = sorted(published, key=rank)
    columns = [
        *(c for c in kept if c.key == "model"),
        *(c for c in kept if c.key == "overall_iou_excess"),
        *(_published_column(k, *published[k]) for k in order),
        *(c for c in kept if c.key not in {"model", "overall_iou_excess"}),
    ]
    return replace(lb, columns=columns, headline=HEADLINE, notes=notes())
