"""Read lm-evaluation-harness output folders into :class:`~coldbias_tasks.analysis.run_data.Run`.

An output folder is what ``lm_eval --output_path OUT --log_samples`` writes:
``OUT/<model>/results_<ts>.json`` plus one ``samples_<task>_<ts>.jsonl`` per task of that run.
Folders are searched recursively; every results file is one :class:`Run`, paired with the
samples files of the same timestamp in the same directory (each read by
:func:`coldbias_tasks.analysis.run_samples.read_task`); the other benchmarks of the results
file become its :class:`CapabilityMetric` values.

Problems raise :class:`RunError`, whose message names the folder or file and the fix.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from coldbias_tasks.analysis.eee import score_problem
from coldbias_tasks.analysis.run_data import (
    CapabilityMetric,
    LoadOptions,
    ReverseTaskData,
    Run,
    TaskData,
)
from coldbias_tasks.analysis.run_samples import read_task
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.files.jsonl import json_value, read_text
from coldbias_tasks.core.vocabulary import is_coldbias_task

__all__ = ["load_folder", "parse_model_args", "scan_folder"]

#: lm-eval run settings recorded as seeds in the results JSON ``config``.
SEED_KEYS = ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")
#: Largest results JSON read (bytes; lm-eval's are a few hundred kB).
RESULTS_LIMIT = 256 << 20
#: Keys of ``results[task]`` that are not metrics.
NON_METRIC_KEYS = {"alias", "name", "sample_len", "samples", " "}

_RESULTS_RE = re.compile(r"^results_(?P<ts>.+)\.json$")
_SAMPLES_RE = re.compile(
    r"^samples_(?P<task>.+)_(?P<ts>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl(?:\.gz)?$"
)

_NOT_OUTPUT = (
    "not an lm-eval output folder: run lm_eval with --output_path and --log_samples "
    "(e.g. `coldbias eval --model hf --model_args pretrained=... --tasks coldbias_movie "
    "--output_path OUT`), then pass OUT"
)


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
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond 1e308
        return math.nan


def _read_json(path: Path) -> dict[str, Any]:
    text = read_text(path, RunError, RESULTS_LIMIT)
    fix = "the file is truncated or edited: rerun lm_eval or restore the file."
    data = json_value(text, RunError, str(path), fix)
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise RunError(
            f"{path}: not an lm-eval results file (no 'results' mapping); pass the folder "
            "lm_eval --output_path wrote."
        )
    _check_shape(path, data)
    return data


#: Keys of a results JSON that are mappings: key → the type of each of their values (None:
#: any), and the mappings inside a task's config.
_SHAPE: dict[str, type | None] = {
    "results": dict, "configs": dict, "versions": None, "n-samples": dict,
    "higher_is_better": dict, "group_subtasks": list, "config": None,
}  # fmt: skip
_CONFIG_SHAPE = ("metadata", "dataset_kwargs", "generation_kwargs")


def _check_shape(path: Path, data: dict[str, Any]) -> None:
    """Refuse a results JSON whose fields have the wrong type (``config: []``, a task's
    results or config that is no mapping), naming the field, instead of failing later."""
    problem = None
    for key, inner in _SHAPE.items():
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, dict):
            problem = f"{key!r} is {type(value).__name__}, not a mapping"
            break
        bad = [k for k, v in value.items() if inner is not None and not isinstance(v, inner)]
        if bad:
            problem = f"{key}[{bad[0]!r}] is not a {inner.__name__}"  # type: ignore[union-attr]
            break
    for task, config in (data.get("configs") or {}).items():
        for key in _CONFIG_SHAPE:
            if (
                problem is None
                and config.get(key) is not None
                and not isinstance(config[key], dict)
            ):
                problem = f"configs[{task!r}][{key!r}] is not a mapping"
    for key in ("model_name", "lm_eval_version", "transformers_version"):
        if problem is None and not isinstance(data.get(key, ""), (str, type(None))):
            problem = f"{key!r} is not text"
    config = data.get("config")
    if problem is None and isinstance(config, dict):
        problem = _serving_problem(config.get("coldbias_serving"))
    if problem is not None:
        raise RunError(
            f"{path}: not an lm-eval results file ({problem}); restore the file or rerun lm_eval."
        )


#: The served models' counts (``config.coldbias_serving``, lmeval/served.ServingStats) by kind.
_SERVING_COUNTS = ("requests", "cached", "retries", "timeouts", "failed", "aborted",
                   "empty_content", "malformed", "cut_at_max_tokens", "prompt_tokens",
                   "completion_tokens", "num_concurrent")  # fmt: skip
_SERVING_SHAPE: dict[str, tuple[type, ...]] = {
    "seeds": (str,), "errors": (list,), "by_task": (dict,), "settings": (dict,),
    "server_dead": (str, type(None)), "max_model_len": (int, type(None)),
}  # fmt: skip


def _serving_problem(serving: object) -> str | None:
    """What is wrong with a served run's counts (``wall_s: "fast"``), or None."""
    if serving is None:
        return None
    if not isinstance(serving, dict):
        return f"config.coldbias_serving is {type(serving).__name__}, not a mapping"
    for key, value in serving.items():
        if key in _SERVING_COUNTS and (type(value) is not int or value < 0):
            return f"config.coldbias_serving.{key} is {value!r:.40}, not a count"
        if key == "wall_s" and not (
            type(value) in (int, float) and math.isfinite(value) and value >= 0
        ):
            return f"config.coldbias_serving.wall_s is {value!r:.40}, not seconds"
        kinds = _SERVING_SHAPE.get(key)
        if kinds is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            return f"config.coldbias_serving.{key} is {value!r:.40}, not {kinds[0].__name__}"
    return None


def _capabilities(
    results: dict[str, Any], tasks: Iterable[str], notes: list[str], where: Path
) -> dict[str, CapabilityMetric]:
    """Headline (first) metric of each non-coldbias task; subtasks of a listed group skipped.
    A value that is not a number, not finite or out of range, or whose stderr is negative, is
    not shown: a message (in ``notes``, naming the file ``where``) says so."""
    table = results.get("results", {})
    subtasks = {
        sub
        for group, subs in (results.get("group_subtasks") or {}).items()
        if group in table and not is_coldbias_task(group)
        for sub in subs
    }
    hib = results.get("higher_is_better") or {}
    out: dict[str, CapabilityMetric] = {}
    for task in tasks:
        if task in subtasks:
            continue
        entry = table.get(task, {})
        for key, value in entry.items():
            if key in NON_METRIC_KEYS or "_stderr" in key:
                continue
            metric, _, filt = key.partition(",")
            stderr = _to_float(entry.get(f"{metric}_stderr,{filt}" if filt else f"{metric}_stderr"))
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            problem = score_problem(_to_float(value), stderr) if numeric else "not a number"
            if problem is not None:
                notes.append(f"{where}: {task} {key} = {value!r}: {problem}; not shown")
                continue
            better = (hib.get(task) or {}).get(metric)
            out[task] = CapabilityMetric(task, key, _to_float(value), stderr, better)
            break
    return out


def _load_run(results_file: Path, samples: dict[str, Path], options: LoadOptions) -> Run:
    """One results file with its samples files (task → path)."""
    results = _read_json(results_file)
    table = results["results"]
    configs = results.get("configs") or {}
    coldbias = sorted(t for t in configs if is_coldbias_task(t))
    coldbias += sorted(t for t in samples if is_coldbias_task(t) and t not in configs)
    capability_tasks = sorted(t for t in table if not is_coldbias_task(t))
    warnings: list[str] = []
    tasks: dict[str, TaskData] = {}
    missing = [t for t in coldbias if t not in samples]
    reverse: dict[str, ReverseTaskData] = {}
    for task in coldbias:
        if task not in samples:
            continue
        data, notes = read_task(task, samples[task], results, options)
        if isinstance(data, ReverseTaskData):
            reverse[task] = data
        else:
            tasks[task] = data
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
        capabilities=_capabilities(results, capability_tasks, warnings, results_file),
        capability_tasks=tuple(capability_tasks),
        warnings=tuple(warnings),
        reverse=reverse,
        serving=dict(serving)
        if isinstance(serving := config.get("coldbias_serving"), Mapping)
        else {},
    )


def scan_folder(
    folder: str | Path, options: LoadOptions | None = None, skipped: list[str] | None = None
) -> list[Run]:
    """Every results file under ``folder`` (recursively) as a :class:`Run`, coldbias or not.

    Raises :class:`RunError` for a missing folder, a folder without lm-eval output, samples
    without a results file, malformed files and samples lacking coldbias payloads. With a
    ``skipped`` list, a results file that cannot be used is appended there as one message
    (file and reason) instead, and the other runs of the folder are kept.
    """
    root = Path(folder)
    if not root.is_dir():
        raise RunError(f"{root}: no such folder; pass the folder given to lm_eval --output_path.")
    results_files = sorted(p for p in root.rglob("results_*.json") if _RESULTS_RE.match(p.name))
    # lm-eval's samples files, or gzipped copies of them (committed runs: leaderboards/)
    samples_files = sorted(p for p in root.rglob("samples_*.jsonl*") if _SAMPLES_RE.match(p.name))
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
        try:
            runs.append(_load_run(path, by_stamp.get(key, {}), options or LoadOptions()))
        except RunError as err:
            if skipped is None:
                raise
            skipped.append(f"skipped: {err}")
    orphans = [p for key, tasks in by_stamp.items() if key not in used for p in tasks.values()]
    if orphans and not runs and not skipped:
        raise RunError(
            f"{root}: samples files ({orphans[0].name}, ...) but no results_<ts>.json beside "
            "them: a partial lm-eval output (interrupted run?). Rerun lm_eval, or copy the "
            "whole output folder."
        )
    if orphans and not runs and skipped:  # every results file beside them was skipped
        skipped.append(f"{root}: samples without a results file skipped: {orphans[0].name}, ...")
    elif orphans:
        note = (
            f"{root}: samples without a results file skipped: {', '.join(p.name for p in orphans)}"
        )
        runs = [dataclasses.replace(runs[0], warnings=(*runs[0].warnings, note)), *runs[1:]]
    return runs


def load_folder(folder: str | Path, options: LoadOptions | None = None) -> list[Run]:
    """The runs under ``folder`` that hold coldbias tasks; a foreign folder raises RunError.
    A results file that cannot be used raises too; with ``allow_partial`` it is left out with
    a warning naming the file and the reason, unless no usable run is left."""
    skipped: list[str] = []
    allow = options is not None and options.allow_partial
    runs = scan_folder(folder, options, skipped if allow else None)
    ours = [r for r in runs if r.has_coldbias]
    if skipped and not ours:
        raise RunError(skipped[0].removeprefix("skipped: "))
    if skipped:
        notes = tuple(f"WARNING {note} (left out: --allow-partial)" for note in skipped)
        ours[0] = dataclasses.replace(ours[0], warnings=(*ours[0].warnings, *notes))
    if not ours:
        found = sorted({t for r in runs for t in r.capability_tasks})
        listed = ", ".join(found[:8]) + (", ..." if len(found) > 8 else "")
        raise RunError(
            f"{folder}: holds no coldbias task (found: {listed or 'no task'}); run the coldbias "
            "tasks (e.g. --tasks coldbias_movie with --include_path $(coldbias tasks-dir)) "
            "into this folder or pass another one."
        )
    return ours
