"""Load lm-evaluation-harness output folders into plain data for the report and the leaderboard.

An output folder is what ``lm_eval --output_path OUT --log_samples`` writes:
``OUT/<model>/results_<ts>.json`` plus one ``samples_<task>_<ts>.jsonl`` per task of that run.
Folders are searched recursively; every results file is one :class:`Run`, paired with the
samples files of the same timestamp in the same directory. Answers are rebuilt from the parse
payload that every coldbias metric logs
(:meth:`coldbias_tasks.core.records.AnswerRecord.from_payload`), so all statistics can be
recomputed offline.

:func:`pool_runs` merges runs of one model (same ``model_name``, backend and ``model_args`` minus
``seed``) into one :class:`ModelResults`; repeats of different runs are renumbered so that each
run's repeat r stays paired with that run's neutral repeat r.

Problems raise :class:`RunError`, whose message names the folder or file and the fix.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib.metadata
import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coldbias_tasks.core.answers import record_from_answer, reverse_record_from_answer
from coldbias_tasks.core.errors import ColdbiasError, RecordError, RunError
from coldbias_tasks.core.jsonl import read_jsonl_objects
from coldbias_tasks.core.records import AnswerRecord, ReverseDoc, TaskDoc, UserRankRecord
from coldbias_tasks.core.settings import Settings
from coldbias_tasks.core.vocabulary import (
    FILTER_NAME,
    PAYLOAD_KEY,
    is_coldbias_task,
    is_reverse_task,
)

#: Metric key whose logged value is a reverse task's payload.
REVERSE_PAYLOAD_KEY = "reverse_rank_gap"

__all__ = [
    "ExtraMetric",
    "LoadOptions",
    "ModelResults",
    "ReverseTaskData",
    "Run",
    "RunError",
    "TaskData",
    "coldbias_version",
    "display_name",
    "load_folder",
    "parse_model_args",
    "pool_runs",
    "scan_folder",
]

#: lm-eval run settings recorded as seeds in the results JSON ``config``.
SEED_KEYS = ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")
#: Keys of ``results[task]`` that are not metrics.
NON_METRIC_KEYS = {"alias", "name", "sample_len", "samples", " "}

_RESULTS_RE = re.compile(r"^results_(?P<ts>.+)\.json$")
_SAMPLES_RE = re.compile(r"^samples_(?P<task>.+)_(?P<ts>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")

_NOT_OUTPUT = (
    "not an lm-eval output folder: run lm_eval with --output_path and --log_samples "
    "(e.g. `coldbias eval --model hf --model_args pretrained=... --tasks coldbias_movie "
    "--output_path OUT`), then pass OUT"
)


@dataclass(frozen=True)
class TaskData:
    """One coldbias task (one attribute group, one variant) of one run, or pooled over runs.

    ``records``: one :class:`AnswerRecord` per answer (the neutral persona included).
    ``reported``: the task's metrics in the results JSON (``"iou_divergence"`` → value; filter
    suffix dropped; lm-eval's ``"N/A"`` stderr omitted). ``n_shown``: catalog items shown per
    prompt; ``seed``: coldbias' catalog subset/shuffle seed (``coldbias_seed``), not the model's.
    """

    name: str
    domain: str
    group: str
    variant: str
    version: str
    records: tuple[AnswerRecord, ...]
    k: int
    n_shown: int
    order: str
    seed: int | None
    catalog: str
    catalog_sha256: str
    template_sha256: str
    samples_files: tuple[Path, ...]
    reported: dict[str, float] = field(default_factory=dict)
    template: str = "lines"
    language: str = "en"
    shown: tuple[int, ...] = ()
    #: content fingerprint per record (persona, repeat, prompt and answer text), parallel
    fingerprints: tuple[str, ...] = ()
    #: why the task is incomplete (only with ``allow_partial``; "" when complete)
    partial: str = ""
    #: the decoding settings of the run (:func:`sampling_of`), e.g. "temperature=0.7"
    sampling: str = ""

    @property
    def repeats(self) -> int:
        """Number of distinct repeats (after pooling: over all runs)."""
        return len({r.repeat for r in self.records})

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


@dataclass(frozen=True)
class ReverseTaskData:
    """One reverse task (ranking a group's users for catalog items) of one run, or pooled.

    ``records``: one :class:`UserRankRecord` per answer (item × repeat); ``n_items``: items
    ranked; ``fingerprints``: per record, as for :class:`TaskData`.
    """

    name: str
    domain: str
    group: str
    version: str
    records: tuple[UserRankRecord, ...]
    n_items: int
    seed: int | None
    catalog: str
    catalog_sha256: str
    template_sha256: str
    language: str
    samples_files: tuple[Path, ...]
    fingerprints: tuple[str, ...] = ()
    partial: str = ""

    @property
    def repeats(self) -> int:
        return len({r.repeat for r in self.records})

    @property
    def protocol(self) -> tuple[Any, ...]:
        return (self.version, self.catalog_sha256, self.template_sha256, self.language)


@dataclass(frozen=True)
class ExtraMetric:
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
    """One results file and the coldbias tasks logged with it."""

    results_file: Path
    model: str
    backend: str
    model_args: dict[str, str]
    seeds: dict[str, Any]
    lm_eval_version: str
    transformers_version: str
    date: float | None
    tasks: dict[str, TaskData]
    other_metrics: dict[str, ExtraMetric]
    foreign_tasks: tuple[str, ...]
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
    def identity(self) -> tuple[str, str, tuple[tuple[str, str], ...]]:
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
class ModelResults:
    """All runs of one model pooled: one report section / one leaderboard row."""

    label: str
    model: str
    backend: str
    model_args: dict[str, str]  # without seed
    runs: tuple[Run, ...]
    tasks: dict[str, TaskData]
    other_metrics: dict[str, ExtraMetric]
    warnings: tuple[str, ...] = ()
    reverse: dict[str, ReverseTaskData] = field(default_factory=dict)

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


def parse_model_args(raw: Any) -> dict[str, str]:
    """``model_args`` as a dict of strings, from lm-eval's dict or ``"k=v,k2=v2"`` form."""
    if isinstance(raw, Mapping):
        return {str(k): str(v) for k, v in raw.items()}
    if not raw:
        return {}
    out: dict[str, str] = {}
    for part in str(raw).split(","):
        if not part.strip():
            continue
        key, _, value = part.partition("=")
        out[key.strip()] = value.strip()
    return out


def _to_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise RunError(
            f"{path}: invalid JSON at line {err.lineno} ({err.msg}); the file is truncated or "
            "edited: rerun lm_eval or restore the file."
        ) from err
    except OSError as err:
        raise RunError(f"{path}: cannot be read ({err.strerror}).") from err
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise RunError(
            f"{path}: not an lm-eval results file (no 'results' mapping); pass the folder "
            "lm_eval --output_path wrote."
        )
    return data


def _payload(value: Any, reverse: bool = False) -> dict[str, Any] | None:
    if isinstance(value, str):  # a payload lm-eval had to stringify
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return None
    if reverse:
        return value if isinstance(value, dict) and value.get("kind") == "reverse" else None
    return value if AnswerRecord.looks_like_payload(value) else None


def _read_samples(path: Path) -> list[dict[str, Any]]:
    """Parsed JSONL lines; a malformed line raises naming the file and the line (1-based)."""
    fix = (
        "the file was truncated or edited: rerun lm_eval --log_samples for this task or "
        "delete the broken line."
    )
    return [sample for _, sample in read_jsonl_objects(path, RunError, fix)]


@dataclass(frozen=True)
class LoadOptions:
    """How output folders are read. ``reparse``: rebuild every answer from its logged raw text
    with the current parser instead of the payload logged at run time; ``allow_partial``: keep
    incomplete tasks (missing answers or samples files) with a warning instead of refusing."""

    reparse: bool = False
    allow_partial: bool = False


def _fingerprint(sample: Mapping[str, Any], who: str, repeat: int, prompt: str) -> str:
    """sha256 of one answer's identity and text: (persona or item, repeat, prompt, answer)."""
    text = json.dumps([who, repeat, prompt, sample.get("resps")], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read_answers(
    samples: Sequence[dict[str, Any]],
    path: Path,
    keep: str,
    options: LoadOptions,
    reverse: bool,
) -> tuple[list[Any], list[Any], list[str]]:
    """(records, docs, fingerprints) of the samples logged under filter ``keep``: forward
    (AnswerRecord, TaskDoc) or ``reverse`` (UserRankRecord, ReverseDoc). With ``reparse`` each
    answer is rebuilt from its raw text. A sample without a coldbias payload, or one that does
    not decode, raises naming the file and line."""
    key = REVERSE_PAYLOAD_KEY if reverse else PAYLOAD_KEY
    doc_type = ReverseDoc if reverse else TaskDoc
    record_type = UserRankRecord if reverse else AnswerRecord
    rebuild = reverse_record_from_answer if reverse else record_from_answer
    records: list[Any] = []
    docs: list[Any] = []
    prints: list[str] = []
    for line_no, sample in enumerate(samples, start=1):
        if str(sample.get("filter", FILTER_NAME)) != keep:
            continue
        payload = _payload(sample.get(key), reverse=reverse)
        if payload is None:
            raise RunError(f"{path}, line {line_no}: {_no_payload(key, reverse)}")
        try:
            doc = doc_type.from_dict(sample.get("doc") or {})
            record = record_type.from_payload(payload)
            if options.reparse:
                record = rebuild(_raw_answer(sample), doc)
        except RecordError as err:
            raise RunError(
                f"{path}, line {line_no}: unusable coldbias sample ({err}); rerun the task."
            ) from err
        records.append(record)
        docs.append(doc)
        who = doc.item_id if reverse else doc.persona_id
        prints.append(_fingerprint(sample, who, doc.repeat, doc.prompt))
    return records, docs, prints


def _no_payload(key: str, reverse: bool) -> str:
    if reverse:
        return f"no coldbias reverse payload under {key!r}; rerun with the package's task YAMLs."
    return (
        f"no coldbias parse payload under {key!r}: the samples were written without the "
        f"coldbias filter (filter_list {FILTER_NAME!r} with "
        "coldbias_tasks.lmeval.harness.parse_filter and process_results). Rerun with the "
        "package's task YAMLs (`coldbias eval ...` or --include_path $(coldbias tasks-dir))."
    )


def _run_settings(task: str, results: Mapping[str, Any]) -> Settings | None:
    """The task's coldbias settings as the run recorded them; None when they do not parse."""
    metadata = ((results.get("configs") or {}).get(task) or {}).get("metadata") or {}
    try:
        return Settings.from_metadata(
            {k: v for k, v in metadata.items() if str(k).startswith("coldbias_")}
        )
    except ColdbiasError:
        return None


def _count_problems(task: str, results: Mapping[str, Any], n_lines: int) -> list[str]:
    """The answers in the samples file against lm-eval's ``n-samples`` count (if any)."""
    count = ((results.get("n-samples") or {}).get(task) or {}).get("effective")
    if isinstance(count, int) and count != n_lines:
        return [f"{n_lines} answers in the samples file but {count} in the results JSON"]
    return []


def _raw_answer(sample: Mapping[str, Any]) -> Any:
    resps = sample.get("resps")
    while isinstance(resps, list) and resps:
        resps = resps[0]
    return resps if isinstance(resps, str) else ""


def _expected(task: str, results: Mapping[str, Any], docs: Sequence[TaskDoc]) -> set | None:
    """The (persona, repeat) pairs the task must hold, from the run's coldbias settings and the
    persona file; None when they cannot be known (a persona file that is gone)."""
    from coldbias_tasks.core.personas import load_personas  # persona files only here

    settings = _run_settings(task, results)
    if settings is None:
        return None
    try:
        personas = load_personas(settings.personas).group(
            docs[0].attribute_group.removeprefix("implicit_"), settings.replicates, docs[0].variant
        )
    except ColdbiasError:
        return None
    return {(p.id, r) for p in personas for r in range(settings.repeats)}


def _completeness(
    task: str, path: Path, n_lines: int, docs: Sequence[TaskDoc], results: Mapping[str, Any]
) -> list[str]:
    """Problems that make a task's numbers incomplete or double-counted (empty when none)."""
    problems = _count_problems(task, results, n_lines)
    seen: dict[tuple[str, int], int] = {}
    for d in docs:
        seen[(d.persona_id, d.repeat)] = seen.get((d.persona_id, d.repeat), 0) + 1
    doubled = sorted(k for k, n in seen.items() if n > 1)
    if doubled:
        problems.append(
            "answers logged twice: " + ", ".join(f"{p} repeat {r}" for p, r in doubled[:5])
        )
    expected = _expected(task, results, docs)
    if expected is not None:
        missing = sorted(expected - set(seen))
        if missing:
            shown = ", ".join(f"{p} repeat {r}" for p, r in missing[:6])
            more = f" and {len(missing) - 6} more" if len(missing) > 6 else ""
            problems.append(f"{len(missing)} answers missing ({shown}{more})")
    return problems


def _task_data(
    task: str,
    path: Path,
    samples: Sequence[dict[str, Any]],
    results: dict[str, Any],
    options: LoadOptions,
) -> tuple[TaskData, list[str]]:
    """Rebuild one task's answers and provenance from its samples file."""
    warnings: list[str] = []
    filters = list(dict.fromkeys(str(s.get("filter", FILTER_NAME)) for s in samples))
    keep = FILTER_NAME if FILTER_NAME in filters else (filters[0] if filters else FILTER_NAME)
    if len(filters) > 1:
        warnings.append(f"{path}: several filters {filters}; using {keep!r}")
    records, docs, prints = _read_answers(samples, path, keep, options, reverse=False)
    if not records:
        raise RunError(f"{path}: no samples; rerun lm_eval --log_samples for {task}.")
    problems = _completeness(task, path, len(records), docs, results)
    partial = _partial(task, path, problems, options, warnings)
    first = docs[0]
    config = results.get("configs", {}).get(task, {})
    version = results.get("versions", {}).get(task, (config.get("metadata") or {}).get("version"))
    reported = {
        key.split(",")[0]: _to_float(value)
        for key, value in results.get("results", {}).get(task, {}).items()
        if "," in key and "_stderr" not in key and not isinstance(value, str)
    }
    data = TaskData(
        name=task,
        domain=first.domain,
        group=first.attribute_group,
        variant=first.variant,
        version=str(version) if version is not None else "unknown",
        records=tuple(records),
        k=first.k,
        n_shown=max(len(d.shown_ids) for d in docs),
        order=first.order,
        seed=first.seed,
        catalog=first.catalog,
        catalog_sha256=first.catalog_sha256,
        template_sha256=first.template_sha256,
        samples_files=(path,),
        reported=reported,
        template=first.template,
        language=first.language,
        shown=tuple(sorted({i for d in docs for i in d.shown_ids})),
        fingerprints=tuple(prints),
        partial=partial,
        sampling=sampling_of(config),
    )
    return data, warnings


def sampling_of(config: Mapping[str, Any]) -> str:
    """The decoding settings of a task config that change the answers' distribution:
    "greedy", or "temperature=T" with top_p / top_k when set ("" when the config has none)."""
    gen = config.get("generation_kwargs") or {}
    if not isinstance(gen, Mapping) or not gen:
        return ""
    if gen.get("do_sample") is False or gen.get("temperature") in (0, 0.0):
        return "greedy"
    parts = [
        f"{key}={gen[key]:g}"
        for key in ("temperature", "top_p", "top_k")
        if isinstance(gen.get(key), (int, float)) and not isinstance(gen.get(key), bool)
    ]
    return ", ".join(parts)


def _partial(
    task: str, path: Path, problems: Sequence[str], options: LoadOptions, warnings: list[str]
) -> str:
    """ "" for a complete task; else a RunError naming the problems and the fix, or with
    ``allow_partial`` the PARTIAL marker (and a warning)."""
    if not problems:
        return ""
    what = f"{path}: task {task} is incomplete: {'; '.join(problems)}"
    if not options.allow_partial:
        raise RunError(
            f"{what}. Its numbers would be wrong: rerun it (coldbias eval ... --tasks {task} "
            "--output_path <new folder>) or restore the original samples file; --allow-partial "
            "reports it anyway, marked partial."
        )
    warnings.append(f"WARNING {what}; reported as partial (--allow-partial)")
    return f"PARTIAL: {'; '.join(problems)}"


def _reverse_task_data(
    task: str,
    path: Path,
    samples: Sequence[dict[str, Any]],
    results: dict[str, Any],
    options: LoadOptions,
) -> tuple[ReverseTaskData, list[str]]:
    """Rebuild one reverse task's answers from its samples file (checked for completeness:
    every item × repeat once, as many answers as lm-eval counted)."""
    warnings: list[str] = []
    records, docs, prints = _read_answers(samples, path, FILTER_NAME, options, reverse=True)
    if not records:
        raise RunError(f"{path}: no samples; rerun lm_eval --log_samples for {task}.")
    problems = _count_problems(task, results, len(records))
    settings = _run_settings(task, results)
    keys = [(d.item_id, d.repeat) for d in docs]
    if len(set(keys)) != len(keys):
        problems.append("answers logged twice")
    items = {d.item_id for d in docs}
    if settings is not None:
        missing = len(items) * settings.repeats - len(set(keys))
        if missing > 0:
            problems.append(f"{missing} answers missing (items × repeats)")
    partial = _partial(task, path, problems, options, warnings)
    first = docs[0]
    version = (results.get("versions") or {}).get(task)
    data = ReverseTaskData(
        name=task,
        domain=first.domain,
        group=first.attribute_group,
        version=str(version) if version is not None else "unknown",
        records=tuple(records),
        n_items=len(items),
        seed=first.seed,
        catalog=first.catalog,
        catalog_sha256=first.catalog_sha256,
        template_sha256=first.template_sha256,
        language=first.language,
        samples_files=(path,),
        fingerprints=tuple(prints),
        partial=partial,
    )
    return data, warnings


def _extra_metrics(results: dict[str, Any], tasks: Iterable[str]) -> dict[str, ExtraMetric]:
    """Headline (first) metric of each non-coldbias task; subtasks of a listed group skipped."""
    table = results.get("results", {})
    subtasks = {
        sub
        for group, subs in (results.get("group_subtasks") or {}).items()
        if group in table and not is_coldbias_task(group)
        for sub in subs
    }
    hib = results.get("higher_is_better") or {}
    out: dict[str, ExtraMetric] = {}
    for task in tasks:
        if task in subtasks:
            continue
        entry = table.get(task, {})
        for key, value in entry.items():
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            if key in NON_METRIC_KEYS or "_stderr" in key or not numeric:
                continue
            metric, _, filt = key.partition(",")
            stderr = _to_float(entry.get(f"{metric}_stderr,{filt}" if filt else f"{metric}_stderr"))
            better = (hib.get(task) or {}).get(metric)
            out[task] = ExtraMetric(task, key, float(value), stderr, better)
            break
    return out


def _load_run(results_file: Path, samples: dict[str, Path], options: LoadOptions) -> Run:
    """One results file with its samples files (task → path)."""
    results = _read_json(results_file)
    table = results["results"]
    configs = results.get("configs") or {}
    coldbias = sorted(t for t in configs if is_coldbias_task(t))
    coldbias += sorted(t for t in samples if is_coldbias_task(t) and t not in configs)
    foreign = sorted(t for t in table if not is_coldbias_task(t))
    warnings: list[str] = []
    tasks: dict[str, TaskData] = {}
    missing = [t for t in coldbias if t not in samples]
    reverse: dict[str, ReverseTaskData] = {}
    for task in coldbias:
        if task not in samples:
            continue
        lines = _read_samples(samples[task])
        if is_reverse_task(task):
            reverse[task], notes = _reverse_task_data(task, samples[task], lines, results, options)
        else:
            tasks[task], notes = _task_data(task, samples[task], lines, results, options)
        warnings += notes
    if coldbias and not tasks and not reverse:
        raise RunError(
            f"{results_file}: results of {', '.join(coldbias)} but no samples_<task>_<ts>.jsonl "
            "next to it: the run was written without --log_samples (or the samples were "
            "deleted). Rerun lm_eval with --log_samples; coldbias needs the logged answers."
        )
    if missing:
        what = f"{results_file}: no samples file for {', '.join(missing)} (an interrupted run?)"
        if not options.allow_partial:
            raise RunError(
                f"{what}. Rerun those tasks, or restore their samples_<task>_<ts>.jsonl; "
                "--allow-partial reports the other tasks anyway, with a warning."
            )
        warnings.append(f"WARNING {what}: those tasks are left out (--allow-partial)")
    config = results.get("config") or {}
    model_args = parse_model_args(config.get("model_args"))
    model = str(
        results.get("model_name")
        or model_args.get("pretrained")
        or model_args.get("model")
        or results_file.parent.name
    )
    seeds: dict[str, Any] = {k: config.get(k) for k in SEED_KEYS if k in config}
    if "seed" in model_args:
        seeds["model_args.seed"] = model_args["seed"]
    doc_seeds = sorted({str(t.seed) for t in tasks.values() if t.seed is not None})
    if doc_seeds:
        seeds["coldbias_seed"] = ", ".join(doc_seeds)
    return Run(
        results_file=results_file,
        model=model,
        backend=str(config.get("model", results.get("model_source", "unknown"))),
        model_args=model_args,
        seeds=seeds,
        lm_eval_version=str(results.get("lm_eval_version", "unknown")),
        transformers_version=str(results.get("transformers_version", "unknown")),
        date=_to_float(results.get("date")) if results.get("date") is not None else None,
        tasks=tasks,
        other_metrics=_extra_metrics(results, foreign),
        foreign_tasks=tuple(foreign),
        warnings=tuple(warnings),
        reverse=reverse,
        serving=dict(config.get("coldbias_serving") or {}),
    )


def scan_folder(folder: str | Path, options: LoadOptions | None = None) -> list[Run]:
    """Every results file under ``folder`` (recursively) as a :class:`Run`, coldbias or not.

    Raises :class:`RunError` for a missing folder, a folder without lm-eval output, samples
    without a results file, malformed files and samples lacking coldbias payloads.
    """
    root = Path(folder)
    if not root.is_dir():
        raise RunError(f"{root}: no such folder; pass the folder given to lm_eval --output_path.")
    results_files = sorted(p for p in root.rglob("results_*.json") if _RESULTS_RE.match(p.name))
    samples_files = sorted(p for p in root.rglob("samples_*.jsonl") if _SAMPLES_RE.match(p.name))
    if not results_files and not samples_files:
        raise RunError(f"{root}: {_NOT_OUTPUT}.")
    by_stamp: dict[tuple[Path, str], dict[str, Path]] = defaultdict(dict)
    for path in samples_files:
        m = _SAMPLES_RE.match(path.name)
        assert m is not None
        by_stamp[(path.parent, m["ts"])][m["task"]] = path
    runs: list[Run] = []
    used: set[tuple[Path, str]] = set()
    for path in results_files:
        m = _RESULTS_RE.match(path.name)
        assert m is not None
        key = (path.parent, m["ts"])
        used.add(key)
        runs.append(_load_run(path, by_stamp.get(key, {}), options or LoadOptions()))
    orphans = [p for key, tasks in by_stamp.items() if key not in used for p in tasks.values()]
    if orphans and not runs:
        raise RunError(
            f"{root}: samples files ({orphans[0].name}, ...) but no results_<ts>.json beside "
            "them: a partial lm-eval output (interrupted run?). Rerun lm_eval, or copy the "
            "whole output folder."
        )
    if orphans:
        note = (
            f"{root}: samples without a results file skipped: {', '.join(p.name for p in orphans)}"
        )
        runs = [dataclasses.replace(runs[0], warnings=(*runs[0].warnings, note)), *runs[1:]]
    return runs


def load_folder(folder: str | Path, options: LoadOptions | None = None) -> list[Run]:
    """The runs under ``folder`` that hold coldbias tasks; a foreign folder raises RunError."""
    runs = scan_folder(folder, options)
    ours = [r for r in runs if r.has_coldbias]
    if not ours:
        found = sorted({t for r in runs for t in r.foreign_tasks})
        listed = ", ".join(found[:8]) + (", ..." if len(found) > 8 else "")
        raise RunError(
            f"{folder}: holds no coldbias task (found: {listed or 'no task'}); run the coldbias "
            "tasks (e.g. --tasks coldbias_movie with --include_path $(coldbias tasks-dir)) "
            "into this folder or pass another one."
        )
    return ours


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


def _pool_task(parts: Sequence[TaskData]) -> tuple[TaskData, int]:
    """One task over several runs (:func:`_pool_repeats`); the seed is kept only when every run
    shares it. Returns the pooled task and the number of repeats left out."""
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
        reported={},  # the results JSON values belong to single runs
        partial="; ".join(dict.fromkeys(p.partial for p in parts if p.partial)),
    )
    return pooled, dropped


def _pool_reverse(parts: Sequence[ReverseTaskData]) -> tuple[ReverseTaskData, int]:
    """A reverse task over several runs (:func:`_pool_repeats`); returns it and the number of
    repeats left out."""
    if len(parts) == 1:
        return parts[0], 0
    records, prints, dropped = _pool_repeats(parts)
    pooled = dataclasses.replace(
        parts[0],
        records=tuple(records),
        fingerprints=tuple(prints),
        samples_files=tuple(f for p in parts for f in p.samples_files),
        partial="; ".join(dict.fromkeys(p.partial for p in parts if p.partial)),
    )
    return pooled, dropped


def display_name(model: str) -> str:
    """A local model path is shown by its folder name; hub ids ("org/name") stay whole."""
    if model.startswith(("/", "./", "../", "~")) or "\\" in model:
        return Path(model.rstrip("/\\")).name or model
    return model


def _model_label(
    rows: Sequence[tuple[str, str, dict[str, str]]],
    prompts: Sequence[Sequence[tuple[str, str, str]]] | None = None,
) -> list[str]:
    """Row labels: the model name, disambiguated when it repeats: by the prompt template,
    language and decoding settings when those differ, else by backend and args."""
    prompts = prompts or [[] for _ in rows]
    rows = [(display_name(name), backend, args) for name, backend, args in rows]
    names = [name for name, _, _ in rows]
    labels = []
    for (name, backend, args), prompt in zip(rows, prompts):
        if names.count(name) == 1:
            labels.append(name)
            continue
        others = {tuple(p) for (n, _, _), p in zip(rows, prompts) if n == name}
        if len(others) > 1 and prompt:
            samplings = {x[2] for o in others for x in o}
            tag = "; ".join(
                f"template {t}, {lang}" + (f", {smp}" if len(samplings) > 1 and smp else "")
                for t, lang, smp in prompt
            )
            labels.append(f"{name} [{tag}]")
            continue
        shown = ",".join(f"{k}={v}" for k, v in sorted(args.items()) if k != "pretrained")
        labels.append(f"{name} [{backend}{'; ' + shown if shown else ''}]")
    seen: dict[str, int] = defaultdict(int)
    out = []
    for label in labels:
        seen[label] += 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
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
    groups: list[dict[str, Any]] = []
    for run in (r for r in ordered if r.has_coldbias):
        target = None
        for g in groups:
            if g["identity"] != run.identity:
                continue
            clash = any(
                name in g["tasks"] and g["tasks"][name][0].protocol != t.protocol
                for name, t in [*run.tasks.items(), *run.reverse.items()]
            )
            if not clash:
                target = g
                break
        if target is None:
            target = {"identity": run.identity, "runs": [], "tasks": defaultdict(list)}
            groups.append(target)
        target["runs"].append(run)
        for name, t in [*run.tasks.items(), *run.reverse.items()]:
            target["tasks"][name].append(t)
    for run in (r for r in ordered if not r.has_coldbias):
        for g in groups:
            if g["identity"] == run.identity:
                g["runs"].append(run)
                break
    rows = [(g["identity"][0], g["identity"][1], dict(g["identity"][2])) for g in groups]
    prompts = [
        sorted(
            {
                (t.template, t.language, t.sampling)
                for parts in g["tasks"].values()
                for t in parts
                if isinstance(t, TaskData)
            }
        )
        for g in groups
    ]
    out = []
    for g, label in zip(groups, _model_label(rows, prompts)):
        members: list[Run] = g["runs"]
        warnings = [*notes, *(w for r in members for w in r.warnings)]
        notes = []
        pooled: dict[str, TaskData] = {}
        pooled_reverse: dict[str, ReverseTaskData] = {}
        for name, parts in sorted(g["tasks"].items()):
            if isinstance(parts[0], ReverseTaskData):
                pooled_reverse[name], dropped = _pool_reverse(parts)
            else:
                pooled[name], dropped = _pool_task(parts)
            if dropped:
                warnings.append(
                    f"{label}: {dropped} repeat(s) of {name} appear in two runs with the very "
                    "same answers; pooled once"
                )
        extra: dict[str, list[ExtraMetric]] = defaultdict(list)
        for r in members:
            for task, metric in r.other_metrics.items():
                extra[task].append(metric)
        out.append(
            ModelResults(
                label=label,
                model=g["identity"][0],
                backend=g["identity"][1],
                model_args=dict(g["identity"][2]),
                runs=tuple(members),
                tasks=pooled,
                reverse=pooled_reverse,
                other_metrics={task: _mean_metric(ms) for task, ms in extra.items()},
                warnings=tuple(warnings),
            )
        )
    return out


def _mean_metric(metrics: Sequence[ExtraMetric]) -> ExtraMetric:
    """Mean of one capability metric over runs (stderr combined as for independent means)."""
    if len(metrics) == 1:
        return metrics[0]
    n = len(metrics)
    value = sum(m.value for m in metrics) / n
    stderr = math.sqrt(sum(m.stderr**2 for m in metrics)) / n
    return dataclasses.replace(metrics[0], value=value, stderr=stderr)
