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
3. EEE's validator (schema and the datastore's semantic checks) checks every file written.

DIR is written all or nothing (:class:`~coldbias_tasks.app.outputs.OutputFolder`): a second
conversion replaces the first instead of adding records with new UUIDs. Every problem is one
:class:`~coldbias_tasks.core.errors.RunError` line.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coldbias_tasks.analysis.eee import undefined_as_na
from coldbias_tasks.app.outputs import OutputFolder
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.vocabulary import ANSWER_KEY

__all__ = ["EEEExport", "export_eee", "validate_records"]

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


def _without_answer_counts(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the ``coldbias_answer`` entries of its tasks (the number of answers
    each samples line's record is logged under: no score, so EEE gets none)."""
    out = dict(data)
    for section in ("results", "higher_is_better"):
        table = data.get(section)
        if isinstance(table, dict):
            out[section] = {
                task: {
                    k: v
                    for k, v in entry.items()
                    if k.partition(",")[0] not in (ANSWER_KEY, f"{ANSWER_KEY}_stderr")
                }
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
        try:
            data = json.loads(src.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise RunError(f"{src}: not readable as JSON ({_one_line(str(err), 120)}).") from err
        fixed, count = undefined_as_na(_without_answer_counts(data))
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


def _failure(out: Path, proc: subprocess.CompletedProcess[str]) -> str:
    """The converter's reason in one line: its failure report, else its last error line."""
    for report in sorted(out.rglob("*_failures.json")):
        try:
            failures = json.loads(report.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        items = failures.get("failures", failures) if isinstance(failures, dict) else failures
        if isinstance(items, list) and items:
            first = items[0]
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
