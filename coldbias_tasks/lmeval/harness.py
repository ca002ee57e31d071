"""Thin adapters between lm-evaluation-harness and the pure modules.

Referenced from the task YAMLs as ``!function coldbias_tasks.lmeval.harness.<name>``:

- :func:`load_dataset`: ``custom_dataset``, called by lm-eval as ``fn(**metadata,
  **dataset_kwargs)``; returns a DatasetDict with one ``test`` split of (persona, repeat) docs;
- :func:`parse_filter`: the filter; turns each raw answer into a JSON-safe parse payload;
- :func:`process_results`: hands the payload to every metric of the task;
- ``agg_<key>``: one named aggregation per declared metric
  (:mod:`coldbias_tasks.core.metric_specs`, made on demand). Each sees the payloads of its own
  task only (the neutral persona included) and reads one number from
  :func:`coldbias_tasks.core.aggregate.summarize_group` (reverse tasks:
  :func:`coldbias_tasks.core.reverse.summarize_reverse`), computed once per task.

Documents are :class:`~coldbias_tasks.core.records.TaskDoc` dicts; payloads are
:meth:`~coldbias_tasks.core.records.AnswerRecord.to_payload` dicts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from coldbias_tasks.core.aggregate import GroupSummary, summarize_group
from coldbias_tasks.core.answers import record_from_answer
from coldbias_tasks.core.determinism import DETERMINISTIC_MESSAGE
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.metric_specs import LmMetric, lm_metrics
from coldbias_tasks.core.records import AnswerRecord, TaskDoc, UserRankRecord
from coldbias_tasks.core.reverse import ReverseSummary, summarize_reverse
from coldbias_tasks.core.vocabulary import CATALOG_ONLY_METRICS, OPEN, OPEN_ONLY_METRICS
from coldbias_tasks.lmeval.documents import build_docs

__all__ = [
    "aggregation",
    "cached",
    "load_dataset",
    "parse_filter",
    "process_results",
    "task_metrics",
]

T = TypeVar("T")
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


def _parse_one(text: Any, stored: dict) -> dict:
    """The parse payload of one answer (:func:`~coldbias_tasks.core.answers.record_from_answer`)."""
    return record_from_answer(text, TaskDoc.from_dict(stored)).to_payload()


def parse_filter(resps: Sequence[Sequence[str]], docs: Sequence[dict]) -> list[dict]:
    """Filter for ``function: custom``: per doc, the parse payload of its (single) answer."""
    return [_parse_one(r[0] if r else "", doc) for r, doc in zip(resps, docs)]


def task_metrics(control: bool = False, variant: str = "plain") -> dict[str, LmMetric]:
    """The forward metrics of one task (its YAML's ``metric_list``): a control group's own
    task drops those without ``controls``; an open task (no catalog shown) has the grounding
    metrics and none of :data:`~coldbias_tasks.core.vocabulary.CATALOG_ONLY_METRICS`, a
    catalog task none of :data:`~coldbias_tasks.core.vocabulary.OPEN_ONLY_METRICS`."""
    dropped = CATALOG_ONLY_METRICS if variant == OPEN else OPEN_ONLY_METRICS
    listed = lm_metrics(control=control)
    return {key: m for key, m in listed.items() if m.spec.name not in dropped}


def process_results(doc: dict, results: Sequence[dict]) -> dict[str, dict]:
    """Every metric of the task receives the same payload; aggregation does the pairing."""
    payload = results[0] if results else _parse_one("", doc)
    metrics = task_metrics(bool(doc.get("control_task")), str(doc.get("variant", "plain")))
    return dict.fromkeys(metrics, payload)


_CACHE: dict[tuple[int, ...], tuple[Sequence[dict], Any]] = {}


def cached(payloads: Sequence[dict], compute: Callable[[Sequence[dict]], T]) -> T:
    """``compute(payloads)``, computed once for all of a task's metrics.

    process_results hands the same payload objects to every metric, so the lists lm-eval passes
    to the aggregations hold identical objects: the key is their identities (the cached entry
    keeps the objects alive, so an id cannot be reused while cached) and the function.
    """
    key = (id(compute), *(id(p) for p in payloads))
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) >= 8:
            _CACHE.clear()
        hit = _CACHE[key] = (list(payloads), compute(payloads))
    return hit[1]


def _group_summary(payloads: Sequence[dict]) -> GroupSummary:
    summary = summarize_group(map(AnswerRecord.from_payload, payloads))
    if summary.deterministic:  # excess, tests and flagged shares are NaN: say why, once per task
        log.warning("coldbias: %s", DETERMINISTIC_MESSAGE)
    return summary


def _summary(payloads: Sequence[dict]) -> GroupSummary:
    """summarize_group over a task's payloads (see :func:`cached`)."""
    return cached(payloads, _group_summary)


# --- aggregations: one named function per metric key ------------------------------------------
# Built from the declarations (core/metric_specs): lm-eval imports ``agg_<key>`` by name from this
# module, which makes it on first use (PEP 562 ``__getattr__``), so a metric declared later (a
# plugin, a test) has one too.


def aggregation(metric: LmMetric) -> Callable[[Sequence[dict]], float | str]:
    """The lm-eval aggregation ``agg_<key>`` of ``metric``: its number from the task's summary
    (forward or reverse, by the metric's scope; computed once for all of the task's metrics)."""
    summarize = _reverse_summary if metric.spec.scope == "reverse" else _summary

    def aggregate(payloads: Sequence[dict]) -> float | str:
        return metric.compute(summarize(payloads))

    aggregate.__name__ = aggregate.__qualname__ = f"agg_{metric.key}"
    aggregate.__module__ = __name__
    aggregate.__doc__ = f"{metric.key}: {metric.spec.description}"
    return aggregate


def _reverse_summary(payloads: Sequence[dict]) -> ReverseSummary:
    return cached(payloads, _summarize_reverse)


def _summarize_reverse(payloads: Sequence[dict]) -> ReverseSummary:
    return summarize_reverse(map(UserRankRecord.from_payload, payloads))


#: the tables of :func:`__getattr__`: name → the metrics of which tasks
_TABLES: dict[str, Callable[[], dict[str, LmMetric]]] = {
    "METRICS": task_metrics,
    "CONTROL_METRICS": lambda: task_metrics(control=True),
    "OPEN_METRICS": lambda: task_metrics(variant=OPEN),
    "REVERSE_METRICS": lambda: lm_metrics(reverse=True),
}


def __getattr__(name: str) -> Any:
    """``agg_<key>`` of every declared metric; ``METRICS`` (a catalog task's),
    ``CONTROL_METRICS`` (a control group's own catalog task), ``OPEN_METRICS`` (an open
    attribute task's) and ``REVERSE_METRICS``: metric key → (aggregation, higher_is_better),
    as the task YAMLs list them, as declared now."""
    if name in _TABLES:
        listed = _TABLES[name]()
        return {key: (aggregation(m), m.higher_is_better) for key, m in listed.items()}
    found = {**lm_metrics(), **lm_metrics(reverse=True)}.get(name.removeprefix("agg_"))
    if name.startswith("agg_") and found is not None:
        return aggregation(found)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
