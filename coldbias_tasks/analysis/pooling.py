"""Pool the runs of one model into one :class:`~coldbias_tasks.analysis.run_data.ModelResults`.

:func:`pool_runs` merges runs of one model (same ``model_name``, backend and ``model_args`` minus
``seed``: :attr:`Run.identity`) into one row; repeats of different runs are renumbered so that
each run's repeat r stays paired with that run's neutral repeat r. Rows get distinct labels
(:func:`display_name`, disambiguated by prompt settings, backend or args).
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from coldbias_tasks.analysis.run_data import (
    CapabilityMetric,
    Identity,
    ModelResults,
    ReverseTaskData,
    RowLabel,
    Run,
    SampledTask,
    TaskData,
)

__all__ = ["display_name", "pool_runs"]

_Task = TypeVar("_Task", bound=SampledTask)


@dataclass(frozen=True)
class _Group:
    """Runs on their way into one row: one model identity, task settings that agree; ``tasks``:
    each task's data per run, in run order."""

    identity: Identity
    runs: list[Run] = field(default_factory=list)
    tasks: defaultdict[str, list[TaskData | ReverseTaskData]] = field(
        default_factory=lambda: defaultdict(list)
    )

    def clashes(self, run: Run) -> bool:
        """Whether a task of ``run`` has settings (:attr:`TaskData.protocol`) other than the same
        task already in the group."""
        return any(
            name in self.tasks and self.tasks[name][0].protocol != t.protocol
            for name, t in [*run.tasks.items(), *run.reverse.items()]
        )

    def add(self, run: Run) -> None:
        """Take ``run`` and its tasks (forward and reverse) into the group."""
        self.runs.append(run)
        for name, t in [*run.tasks.items(), *run.reverse.items()]:
            self.tasks[name].append(t)

    def prompts(self) -> list[tuple[str, str, str]]:
        """(template, language, sampling) of the group's forward tasks, sorted."""
        return sorted(
            {
                (t.template, t.language, t.sampling)
                for parts in self.tasks.values()
                for t in parts
                if isinstance(t, TaskData)
            }
        )


def _pool_repeats(parts: Sequence[TaskData] | Sequence[ReverseTaskData]) -> tuple[list, list, int]:
    """(records, fingerprints, repeats left out) of one task over several runs: repeats
    renumbered so run i's follow run i−1's; a repeat whose answers are exactly those of a repeat
    already pooled (same fingerprints) is left out, so a copied run counts once. Records without
    fingerprints (an empty string) are never taken for copies."""
    records: list[Any] = []
    prints: list[str] = []
    seen: set[frozenset[str]] = set()
    dropped = offset = 0
    for part in parts:
        fingerprints = part.fingerprints or tuple("" for _ in part.records)
        by_repeat: dict[int, list[tuple[Any, str]]] = defaultdict(list)
        for record, fingerprint in zip(part.records, fingerprints):
            by_repeat[record.repeat].append((record, fingerprint))
        kept = 0
        for repeat in sorted(by_repeat):
            answers = by_repeat[repeat]
            signature = frozenset(f for _, f in answers)
            if "" not in signature and signature in seen:
                dropped += 1
                continue
            seen.add(signature)
            records += [dataclasses.replace(r, repeat=kept + offset) for r, _ in answers]
            prints += [f for _, f in answers]
            kept += 1
        offset += kept
    return records, prints, dropped


def _pool_task(parts: Sequence[_Task]) -> tuple[_Task, int]:
    """One task (forward or reverse) over several runs (:func:`_pool_repeats`); the seed is
    kept only when every run shares it. Returns the pooled task and the number of repeats left
    out."""
    if len(parts) == 1:
        return parts[0], 0
    records, prints, dropped = _pool_repeats(parts)
    seeds = {p.seed for p in parts}
    pooled = dataclasses.replace(
        parts[0],
        records=tuple(records),
        fingerprints=tuple(prints),
        seed=parts[0].seed if len(seeds) == 1 else None,
        samples_files=tuple(f for p in parts for f in p.samples_files),
        partial="; ".join(dict.fromkeys(p.partial for p in parts if p.partial)),
    )
    return pooled, dropped


def display_name(model: str) -> str:
    """A local model path is shown by its folder name; hub ids ("org/name") stay whole."""
    if model.startswith(("/", "./", "../", "~")) or "\\" in model:
        return Path(model.rstrip("/\\")).name or model
    return model


def _distinct_names(models: Sequence[str]) -> list[str]:
    """:func:`display_name` of each model; local paths that end in the same folder name get as
    many trailing path parts as tell them apart (``a/mymodel``, ``b/mymodel``)."""
    shown = [display_name(m) for m in models]
    for name in set(shown):
        full = sorted({m for m, s in zip(models, shown) if s == name})
        if len(full) < 2:
            continue
        parts = {m: Path(m.rstrip("/\\")).parts for m in full}
        tails = {m: m for m in full}
        for depth in range(2, max(len(p) for p in parts.values()) + 1):
            tails = {m: "/".join(p[-depth:]) for m, p in parts.items()}
            if len(set(tails.values())) == len(full):
                break
        shown = [tails.get(m, s) if s == name else s for m, s in zip(models, shown)]
    return shown


def _model_label(
    rows: Sequence[tuple[str, str, dict[str, str]]],
    prompts: Sequence[Sequence[tuple[str, str, str]]] | None = None,
) -> list[RowLabel]:
    """Row labels: the model name, qualified when it repeats: by the prompt template,
    language and decoding settings when those differ, else by backend and args; rows still
    alike are numbered."""
    prompts = prompts or [[] for _ in rows]
    shown = _distinct_names([name for name, _, _ in rows])
    rows = [(name, backend, args) for name, (_, backend, args) in zip(shown, rows)]
    names = [name for name, _, _ in rows]
    labels = []
    for (name, backend, args), prompt in zip(rows, prompts):
        if names.count(name) == 1:
            labels.append(RowLabel(name))
            continue
        others = {tuple(p) for (n, _, _), p in zip(rows, prompts) if n == name}
        if len(others) > 1 and prompt:
            samplings = {x[2] for o in others for x in o}
            tag = "; ".join(
                f"template {t}, {lang}" + (f", {smp}" if len(samplings) > 1 and smp else "")
                for t, lang, smp in prompt
            )
            labels.append(RowLabel(name, tag))
            continue
        shown = ",".join(f"{k}={v}" for k, v in sorted(args.items()) if k != "pretrained")
        labels.append(RowLabel(name, f"{backend}{'; ' + shown if shown else ''}"))
    seen: dict[RowLabel, int] = defaultdict(int)
    out = []
    for label in labels:
        seen[label] += 1
        out.append(dataclasses.replace(label, copy=seen[label]))
    return out


def pool_runs(runs: Sequence[Run]) -> list[ModelResults]:
    """Merge runs of the same model (name, backend, model_args minus seed) into rows.

    A run whose task settings (version, k, n_shown, order, catalog or template hash, language)
    disagree with an already pooled run of the same task starts a separate row (never silently
    mixed). Runs without coldbias tasks contribute capability metrics to a matching row only.
    Runs are identified by the content of their answers: the same results file, or a copy of
    it, is used once, and answers two runs share are pooled once (both with a message);
    genuinely different samples (other seeds) pool.
    """
    unique: dict[str, Run] = {}
    notes: list[str] = []
    for run in sorted(runs, key=lambda r: (r.date or 0.0, str(r.results_file))):
        key = (
            f"{run.identity}:{run.content_hash}"
            if run.has_coldbias
            else str(run.results_file.resolve())
        )
        if key in unique:
            if run.results_file.resolve() != unique[key].results_file.resolve():
                notes.append(
                    f"{run.results_file}: the same answers as {unique[key].results_file} (a "
                    "copy?); used once"
                )
            continue
        unique[key] = run
    ordered = list(unique.values())
    groups: list[_Group] = []
    for run in (r for r in ordered if r.has_coldbias):
        target = next(
            (g for g in groups if g.identity == run.identity and not g.clashes(run)), None
        )
        if target is None:
            target = _Group(run.identity)
            groups.append(target)
        target.add(run)
    for run in (r for r in ordered if not r.has_coldbias):
        for g in groups:
            if g.identity == run.identity:
                g.runs.append(run)
                break
    rows = [(g.identity[0], g.identity[1], dict(g.identity[2])) for g in groups]
    out = []
    for g, label in zip(groups, _model_label(rows, [g.prompts() for g in groups])):
        warnings = [*notes, *(w for r in g.runs for w in r.warnings)]
        notes = []
        pooled: dict[str, TaskData] = {}
        pooled_reverse: dict[str, ReverseTaskData] = {}
        for name, parts in sorted(g.tasks.items()):
            task, dropped = _pool_task(parts)
            if isinstance(task, ReverseTaskData):
                pooled_reverse[name] = task
            else:
                pooled[name] = task
            if dropped:
                warnings.append(
                    f"{label}: {dropped} repeat(s) of {name} appear in two runs with the very "
                    "same answers; pooled once"
                )
        capabilities: dict[str, list[CapabilityMetric]] = defaultdict(list)
        for r in g.runs:
            for task, metric in r.capabilities.items():
                capabilities[task].append(metric)
        out.append(
            ModelResults(
                row_label=label,
                model=g.identity[0],
                backend=g.identity[1],
                model_args=dict(g.identity[2]),
                runs=tuple(g.runs),
                tasks=pooled,
                reverse=pooled_reverse,
                capabilities={task: _mean_metric(ms) for task, ms in capabilities.items()},
                warnings=tuple(warnings),
            )
        )
    return out


def _mean_metric(metrics: Sequence[CapabilityMetric]) -> CapabilityMetric:
    """Mean of one capability metric over runs (stderr combined as for independent means)."""
    if len(metrics) == 1:
        return metrics[0]
    n = len(metrics)
    value = sum(m.value for m in metrics) / n
    stderr = math.sqrt(sum(m.stderr**2 for m in metrics)) / n
    return dataclasses.replace(metrics[0], value=value, stderr=stderr)
