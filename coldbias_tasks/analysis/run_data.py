"""The data shapes of lm-evaluation-harness runs as the report and the leaderboard read them.

A :class:`Run` is one ``results_<ts>.json`` with the coldbias tasks logged beside it
(:class:`TaskData` forward, :class:`ReverseTaskData` reverse, both :class:`SampledTask`) and the
:class:`CapabilityMetric` of each other benchmark in the same file; :class:`ModelResults` is all
runs of one model pooled (:mod:`coldbias_tasks.analysis.pooling`). Reading the files:
:mod:`coldbias_tasks.analysis.run_files`; :class:`LoadOptions` says how.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coldbias_tasks.core.records import AnswerRecord, TaskDoc, UserRankRecord

__all__ = [
    "CapabilityMetric",
    "Identity",
    "LoadOptions",
    "ModelResults",
    "ReverseTaskData",
    "RowLabel",
    "Run",
    "SampledTask",
    "TaskData",
    "coldbias_version",
]

#: (model name, backend, sorted model_args without ``seed``): runs that pool into one row.
Identity = tuple[str, str, tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class LoadOptions:
    """How output folders are read. ``reparse``: rebuild every answer from its logged raw text
    with the current parser instead of the payload logged at run time; ``allow_partial``: keep
    incomplete tasks (missing answers or samples files) with a warning instead of refusing."""

    reparse: bool = False
    allow_partial: bool = False
    #: builds a task's documents from its settings (``core.prompting.documents.build_docs``, passed
    #: by the app): each logged document of a run of this version is compared with its rebuilt
    #: one (:mod:`coldbias_tasks.analysis.run_check`); None: the checks that need no rebuild
    documents: Callable[[str, str, str, Mapping[str, Any]], Sequence[TaskDoc]] | None = None


@dataclass(frozen=True, kw_only=True)
class SampledTask:
    """What a forward and a reverse task share: one task of one run (or pooled over runs) read
    from its samples file(s).

    ``records``: one record per answer; ``seed``: coldbias' catalog subset/shuffle seed
    (``coldbias_seed``), not the model's; ``fingerprints``: a content fingerprint per record
    (persona or item, repeat, prompt and answer text), parallel to ``records``; ``partial``: why
    the task is incomplete (only with ``allow_partial``; "" when complete).
    """

    name: str
    domain: str
    group: str
    version: str
    records: tuple[Any, ...]
    seed: int | None
    catalog: str
    catalog_sha256: str
    template_sha256: str
    samples_files: tuple[Path, ...]
    language: str = "en"
    fingerprints: tuple[str, ...] = ()
    partial: str = ""

    @property
    def repeats(self) -> int:
        """Number of distinct repeats (after pooling: over all runs)."""
        return len({r.repeat for r in self.records})


@dataclass(frozen=True, kw_only=True)
class TaskData(SampledTask):
    """One coldbias task (one attribute group, one variant): ``records`` one
    :class:`AnswerRecord` per answer (the neutral persona included); ``n_shown``: catalog items
    shown per prompt; ``shown``: every item id shown in any prompt.
    """

    records: tuple[AnswerRecord, ...]
    variant: str
    k: int
    n_shown: int
    order: str
    template: str = "lines"
    shown: tuple[int, ...] = ()
    #: the decoding settings of the run (:func:`~coldbias_tasks.analysis.run_samples.sampling_of`),
    #: e.g. "temperature=0.7"
    sampling: str = ""
    #: control family of each control value (the placebo task's ``placebo.<id>``), else empty
    families: tuple[tuple[str, str], ...] = ()

    @property
    def protocol(self) -> tuple[Any, ...]:
        """Settings that must agree for answers of two runs to be pooled."""
        return (
            self.version,
            self.k,
            self.n_shown,
            self.order,
            self.catalog_sha256,
            self.template_sha256,
            self.language,
            self.sampling,
        )

    def provenance(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "domain": self.domain,
            "attribute_group": self.group,
            "variant": self.variant,
            "task_version": self.version,
            "k": self.k,
            "n_shown": self.n_shown,
            "order": self.order,
            "coldbias_seed": self.seed,
            "repeats": self.repeats,
            "n_answers": len(self.records),
            "catalog": self.catalog,
            "catalog_sha256": self.catalog_sha256,
            "template": self.template,
            "template_sha256": self.template_sha256,
            "language": self.language,
            "sampling": self.sampling,
            "samples_files": [str(p) for p in self.samples_files],
        }


@dataclass(frozen=True, kw_only=True)
class ReverseTaskData(SampledTask):
    """One reverse task (ranking a group's users for catalog items): ``records`` one
    :class:`UserRankRecord` per answer (item × repeat); ``n_items``: items ranked.
    """

    records: tuple[UserRankRecord, ...]
    n_items: int

    @property
    def protocol(self) -> tuple[Any, ...]:
        """Settings that must agree for answers of two runs to be pooled."""
        return (self.version, self.catalog_sha256, self.template_sha256, self.language)


@dataclass(frozen=True)
class CapabilityMetric:
    """Headline metric of a non-coldbias task in the same results file (capability column).

    ``metric`` is the results key, e.g. ``"acc,none"``; ``stderr`` NaN when lm-eval wrote
    ``"N/A"``; ``higher_is_better`` None when the results file does not say.
    """

    task: str
    metric: str
    value: float
    stderr: float
    higher_is_better: bool | None


@dataclass(frozen=True)
class Run:
    """One results file and the coldbias tasks logged with it. ``capabilities``: the headline
    metric per non-coldbias task; ``capability_tasks``: every non-coldbias task of the file."""

    results_file: Path
    model: str
    backend: str
    model_args: dict[str, str]
    seeds: dict[str, Any]
    lm_eval_version: str
    transformers_version: str
    date: float | None
    tasks: dict[str, TaskData]
    capabilities: dict[str, CapabilityMetric]
    capability_tasks: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    reverse: dict[str, ReverseTaskData] = field(default_factory=dict)
    serving: dict[str, Any] = field(default_factory=dict)  # served models' counts (lmeval.served)

    @property
    def model_seed(self) -> Any:
        """The seed of the model's sampling: vLLM's ``model_args`` seed, else lm-eval's torch
        seed (HF samples with the global torch RNG), else its random seed; None if unknown.
        """
        for key in ("model_args.seed", "torch_seed", "random_seed"):
            if self.seeds.get(key) is not None:
                return self.seeds[key]
        return None

    @property
    def has_coldbias(self) -> bool:
        """Whether the run holds coldbias tasks (forward or reverse)."""
        return bool(self.tasks or self.reverse)

    @property
    def content_hash(self) -> str:
        """sha256 over the answers' fingerprints (persona, repeat, prompt, text) of every task:
        two runs with the same hash hold the same answers."""
        digest = hashlib.sha256()
        parts: dict[str, TaskData | ReverseTaskData] = {**self.tasks, **self.reverse}
        for name in sorted(parts):
            digest.update(name.encode())
            for f in sorted(parts[name].fingerprints):
                digest.update(f.encode())
        return digest.hexdigest()

    @property
    def identity(self) -> Identity:
        """(model name, backend, model_args without ``seed``): runs that pool into one row."""
        args = tuple(sorted((k, v) for k, v in self.model_args.items() if k != "seed"))
        return self.model, self.backend, args

    def provenance(self) -> dict[str, Any]:
        return {
            "results_file": str(self.results_file),
            "model": self.model,
            "backend": self.backend,
            "model_args": dict(self.model_args),
            "seeds": dict(self.seeds),
            "lm_eval_version": self.lm_eval_version,
            "transformers_version": self.transformers_version,
            "date": self.date,
            "tasks": sorted([*self.tasks, *self.reverse]),
            **({"serving": self.serving} if self.serving else {}),
        }


@dataclass(frozen=True)
class RowLabel:
    """How a pooled model is named: its ``name`` (display name of the model), a
    ``qualifier`` telling rows of one name apart (prompt template and language, or backend and
    args; "" when the name is unique) and ``copy`` (2, 3, … for rows whose name and qualifier
    still coincide). ``str()``: "name [qualifier] #copy", the parts present."""

    name: str
    qualifier: str = ""
    copy: int = 1

    @property
    def suffix(self) -> str:
        """ " #<copy>" for a second or later coinciding row, else ""."""
        return f" #{self.copy}" if self.copy > 1 else ""

    def __str__(self) -> str:
        return self.name + (f" [{self.qualifier}]" if self.qualifier else "") + self.suffix


@dataclass(frozen=True)
class ModelResults:
    """All runs of one model pooled: one report section / one leaderboard row. ``label``
    (text) is ``str(row_label)``."""

    row_label: RowLabel
    model: str
    backend: str
    model_args: dict[str, str]  # without seed
    runs: tuple[Run, ...]
    tasks: dict[str, TaskData]
    capabilities: dict[str, CapabilityMetric]
    warnings: tuple[str, ...] = ()
    reverse: dict[str, ReverseTaskData] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return str(self.row_label)

    @property
    def seeds(self) -> list[Any]:
        """Model seeds (:attr:`Run.model_seed`) of the pooled coldbias runs."""
        return [r.model_seed for r in self.runs if r.has_coldbias]

    def task_versions(self) -> dict[str, str]:
        return {name: t.version for name, t in sorted(self.tasks.items())}

    def provenance(self) -> dict[str, Any]:
        """Everything needed to reproduce or audit the numbers (JSON-safe)."""
        tasks = [t.provenance() for _, t in sorted(self.tasks.items())]
        return {
            "model": self.label,
            "model_name": self.model,
            "backend": self.backend,
            "model_args": dict(self.model_args),
            "seeds": self.seeds,
            "runs": [r.provenance() for r in self.runs],
            "task_versions": self.task_versions(),
            "lm_eval_version": _joined(r.lm_eval_version for r in self.runs),
            "transformers_version": _joined(r.transformers_version for r in self.runs),
            "coldbias_version": coldbias_version(),
            "dtype": self.model_args.get("dtype", "auto"),
            "template": _joined(t["template"] for t in tasks),
            "language": _joined(t["language"] for t in tasks),
            "template_sha256": _joined(t["template_sha256"] for t in tasks),
            "catalog_sha256": {t["catalog"]: t["catalog_sha256"] for t in tasks},
            "k": _joined(str(t["k"]) for t in tasks),
            "n_shown": _joined(str(t["n_shown"]) for t in tasks),
            "order": _joined(t["order"] for t in tasks),
            "coldbias_seed": _joined(str(t["coldbias_seed"]) for t in tasks),
            "repeats": {t["task"]: t["repeats"] for t in tasks},
            "tasks": tasks,
            "warnings": list(self.warnings),
        }


def _joined(values: Iterable[Any]) -> str:
    """Distinct values in first-seen order, comma-joined ("" when none)."""
    return ", ".join(dict.fromkeys(str(v) for v in values if v not in (None, "")))


def coldbias_version() -> str:
    """Installed coldbias version (of the tool making the report), "unknown" if not installed."""
    try:
        return importlib.metadata.version("coldbias")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
