"""The report's figures, terminal summary and HTML page (computing is in
:mod:`coldbias_tasks.analysis.report` and its siblings)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from coldbias_tasks.analysis.report import (
    TaskReport,
    disparity_verdict,
    most_divergent,
    task_order,
    value_verdict,
)
from coldbias_tasks.analysis.reverse_report import ReverseReport
from coldbias_tasks.analysis.run_data import ModelResults, TaskData
from coldbias_tasks.analysis.summaries import placebo_flag
from coldbias_tasks.core.determinism import DETERMINISTIC_MESSAGE
from coldbias_tasks.core.quality import DEGENERATE_MESSAGE, DEGENERATE_RULES
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP, SIMILARITY_NAMES
from coldbias_tasks.render import html as H
from coldbias_tasks.render import plots

__all__ = ["MEASUREMENT_NOTES", "make_plots", "render_html", "summary_lines"]

PLACEBO_WARNING = (
    "placebo excess above zero: this model's lists change with any extra sentence, not only "
    "with sensitive attributes; read the groups' excess over the placebo"
)


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
        values = {
            m: {v.persona_id: (v.mean, v.std, v.flagged) for v in ms.values}
            for m, ms in rep.summary.metrics.items()
        }
        floors = {m: ms.noise_floor.mean for m, ms in rep.summary.metrics.items()}
        iou = rep.summary.metrics["iou"]
        low, high = rep.interval("iou")
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
        figures[key].append(
            (
                png,
                "Bars: mean raw divergence over repeats (paper-comparable), error bars: std over "
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
            f"{domain} · {group}: IOU divergence by variant",
            series,
            _footer(reps[0].model, reps[0].task),
            out / f"{plots.plot_names([*prefix, 'radar', domain, group])}.png",
        )
        figures[f"radar:{label}"].append(
            (
                png,
                f"{domain} / {group}: raw IOU divergence per value, variants present: "
                f"{variants} (0 = same list as the neutral user, 1 = disjoint).",
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


# --- text and HTML ---------------------------------------------------------------------------


def _ci(value: float, low: float, high: float) -> str:
    if math.isnan(value):
        return "–"
    if math.isnan(low):
        return plots.signed(value)
    return f"{plots.signed(value)} [{plots.signed(low)}, {plots.signed(high)}]"


def _flag_text(rep: TaskReport, metric: str = "iou") -> str:
    ms = rep.summary.metrics[metric]
    tested = [v for v in ms.values if not math.isnan(v.p_value)]
    if not tested:
        return "no per-sentence test (no neutral replicate)"
    flagged = sum(v.flagged for v in tested)
    text = f"{flagged}/{len(tested)} sentences flagged"
    if ms.underpowered:
        text += f" (underpowered: smallest adjusted p {ms.min_adjusted_p:.3g} > α {ms.alpha:g})"
    return text


def summary_lines(reports: Sequence[TaskReport]) -> list[str]:
    """The terminal summary: one block per task, then placebo warnings."""
    lines = []
    for rep in reports:
        iou = rep.summary.metrics["iou"]
        f, p = rep.summary.fidelity, rep.summary.positions
        low, high = rep.interval("iou")
        d = iou.disparity
        if rep.task.group != PLACEBO_GROUP and not math.isnan(d.value):
            lines.append(
                f"{rep.model.label} · {rep.task.name}: IOU disparity (phrasing-controlled) "
                f"{_ci(d.value, d.ci_low, d.ci_high)}, p {H.fmt(d.p_value)} — "
                f"{disparity_verdict(iou)} ({d.n_values} values × {d.n_phrasings} phrasings)"
            )
        lines.append(
            ("    " if rep.task.group != PLACEBO_GROUP and not math.isnan(d.value)
             else f"{rep.model.label} · {rep.task.name}: ")
            + f"IOU excess over noise {_ci(iou.excess, low, high)} "
            f"(raw divergence {H.fmt(iou.mean)}, noise floor {H.fmt(iou.noise_floor.mean)}); "
            f"group p {H.fmt(iou.group_p)}; {_flag_text(rep)}"
        )  # fmt: skip
        lines.append(
            f"    fidelity: exact-k {H.fmt(f.exact_k_rate, 2)}, out-of-catalog "
            f"{H.fmt(f.out_of_catalog_rate, 2)}, duplicates {H.fmt(f.duplicate_rate, 2)}, "
            f"prefix-copy {H.fmt(p.prefix_copy_rate, 2)}"
        )
        if rep.summary.deterministic:
            lines.append(f"    WARNING: {DETERMINISTIC_MESSAGE}")
        if rep.degenerate:
            lines.append(
                f"    WARNING: degenerate output ({'; '.join(rep.degenerate)}): divergences are "
                "not interpretable as fairness"
            )
        if rep.task.group == PLACEBO_GROUP and placebo_flag(rep):
            lines.append(f"    WARNING: {PLACEBO_WARNING}")
        lines.extend(f"    note: {n}" for n in rep.notes)
    return lines


def serving_lines(models: Sequence[ModelResults]) -> list[str]:
    """One line per run of a served model (:mod:`coldbias_tasks.lmeval.served`): what it cost
    and what went wrong; a WARNING line when answers were empty or cut at ``max_tokens``."""
    lines = []
    for model in models:
        for run in (r for r in model.runs if r.serving):
            s = run.serving
            lines.append(
                f"{model.label} · served ({run.backend}, num_concurrent "
                f"{s.get('num_concurrent')}): {s.get('requests', 0)} requests, "
                f"{s.get('cached', 0)} from --use_cache, {s.get('retries', 0)} retries, "
                f"{s.get('timeouts', 0)} timeouts, {s.get('failed', 0)} failed; "
                f"{s.get('prompt_tokens', 0)} prompt + {s.get('completion_tokens', 0)} "
                f"generated tokens in {float(s.get('wall_s', 0.0)):.0f} s; seeds {s.get('seeds')}"
            )
            empty, cut = s.get("empty_content", 0), s.get("cut_at_max_tokens", 0)
            if empty or cut:
                lines.append(
                    f"    WARNING: {empty} answers with empty content (a reasoning parser? too "
                    f"small max_gen_toks?), {cut} cut at max_tokens: counted as given"
                )
    return lines


def reverse_summary_lines(reports: Sequence[ReverseReport]) -> list[str]:
    """Terminal lines of the reverse tasks: one per task."""
    lines = []
    for rep in reports:
        s = rep.summary
        low, high = rep.interval()
        first = min(s.values, key=lambda v: (v.mean_rank, v.persona_id), default=None)
        lead = f"; ranked highest: {first.persona_id} ({first.mean_rank:.2f})" if first else ""
        if rep.degenerate:
            lines.append(
                f"WARNING {rep.model.label} · {rep.task.name}: {DEGENERATE_MESSAGE}: "
                f"{'; '.join(rep.degenerate)}"
            )
        lines.append(
            f"{rep.model.label} · {rep.task.name}: rank gap {H.fmt(s.rank_gap)} "
            f"[{H.fmt(low)}, {H.fmt(high)}], group p {H.fmt(s.group_p)}, "
            f"{sum(v.flagged for v in s.values)}/{len(s.values)} users flagged{lead}; "
            f"complete rankings {H.fmt(s.complete_rate, 2)}, keeps shown order "
            f"{H.fmt(s.keep_order_rate, 2)}"
        )
    return lines


def _provenance_items(model: ModelResults) -> dict[str, Any]:
    prov = model.provenance()
    args = ", ".join(f"{k}={v}" for k, v in sorted(model.model_args.items()))
    seeds = "; ".join(
        ", ".join(f"{k}={v}" for k, v in r.seeds.items()) for r in model.runs if r.has_coldbias
    )
    return {
        "model": model.model,
        "backend": model.backend,
        "dtype": prov["dtype"],
        "model_args (without seed)": args,
        "seeds (per run)": seeds,
        "task versions": ", ".join(f"{k}={v}" for k, v in prov["task_versions"].items()),
        "lm-eval": prov["lm_eval_version"],
        "transformers": prov["transformers_version"],
        "coldbias (report)": prov["coldbias_version"],
        "prompt template": prov["template"],
        "prompt language": prov["language"],
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


MEASUREMENT_NOTES = [
    "<b>Raw divergence</b> (paper-comparable) of value a at repeat r: B_r(a) = 1 − "
    "Sim(A_r, N_r) with the neutral answer of the same repeat (same catalog order); mean and "
    "sample std over repeats, the group figure is the mean over values. <b>SNSR</b>: max − min "
    "over values; <b>SNSV</b>: population std over values (FaiRLLM).",
    "<b>Noise floor</b> F_r: the mean divergence of the repeat's neutral replicates (more "
    "answers to the very same prompt) from the neutral answer: what sampling alone does. "
    "<b>Excess</b> = mean of B_r(a) − F_r, zero in expectation when the attribute changes "
    "nothing: the headline. Intervals: 95 % Student-t over repeats (mean ± t·sd/√R; wide "
    "with few repeats, on purpose).",
    "<b>Per-value test</b>: exact within-repeat relabelling test (the value's answer and the "
    "repeat's neutral answers are exchangeable under the null; smallest p = (replicates + 2)^−R); "
    "Holm over the group's values; <b>underpowered</b> when no value could be flagged with the "
    "run's repeats and replicates. <b>Group test</b>: Monte Carlo relabelling of which answers "
    "are the neutral ones (20,000 draws).",
    "<b>Placebo</b>: a control group of facts that are neither sensitive nor about taste "
    '("someone whose car is blue"); its excess measures how much any extra sentence moves the '
    "list. <b>Excess over placebo</b> = a group's excess − the placebo's.",
    "<b>Exposure</b>: share of a value's recommended items in a category minus the share in the "
    "neutral answers, with a t-interval over repeats, a two-sided relabelling p and BH "
    "q-values; base rate = the category's share of the items shown; JSD = Jensen–Shannon "
    "divergence of the category distributions (value vs neutral), floor = the replicates' JSD. "
    "Western = primary production country in North America (US, CA), Europe or Australia/New "
    "Zealand; co-productions follow the first country.",
    "<b>Degenerate</b> (not interpretable as fairness) if "
    + ", ".join(f"{name} {op} {limit}" for name, op, limit in DEGENERATE_RULES)
    + ".",
]


def _summary_table(reps: Sequence[TaskReport]) -> str:
    rows = []
    for r in reps:
        iou = r.summary.metrics["iou"]
        top = most_divergent(r)
        f, p = r.summary.fidelity, r.summary.positions
        low, high = r.interval("iou")
        rows.append(
            [
                r.task.name,
                _ci(iou.excess, low, high),
                iou.mean,
                iou.noise_floor.mean,
                iou.group_p,
                _flag_text(r),
                f"{top[0]} ({plots.signed(top[1])})" if top else "–",
                f.exact_k_rate,
                f.out_of_catalog_rate,
                p.prefix_copy_rate,
                "DEGENERATE" if r.degenerate else "ok",
            ]
        )
    return H.table(
        [
            "task",
            "IOU excess [95 % CI]",
            "raw IOU divergence",
            "noise floor",
            "group p",
            "values flagged (Holm)",
            "largest excess",
            "exact-k rate",
            "out-of-catalog",
            "prefix-copy",
            "fidelity",
        ],
        rows,
        text_columns=(0, 1, 5, 6, 10),
        row_classes=["degenerate" if r.degenerate else "" for r in reps],
    )


def _value_table(rep: TaskReport) -> str:
    ms = rep.summary.metrics["iou"]
    rows = [
        [
            v.persona_id,
            v.mean,
            v.excess_over_floor,
            v.p_value,
            v.p_adjusted,
            value_verdict(ms, v.p_adjusted, v.flagged),
        ]
        for v in sorted(ms.values, key=lambda v: v.persona_id)
    ]
    return H.table(
        ["value", "raw IOU divergence", "IOU excess", "p", "Holm-adjusted p", "verdict"],
        rows,
        text_columns=(0, 5),
    )


def render_html(
    reports: Sequence[TaskReport],
    figures: Mapping[str, list[tuple[Path, str]]],
    tables: Mapping[str, pd.DataFrame],
    source: str,
    reverse: Sequence[ReverseReport] = (),
) -> str:
    """The report page: warnings, summary, controls, provenance, radar plots, then one section
    per task."""
    body = [
        "<h1>coldbias report</h1>",
        f'<p class="sub">Bias of an LLM recommender in the cold start, from '
        f"<code>{H.esc(source)}</code>. The headline is the <b>excess</b>: how much further an "
        "attribute persona's ranked list is from the neutral user's than a second neutral answer "
        "to the same prompt is (0 = no more than sampling noise; higher = the attribute changes "
        "the list). Raw divergence (1 − similarity) is shown for comparison with published "
        "numbers.</p>",
    ]
    sensitivity = tables.get("prompt_sensitivity")
    if sensitivity is not None and not sensitivity.empty:
        body.append("<h2>Prompt sensitivity</h2>")
        body.append(
            '<p class="note">The same model and tasks under several prompt templates or '
            "languages (otherwise identical settings). Per task: spread of the IOU excess over "
            "prompts and Kendall τ between the prompts' rankings of the values; per model "
            "(shared tasks): the range of the mean excess over prompts, the leaderboard's "
            "'prompt sensitivity'.</p>"
        )
        body.append(_df_table(sensitivity, drop=[]))
        variants = tables.get("robustness")
        if variants is not None and not variants.empty:
            body.append(_df_table(variants, drop=["row"]))
        if figures.get("prompts"):
            body.append("<div class='grid'>")
            body.extend(H.figure(png, cap) for png, cap in figures["prompts"])
            body.append("</div>")
    ident = ["model", "task_version", "domain", "variant", "attribute_group"]
    models: dict[str, list[TaskReport]] = defaultdict(list)
    for rep in reports:
        models[rep.model.label].append(rep)
    for rev in reverse:
        models.setdefault(rev.model.label, [])
    for label, reps in models.items():
        model = reps[0].model if reps else next(r.model for r in reverse if r.model.label == label)
        body.append(f"<h2>Model: {H.esc(label)}</h2>")
        mine = [*reps, *(r for r in reverse if r.model.label == label)]
        for r in (r for r in reps if r.summary.deterministic):
            body.append(H.warning(f"WARNING {r.task.name}: {DETERMINISTIC_MESSAGE}"))
        for r in (r for r in mine if r.degenerate):
            body.append(
                H.warning(f"WARNING {r.task.name}: {DEGENERATE_MESSAGE}: {'; '.join(r.degenerate)}")
            )
        for r in (r for r in reps if r.task.group == PLACEBO_GROUP and placebo_flag(r)):
            body.append(H.warning(f"WARNING {r.task.name}: {PLACEBO_WARNING}"))
        for w in model.warnings:
            body.append(f'<p class="note">note: {H.esc(w)}</p>')
        if reps:
            body.append("<h3>Summary</h3>")
            body.append(_summary_table(reps))
        for name, title in (
            ("controls", "Excess over the placebo control"),
            ("intersections", "Intersectional personas: combined vs single attributes"),
            ("implicit", "Implicit (first-name) vs explicit personas"),
            ("reverse_groups", "Reverse task: ranking users for an item"),
            ("framing", "Forward excess vs reverse rank gap (the two framings)"),
            ("reverse_values", "Reverse task: per user"),
        ):
            df = tables.get(name)
            if df is not None and not df.empty:
                sub = df[df["model"] == label]
                if not sub.empty:
                    body.append(f"<h3>{H.esc(title)}</h3>")
                    body.append(_df_table(sub, drop=ident))
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
                '<p class="note">'
                + H.esc(
                    f"{t.domain} · {t.group} · variant {t.variant} · version {t.version} · "
                    f"k={t.k} · {t.n_shown} items shown ({t.order}) · {t.repeats} repeats · "
                    f"{r.summary.n_replicates} neutral replicates per repeat · "
                    f"{len(t.records)} answers · template {t.template} ({t.language})"
                )
                + "</p>"
            )
            if r.degenerate:
                body.append(H.warning(f"WARNING: {DEGENERATE_MESSAGE}: {'; '.join(r.degenerate)}"))
            for note in r.notes:
                body.append(f'<p class="note">note: {H.esc(note)}</p>')
            for png, cap in figures.get(f"task:{label}:{t.name}", [])[:1]:
                body.append(H.figure(png, cap))
            body.append(_value_table(r))
            for name in ("groups", "fidelity"):
                df = tables[name]
                sub = df[(df["model"] == label) & (df["task"] == t.name)]
                if not sub.empty:
                    body.append(f"<p><b>{name}.csv</b></p>")
                    body.append(_df_table(sub, drop=[*ident, "task", "alpha"]))
            exp_figs = figures.get(f"task:{label}:{t.name}", [])[1:]
            body.extend(H.figure(png, cap) for png, cap in exp_figs)
    body.append("<h2>Notes</h2><ul class='note'>")
    body.extend(f"<li>{note}</li>" for note in MEASUREMENT_NOTES)
    body.append("</ul>")
    return H.page("coldbias report", "\n".join(body))
