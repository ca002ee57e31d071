"""Prompt sensitivity: one model's excess across runs that differ only in the prompt template or
its language (docs/measurement.md §6).

Tasks are compared when they have the same model (name, backend, model_args minus seed), the
same task name and the same protocol apart from template and language (task version, k, items
shown, order, catalog, decoding settings). Each such (template, language) is a *prompt*. Per
task over prompts: the group excess per prompt with its t-interval, the spread (sample std and
range) and the mean pairwise Kendall τ-b between the prompts' rankings of the group's values
by excess (1 = same order, 0 = unrelated, −1 = reversed; NaN with < 2 shared values). Per
model: the mean excess over the tasks every prompt has, its range over prompts (the
leaderboard's "prompt sensitivity", ↓) and the mean pairwise τ of the prompts' rankings of
those tasks (attribute groups). Kendall τ assumes nothing about scale, but with few values or
tasks it takes few distinct values (two tasks: τ = ±1).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from coldbias_tasks.analysis.intervals import t_interval
from coldbias_tasks.analysis.run_data import ModelResults, TaskData
from coldbias_tasks.analysis.summaries import TaskSummary
from coldbias_tasks.core.measures import EXCESS
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY

__all__ = [
    "PromptTask",
    "model_sensitivity",
    "prompt_label",
    "sensitivity_table",
    "variant_table",
]


@dataclass(frozen=True)
class PromptTask:
    """One task of one model under one prompt."""

    model: ModelResults
    entry: TaskSummary

    @property
    def task(self) -> TaskData:
        return self.entry.task


def prompt_label(task: TaskData) -> str:
    """``"numbered (en)"``: the template name and the language of a task's prompt."""
    return f"{task.template} ({task.language})"


def _family(model: ModelResults, task: TaskData) -> tuple[Any, ...]:
    """Everything that must agree for two tasks to be prompts of one comparison."""
    args = tuple(sorted(model.model_args.items()))
    return (model.model, model.backend, args, task.name, task.version, task.k, task.n_shown,
            task.order, task.catalog_sha256, task.sampling)  # fmt: skip


def _families(
    pairs: Sequence[tuple[ModelResults, TaskSummary]],
) -> dict[tuple[Any, ...], dict[str, PromptTask]]:
    """family → prompt label → task, only for families with ≥ 2 prompts."""
    out: dict[tuple[Any, ...], dict[str, PromptTask]] = defaultdict(dict)
    for model, entry in pairs:
        out[_family(model, entry.task)].setdefault(
            prompt_label(entry.task), PromptTask(model, entry)
        )
    return {k: v for k, v in out.items() if len(v) >= 2}


def _excess(entry: TaskSummary, metric: str) -> float:
    return entry.summary.metrics[metric].excess


def _value_excess(entry: TaskSummary, metric: str) -> dict[str, float]:
    return {
        v.persona_id: v.excess_over_floor
        for v in entry.summary.metrics[metric].values
        if not math.isnan(v.excess_over_floor)
    }


def _tau(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Kendall τ-b between two rankings over their common keys (NaN with < 2 or constant)."""
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        return math.nan
    x, y = [a[c] for c in common], [b[c] for c in common]
    if len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    return float(stats.kendalltau(x, y).statistic)


def _mean_tau(rankings: Sequence[Mapping[str, float]]) -> float:
    taus = [_tau(a, b) for a, b in itertools.combinations(rankings, 2)]
    finite = [t for t in taus if not math.isnan(t)]
    return float(np.mean(finite)) if finite else math.nan


def _spread(values: Sequence[float]) -> tuple[float, float]:
    finite = [v for v in values if not math.isnan(v)]
    if len(finite) < 2:
        return math.nan, math.nan
    return float(np.std(finite, ddof=1)), float(max(finite) - min(finite))


def variant_table(
    pairs: Sequence[tuple[ModelResults, TaskSummary]], metric: str = HEADLINE_SIMILARITY
) -> pd.DataFrame:
    """Per (model, task, prompt) of tasks run under ≥ 2 prompts: excess with its 95 %
    t-interval over repeats, raw divergence, noise floor, flagged share."""
    rows = []
    for prompts in _families(pairs).values():
        for label, pt in sorted(prompts.items()):
            ms = pt.entry.summary.metrics[metric]
            low, high = t_interval(pt.entry.series_of(metric, EXCESS))
            t = pt.task
            rows.append({
                "model": pt.model.model, "row": pt.model.label, "task": t.name,
                "domain": t.domain, "variant": t.variant, "attribute_group": t.group,
                "prompt": label, "template": t.template, "language": t.language,
                "metric": metric, "excess": ms.excess, "excess_ci_low": low,
                "excess_ci_high": high, "divergence": ms.mean,
                "noise_floor": ms.noise_floor.mean, "flagged_share": ms.flagged_share,
                "n_repeats": t.repeats,
            })  # fmt: skip
    return pd.DataFrame(rows)


def sensitivity_table(
    pairs: Sequence[tuple[ModelResults, TaskSummary]], metric: str = HEADLINE_SIMILARITY
) -> pd.DataFrame:
    """Per (model, task) run under ≥ 2 prompts: the spread of the excess and of the raw
    divergence over prompts and the mean pairwise Kendall τ of the value rankings; then per
    model one row ``task = "(shared tasks)"`` (see :func:`model_sensitivity`)."""
    rows = []
    for prompts in _families(pairs).values():
        entries = [pt.entry for _, pt in sorted(prompts.items())]
        excess = [_excess(e, metric) for e in entries]
        raw = [e.summary.metrics[metric].mean for e in entries]
        std, rng = _spread(excess)
        _, raw_rng = _spread(raw)
        first = next(iter(prompts.values()))
        rows.append({
            "model": first.model.model, "task": first.task.name, "metric": metric,
            "prompts": ", ".join(sorted(prompts)), "n_prompts": len(prompts),
            "excess_mean": float(np.nanmean(excess)), "excess_std": std, "excess_range": rng,
            "divergence_range": raw_rng,
            "value_rank_tau": _mean_tau([_value_excess(e, metric) for e in entries]),
        })  # fmt: skip
    for model, summary in sorted(model_sensitivity(pairs, metric).items()):
        by_prompt = summary.pop("by_prompt")
        summary["excess_by_prompt"] = "; ".join(f"{k}: {v:+.3f}" for k, v in by_prompt.items())
        rows.append({"model": model, "task": "(shared tasks)", "metric": metric, **summary})
    return pd.DataFrame(rows)


def model_sensitivity(
    pairs: Sequence[tuple[ModelResults, TaskSummary]], metric: str = HEADLINE_SIMILARITY
) -> dict[str, dict[str, Any]]:
    """model name → over the prompts that ran every one of the model's compared tasks: the
    mean excess over those tasks per prompt, its std and range over prompts
    (``excess_range``: the prompt sensitivity, ↓) and the mean pairwise Kendall τ of the
    prompts' rankings of the tasks (``group_rank_tau``; NaN with < 2 tasks)."""
    by_model: dict[str, dict[str, dict[str, TaskSummary]]] = defaultdict(lambda: defaultdict(dict))
    for prompts in _families(pairs).values():
        for label, pt in prompts.items():
            by_model[pt.model.model][label][pt.task.name] = pt.entry
    out = {}
    for model, prompts in by_model.items():
        shared = set.intersection(*(set(tasks) for tasks in prompts.values()))
        if not shared:
            continue
        means = {
            label: float(np.nanmean([_excess(tasks[n], metric) for n in sorted(shared)]))
            for label, tasks in prompts.items()
        }
        std, rng = _spread(list(means.values()))
        out[model] = {
            "prompts": ", ".join(sorted(prompts)),
            "n_prompts": len(prompts),
            "n_tasks": len(shared),
            "excess_mean": float(np.nanmean(list(means.values()))),
            "excess_std": std,
            "excess_range": rng,
            "group_rank_tau": _mean_tau(
                [{n: _excess(tasks[n], metric) for n in shared} for tasks in prompts.values()]
            ),
            "by_prompt": means,
        }
    return out
