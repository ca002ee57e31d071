"""Inspect logs as lm-eval output folders, so ``coldbias report`` and ``coldbias leaderboard`` read
them with the checks they apply to lm-eval runs (docs/inspect.md, "Report").

:func:`export_logs` writes, for every coldbias task log of a folder, what ``lm_eval
--output_path OUT --log_samples`` writes: ``<model>/results_<ts>.json`` (the task's numbers as
:func:`~coldbias_tasks.core.result.task_result` computes them, its settings as the task's
config metadata, the sampling, the sample count) and ``samples_<task>_<ts>.jsonl`` (per sample
the document, the raw answer, the answer record's payload under ``coldbias_answer``). The
offline loader then checks each answer against its document and the documents against the
settings, as for an lm-eval run. A log that is no coldbias task's is skipped; a coldbias log
that did not finish, or whose samples were not logged, raises a RunError naming the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.parsing.sample_check import answer_id
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.result import task_result
from coldbias_tasks.core.vocabulary import ANSWER_KEY, FILTER_NAME, TASK_VERSION

__all__ = ["LOG_SUFFIXES", "export_logs", "inspect_logs"]

#: File endings of Inspect logs (binary ``.eval``, or ``.json``).
LOG_SUFFIXES = (".eval",)


def inspect_logs(folder: str | Path) -> list[Path]:
    """The Inspect log files under ``folder`` (recursively), sorted."""
    return sorted(p for p in Path(folder).rglob("*") if p.suffix in LOG_SUFFIXES and p.is_file())


def _settings(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (metadata or {}).items() if str(k).startswith("coldbias_")}


def _export(path: Path, out: Path) -> Path | None:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as err:  # Inspect's reader raises many kinds on a damaged file
        raise RunError(
            f"{path}: not a readable Inspect log ({type(err).__name__}: {err}); restore it, "
            "or move it out of the folder."
        ) from None
    meta = log.eval.metadata or {}
    task = meta.get("lm_eval_task")
    if not task:
        return None
    if log.status != "success" or not log.samples:
        raise RunError(
            f"{path}: Inspect log of {task} has status {log.status!r} and "
            f"{len(log.samples or [])} logged samples; rerun it to completion with samples "
            "logged (inspect eval's default)."
        )
    lines, records = [], []
    for i, sample in enumerate(log.samples):
        score = next(iter((sample.scores or {}).values()), None)
        payload = (score.metadata or {}).get(ANSWER_KEY) if score is not None else None
        if payload is None:
            raise RunError(f"{path}: sample {sample.id} has no coldbias answer record; rerun.")
        records.append(AnswerRecord.from_payload(payload))
        text = sample.output.completion if sample.output else ""
        lines.append({"doc_id": i, "doc": sample.metadata, "resps": [[text]],
                      "filtered_resps": [text], "filter": FILTER_NAME, ANSWER_KEY: payload,
                      "inspect_sample_id": sample.id})  # fmt: skip
    result = task_result(records)
    for line in lines:
        line.update(dict.fromkeys(result.metrics, answer_id(line[ANSWER_KEY])))
    model = log.eval.model
    folder = out / model.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    created = datetime.fromisoformat(log.eval.created)
    stamp = created.strftime("%Y-%m-%dT%H-%M-%S.%f")  # lm-eval's file-name stamp
    config = log.eval.config
    generation = log.plan.config if log.plan else None
    temperature = generation.temperature if generation is not None else None
    results = {
        "results": {task: {"alias": task, **{f"{k},{FILTER_NAME}": v
                                              for k, v in result.lm_numbers().items()}}},
        "configs": {task: {
            "task": task,
            "metadata": {"version": TASK_VERSION, **_settings(meta)},
            "generation_kwargs": {"do_sample": True, "temperature": temperature}
            if temperature is not None else {},
        }},
        "versions": {task: TASK_VERSION},
        "n-samples": {task: {"original": len(lines), "effective": len(lines)}},
        "config": {"model": f"inspect:{model.split('/')[0]}",
                   "model_args": f"pretrained={model.split('/', 1)[-1]}",
                   "inspect_log": str(path), "epochs": config.epochs},
        "model_name": model,
        "lm_eval_version": f"inspect-ai {log.eval.packages.get('inspect_ai', '?')}",
        "date": created.timestamp(),
    }  # fmt: skip
    with open(folder / f"results_{stamp}.json", "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False, default=str)
    with open(folder / f"samples_{task}_{stamp}.jsonl", "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
    return folder


def export_logs(folder: str | Path, out: str | Path) -> list[Path]:
    """Write every coldbias Inspect log under ``folder`` as an lm-eval output folder under
    ``out`` (module docstring); returns the model folders written (empty: no coldbias log)."""
    written = {f for p in inspect_logs(folder) if (f := _export(p, Path(out))) is not None}
    return sorted(written)
