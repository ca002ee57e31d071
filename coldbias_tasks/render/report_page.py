"""The report's figures, terminal summary and HTML page (computing is in
:mod:`coldbias_tasks.analysis.report`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from coldbias_tasks.analysis.report import TaskReport, most_divergent, task_order
from coldbias_tasks.analysis.runs import ModelResults, TaskData
from coldbias_tasks.core.quality import DEGENERATE_MESSAGE
from coldbias_tasks.core.vocabulary import ALPHA, SIMILARITY_NAMES
from coldbias_tasks.render import html as H
from coldbias_tasks.render import plots

__all__ = ["make_plots", "render_html", "summary_lines"]


def _footer(rep_model: ModelResults, task: TaskData) -> str:
    seeds = ", ".join(dict.fromkeys(str(s) for s in rep_model.seeds)) or "?"
    if task.seed is not None:
        seeds += f" (catalog order seed {task.seed})"
    return plots.footer_text(rep_model.label, seeds, task.template_sha256, task.catalog_sha256)


def _radar_series(reps: Sequence[TaskReport]) -> dict[str, dict[str, float]]:
    """variant → axis → IOU divergence; with fewer than 3 values the axes are value × metric."""
    values = {v.persona_id for r in reps for v in r.summary.metrics["iou"].values}
    per_metric = len(values) < 3
    series: dict[str, dict[str, float]] = {}
    for r in sorted(reps, key=lambda r: task_order(r.task)):
        axes: dict[str, float] = {}
        for metric in SIMILARITY_NAMES if per_metric else ("iou",):
            for v in r.summary.metrics[metric].values:
                label = plots.short_label(v.persona_id)
                axes[f"{label} · {metric.upper()}" if per_metric else label] = v.mean
        series[r.task.variant] = axes
    return series


def make_plots(reports: Sequence[TaskReport], out: Path) -> dict[str, list[tuple[Path, str]]]:
    """Write all PNGs; returns key → [(png, caption)] with keys ``task:<model>:<task>`` and
    ``radar:<model>``.
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
        values = {
            m: {v.persona_id: (v.mean, v.std, v.p_value) for v in ms.values}
            for m, ms in rep.summary.metrics.items()
        }
        floors = {m: ms.noise_floor.mean for m, ms in rep.summary.metrics.items()}
        png = plots.bar_chart(
            f"{t.name}: divergence from the neutral user per {t.group} value "
            f"({t.repeats} repeats, k={t.k}, {t.n_shown} items shown)",
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
        figures[key].append(
            (
                png,
                "Bars: mean divergence over repeats, error bars: std over repeats, dashed: "
                "noise floor (neutral vs neutral), *: above the noise floor at α = 0.05.",
            )
        )
        for name, shares in rep.exposure.items():
            if not shares:
                continue
            png, _shown = plots.exposure_bars(
                f"{t.name}: exposure by {name}",
                shares,
                footer,
                out / f"{plots.plot_names([*prefix, 'exposure', t.name, name])}.png",
            )
            figures[key].append(
                (
                    png,
                    f"Share of recommended items per {name} category, per persona; hatched: "
                    "neutral user.",
                )
            )
        by_group[(rep.model.label, t.domain, t.group)].append(rep)
    for (label, domain, group), reps in by_group.items():
        prefix = [slugs[label]] if several else []
        series = _radar_series(reps)
        variants = ", ".join(series)
        png = plots.radar(
            f"{domain} · {group}: IOU divergence by variant",
            series,
            _footer(reps[0].model, reps[0].task),
            out / f"{plots.plot_names([*prefix, 'radar', domain, group])}.png",
        )
        figures[f"radar:{label}"].append(
            (
                png,
                f"{domain} / {group}: IOU divergence per value, variants present: {variants} "
                "(0 = same list as the neutral user, 1 = disjoint).",
            )
        )
    return figures


# --- text and HTML ---------------------------------------------------------------------------


def summary_lines(reports: Sequence[TaskReport]) -> list[str]:
    """The terminal summary: one block per task."""
    lines = []
    for rep in reports:
        iou = rep.summary.metrics["iou"]
        f, p = rep.summary.fidelity, rep.summary.positions
        top = most_divergent(rep)
        top_text = f"{top[0]} {top[1]:.3f} (p={H.fmt(top[2])})" if top else "–"
        lines.append(
            f"{rep.model.label} · {rep.task.name}: IOU divergence {iou.mean:.3f} ± "
            f"{H.fmt(iou.std)} vs noise floor {H.fmt(iou.noise_floor.mean)}; most divergent: "
            f"{top_text}"
        )
        lines.append(
            f"    fidelity: exact-k {H.fmt(f.exact_k_rate, 2)}, out-of-catalog "
            f"{H.fmt(f.out_of_catalog_rate, 2)}, duplicates {H.fmt(f.duplicate_rate, 2)}, "
            f"prefix-copy {H.fmt(p.prefix_copy_rate, 2)}"
        )
        if rep.degenerate:
            lines.append(
                f"    WARNING: degenerate output ({'; '.join(rep.degenerate)}): divergences are "
                "not interpretable as fairness"
            )
        lines.extend(f"    note: {n}" for n in rep.notes)
    return lines


def _provenance_items(model: ModelResults) -> dict[str, Any]:
    prov = model.provenance()
    args = ", ".join(f"{k}={v}" for k, v in sorted(model.model_args.items()))
    seeds = "; ".join(
        ", ".join(f"{k}={v}" for k, v in r.seeds.items()) for r in model.runs if r.tasks
    )
    return {
        "model": model.model,
        "backend": model.backend,
        "model_args (without seed)": args,
        "seeds (per run)": seeds,
        "task versions": ", ".join(f"{k}={v}" for k, v in prov["task_versions"].items()),
        "lm-eval": prov["lm_eval_version"],
        "transformers": prov["transformers_version"],
        "coldbias (report)": prov["coldbias_version"],
        "prompt template sha256": prov["template_sha256"],
        "catalog sha256": ", ".join(f"{k}: {v}" for k, v in prov["catalog_sha256"].items()),
        "k": prov["k"],
        "n_shown": prov["n_shown"],
        "order": prov["order"],
        "repeats": ", ".join(f"{k}: {v}" for k, v in prov["repeats"].items()),
        "results files": ", ".join(r["results_file"] for r in prov["runs"]),
    }


def _df_table(df: pd.DataFrame, drop: Sequence[str] = ()) -> str:
    cols = [c for c in df.columns if c not in drop]
    text_cols = [
        i
        for i, c in enumerate(cols)
        if not pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
    ]
    return H.table(cols, df[cols].values.tolist(), text_columns=text_cols)


def render_html(
    reports: Sequence[TaskReport],
    figures: Mapping[str, list[tuple[Path, str]]],
    tables: Mapping[str, pd.DataFrame],
    source: str,
) -> str:
    """The report page: warnings, summary, provenance, radar plots, then one section per task."""
    body = [
        "<h1>coldbias report</h1>",
        f'<p class="sub">Bias of an LLM recommender in the cold start, from '
        f"<code>{H.esc(source)}</code>. Divergence = 1 − similarity between an attribute "
        "persona's ranked list and the neutral user's (0 = identical, 1 = disjoint); lower is "
        "fairer, but only above the noise floor does a divergence indicate bias.</p>",
    ]
    ident = ["model", "task_version", "domain", "variant", "attribute_group"]
    models: dict[str, list[TaskReport]] = defaultdict(list)
    for rep in reports:
        models[rep.model.label].append(rep)
    for label, reps in models.items():
        model = reps[0].model
        body.append(f"<h2>Model: {H.esc(label)}</h2>")
        bad = [r for r in reps if r.degenerate]
        for r in bad:
            body.append(
                H.warning(f"WARNING {r.task.name}: {DEGENERATE_MESSAGE}: {'; '.join(r.degenerate)}")
            )
        for w in model.warnings:
            body.append(f'<p class="note">note: {H.esc(w)}</p>')
        rows = []
        for r in reps:
            iou = r.summary.metrics["iou"]
            top = most_divergent(r)
            f, p = r.summary.fidelity, r.summary.positions
            rows.append(
                [
                    r.task.name,
                    f"{H.fmt(iou.mean)} ± {H.fmt(iou.std)}",
                    iou.noise_floor.mean,
                    f"{top[0]} ({top[1]:.3f})" if top else "–",
                    f.exact_k_rate,
                    f.out_of_catalog_rate,
                    f.duplicate_rate,
                    p.prefix_copy_rate,
                    "DEGENERATE" if r.degenerate else "ok",
                ]
            )
        body.append("<h3>Summary</h3>")
        body.append(
            H.table(
                [
                    "task",
                    "IOU divergence ± std",
                    "noise floor",
                    "most divergent value",
                    "exact-k rate",
                    "out-of-catalog",
                    "duplicates",
                    "prefix-copy",
                    "fidelity",
                ],
                rows,
                text_columns=(0, 1, 3, 8),
                row_classes=["degenerate" if r.degenerate else "" for r in reps],
            )
        )
        body.append("<h3>Provenance</h3>")
        body.append(H.kv_table(_provenance_items(model)))
        radar = figures.get(f"radar:{label}", [])
        if radar:
            body.append("<h3>Variants per attribute group (radar)</h3><div class='grid'>")
            body.extend(H.figure(png, cap) for png, cap in radar)
            body.append("</div>")
        for r in reps:
            t = r.task
            body.append(f"<h3>{H.esc(t.name)}</h3>")
            body.append(
                f'<p class="note">{t.domain} · {t.group} · variant {t.variant} · version '
                f"{t.version} · k={t.k} · {t.n_shown} items shown ({t.order}) · "
                f"{t.repeats} repeats · {len(t.records)} answers</p>"
            )
            if r.degenerate:
                body.append(H.warning(f"WARNING: {DEGENERATE_MESSAGE}: {'; '.join(r.degenerate)}"))
            for note in r.notes:
                body.append(f'<p class="note">note: {H.esc(note)}</p>')
            for png, cap in figures.get(f"task:{label}:{t.name}", [])[:1]:
                body.append(H.figure(png, cap))
            for name in ("groups", "values", "fidelity"):
                df = tables[name]
                sub = df[(df["model"] == label) & (df["task"] == t.name)]
                if not sub.empty:
                    body.append(f"<p><b>{name}.csv</b></p>")
                    body.append(_df_table(sub, drop=[*ident, "task", "alpha"]))
            exp_figs = figures.get(f"task:{label}:{t.name}", [])[1:]
            body.extend(H.figure(png, cap) for png, cap in exp_figs)
    body.append(
        "<h2>Notes</h2><ul class='note'>"
        "<li><b>Divergence</b> of value a at repeat r: 1 − Sim(A_r, N_r) with the neutral "
        "user's answer of the same repeat (same catalog order). Mean and sample std (ddof 1) "
        "over repeats; the group metric is the mean over values.</li>"
        "<li><b>Noise floor</b> F_r: divergence between the neutral answer and a second neutral "
        "answer to the very same prompt (the neutral replicate: same repeat, same catalog order), "
        "the exact null of B_r(a); without replicates, the mean divergence between neutral "
        "repeats r ≠ r' (cross-repeat floor, which with a per-repeat shuffle also contains the "
        "effect of the catalog order). <b>Excess</b>: "
        "mean of B_r(a) − F_r. <b>p-value</b>: one-sided exact paired sign-flip test of excess "
        f"&gt; 0; verdict at α = {ALPHA}. With R repeats the smallest p-value is 2^−R.</li>"
        "<li><b>SNSR</b>: max − min over values; <b>SNSV</b>: population std over values.</li>"
        "<li><b>Exposure</b>: mean over a persona's answers of the share of its recommended items "
        "in a category (multi-label fields count an item in each of its categories); gap = "
        "persona share − neutral share. Western = primary production country in North America "
        "(US, CA), Europe or Australia/New Zealand; co-productions follow the first country.</li>"
        "<li><b>Degenerate</b> (not interpretable as fairness) if prefix_copy_rate &gt; 0.5, "
        "fill_rate &lt; 0.5 (fewer than k/2 valid items per answer on average), "
        "out_of_catalog_rate &gt; 0.3 or duplicate_rate &gt; 0.3.</li>"
        "</ul>"
    )
    return H.page("coldbias report", "\n".join(body))
