"""The leaderboard's rows and columns: one row per model over many output folders.

Runs of one model (same ``model_name``, backend and ``model_args`` minus ``seed``) are merged
with their seeds pooled (:func:`coldbias_tasks.analysis.pooling.pool_runs`). Columns: per-domain
divergence (IOU, SERP, PRAG; mean over the domain's attribute tasks of the task mean) with a
95% Student-t interval over repeats, IOU divergence per attribute group (pooled over domains),
fidelity, ``n``, task versions, a degenerate flag, and the headline metric of any other harness
task found in the same results files (capability next to fairness); each column is declared
once in :mod:`coldbias_tasks.analysis.leaderboard_columns`. Degenerate models always sort last.
Markdown and HTML are in :mod:`coldbias_tasks.render.leaderboard_page`, the CSV tables in
:mod:`coldbias_tasks.render.leaderboard_tables`.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from coldbias_tasks.analysis.eee import EEEResult, is_eee_folder, load_eee_records
from coldbias_tasks.analysis.intervals import BOOTSTRAP_RESAMPLES
from coldbias_tasks.analysis.leaderboard_cells import (
    Cell,
    EeeScore,
    ModelData,
    model_data,
    overall_estimate,
)
from coldbias_tasks.analysis.leaderboard_columns import Column, columns_of, fill_cells
from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.ranking import disparity_draws, paired_tiers, rank_intervals
from coldbias_tasks.analysis.robustness import model_sensitivity
from coldbias_tasks.analysis.run_data import LoadOptions, ModelResults, Run
from coldbias_tasks.analysis.run_files import scan_folder
from coldbias_tasks.analysis.summaries import TaskSummary, summarize_task
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.vocabulary import HEADLINE_KEY, is_coldbias_task

__all__ = [
    "Cell",
    "Column",
    "Leaderboard",
    "Row",
    "build_leaderboard",
    "build_rows",
    "collect_eee",
]


@dataclass
class Row:
    model: ModelResults
    cells: dict[str, Cell] = field(default_factory=dict)
    degenerate: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.model.label

    def number(self, key: str) -> float:
        cell = self.cells.get(key)
        return cell.value if cell is not None and isinstance(cell.value, float) else math.nan


@dataclass
class Leaderboard:
    columns: list[Column]
    rows: list[Row]
    messages: list[str] = field(default_factory=list)
    #: the page's introduction and notes when not the default ones (a page whose design
    #: cannot give the headline, e.g. the seed study's: analysis/seed_study/leaderboard.py)
    headline: str | None = None
    notes: list[str] | None = None


def build_rows(
    models: Sequence[ModelResults],
    resamples: int = BOOTSTRAP_RESAMPLES,
    scores: dict[str, dict[str, EeeScore]] | None = None,
) -> tuple[list[Column], list[Row]]:
    """Columns (those of :data:`~coldbias_tasks.analysis.leaderboard_columns.FAMILIES` some row
    has data for) and rows, sorted: non-degenerate first, then by tier and the overall IOU
    disparity (signed, lower first), then by name.

    Domain figures average the attribute groups of the domain (as lm-eval's domain groups do:
    the placebo, intersections and implicit tasks are columns of their own). ``scores``: row
    label → Every Eval Ever scores shown as capability columns (:func:`_match_eee`).
    """
    all_stats: list[tuple[ModelResults, TaskSummary]] = []
    grouped = []
    for model in models:
        stats = [summarize_task(t) for t in model.tasks.values()]
        all_stats += [(model, st) for st in stats]
        grouped.append(model_data(model, list(stats), resamples))
    standing = _rank(grouped, resamples)
    sensitivity = model_sensitivity(all_stats)
    data = [
        replace(
            d, rank=standing.get(i, (None, None))[0], tier=standing.get(i, (None, None))[1],
            prompt=sensitivity.get(d.model.model), eee=(scores or {}).get(d.model.label, {}),
        )
        for i, d in enumerate(grouped)
    ]  # fmt: skip
    rows = [Row(d.model, fill_cells(d), d.degenerate) for d in data]
    columns = columns_of(data, [row.cells for row in rows])
    rows.sort(key=_sort_key)
    return columns, rows


def _rank(models: Sequence[ModelData], resamples: int) -> dict[int, tuple[str | None, int | None]]:
    """Index of each ranked model → (its rank interval, its tier) of the overall IOU disparity
    (:mod:`coldbias_tasks.analysis.ranking`: a bootstrap over phrasings × repeats, paired
    tests; ``None`` where a model has none). Degenerate models, and models run at other
    decoding settings than most (another temperature), are listed, not ranked."""
    ranked = {}
    usual = _usual_sampling(models)
    for i, d in enumerate(models):
        value = overall_estimate(d).value
        if d.degenerate or math.isnan(value) or _sampling(d.model) != usual:
            continue
        terms = [
            (
                d.domain_names[key][0],
                s.task.group,
                s.summary.metrics[HEADLINE_SIMILARITY].disparity.terms,
            )
            for key in d.plain_domains
            for s in d.domains[key]
            if s.summary.metrics[HEADLINE_SIMILARITY].disparity.terms is not None
        ]
        ranked[f"{i}"] = (d, value, terms)
    draws = disparity_draws({n: t for n, (_, _, t) in ranked.items()}, resamples)
    found = rank_intervals(draws)
    alpha = min((s.summary.alpha for d, _, _ in ranked.values() for s in d.stats), default=0.05)
    tier = paired_tiers({n: v for n, (_, v, _) in ranked.items()}, draws, alpha)
    out: dict[int, tuple[str | None, int | None]] = {}
    for n in ranked:
        rank = None
        if n in found:
            low, high = found[n]
            rank = f"{low}" if low == high else f"{low}–{high}"
        out[int(n)] = (rank, tier.get(n))
    return out


def _sampling(model: ModelResults) -> str:
    """The decoding settings of a model's runs ("temperature=0.7"; "" when not recorded)."""
    return "/".join(sorted({t.sampling for t in model.tasks.values()}))


def _usual_sampling(models: Sequence[ModelData]) -> str:
    """The decoding settings most non-degenerate models share (ties: the first model's): the
    divergences depend on the temperature, so models run otherwise are listed, not ranked."""
    found = [_sampling(d.model) for d in models if not d.degenerate]
    return max(found, key=lambda s: (found.count(s), -found.index(s))) if found else ""


def _sort_key(row: Row) -> tuple[bool, float, float, float, str]:
    """Non-degenerate first, then by tier and the signed overall disparity; rows without one
    (runs of task version < 4: one phrasing per value) after them, by the excess over the
    noise floor; then by name."""
    overall = row.number(HEADLINE_KEY)
    tier = row.cells.get("tier")
    key = math.inf if math.isnan(overall) else overall
    rank = float(tier.value) if tier is not None else math.inf
    old = row.number("overall_iou_excess")
    return (bool(row.degenerate), rank, key, math.inf if math.isnan(old) else old, row.label)


def collect(
    dirs: Sequence[str | Path], options: LoadOptions | None = None
) -> tuple[list[Run], list[str]]:
    """Runs of all ``dirs``; each unusable folder or results file becomes a message (file and
    reason) instead of an exception; the usable runs of the same folder are kept."""
    runs: list[Run] = []
    messages: list[str] = []
    for d in dirs:
        skipped: list[str] = []
        try:
            found = scan_folder(d, options, skipped)
        except RunError as err:
            messages.append(f"skipped: {err}")
            continue
        finally:
            messages.extend(skipped)
        if found and not any(r.has_coldbias for r in found):
            tasks = sorted({t for r in found for t in r.capability_tasks})
            listed = ", ".join(tasks[:8]) + (", ..." if len(tasks) > 8 else "")
            messages.append(
                f"{d}: holds no coldbias task (found: {listed or 'no task'}); its metrics are "
                "used only as capability columns of a model with coldbias results"
            )
        for r in found:
            messages.extend(r.warnings)
        runs += found
    return runs, messages


def collect_eee(
    dirs: Sequence[str | Path],
) -> tuple[list[EEEResult], list[str | Path], list[str]]:
    """Every Eval Ever results among ``dirs`` (folders of EEE aggregate records), the other
    (lm-eval) folders, and messages for unreadable EEE folders."""
    found: list[EEEResult] = []
    rest: list[str | Path] = []
    messages: list[str] = []
    for d in dirs:
        if not is_eee_folder(d):
            rest.append(d)
            continue
        try:
            found += load_eee_records(d, messages)
        except RunError as err:
            messages.append(f"skipped: {err}")
    return found, rest, messages


def _match_eee(
    labels: Iterable[str], results: Sequence[EEEResult]
) -> tuple[dict[str, dict[str, EeeScore]], list[str]]:
    """Row label → column key → (the row's record, the column's first record) of every EEE
    benchmark score (not coldbias's own) whose ``model_info.id`` equals a row's model name;
    unmatched models and conflicting duplicates (the later file wins) are messages."""
    labels = set(labels)
    unmatched: dict[str, set[str]] = defaultdict(set)
    found: dict[str, dict[str, EEEResult]] = defaultdict(dict)
    first: dict[str, EEEResult] = {}
    messages: list[str] = []
    for res in results:
        if is_coldbias_task(res.benchmark.split("/")[0]):
            continue
        if res.model_id not in labels:
            unmatched[res.model_id].add(res.column)
            continue
        key = f"eee:{res.benchmark}:{res.metric}"
        earlier = found[res.model_id].get(key)
        if earlier is not None and earlier.value != res.value:
            messages.append(
                f"{res.source_file}: {res.column} of {res.model_id} = {res.value:g} differs "
                f"from {earlier.source_file} ({earlier.value:g}); the later file is shown"
            )
        found[res.model_id][key] = res
        first.setdefault(key, res)
    for model, columns in sorted(unmatched.items()):
        messages.append(
            f"Every Eval Ever records of {model} ({', '.join(sorted(columns))}) match no model "
            f"row; rows: {', '.join(sorted(labels)) or 'none'} (the id must equal lm-eval's "
            "model name, e.g. Qwen/Qwen2.5-Coder-0.5B-Instruct)"
        )
    matched = {
        label: {key: (res, first[key]) for key, res in scores.items()}
        for label, scores in found.items()
    }
    return matched, messages


def build_leaderboard(
    dirs: Sequence[str | Path],
    resamples: int = BOOTSTRAP_RESAMPLES,
    options: LoadOptions | None = None,
) -> Leaderboard:
    """Leaderboard of all usable folders: lm-eval output folders, and folders of Every Eval
    Ever records whose scores become capability columns (problems are in ``messages``, never
    raised)."""
    eee, dirs, eee_messages = collect_eee(dirs)
    runs, messages = collect(dirs, options)
    messages = eee_messages + messages
    models = pool_runs(runs) if runs else []
    for model in models:
        messages += [w for w in model.warnings if w not in messages]
    used = {r.results_file.resolve() for m in models for r in m.runs}
    for run in runs:
        if not run.has_coldbias and run.capabilities and run.results_file.resolve() not in used:
            messages.append(
                f"{run.results_file}: capability results of {run.model} "
                f"({', '.join(run.capabilities)}) match no model row (same name, backend and "
                "model_args apart from seed); not shown"
            )
    scores, score_messages = _match_eee([m.label for m in models], eee)
    columns, rows = build_rows(models, resamples, scores)
    settings = {
        re.sub(r", [\d/]+ repeats", "", row.cells["settings"].value)
        for row in rows  # repeats may differ
    }
    if len(settings) > 1:
        messages.append(
            "models were run with different settings (" + "; ".join(sorted(settings)) + "): "
            "divergences depend on k and the catalog size, compare such rows with care"
        )
    samplings = {r.label: _sampling(r.model) for r in rows if not r.degenerate}
    for row in rows:
        if row.label in samplings and "rank" not in row.cells and row.cells.get("tier") is None:
            others = sorted(set(samplings.values()) - {samplings[row.label]})
            if others:
                messages.append(
                    f"{row.label} was run with {samplings[row.label] or 'unrecorded'} decoding "
                    f"settings, most models with {', '.join(others)}: divergences depend on the "
                    "temperature, so it is listed, not ranked"
                )
    return Leaderboard(columns, rows, messages + score_messages)
