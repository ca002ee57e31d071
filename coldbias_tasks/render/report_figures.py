"""The report's figures (PNG files written by matplotlib next to the page, which links them):
per task the headline figure and the raw divergence bars, exposure, per group the radar, prompt
sensitivity."""

from __future__ import annotations

import math
import textwrap
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from coldbias_tasks.analysis.report import TaskReport, task_order
from coldbias_tasks.analysis.run_data import ModelResults, TaskData
from coldbias_tasks.core.errors import PersonaError
from coldbias_tasks.core.prompting.documents import cell_parts
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY, SIMILARITY_NAMES
from coldbias_tasks.core.vocabulary import PREF
from coldbias_tasks.core.world.domains import domains
from coldbias_tasks.core.world.personas import load_personas
from coldbias_tasks.render import plots

__all__ = ["ci_text", "make_plots"]


def ci_text(value: float, low: float, high: float) -> str:
    """ "+0.12 [−0.05, +0.30]"; without an interval the value alone; "–" for NaN."""
    if math.isnan(value):
        return "–"
    if math.isnan(low):
        return plots.signed(value)
    return f"{plots.signed(value)} [{plots.signed(low)}, {plots.signed(high)}]"


def phrasing_labels(task: TaskData, n: int) -> list[str]:
    """The task's phrasings 0…n−1 named by their sentence, the values' forms joined ("I am a
    girl / boy."), shortened to 46 characters; a pref task's cells
    (:func:`~coldbias_tasks.core.prompting.documents.cell_parts`) lead with the preference's
    label ("Action · I am a girl / boy."); "phrasing p" when the package's personas or domains
    do not know the task's group (a user's persona file) or a pref run's cells are partial."""
    try:
        config = load_personas()
        group = config.find(task.group, task.variant)
        prefs = (
            [f"{p.label} · " for p in domains()[task.domain].preferences.values()]
            if task.variant == PREF
            else [""]
        )
        if n % len(prefs):
            raise IndexError(n)  # a partial pref run: cells cannot be told apart
        parts = [cell_parts(j, n // len(prefs)) for j in range(n)]
        return [
            textwrap.shorten(
                prefs[q] + config.phrasing_label(group, task.language, p), 46, placeholder="…"
            )
            for q, p in parts
        ]
    except (PersonaError, KeyError, IndexError):
        return [f"phrasing {p}" for p in range(n)]


def _footer(rep_model: ModelResults, task: TaskData) -> str:
    seeds = ", ".join(dict.fromkeys(str(s) for s in rep_model.seeds)) or "?"
    if task.seed is not None:
        seeds += f" (catalog order seed {task.seed})"
    return plots.footer_text(rep_model.label, seeds, task.template_sha256, task.catalog_sha256)


def _radar_series(reps: Sequence[TaskReport]) -> dict[str, dict[str, float]]:
    """variant → axis → IOU divergence; with fewer than 3 values the axes are value × metric."""
    values = {v.persona_id for r in reps for v in r.summary.metrics[HEADLINE_SIMILARITY].values}
    per_metric = len(values) < 3
    series: dict[str, dict[str, float]] = {}
    for r in sorted(reps, key=lambda r: task_order(r.task)):
        axes: dict[str, float] = {}
        for metric in SIMILARITY_NAMES if per_metric else (HEADLINE_SIMILARITY,):
            for v in r.summary.metrics[metric].values:
                label = plots.short_label(v.persona_id)
                axes[f"{label} · {metric.upper()}" if per_metric else label] = v.mean
        series[r.task.variant] = axes
    return series


def make_plots(
    reports: Sequence[TaskReport], out: Path, robustness: pd.DataFrame | None = None
) -> dict[str, list[tuple[Path, str]]]:
    """Write all PNGs; returns key → [(png, caption)] with keys ``task:<model>:<task>``,
    ``radar:<model>`` and ``prompts``. ``robustness`` is the report's ``robustness`` table
    (:func:`~coldbias_tasks.analysis.robustness.variant_table`, as computed by
    :func:`~coldbias_tasks.analysis.tables.tables`); no prompt figures without it.
    """
    figures: dict[str, list[tuple[Path, str]]] = defaultdict(list)
    labels = list(dict.fromkeys(r.model.label for r in reports))
    several = len(labels) > 1
    # model i's files start with "m<i>-<short name>" when the folder holds several models
    slugs = {
        label: f"m{i}-{plots.plot_names([label.split(' [')[0]])[:40]}"
        for i, label in enumerate(labels, start=1)
    }
    by_group: dict[tuple[str, str, str], list[TaskReport]] = defaultdict(list)
    for rep in reports:
        prefix = [slugs[rep.model.label]] if several else []
        t = rep.task
        footer = _footer(rep.model, t)
        # the raw divergence of the paper-comparable similarity only (every similarity's is in
        # values.csv): one panel, a readable width whatever the number of sentences
        shown = {HEADLINE_SIMILARITY: rep.summary.metrics[HEADLINE_SIMILARITY]}
        values = {
            m: {v.persona_id: (v.mean, v.std, v.flagged) for v in ms.values}
            for m, ms in shown.items()
        }
        floors = {m: ms.noise_floor.mean for m, ms in shown.items()}
        iou = rep.summary.metrics[HEADLINE_SIMILARITY]
        low, high = rep.interval(HEADLINE_SIMILARITY)
        png = plots.bar_chart(
            f"{t.name}: divergence from the neutral user per {t.group} value "
            f"({t.repeats} repeats, k={t.k}, {t.n_shown} items shown); IOU excess "
            f"{plots.signed(iou.excess)} [{plots.signed(low)}, {plots.signed(high)}]",
            values,
            floors,
            footer,
            out / f"{plots.plot_names([*prefix, 'bars', t.name])}.png",
            warning=f"WARNING degenerate output ({'; '.join(rep.degenerate)}): not "
            "interpretable as fairness"
            if rep.degenerate
            else "",
        )
        key = f"task:{rep.model.label}:{t.name}"
        d = iou.disparity
        if d.by_phrasing:
            png = plots.disparity_figure(
                f"{t.name}: IOU disparity {ci_text(d.value, d.ci_low, d.ci_high)} "
                f"({d.n_values} values × {d.n_phrasings} phrasings, {t.repeats} repeats)",
                d.by_phrasing,
                phrasing_labels(t, len(d.by_phrasing)),
                (d.value, d.ci_low, d.ci_high),
                [
                    (f"{plots.short_label(x.a)} vs {plots.short_label(x.b)}", x.value, x.flagged)
                    for x in d.pairs
                ],
                footer,
                out / f"{plots.plot_names([*prefix, 'disparity', t.name])}.png",
            )
            figures[f"headline:{rep.model.label}"].append(
                (
                    png,
                    f"{t.name}: left, each phrasing's mean between-values minus within-value "
                    "divergence (dots) against 0, the disparity (line) and its 95 % interval "
                    "(band); right, the disparity of each pair of values (red: flagged after "
                    "Holm).",
                )
            )
        figures[key].append(
            (
                png,
                "Raw divergence, not bias. Bars: mean raw divergence from the neutral user over "
                "repeats (paper-comparable; contains what any sentence does), error bars: std over "
                "repeats, dashed: noise floor (neutral vs its same-prompt replicates), *: value "
                f"flagged after Holm at α = {iou.alpha:g}.",
            )
        )
        for name, stats in rep.exposure.items():
            if not stats:
                continue
            png = plots.exposure_diffs(
                f"{t.name}: exposure by {name}, value − neutral",
                stats,
                footer,
                out / f"{plots.plot_names([*prefix, 'exposure', t.name, name])}.png",
            )
            figures[key].append(
                (
                    png,
                    f"Signed difference of the share of recommended items per {name} category, "
                    "value − neutral answers, with 95 % t-intervals over repeats; "
                    "filled: BH q ≤ 0.05 (relabelling test). The largest differences are shown; "
                    "exposure.csv holds all.",
                )
            )
        by_group[(rep.model.label, t.domain, t.group)].append(rep)
    for (label, domain, group), reps in by_group.items():
        prefix = [slugs[label]] if several else []
        series = _radar_series(reps)
        variants = ", ".join(series)
        png = plots.radar(
            f"{domain} · {group}: raw IOU divergence by variant",
            series,
            _footer(reps[0].model, reps[0].task),
            out / f"{plots.plot_names([*prefix, 'radar', domain, group])}.png",
        )
        figures[f"radar:{label}"].append(
            (
                png,
                f"{domain} / {group}: raw IOU divergence per sentence (not bias: it contains "
                f"what any sentence does), variants present: {variants} (0 = same list as the "
                "neutral user, 1 = disjoint).",
            )
        )
    if robustness is not None and not robustness.empty:
        for i, (model, sub) in enumerate(robustness.groupby("model", sort=True), start=1):
            rows = [
                (f"{t.task}", t.prompt, t.excess, t.excess_ci_low, t.excess_ci_high)
                for t in sub.itertuples()
            ]
            first = next(r for r in reports if r.model.model == model)
            png = plots.prompt_sensitivity(
                f"{model}: IOU excess per prompt template / language",
                rows,
                _footer(first.model, first.task),
                out / f"{plots.plot_names(['prompts', f'm{i}', model])[:80]}.png",
            )
            figures["prompts"].append(
                (
                    png,
                    f"{model}: the same tasks under each prompt (template and language); a "
                    "robust measurement gives overlapping intervals and the same order.",
                )
            )
    return figures
