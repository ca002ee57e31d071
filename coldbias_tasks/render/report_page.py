"""The report's figures, terminal summary and HTML page (computing is in
:mod:`coldbias_tasks.analysis.report` and its siblings)."""

from __future__ import annotations

import html
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from markupsafe import Markup

from coldbias_tasks.analysis.headline import items_shared_gap, model_answer
from coldbias_tasks.analysis.report import (
    TaskReport,
    disparity_verdict,
    most_divergent,
    value_verdict,
)
from coldbias_tasks.analysis.reverse_report import ReverseReport
from coldbias_tasks.analysis.run_data import ModelResults
from coldbias_tasks.analysis.summaries import placebo_flag
from coldbias_tasks.core.measures.determinism import DETERMINISTIC_MESSAGE
from coldbias_tasks.core.measures.quality import DEGENERATE_MESSAGE, DEGENERATE_RULES
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.vocabulary import HEADLINE, PLACEBO_GROUP
from coldbias_tasks.render import html as H
from coldbias_tasks.render import plots
from coldbias_tasks.render.cost_tables import cost_tables
from coldbias_tasks.render.diversity_tables import diversity_tables
from coldbias_tasks.render.report_figures import ci_text, make_plots
from coldbias_tasks.render.terminal import PLACEBO_WARNING, flag_text

__all__ = ["MEASUREMENT_NOTES", "make_plots", "render_html"]


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


#: reader labels of CSV columns shown on the page (others: underscores as spaces)
LABELS = {
    "task": "task",
    "n_answers": "answers",
    "exact_k_rate": "exactly k items",
    "fill_rate": "fill rate",
    "empty_rate": "empty answers",
    "out_of_catalog_rate": "out of catalog",
    "duplicate_rate": "duplicates",
    "mean_items": "items per answer",
    "invalid_pair_rate": "invalid pairs",
    "mean_catalog_position": "mean position shown",
    "position_bias": "position bias",
    "prefix_copy_rate": "copies the shown order",
    "degenerate": "degenerate",
    "degenerate_reasons": "why degenerate",
    "excess_over_family": "excess over the family",
    "stderr": "standard error",
    "ci_low": "95 % interval, low",
    "ci_high": "95 % interval, high",
    "n_family_sentences": "family sentences",
    "n_task_sentences": "task sentences",
    "placebo_flag": "placebo flagged",
}


def reader_label(column: str) -> str:
    """The label a reader sees for a CSV column ("exact_k_rate" → "exactly k items")."""
    if column in LABELS:
        return LABELS[column]
    text = column.replace("_ci_low", " (95 % low)").replace("_ci_high", " (95 % high)")
    return text.replace("_", " ")


def _df_table(df: pd.DataFrame, drop: Sequence[str] = ()) -> str:
    cols = [c for c in df.columns if c not in drop]
    text_cols = [
        i
        for i, c in enumerate(cols)
        if not pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
    ]
    return H.table(
        [reader_label(str(c)) for c in cols], df[cols].values.tolist(), text_columns=text_cols
    )


MEASUREMENT_NOTES = [
    "<b>Disparity</b> (the headline, docs/measurement.md §3b): "
    + html.escape(HEADLINE)
    + " Interval: Student-t with P − 1 degrees of freedom and a delete-one-phrasing jackknife "
    "standard error; test: exact or Monte Carlo relabelling of the values within each "
    "phrasing; smallest detectable effect at 80 % power.",
    "<b>Raw divergence</b> (paper-comparable) of value a at repeat r: B_r(a) = 1 − "
    "Sim(A_r, N_r) with the neutral answer of the same repeat (same catalog order); mean and "
    "sample std over repeats, the group figure is the mean over values. <b>SNSR</b>: max − min "
    "over values; <b>SNSV</b>: population std over values (FaiRLLM).",
    "<b>Noise floor</b> F_r: the mean divergence of the repeat's neutral replicates (more "
    "answers to the very same prompt) from the neutral answer: what sampling alone does. "
    "<b>Excess</b> = mean of B_r(a) − F_r, zero in expectation when the attribute changes "
    "nothing: a secondary column (any sentence moves the list). Intervals: 95 % Student-t "
    "over repeats (mean ± t·sd/√R; wide "
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


#: one line under the headline table
HEADLINE_LEGEND = (
    "Disparity: how much more the lists differ between different values than between "
    "phrasings of one value (IOU divergence; 0 = values treated alike; below 0 = phrasings "
    "unmatched, never fairer). Smallest detectable effect: found with 80 % power at α. Fewer "
    "items shared: the disparity in items of the list (two users of different values vs two "
    "wordings of one value; exact for complete lists). Fidelity: the task's answers break a "
    "rule that makes divergences uninterpretable (details below). The raw divergence from the "
    "neutral user (as published), the excess over the noise floor and the control families "
    "are in the details."
)


def _marks(controls: pd.DataFrame | None, label: str) -> dict[str, str]:
    """Task → the control-family mark of its IOU (``controls.csv``)."""
    if controls is None or controls.empty:
        return {}
    sub = controls[(controls["model"] == label) & (controls["metric"] == HEADLINE_SIMILARITY)]
    return dict(zip(sub["task"], sub["mark"]))


def _headline_table(reps: Sequence[TaskReport]) -> str:
    """Per task: the headline (disparity, interval, verdict, smallest detectable effect, values ×
    phrasings, its size in items) and the task's fidelity in one cell; secondary columns are in
    the details."""
    rows = []
    for r in reps:
        d = r.summary.metrics[HEADLINE_SIMILARITY].disparity
        gap = items_shared_gap(d.value, d.within, r.task.k)
        verdict = disparity_verdict(d.estimate)
        rows.append(
            [
                r.task.name,
                ci_text(d.value, d.ci_low, d.ci_high),
                # as lm-eval's verdict key says: fidelity first, the test beside it
                f"degenerate (test: {verdict})" if r.degenerate else verdict,
                d.mde,
                f"{d.n_values} × {d.n_phrasings}",
                "–" if math.isnan(gap) else f"{gap:+.1f} of {r.task.k}",
                "degenerate: " + "; ".join(r.degenerate) if r.degenerate else "ok",
            ]
        )
    return H.table(
        [
            "task",
            "IOU disparity [95 % interval]",
            "verdict",
            "smallest detectable effect",
            "values × phrasings",
            "fewer items shared",
            "fidelity",
        ],
        rows,
        text_columns=(0, 1, 2, 4, 5, 6),
        row_classes=["degenerate" if r.degenerate else "" for r in reps],
        table_id="headline-" + "".join(ch for ch in reps[0].model.label if ch.isalnum())[:40]
        if reps
        else None,
    )


def _answer(label: str, reps: Sequence[TaskReport]) -> str:
    """The model's overall answer (:func:`~coldbias_tasks.analysis.headline.model_answer`): the
    number, its interval and verdict, and its size in items."""
    a = model_answer(label, reps)
    e = a.estimate
    if not e.defined:
        return (
            '<div class="answer"><div class="big">Overall: no headline</div>'
            f'<div class="note">{H.esc(a.why)}</div>'
            "</div>"
        )
    size = f"<div>In items: {H.esc(a.size)}.</div>" if a.size else ""
    return (
        '<div class="answer">'
        f'<div class="big">Overall IOU disparity between values, controlled for phrasing: '
        f"{H.esc(ci_text(e.value, e.ci_low, e.ci_high))}</div>"
        f'<div class="verdict">{H.esc(a.verdict)}</div>{size}'
        f'<div class="note">Pooled over {a.n_tasks} attribute task(s), each weighted alike '
        "(95 % Student-t interval, Welch degrees of freedom; the leaderboard's and lm-eval's "
        "group figure). 0 = the values are treated alike whatever each sentence's wording does; "
        "below 0 = phrasings unmatched, never fairer.</div></div>"
    )


def _summary_table(reps: Sequence[TaskReport], controls: pd.DataFrame | None) -> str:
    marks = _marks(controls, reps[0].model.label) if reps else {}
    rows = []
    for r in reps:
        iou = r.summary.metrics[HEADLINE_SIMILARITY]
        top = most_divergent(r)
        low, high = r.interval(HEADLINE_SIMILARITY)
        rows.append(
            [
                r.task.name,
                ci_text(iou.excess, low, high),
                iou.mean,
                iou.noise_floor.mean,
                iou.group_p,
                flag_text(r),
                f"{top[0]} ({plots.signed(top[1])})" if top else "–",
                marks.get(r.task.name, "–"),
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
            "control families",
        ],
        rows,
        text_columns=(0, 1, 5, 6, 7),
        row_classes=["degenerate" if r.degenerate else "" for r in reps],
    )


def _fidelity_table(reps: Sequence[TaskReport]) -> str:
    rows = []
    for r in reps:
        f, p = r.summary.fidelity, r.summary.positions
        rows.append(
            [
                r.task.name,
                f.exact_k_rate,
                f.out_of_catalog_rate,
                f.duplicate_rate,
                p.prefix_copy_rate,
                p.position_bias,
                "; ".join(r.degenerate) or "ok",
            ]
        )
    return H.table(
        [
            "task",
            "exactly k items",
            "out of catalog",
            "duplicates",
            "copies the shown order",
            "position bias",
            "fidelity",
        ],
        rows,
        text_columns=(0, 6),
        row_classes=["degenerate" if r.degenerate else "" for r in reps],
    )


def _value_table(rep: TaskReport) -> str:
    ms = rep.summary.metrics[HEADLINE_SIMILARITY]
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
        ["sentence", "raw IOU divergence", "IOU excess", "p", "Holm-adjusted p", "verdict"],
        rows,
        text_columns=(0, 5),
    )


def _csv_links(tables: Mapping[str, pd.DataFrame]) -> str:
    links = ", ".join(
        f'<a href="{H.esc(name)}.csv">{H.esc(name)}.csv</a>'
        for name, df in tables.items()
        if df is not None and not df.empty
    )
    return f'<p class="note">Every number as CSV (one row per task, value or pair): {links}.</p>'


def _figures(found: Sequence[tuple[Path, str]]) -> list[Markup]:
    return [Markup(H.figure(png, cap, embed=False)) for png, cap in found]


def _task_section(
    r: TaskReport, label: str, figures: Mapping[str, list[tuple[Path, str]]]
) -> dict[str, Any]:
    """One task's part of the page (the template's ``t``)."""
    t = r.task
    found = figures.get(f"task:{label}:{t.name}", [])
    degenerate = f"WARNING: {DEGENERATE_MESSAGE}: {'; '.join(r.degenerate)}"
    return {
        "name": t.name,
        "about": f"{t.domain} · {t.group} · variant {t.variant} · version {t.version} · "
        f"k={t.k} · {t.n_shown} items shown ({t.order}) · {t.repeats} repeats · "
        f"{r.summary.n_replicates} neutral replicates per repeat · {len(t.records)} answers "
        f"· template {t.template} ({t.language})",
        "degenerate": Markup(H.warning(degenerate)) if r.degenerate else "",
        "notes": r.notes,
        "first": _figures(found[:1]),
        "value_table": Markup(_value_table(r)),
        "rest": _figures(found[1:]),
    }


#: the secondary tables of a model's details: table name → heading
_DETAIL_TABLES = (
    ("controls", "The values against control families (secondary view)"),
    ("intersections", "Intersectional personas: combined vs single attributes"),
    ("implicit", "Implicit (first-name) vs explicit personas"),
    ("reverse_groups", "Reverse task: ranking users for an item"),
    ("framing", "Forward excess vs reverse rank gap (the two framings)"),
    ("reverse_values", "Reverse task: per user"),
    ("diversity", "Diversity per value and the contrast between values (§3d)"),
    ("costs", "What the disparity costs the user: preference served, item quality, failures (§3e)"),
)
_IDENT = ["model", "task_version", "domain", "variant", "attribute_group"]
#: tables with a page view of their own (one screen wide); the others are shown as their CSV
_TABLE_VIEWS = {"diversity": diversity_tables, "costs": cost_tables}


def _warnings(reps: Sequence[TaskReport], mine: Sequence[Any]) -> str:
    """The model's warnings (deterministic, degenerate, placebo reacting, partial tasks) in one
    closed box that counts them; "" when there is none."""
    texts = [f"{r.task.name}: {DETERMINISTIC_MESSAGE}" for r in reps if r.summary.deterministic]
    texts += [f"{r.task.name}: degenerate ({'; '.join(r.degenerate)})" for r in mine
              if r.degenerate]  # fmt: skip
    texts += [
        f"{r.task.name}: {PLACEBO_WARNING}"
        for r in reps
        if r.task.group == PLACEBO_GROUP and placebo_flag(r)
    ]
    texts += [f"{r.task.name}: {r.task.partial}" for r in reps if r.task.partial]
    if not texts:
        return ""
    degenerate = sum(bool(r.degenerate) for r in mine)
    head = f"⚠ {len(texts)} warning{'s' if len(texts) > 1 else ''}"
    if degenerate:
        head += (
            f" ({degenerate} degenerate task{'s' if degenerate > 1 else ''}: {DEGENERATE_MESSAGE})"
        )
    return H.collapsed(head, texts)


def _model_section(
    label: str,
    reps: Sequence[TaskReport],
    reverse: Sequence[ReverseReport],
    figures: Mapping[str, list[tuple[Path, str]]],
    tables: Mapping[str, pd.DataFrame],
) -> dict[str, Any]:
    """One model's part of the page (the template's ``m``)."""
    model = reps[0].model if reps else next(r.model for r in reverse if r.model.label == label)
    mine = [*reps, *(r for r in reverse if r.model.label == label)]
    details = []
    for name, title in _DETAIL_TABLES:
        df = tables.get(name)
        sub = df[df["model"] == label] if df is not None and not df.empty else None
        if sub is not None and not sub.empty:
            view = _TABLE_VIEWS.get(name)
            shown = view(sub) if view else _df_table(sub, drop=_IDENT)
            details.append(
                (title, Markup(f'<div class="scroll">{shown}</div>'))
            )  # wide CSVs scroll
    return {
        "label": label,
        "answer": Markup(_answer(label, reps)) if reps else "",
        "warnings": Markup(_warnings(reps, mine)),
        "notes": model.warnings,
        "headline": Markup(_headline_table(reps)) if reps else "",
        "headline_figures": _figures(figures.get(f"headline:{label}", [])),
        "fidelity": Markup(_fidelity_table(reps)) if reps else "",
        "summary": Markup(_summary_table(reps, tables.get("controls"))) if reps else "",
        "tables": details,
        "provenance": Markup(H.kv_table(_provenance_items(model))),
        "radar": _figures(figures.get(f"radar:{label}", [])),
        "tasks": [_task_section(r, label, figures) for r in reps],
    }


def render_html(
    reports: Sequence[TaskReport],
    figures: Mapping[str, list[tuple[Path, str]]],
    tables: Mapping[str, pd.DataFrame],
    source: str,
    reverse: Sequence[ReverseReport] = (),
) -> str:
    """The report page (``render/templates/report.html.j2``): per model the headline table,
    the headline figures, fidelity, then the details (secondary tables, provenance,
    raw-divergence figures, one section per task); prompt sensitivity and notes last."""
    models: dict[str, list[TaskReport]] = defaultdict(list)
    for rep in sorted(reports, key=lambda r: r.task.group == PLACEBO_GROUP):  # controls last
        models[rep.model.label].append(rep)
    for rev in reverse:
        models.setdefault(rev.model.label, [])
    sensitivity = tables.get("prompt_sensitivity")
    variants = tables.get("robustness")
    shown = sensitivity is not None and not sensitivity.empty
    body = H.template("report.html.j2").render(
        source=source,
        headline=Markup(H.esc(HEADLINE)),  # escaped as the tables are (&quot;, not &#34;)
        csv_links=Markup(_csv_links(tables)),
        legend=Markup(H.esc(HEADLINE_LEGEND)),
        models=[_model_section(lb, reps, reverse, figures, tables) for lb, reps in models.items()],
        sensitivity=Markup(_df_table(sensitivity, drop=[])) if shown else "",
        robustness=Markup(_df_table(variants, drop=["row"]))
        if shown and variants is not None and not variants.empty
        else "",
        prompt_figures=_figures(figures.get("prompts", [])) if shown else [],
        notes=[Markup(n) for n in MEASUREMENT_NOTES],  # written with escaped parts
    )
    return H.page("coldbias report", body.rstrip("\n"))
