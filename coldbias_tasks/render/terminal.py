"""What the terminal shows of a report: per model its overall answer, then each task's
headline, excess and fidelity in a few lines, its warnings; served runs' costs; the reverse
tasks (the page is :mod:`coldbias_tasks.render.report_page`)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from coldbias_tasks.analysis.headline import model_answer
from coldbias_tasks.analysis.report import TaskReport, disparity_verdict
from coldbias_tasks.analysis.reverse_report import ReverseReport
from coldbias_tasks.analysis.run_data import ModelResults
from coldbias_tasks.analysis.summaries import placebo_flag
from coldbias_tasks.core.measures.determinism import DETERMINISTIC_MESSAGE
from coldbias_tasks.core.measures.quality import DEGENERATE_MESSAGE
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP
from coldbias_tasks.render import html as H
from coldbias_tasks.render.report_figures import ci_text

__all__ = [
    "PLACEBO_WARNING",
    "answer_lines",
    "flag_text",
    "reverse_summary_lines",
    "serving_lines",
    "summary_lines",
]

PLACEBO_WARNING = (
    "placebo excess above zero: this model's lists change with any extra sentence, not only "
    "with sensitive attributes; read the groups' excess over the placebo"
)


def flag_text(rep: TaskReport, metric: str = HEADLINE_SIMILARITY) -> str:
    ms = rep.summary.metrics[metric]
    tested = [v for v in ms.values if not math.isnan(v.p_value)]
    if not tested:
        return "no per-sentence test (no neutral replicate)"
    flagged = sum(v.flagged for v in tested)
    text = f"{flagged}/{len(tested)} sentences flagged"
    if ms.underpowered:
        text += f" (underpowered: smallest adjusted p {ms.min_adjusted_p:.3g} > α {ms.alpha:g})"
    return text


def answer_lines(label: str, reps: Sequence[TaskReport]) -> list[str]:
    """The model's overall answer in two lines (the report's first box)."""
    a = model_answer(label, reps)
    e = a.estimate
    if not e.defined:
        return [f"{label}: overall IOU disparity (phrasing-controlled): – ({a.why})"]
    lines = [
        f"{label}: overall IOU disparity (phrasing-controlled) "
        f"{ci_text(e.value, e.ci_low, e.ci_high)} — {a.verdict} ({a.n_tasks} tasks pooled)"
    ]
    if a.size:
        lines.append(f"    in items: {a.size}")
    return lines


def summary_lines(reports: Sequence[TaskReport]) -> list[str]:
    """The terminal summary: per model its overall answer first, then one block per task
    (the headline, then excess and fidelity), then its warnings."""
    models: dict[str, list[TaskReport]] = defaultdict(list)
    for rep in reports:
        models[rep.model.label].append(rep)
    lines: list[str] = []
    for label, reps in models.items():
        lines += answer_lines(label, reps)
        for rep in reps:
            lines += _task_lines(rep)
    return lines


def _task_lines(rep: TaskReport) -> list[str]:
    iou = rep.summary.metrics[HEADLINE_SIMILARITY]
    f, p = rep.summary.fidelity, rep.summary.positions
    low, high = rep.interval(HEADLINE_SIMILARITY)
    d = iou.disparity
    lines = []
    headline = rep.task.group != PLACEBO_GROUP and not math.isnan(d.value)
    if headline:
        lines.append(
            f"  {rep.task.name}: IOU disparity {ci_text(d.value, d.ci_low, d.ci_high)}, "
            f"p {H.fmt(d.p_value)} — {disparity_verdict(d.estimate)} ({d.n_values} values × "
            f"{d.n_phrasings} phrasings)"
        )
    lines.append(
        ("    " if headline else f"  {rep.task.name}: ")
        + f"excess over noise {ci_text(iou.excess, low, high)} "
        f"(raw divergence {H.fmt(iou.mean)}, noise floor {H.fmt(iou.noise_floor.mean)}); "
        f"group p {H.fmt(iou.group_p)}; {flag_text(rep)}"
    )
    g = rep.summary.grounding
    lines.append(
        f"    fidelity: exact-k {H.fmt(f.exact_k_rate, 2)}, out-of-catalog "
        f"{H.fmt(f.out_of_catalog_rate, 2)}, duplicates {H.fmt(f.duplicate_rate, 2)}, "
        + (f"grounded {H.fmt(g.grounded_rate, 2)}, in catalog {H.fmt(g.catalog_rate, 2)}"
           if g.n_items else f"prefix-copy {H.fmt(p.prefix_copy_rate, 2)}")
    )  # fmt: skip
    if rep.summary.deterministic:
        lines.append(f"    WARNING: {DETERMINISTIC_MESSAGE}")
    if rep.summary.coverage.dependent:
        lines.append(
            "    WARNING: coverage-dependent (the headline compares grounded items only): "
            + "; ".join(rep.summary.coverage.reasons)
        )
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
