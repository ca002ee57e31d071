"""Read one coldbias samples file (``samples_<task>_<ts>.jsonl``) into a task of a run.

Each answer is read from the one answer record its samples line logs, and checked against its
prompt, by :func:`coldbias_tasks.core.parsing.sample_check.read_sample` (with ``reparse``, rebuilt
from
the raw answer text); the task is checked for completeness against
the run's settings and lm-eval's counts. Problems raise :class:`RunError` naming the file (and
line) and the fix; with ``allow_partial`` an incomplete task is kept, marked partial.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from coldbias_tasks.analysis.run_check import (
    check_reverse_docs,
    check_task_docs,
    expected_keys,
    run_settings,
)
from coldbias_tasks.analysis.run_data import LoadOptions, ReverseTaskData, TaskData
from coldbias_tasks.core.errors import RecordError, RunError
from coldbias_tasks.core.files.jsonl import read_jsonl_objects
from coldbias_tasks.core.parsing.sample_check import (
    AnswerMisfit,
    NoAnswer,
    check_answer,
    raw_answer,
    read_sample,
)
from coldbias_tasks.core.records import ReverseDoc, TaskDoc
from coldbias_tasks.core.vocabulary import FILTER_NAME, is_reverse_task

__all__ = ["read_task", "sampling_of"]


def _read_samples(path: Path) -> list[dict[str, Any]]:
    """Parsed JSONL lines; a malformed line raises naming the file and the line (1-based)."""
    fix = (
        "the file was truncated or edited: rerun lm_eval --log_samples for this task or "
        "delete the broken line."
    )
    return [sample for _, sample in read_jsonl_objects(path, RunError, fix)]


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
    warnings: list[str],
) -> tuple[list[Any], list[Any], list[str], list[int]]:
    """(records, docs, fingerprints, line numbers) of the samples logged under filter ``keep``:
    forward (AnswerRecord, TaskDoc) or ``reverse`` (UserRankRecord, ReverseDoc), each read by
    :func:`~coldbias_tasks.core.parsing.sample_check.read_sample`. With ``reparse`` each answer is
    rebuilt from its raw text, and answers whose logged payload disagrees are counted in a
    warning. A sample without a coldbias payload, one that does not decode, or a payload that
    does not fit its document raises naming the file and line."""
    records: list[Any] = []
    docs: list[Any] = []
    prints: list[str] = []
    lines: list[int] = []
    differ = 0
    for line_no, sample in enumerate(samples, start=1):
        if str(sample.get("filter", FILTER_NAME)) != keep:
            continue
        try:
            record, doc = read_sample(sample, reverse)
            if options.reparse:
                logged, (record, _) = record, check_answer(raw_answer(sample), doc, reverse)
                differ += logged != record
        except NoAnswer as err:
            raise RunError(f"{path}, line {line_no}: {err}") from None
        except AnswerMisfit as err:
            raise RunError(
                f"{path}, line {line_no}: the logged answer does not fit its prompt ({err}): "
                "the samples file was edited or damaged. Restore it or rerun the task; "
                "--reparse reads the raw answers again."
            ) from None
        except RecordError as err:
            raise RunError(
                f"{path}, line {line_no}: unusable coldbias sample ({err}); rerun the task."
            ) from err
        records.append(record)
        docs.append(doc)
        lines.append(line_no)
        who = doc.item_id if isinstance(doc, ReverseDoc) else doc.persona_id
        prints.append(_fingerprint(sample, who, doc.repeat, doc.prompt))
    if differ:
        warnings.append(
            f"WARNING {path}: --reparse reads {differ} of {len(records)} answers differently "
            "from the payload logged at run time (another parser version, or an edited "
            "samples file); the numbers shown use --reparse"
        )
    return records, docs, prints, lines


def _check_k(task: str, path: Path, docs: Sequence[TaskDoc], results: Mapping[str, Any]) -> None:
    """Every prompt of the task asks for one k, the run's ``coldbias_k`` when the results JSON
    records it (else: an edited file)."""
    settings = run_settings(task, results)
    ks = sorted({d.k for d in docs})
    recorded = settings is not None and "coldbias_k" in settings.explicit
    expected = settings.k if settings is not None and recorded else ks[0]
    if ks != [expected]:
        raise RunError(
            f"{path}: prompts ask for k = {', '.join(map(str, ks))} but the run's setting is "
            f"coldbias_k = {expected}: the samples file was edited or belongs to another run. "
            "Restore it or rerun the task."
        )


def _count_problems(task: str, results: Mapping[str, Any], n_lines: int) -> list[str]:
    """The answers in the samples file against lm-eval's ``n-samples`` count (if any)."""
    count = ((results.get("n-samples") or {}).get(task) or {}).get("effective")
    if isinstance(count, int) and count != n_lines:
        return [f"{n_lines} answers in the samples file but {count} in the results JSON"]
    return []


def _completeness(
    task: str, n_lines: int, docs: Sequence[TaskDoc], results: Mapping[str, Any]
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
    expected = expected_keys(task, results, docs[0].attribute_group, docs[0].variant)
    if expected is not None:
        missing = sorted(expected - set(seen))
        if missing:
            shown = ", ".join(f"{p} repeat {r}" for p, r in missing[:6])
            more = f" and {len(missing) - 6} more" if len(missing) > 6 else ""
            problems.append(f"{len(missing)} answers missing ({shown}{more})")
    return problems


def read_task(
    task: str, path: Path, results: dict[str, Any], options: LoadOptions
) -> tuple[TaskData | ReverseTaskData, list[str]]:
    """One task of a run (forward, or reverse by its name) rebuilt from its samples file
    ``path`` and checked against the run's results JSON ``results``; returns it and its
    warnings. A forward task's samples under several filters are read under the coldbias one."""
    samples = _read_samples(path)
    reverse = is_reverse_task(task)
    warnings: list[str] = []
    keep = FILTER_NAME
    if not reverse:
        filters = list(dict.fromkeys(str(s.get("filter", FILTER_NAME)) for s in samples))
        keep = FILTER_NAME if FILTER_NAME in filters else (filters[0] if filters else FILTER_NAME)
        if len(filters) > 1:
            warnings.append(f"{path}: several filters {filters}; using {keep!r}")
    records, docs, prints, lines = _read_answers(samples, path, keep, options, reverse, warnings)
    if not records:
        raise RunError(f"{path}: no samples; rerun lm_eval --log_samples for {task}.")
    if reverse:
        check_reverse_docs(task, path, docs, lines)
    else:
        check_task_docs(task, path, results, docs, lines, options.documents)
    config = (results.get("configs") or {}).get(task) or {}
    if reverse:
        problems = _reverse_completeness(task, len(records), docs, results)
        version = (results.get("versions") or {}).get(task)
    else:
        _check_k(task, path, docs, results)
        problems = _completeness(task, len(records), docs, results)
        version = (results.get("versions") or {}).get(
            task, (config.get("metadata") or {}).get("version")
        )
    partial = _partial(task, path, problems, options, warnings)
    first = docs[0]
    shared = {
        "name": task,
        "domain": first.domain,
        "group": first.attribute_group,
        "version": str(version) if version is not None else "unknown",
        "records": tuple(records),
        "seed": first.seed,
        "catalog": first.catalog,
        "catalog_sha256": first.catalog_sha256,
        "template_sha256": first.template_sha256,
        "language": first.language,
        "samples_files": (path,),
        "fingerprints": tuple(prints),
        "partial": partial,
    }
    if reverse:
        return ReverseTaskData(**shared, n_items=len({d.item_id for d in docs})), warnings
    data = TaskData(
        **shared,
        variant=first.variant,
        k=first.k,
        n_shown=max(len(d.shown_ids) for d in docs),
        order=first.order,
        template=first.template,
        shown=tuple(sorted({i for d in docs for i in d.shown_ids})),
        sampling=sampling_of(config),
        families=tuple(sorted({(d.value, d.family) for d in docs if d.family})),
    )
    return data, warnings


def _reverse_completeness(
    task: str, n_lines: int, docs: Sequence[ReverseDoc], results: Mapping[str, Any]
) -> list[str]:
    """Problems of a reverse task: not every item × repeat once, or not as many answers as
    lm-eval counted (empty when none)."""
    problems = _count_problems(task, results, n_lines)
    settings = run_settings(task, results)
    keys = [(d.item_id, d.repeat) for d in docs]
    if len(set(keys)) != len(keys):
        problems.append("answers logged twice")
    if settings is not None:
        missing = len({d.item_id for d in docs}) * settings.repeats - len(set(keys))
        if missing > 0:
            problems.append(f"{missing} answers missing (items × repeats)")
    return problems


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
