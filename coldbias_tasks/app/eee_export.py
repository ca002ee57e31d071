"""``coldbias eee RUN_DIR --output DIR``: Every Eval Ever records of a coldbias run, validated.

1. Every ``results_*.json`` under RUN_DIR (an lm-eval ``--output_path`` folder) is staged with
   its undefined numbers (NaN, ±inf: a task withheld for deterministic answers, a test without
   replicates) written as lm-eval's own mark ``"N/A"``
   (:func:`~coldbias_tasks.analysis.eee.undefined_as_na`): EEE's converter 0.3.0 stops at NaN
   ("Out of range float values are not JSON compliant") and skips strings. With
   ``--include-samples`` the samples files are staged next to them.
2. EEE's own lm-eval converter (``python -m every_eval_ever.converters.lm_eval``) turns the
   staged copy into records, one per task and group, in ``DIR/data/<task>/<org>/<model>/``.
   Standard errors are carried: lm-eval logs coldbias' ``X_stderr`` next to ``X`` and the
   converter stores it as ``X``'s ``score_details.uncertainty.standard_error``.
3. coldbias' facts are added to each coldbias score (:mod:`coldbias_tasks.analysis.eee_records`):
   direction, range, the standard error's method, the 95 % confidence interval with its method,
   p-value, verdict and note, from the estimates the report shows (the run's samples read by
   the offline loader; from the results file alone when it has none); p-values, bounds and
   verdicts are no scores of their own. One overall record per model (``coldbias_overall``:
   the headline pooled over its plain attribute tasks) is written next to the task records.
4. EEE's validator (schema and the datastore's semantic checks) checks every file written.

DIR is written all or nothing (:class:`~coldbias_tasks.app.outputs.OutputFolder`): a second
conversion replaces the first instead of adding records with new UUIDs. Every problem is one
:class:`~coldbias_tasks.core.errors.RunError` line.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coldbias_tasks.analysis.eee import undefined_as_na
from coldbias_tasks.analysis.eee_records import OVERALL_TASK, enrich_result, overall_result
from coldbias_tasks.analysis.leaderboard_cells import counted, model_estimate
from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.run_data import LoadOptions
from coldbias_tasks.analysis.run_files import RESULTS_LIMIT, load_folder
from coldbias_tasks.analysis.summaries import summarize_task
from coldbias_tasks.app.outputs import OutputFolder
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.files.jsonl import json_file
from coldbias_tasks.core.measures import DISPARITY, LmKey, lm_keys
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.result import task_result
from coldbias_tasks.core.similarities import SIMILARITY_NAMES
from coldbias_tasks.core.stats.estimate import Estimate
from coldbias_tasks.core.vocabulary import ANSWER_KEY, FILTER_NAME, is_coldbias_task

#: every lm-eval key of a registered measure
_KEYS: dict[str, LmKey] = {**lm_keys(), **lm_keys(reverse=True)}

__all__ = ["EEEExport", "export_eee", "validate_records"]

_RESULTS_FIX = "restore the file or rerun lm_eval"
_INSTALL = (
    "install it: pip install --no-deps --ignore-requires-python every-eval-ever==0.3.0 "
    "(scripts/setup.sh does; docs/eee.md)"
)


@dataclass
class EEEExport:
    """What :func:`export_eee` wrote: ``records`` (aggregate ``.json``), ``samples``
    (``.jsonl``), the results files converted and how many undefined numbers became "N/A"."""

    output: Path
    records: list[Path] = field(default_factory=list)
    samples: list[Path] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    undefined: int = 0
    messages: list[str] = field(default_factory=list)


def _one_line(text: str, limit: int = 400) -> str:
    return " ".join(text.split())[:limit]


def _with_model_id(data: dict[str, Any], model_id: str) -> dict[str, Any]:
    """``data`` with ``pretrained=`` of ``config.model_args`` (what EEE takes as the model id)
    set to ``model_id``."""
    config = dict(data.get("config") or {})
    args = config.get("model_args") or ""
    if isinstance(args, dict):
        config["model_args"] = {**args, "pretrained": model_id}
    else:
        parts = [p for p in str(args).split(",") if p and not p.startswith("pretrained=")]
        config["model_args"] = ",".join([f"pretrained={model_id}", *parts])
    return {**data, "config": config}


def _not_a_score(key: str) -> bool:
    """An lm-eval key that is no score of its own: the number of answers, a p-value, an
    interval bound or a verdict of a coldbias measure (and lm-eval's "_stderr" of those)."""
    name = key.partition(",")[0].removesuffix("_stderr")
    if name == ANSWER_KEY:
        return True
    found = _KEYS.get(name)
    return found is not None and found.part not in ("value", "stderr")


def _scores_only(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the entries of its tasks and groups that are no score
    (:func:`_not_a_score`): EEE gets each value with its standard error, and coldbias adds the
    rest to the value's record (:func:`_enrich`)."""
    out = dict(data)
    for section in ("results", "higher_is_better"):
        table = data.get(section)
        if isinstance(table, dict):
            out[section] = {
                task: {k: v for k, v in entry.items() if not _not_a_score(k)}
                if isinstance(entry, dict)
                else entry
                for task, entry in table.items()
            }
    return out


def _stage(
    run_dir: Path, stage: Path, include_samples: bool, model_id: str | None = None
) -> tuple[list[Path], int]:
    """Copy RUN_DIR's results files (undefined numbers as "N/A", the model id replaced if
    given) and, if asked, their samples files into ``stage`` at the same relative paths;
    returns the sources and the count of undefined numbers."""
    sources = sorted(run_dir.rglob("results_*.json")) if run_dir.is_dir() else [run_dir]
    if not sources or not all(p.is_file() for p in sources):
        raise RunError(
            f"{run_dir}: no lm-eval results_*.json in it; pass the folder given to "
            "`coldbias eval --output_path` (or lm_eval's), or one results file."
        )
    base = run_dir if run_dir.is_dir() else run_dir.parent
    undefined = 0
    for src in sources:
        dest = stage / src.relative_to(base)
        dest.parent.mkdir(parents=True, exist_ok=True)
        data = json_file(src, RunError, _RESULTS_FIX, RESULTS_LIMIT)
        if not isinstance(data, dict):
            raise RunError(f"{src}: not an lm-eval results file (not an object); {_RESULTS_FIX}")
        _check_date(src, data.get("date"))
        fixed, count = undefined_as_na(_scores_only(data))
        if model_id:
            fixed = _with_model_id(fixed, model_id)
        undefined += count
        dest.write_text(json.dumps(fixed, indent=2, allow_nan=False), encoding="utf-8")
        if include_samples:
            for samples in src.parent.glob("samples_*.jsonl"):
                target = dest.parent / samples.name
                if not target.exists():
                    target.symlink_to(samples.resolve())
    return sources, undefined


def _check_date(src: Path, date: object) -> None:
    """lm-eval's ``date`` is seconds since 1970 (EEE's converter makes it an integer)."""
    if date is None or (isinstance(date, (int, float)) and not isinstance(date, bool)
                        and math.isfinite(date) and 0 <= date < 1e11):  # fmt: skip
        return
    raise RunError(
        f"{src}: date is {_one_line(repr(date), 60)}, not seconds since 1970 as lm-eval writes "
        "it; restore the file (or remove the field) and rerun coldbias eee."
    )


def _logged_estimate(logged: dict[str, Any], lk: LmKey) -> Estimate:
    """An estimate rebuilt from a results file's entry (a run without samples, a group)."""
    names = lk.measure.key_names(lk.similarity)

    def number(part: str) -> float:
        value = logged.get(f"{names[part]},{FILTER_NAME}") if part in names else None
        return float(value) if isinstance(value, (int, float)) else math.nan

    stderr = logged.get(f"{names['value']}_stderr,{FILTER_NAME}")
    verdict = logged.get(f"{names.get('verdict')},{FILTER_NAME}", "")
    return Estimate(
        number("value"), float(stderr) if isinstance(stderr, (int, float)) else math.nan,
        number("ci_low"), number("ci_high"), p_value=number("p"),
        verdict=verdict if isinstance(verdict, str) else "",
    )  # fmt: skip


def _task_estimates(run_dir: Path) -> tuple[dict[str, Any], list[Any]]:
    """task name → its TaskResult (forward and reverse), and the forward task summaries, from
    the run's samples (the offline loader's checks included); empty without samples."""
    try:
        models = pool_runs(load_folder(run_dir, LoadOptions(documents=build_docs)))
    except RunError:
        return {}, []
    out: dict[str, Any] = {}
    stats = []
    for model in models:
        for name, task in model.tasks.items():
            summary = summarize_task(task)
            stats.append(summary)
            out[name] = summary.result
        for name, task in model.reverse.items():
            out[name] = task_result(task.records)
    return out, stats


def _enrich(records_root: Path, run_dir: Path, sources: list[Path]) -> list[str]:
    """Add coldbias' facts to every coldbias score of the records under ``records_root`` and
    write the overall record (module docstring); returns messages."""
    results, stats = _task_estimates(run_dir)
    logged: dict[str, dict[str, Any]] = {}
    subtasks: dict[str, list[str]] = {}
    for src in sources:
        data = json_file(src, RunError, _RESULTS_FIX, RESULTS_LIMIT)
        logged |= {k: v for k, v in (data.get("results") or {}).items() if isinstance(v, dict)}
        subtasks |= {k: list(v) for k, v in (data.get("group_subtasks") or {}).items()}
    template: tuple[Path, dict[str, Any]] | None = None
    for path in sorted(records_root.rglob("*.json")):
        record = json_file(path, RunError, "EEE's converter wrote it: report this")
        entries = record.get("evaluation_results") if isinstance(record, dict) else None
        if not isinstance(entries, list):
            continue
        for i, entry in enumerate(entries):
            task = str(entry.get("evaluation_name", "")).partition("/")[0]
            lk = _KEYS.get(str((entry.get("metric_config") or {}).get("metric_name")))
            if lk is None or lk.part != "value" or not is_coldbias_task(task):
                continue
            pooled = task in subtasks
            if task in results:
                estimate = results[task].estimate(lk.measure, lk.similarity)
            else:
                estimate = _logged_estimate(logged.get(task, {}), lk)
            entries[i] = enrich_result(entry, lk.measure, estimate, pooled)
            if template is None and not pooled:
                template = (path, entry)
        path.write_text(json.dumps(record, indent=2, allow_nan=False), encoding="utf-8")
    if template is None or not stats:
        return ["no overall record: the run has no samples of attribute tasks (--log_samples)"]
    return [_write_overall(records_root, *template, stats)]


def _write_overall(
    records_root: Path, source: Path, entry: dict[str, Any], stats: list[Any]
) -> str:
    """The overall record next to ``source`` (a task record of the same model): the headline
    of every similarity pooled over the model's plain attribute tasks."""
    record = json_file(source, RunError, "EEE's converter wrote it: report this")
    n_tasks = len([s for s in stats if counted(s.task) and s.task.variant == "plain"])
    record["evaluation_results"] = [
        overall_result(
            entry,
            DISPARITY.key_names(sim)["value"],
            DISPARITY,
            model_estimate(stats, DISPARITY, sim),
            n_tasks,
        )
        for sim in SIMILARITY_NAMES
    ]
    record.pop("detailed_evaluation_results", None)  # the task's samples, not the overall's
    developer, model = source.parent.parent.name, source.parent.name
    stamp = str(record.get("retrieved_timestamp", ""))
    record["evaluation_id"] = f"{OVERALL_TASK}/{developer}/{model}/{stamp}"
    folder = records_root / OVERALL_TASK / developer / model
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{uuid.uuid4()}.json"
    target.write_text(json.dumps(record, indent=2, allow_nan=False), encoding="utf-8")
    first = record["evaluation_results"][0]["score_details"]
    return f"overall record: {first['score']:+.4f} over {n_tasks} tasks ({target.name})"


def _failure(out: Path, proc: subprocess.CompletedProcess[str]) -> str:
    """The converter's reason in one line: its failure report, else its last error line."""
    for report in sorted(out.rglob("*_failures.json")):
        try:
            failures = json_file(report, RunError, "")
        except RunError:
            continue
        items = failures
        if isinstance(failures, dict):  # every-eval-ever 0.3.0: failed_records
            items = failures.get("failed_records", failures.get("failures", []))
        if isinstance(items, list) and items:
            first = items[0]
            if isinstance(first, dict) and "reason" in first:
                return _one_line(f"{first.get('source_ref', report.name)}: {first['reason']}")
            return _one_line(json.dumps(first) if not isinstance(first, str) else first)
    lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
    return _one_line(lines[-1]) if lines else f"exit code {proc.returncode}"


def validate_records(root: Path) -> tuple[int, list[str]]:
    """EEE's validator over every file under ``root/data`` (schema and semantic checks, as in
    the datastore); returns the number of files and one message per invalid file."""
    from every_eval_ever.validator import validate_file

    files = sorted(p for p in (root / "data").rglob("*") if p.is_file())
    repo = {p.relative_to(root).as_posix() for p in files}
    problems = []
    for path in files:
        report = validate_file(
            path,
            repo_path=path.relative_to(root).as_posix(),
            available_files=repo,
            read_repo_file=lambda rel: (root / rel).read_text(encoding="utf-8"),
            run_semantic_checks=True,
        )
        if not report.valid:
            problems.append(f"{path.relative_to(root)}: {_one_line(str(report.errors[:2]), 300)}")
    return len(files), problems


def export_eee(
    run_dir: str | Path,
    output: str | Path,
    include_samples: bool = False,
    converter_args: Sequence[str] = (),
    model_id: str | None = None,
) -> EEEExport:
    """Convert, validate and write (module docstring); ``model_id`` (hub style ``org/name``)
    replaces the run's ``pretrained=`` as the records' model id. Raises RunError when EEE is
    missing, the run has no results, the converter fails (its reason) or a record is
    invalid."""
    if model_id is not None and (model_id.count("/") != 1 or model_id.strip("/") != model_id):
        raise RunError(f"--model-id {model_id!r}: EEE needs a hub-style id ORG/NAME.")
    try:
        import every_eval_ever  # noqa: F401
    except ImportError as err:
        raise RunError(
            f"coldbias eee needs the package every-eval-ever 0.3.0: {_INSTALL}."
        ) from err
    run_dir = Path(run_dir)
    if include_samples:  # the samples go out as records: only samples the report would read
        folder = run_dir if run_dir.is_dir() else run_dir.parent
        pool_runs(load_folder(folder, LoadOptions(documents=build_docs)))
    result = EEEExport(Path(output))
    folder = OutputFolder(output, "coldbias eee")
    with tempfile.TemporaryDirectory(prefix="coldbias-eee-") as staging, folder as tmp:
        stage = Path(staging) / "run"
        result.sources, result.undefined = _stage(run_dir, stage, include_samples, model_id)
        argv = [sys.executable, "-m", "every_eval_ever.converters.lm_eval",
                "--log_path", str(stage), "--output_dir", str(tmp / "data"), *converter_args,
                *(["--include_samples"] if include_samples else [])]  # fmt: skip
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800, check=False)
        if proc.returncode != 0:
            reason = _failure(tmp, proc)
            hint = (
                " EEE takes the model id from pretrained=, which must be hub style ORG/NAME: "
                "pass --model-id ORG/NAME"
                if "model_info" in reason
                else ""
            )
            raise RunError(f"EEE's converter refused {run_dir}: {reason}.{hint}")
        result.messages += _enrich(tmp / "data", run_dir, result.sources)
        count, problems = validate_records(tmp)
        if not count:
            raise RunError(f"EEE's converter wrote no record for {run_dir}.")
        if problems:
            raise RunError(
                f"{len(problems)} of {count} EEE files do not validate (first: {problems[0]}); "
                "nothing was written."
            )
    result.messages += folder.messages
    result.records = sorted(p for p in folder.files if p.suffix == ".json" and "data" in p.parts)
    result.samples = sorted(p for p in folder.files if p.suffix == ".jsonl")
    return result


def eee_command(argv: Sequence[str]) -> int:
    """``coldbias eee RUN_DIR --output DIR [--include-samples] [CONVERTER OPTIONS]``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="coldbias eee",
        description="Every Eval Ever records of a coldbias run, validated (docs/eee.md).",
    )
    parser.add_argument("run_dir", help="the lm-eval --output_path folder (or a results file)")
    parser.add_argument("--output", required=True, help="folder for the records (DIR/data/…)")
    parser.add_argument(
        "--model-id",
        help="hub-style ORG/NAME to record as the model (default: the run's pretrained=)",
    )
    parser.add_argument(
        "--include-samples",
        action="store_true",
        help="also instance-level rows (task names that prefix each other get the wrong "
        "samples file in every-eval-ever 0.3.0, docs/eee.md)",
    )
    parser.epilog = (
        "Other options go to EEE's converter as they are: --source_organization_name, "
        "--source_organization_url, --evaluator_relationship, --inference_engine, "
        "--inference_engine_version, --eval_library_version (docs/eee.md)."
    )
    args, extra = parser.parse_known_args(list(argv))
    result = export_eee(args.run_dir, args.output, args.include_samples, extra, args.model_id)
    for message in result.messages:
        print(f"coldbias eee: {message}", file=sys.stderr)
    na = f", {result.undefined} undefined numbers written as N/A" if result.undefined else ""
    print(
        f"{len(result.records)} EEE records ({len(result.samples)} samples files) from "
        f"{len(result.sources)} results file(s){na}, validated by EEE's validator: "
        f"{Path(args.output) / 'data'}"
    )
    return 0
