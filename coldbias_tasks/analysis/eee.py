"""Read "Every Eval Ever" (EEE) aggregate records: other benchmarks' scores for the leaderboard.

EEE (PyPI ``every-eval-ever``, schema 0.3.0) is the ecosystem's shared results format. Its
datastore holds one JSON *aggregate record* (an ``EvaluationLog``) per evaluation run, at
``data/<benchmark>/<developer>/<model>/<uuid>.json``, optionally beside an instance-level
``<uuid>_samples.jsonl``. ``docs/eee.md`` says how a coldbias run becomes such records.

:func:`load_eee_records` returns one :class:`EEEResult` per entry of a record's
``evaluation_results``, so ``coldbias leaderboard`` can show other benchmarks (MMLU, GSM8K, …)
as capability columns next to the bias metrics of the same model id. The package
``every_eval_ever`` is *not* needed: the few fields used are read with the standard library.

Field mapping (schema 0.3.0; the same fields exist in 0.2.x records)::

    EEEResult.model_id        ← model_info.id   (hub style "org/name", e.g. "Qwen/Qwen2.5-0.5B")
    EEEResult.benchmark       ← evaluation_results[i].evaluation_name
                                (lm-eval converter: "<task>" or "<task>/<filter>", e.g.
                                "mmlu", "gsm8k/strict-match", "coldbias_movie_gender/ranked")
    EEEResult.metric          ← evaluation_results[i].metric_config.metric_name,
                                else .metric_config.metric_id, else "score" (older records
                                carry neither: one number per evaluation_name)
    EEEResult.value           ← evaluation_results[i].score_details.score
    EEEResult.lower_is_better ← evaluation_results[i].metric_config.lower_is_better (required)
    EEEResult.stderr_or_nan   ← evaluation_results[i].score_details.uncertainty
                                .standard_error.value, NaN when absent
    EEEResult.source_file     ← the record's path

Skipped, not errors: ``*.jsonl`` (instance-level rows), JSON that is not an EEE aggregate record
(lm-eval's ``results_*.json``, the converter's ``adapter_reports/*_failures.json``, anything
without ``schema_version`` next to ``model_info``/``evaluation_results``), a JSON file holding
one instance-level row, and results whose ``metric_config.additional_details.polarity`` is
``"not_applicable"`` (EEE's mark for spreads such as ``std``: they have no direction, so they
are never scored). A file that looks like an aggregate record but lacks a field above, or
has a score that is not finite or beyond ±:data:`SCORE_LIMIT`, or a standard error that is
negative or not finite, raises :class:`~coldbias_tasks.core.errors.RunError` naming the file,
the field and the fix (:func:`load_eee_records` with a ``skipped`` list: that file becomes a
message and the other files are kept).

Note: EEE's lm-eval converter also writes ``polarity: "unknown"`` for metrics whose direction
it took from lm-eval's ``higher_is_better`` (every coldbias metric); ``lower_is_better`` is
then still the stated direction, so ``"unknown"`` is not skipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.files.jsonl import json_value, read_text

__all__ = [
    "SCORE_LIMIT",
    "EEEResult",
    "is_eee_folder",
    "load_eee_records",
    "score_problem",
    "undefined_as_na",
]

#: Largest magnitude of a capability score or standard error shown; beyond it, not a score.
SCORE_LIMIT = 1e9

#: Keys of a top-level object that mark an EEE aggregate record (besides ``schema_version``).
_AGGREGATE_KEYS = ("model_info", "evaluation_results")

_FIX = (
    "regenerate it (`python -m every_eval_ever.converters.lm_eval --log_path RUN "
    "--output_dir OUT/data`, docs/eee.md), check it with `python -m every_eval_ever.validate "
    "FILE`, or move it out of the folder"
)


@dataclass(frozen=True)
class EEEResult:
    """One score of one EEE aggregate record (see the module docstring for the mapping)."""

    model_id: str
    benchmark: str
    metric: str
    value: float
    lower_is_better: bool
    stderr_or_nan: float
    source_file: Path

    @property
    def column(self) -> str:
        """A leaderboard column label: ``"<benchmark> <metric>"``."""
        return f"{self.benchmark} {self.metric}"


def _json_files(folder: Path) -> list[Path]:
    if folder.is_file():
        return [folder] if folder.suffix == ".json" else []
    return sorted(p for p in folder.rglob("*.json") if p.is_file())


def _looks_like_aggregate(data: Any) -> bool:
    """An object with ``schema_version`` and ``model_info`` or ``evaluation_results``; an
    instance-level row (``model_id``, ``sample_id``, …) has neither of the two."""
    return (
        isinstance(data, dict)
        and "schema_version" in data
        and any(key in data for key in _AGGREGATE_KEYS)
    )


def _read_candidate(path: Path) -> Any | None:
    """The parsed file if it may be an EEE aggregate record, else None (not EEE: skip)."""
    try:
        text = read_text(path, RunError)
    except RunError:
        return None  # unreadable, not UTF-8, not a regular file or beyond the size limit
    if '"schema_version"' not in text:
        return None
    try:
        return json_value(text, RunError, f"{path}: an Every Eval Ever record", "")
    except RunError as err:
        if all(f'"{key}"' in text for key in _AGGREGATE_KEYS):
            raise RunError(f"{err}the file is truncated or edited: {_FIX}.") from None
        return None


def score_problem(value: float, stderr: float = math.nan) -> str | None:
    """Why a capability score ``value`` with standard error ``stderr`` (NaN: none given)
    cannot be shown, or None: not finite, beyond ±:data:`SCORE_LIMIT`, a negative stderr."""
    if not math.isfinite(value) or abs(value) > SCORE_LIMIT:
        return f"the score {value!r} is not a finite number within ±{SCORE_LIMIT:g}"
    if not math.isnan(stderr) and not 0 <= stderr <= SCORE_LIMIT:
        return f"the standard error {stderr!r} is not a finite number ≥ 0 (within {SCORE_LIMIT:g})"
    return None


def _malformed(path: Path, where: str, problem: str) -> RunError:
    return RunError(
        f"{path}: not a valid Every Eval Ever aggregate record (schema 0.3.0): {where} "
        f"{problem}; {_FIX}."
    )


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if isinstance(value, float) or abs(value) < 1 << 1000 else math.inf


def _stderr(score_details: dict[str, Any]) -> float:
    """The standard error, NaN when absent (a present one is checked by the caller)."""
    uncertainty = score_details.get("uncertainty")
    if not isinstance(uncertainty, dict):
        return math.nan
    standard_error = uncertainty.get("standard_error")
    if not isinstance(standard_error, dict) or standard_error.get("value") is None:
        return math.nan
    value = _number(standard_error.get("value"))
    return math.inf if value is None else value  # a non-number is refused as not finite


def _parse_result(path: Path, model_id: str, index: int, entry: Any) -> EEEResult | None:
    where = f"evaluation_results[{index}]"
    if not isinstance(entry, dict):
        raise _malformed(path, where, "is not an object")
    benchmark = _text(entry.get("evaluation_name"))
    if benchmark is None:
        raise _malformed(path, f"{where}.evaluation_name", "is missing or empty")
    config = entry.get("metric_config")
    if not isinstance(config, dict):
        raise _malformed(path, f"{where}.metric_config", "is missing")
    lower = config.get("lower_is_better")
    if not isinstance(lower, bool):
        raise _malformed(
            path, f"{where}.metric_config.lower_is_better", "is missing (must be true or false)"
        )
    details = config.get("additional_details")
    if isinstance(details, dict) and details.get("polarity") == "not_applicable":
        return None  # a spread such as std: no direction, never scored
    score_details = entry.get("score_details")
    if not isinstance(score_details, dict):
        raise _malformed(path, f"{where}.score_details", "is missing")
    value = _number(score_details.get("score"))
    if value is None or score_problem(value) is not None:
        raise _malformed(
            path,
            f"{where}.score_details.score",
            f"must be a finite number within ±{SCORE_LIMIT:g}, got {score_details.get('score')!r}",
        )
    stderr = _stderr(score_details)
    problem = score_problem(value, stderr)
    if problem is not None:
        raise _malformed(path, f"{where}.score_details.uncertainty.standard_error", problem)
    metric = _text(config.get("metric_name")) or _text(config.get("metric_id")) or "score"
    return EEEResult(model_id, benchmark, metric, value, lower, stderr, path)


def _parse_record(path: Path, data: dict[str, Any]) -> list[EEEResult]:
    if not isinstance(data.get("schema_version"), str):
        raise _malformed(path, "schema_version", "must be a string such as '0.3.0'")
    model_info = data.get("model_info")
    model_id = _text(model_info.get("id")) if isinstance(model_info, dict) else None
    if model_id is None:
        raise _malformed(
            path, "model_info.id", "is missing or empty (a hub-style id such as 'org/model')"
        )
    results = data.get("evaluation_results")
    if not isinstance(results, list):
        raise _malformed(path, "evaluation_results", "is missing or not a list")
    parsed = (_parse_result(path, model_id, i, entry) for i, entry in enumerate(results))
    return [r for r in parsed if r is not None]


def load_eee_records(folder: str | Path, skipped: list[str] | None = None) -> list[EEEResult]:
    """Every score of every EEE aggregate record under ``folder`` (searched recursively; a
    single ``.json`` file may be passed too), in file-path order, then record order.

    Non-EEE JSON and instance-level files are ignored; a folder without records gives ``[]``.
    Raises :class:`RunError` for a missing folder or a malformed record (file, field, fix);
    with a ``skipped`` list a malformed file is appended there instead and the others kept.
    """
    root = Path(folder)
    if not root.exists():
        raise RunError(
            f"{root}: no such folder; pass a folder of Every Eval Ever records (the "
            "--output_dir of `python -m every_eval_ever.converters.lm_eval`, docs/eee.md)."
        )
    out: list[EEEResult] = []
    for path in _json_files(root):
        try:
            data = _read_candidate(path)
            if _looks_like_aggregate(data):
                out.extend(_parse_record(path, data))
        except RunError as err:
            if skipped is None:
                raise
            skipped.append(f"skipped: {err}")
    return out


def is_eee_folder(folder: str | Path) -> bool:
    """True when ``folder`` (recursively) holds at least one file that looks like an EEE
    aggregate record; never raises (a malformed record still counts: loading it explains)."""
    root = Path(folder)
    if not root.exists():
        return False
    for path in _json_files(root):
        try:
            data = _read_candidate(path)
        except RunError:
            return True
        if _looks_like_aggregate(data):
            return True
    return False


def undefined_as_na(value: Any) -> tuple[Any, int]:
    """``value`` (parsed lm-eval JSON) with every NaN or ±inf float replaced by lm-eval's own
    mark ``"N/A"``, and how many were replaced. EEE's converter stops at NaN and skips
    strings; lm-eval's own output keeps NaN (a string would break its group means)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "N/A", 1
    if isinstance(value, dict):
        pairs = [(k, undefined_as_na(v)) for k, v in value.items()]
        return {k: v for k, (v, _) in pairs}, sum(n for _, (_, n) in pairs)
    if isinstance(value, list):
        items = [undefined_as_na(v) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    return value, 0
