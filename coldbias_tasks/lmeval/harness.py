"""Thin adapters between lm-evaluation-harness and the pure modules.

Referenced from the task YAMLs as ``!function coldbias_tasks.lmeval.harness.<name>``:

- :func:`load_dataset`: ``custom_dataset``, called by lm-eval as ``fn(**metadata,
  **dataset_kwargs)``; returns a DatasetDict with one ``test`` split of (persona, repeat) docs;
- the filter (``ranked``) is lm-eval's ``take_first``: the raw answer text;
- :func:`process_results`: parses the answer against its document (the one check,
  :func:`coldbias_tasks.core.parsing.sample_check.check_answer`) and returns its payload once, under
  ``ANSWER_KEY``, and the answer's short id under every metric key;
- :func:`aggregate_answers`: the aggregation of ``ANSWER_KEY``; computes the task's result once,
  :func:`coldbias_tasks.core.result.task_result` (the summary and every measure's estimate),
  from the task's payloads;
- ``agg_<key>``: one named aggregation per lm-eval key of a registered measure
  (:mod:`coldbias_tasks.core.measures`, made on demand); each reads its part of one estimate of
  its own task's result (:func:`coldbias_tasks.core.result.task_result`), found by the answers'
  ids.

Documents are :class:`~coldbias_tasks.core.records.TaskDoc` dicts; payloads are
:meth:`~coldbias_tasks.core.records.AnswerRecord.to_payload` dicts. The summary is found by
content (the answers' ids), not by object identity, so it stays right when lm-eval gathers the
per-sample values of several ranks (pickled copies) before aggregating.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from coldbias_tasks.core.errors import RecordError, SettingsError
from coldbias_tasks.core.measures import LmKey, lm_keys
from coldbias_tasks.core.measures.determinism import DETERMINISTIC_MESSAGE
from coldbias_tasks.core.parsing.sample_check import answer_id, check_answer
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.records import AnswerRecord, UserRankRecord
from coldbias_tasks.core.result import TaskResult, task_metrics, task_result
from coldbias_tasks.core.vocabulary import ANSWER_KEY, OPEN

__all__ = [
    "aggregate_answers",
    "aggregation",
    "answer_record",
    "load_dataset",
    "parse_filter",
    "process_results",
    "task_metrics",
]

log = logging.getLogger(__name__)


def load_dataset(**kwargs: Any) -> Any:
    """``custom_dataset`` hook: ``domain``, ``group``, ``variant`` come from ``dataset_kwargs``,
    ``coldbias_*`` settings from ``--metadata``; other keys (model args, version) are ignored.
    """
    from datasets import Dataset, DatasetDict

    missing = [key for key in ("domain", "group") if key not in kwargs]
    if missing:
        raise SettingsError(f"coldbias task YAML lacks dataset_kwargs {missing}")
    docs = build_docs(
        kwargs["domain"], kwargs["group"], kwargs.get("variant", "plain"), metadata=kwargs
    )
    return DatasetDict({"test": Dataset.from_list([d.to_dict() for d in docs])})


def parse_filter(resps: Sequence[Any], docs: Sequence[Any]) -> list[Any]:
    """The filter of task YAMLs written before ``coldbias_answer`` (each answer is now parsed
    once, in :func:`process_results`): refuses with the fix instead of logging the old shape."""
    raise SettingsError(
        "this coldbias task YAML was written by an older coldbias (its filter is "
        "coldbias_tasks.lmeval.harness.parse_filter, its metric_list lacks "
        f"{ANSWER_KEY!r}): regenerate it (python -m coldbias_tasks.lmeval.taskgen, with "
        "--personas FILE --out DIR for your own groups; `coldbias tasks install` for lm-eval's "
        "task folder) and rerun."
    )


def process_results(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    """The answer's record once, under :data:`ANSWER_KEY`, and its short id under every metric
    of the task (see :func:`answer_record`)."""
    return answer_record(doc, results, reverse=False)


def answer_record(doc: Mapping[str, Any], results: Sequence[Any], reverse: bool) -> dict[str, Any]:
    """process_results of a forward (``reverse``: reverse) task: the raw answer
    (``results[0]``, "" when lm-eval gives none; a parse payload from an older task YAML's
    filter is decoded) checked against its document by
    :func:`~coldbias_tasks.core.parsing.sample_check.check_answer` (RecordError when either is
    malformed). Its payload goes under :data:`ANSWER_KEY` (lm-eval gathers it across ranks with
    the metrics, and logs it once per sample); every metric gets the answer's short id,
    which its aggregation uses to find the task's summary."""
    record, _ = check_answer(results[0] if results else "", doc, reverse)
    payload = record.to_payload()
    listed = task_metrics(bool(doc.get("control_task")), str(doc.get("variant", "plain")), reverse)
    return {ANSWER_KEY: payload, **dict.fromkeys(listed, answer_id(payload))}


# --- the task's result, computed once from its answer records ---------------------------------
# The one documented adapter between lm-eval and :func:`coldbias_tasks.core.result.task_result`.
# lm-eval aggregates metric by metric, each aggregation seeing only that metric's per-sample
# values, in the order process_results returned them: ANSWER_KEY first, whose aggregation
# (:func:`aggregate_answers`) receives the task's payloads (gathered from every rank), computes
# the task's result and keeps it under the payloads' ids; each metric's aggregation then receives
# the same ids, in the same order, and reads its number from that result. The store holds results
# only and forgets the oldest beyond _STORE_SIZE tasks.

_STORE: dict[tuple[str, ...], TaskResult] = {}
#: Tasks whose result the store keeps (lm-eval aggregates one task's metrics in a row).
_STORE_SIZE = 32


def _records(payloads: Sequence[Mapping[str, Any]]) -> list[AnswerRecord] | list[UserRankRecord]:
    if payloads and payloads[0].get("kind") == "reverse":
        return [UserRankRecord.from_payload(p) for p in payloads]
    return [AnswerRecord.from_payload(p) for p in payloads]


def _store(payloads: Sequence[Mapping[str, Any]]) -> TaskResult:
    """The result of the task whose answers are ``payloads``, computed once and kept."""
    key = tuple(answer_id(p) for p in payloads)
    if key not in _STORE:
        while len(_STORE) >= _STORE_SIZE:
            _STORE.pop(next(iter(_STORE)))
        result = task_result(_records(payloads))
        if result.kind == "forward" and result.summary.deterministic:  # type: ignore[union-attr]
            log.warning("coldbias: %s", DETERMINISTIC_MESSAGE)  # excess, tests: NaN; say why
        _STORE[key] = result
    return _STORE[key]


def _stored(values: Sequence[Any], name: str) -> TaskResult:
    """The result of a task from what lm-eval passes to an aggregation: its answers' short ids
    (the result :func:`aggregate_answers` kept) or, from a direct call, its payloads."""
    if not all(isinstance(v, str) for v in values):
        return _store(values)
    found = _STORE.get(tuple(values))
    if found is None:
        raise RecordError(
            f"coldbias aggregation {name}: no answer records were aggregated for its "
            f"{len(values)} answers. lm-eval must aggregate {ANSWER_KEY!r} (listed first in "
            "the task's metric_list, returned first by process_results) before the metrics: "
            "the task YAML is stale. Regenerate it (python -m coldbias_tasks.lmeval.taskgen, or "
            "`coldbias tasks install` for lm-eval's task folder) and rerun."
        )
    return found


def aggregate_answers(payloads: Sequence[Mapping[str, Any]]) -> int:
    """Aggregation of :data:`ANSWER_KEY`: computes (and keeps) the task's result from its
    answer records, for its metrics' aggregations; the value is the number of answers."""
    _store(payloads)
    return len(payloads)


# --- aggregations: one named function per metric key ------------------------------------------
# Built from the registered measures (core/measures): lm-eval imports ``agg_<key>`` by name from
# this module, which makes it on first use (PEP 562 ``__getattr__``), so a measure registered
# later (a plugin, a test) has one too.


def aggregation(metric: LmKey) -> Callable[[Sequence[Any]], float | str]:
    """The lm-eval aggregation ``agg_<key>`` of ``metric``: its part of its measure's estimate
    in the task's result (computed once for all of the task's metrics). It receives the task's
    answer ids (from lm-eval) or payloads (a direct call)."""
    name = f"agg_{metric.key}"

    def aggregate(values: Sequence[Any]) -> float | str:
        result = _stored(values, name)
        return metric.of(result.estimate(metric.measure, metric.similarity))

    aggregate.__name__ = aggregate.__qualname__ = name
    aggregate.__module__ = __name__
    aggregate.__doc__ = f"{metric.key}: {metric.part} of {metric.measure.description}"
    return aggregate


#: the tables of :func:`__getattr__`: name → the metrics of which tasks
_TABLES: dict[str, Callable[[], dict[str, LmKey]]] = {
    "METRICS": task_metrics,
    "CONTROL_METRICS": lambda: task_metrics(control=True),
    "OPEN_METRICS": lambda: task_metrics(variant=OPEN),
    "REVERSE_METRICS": lambda: task_metrics(reverse=True),
}


def __getattr__(name: str) -> Any:
    """``agg_<key>`` of every declared metric; ``METRICS`` (a catalog task's),
    ``CONTROL_METRICS`` (a control group's own catalog task), ``OPEN_METRICS`` (an open
    attribute task's) and ``REVERSE_METRICS``: metric key → (aggregation, higher_is_better),
    as the task YAMLs list them, as declared now."""
    if name in _TABLES:
        listed = _TABLES[name]()
        return {key: (aggregation(m), m.higher_is_better) for key, m in listed.items()}
    found = {**lm_keys(), **lm_keys(reverse=True)}.get(name.removeprefix("agg_"))
    if name.startswith("agg_") and found is not None:
        return aggregation(found)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
