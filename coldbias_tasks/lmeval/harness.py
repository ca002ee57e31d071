"""Thin adapters between lm-evaluation-harness and the pure modules.

Referenced from the task YAMLs as ``!function coldbias_tasks.lmeval.harness.<name>``:

- :func:`load_dataset`: ``custom_dataset``, called by lm-eval as ``fn(**metadata,
  **dataset_kwargs)``; returns a DatasetDict with one ``test`` split of (persona, repeat) docs;
- :func:`parse_filter`: the filter; turns each raw answer into a JSON-safe parse payload;
- :func:`process_results`: hands the payload to every metric of the task;
- ``agg_*``: named aggregations (lm-eval stores their source in the results JSON). Each sees
  the payloads of its own task only (the neutral persona included) and reads one number from
  :func:`coldbias_tasks.core.aggregate.summarize_group`.

Documents are :class:`~coldbias_tasks.core.records.TaskDoc` dicts; payloads are
:meth:`~coldbias_tasks.core.records.AnswerRecord.to_payload` dicts.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from coldbias_tasks.core.aggregate import GroupSummary, summarize_group
from coldbias_tasks.core.answers import record_from_answer
from coldbias_tasks.core.determinism import DETERMINISTIC_MESSAGE
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.records import AnswerRecord, TaskDoc
from coldbias_tasks.lmeval.documents import build_docs

__all__ = [
    "CONTROL_METRICS",
    "METRICS",
    "cached",
    "load_dataset",
    "parse_filter",
    "process_results",
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


def process_results(doc: dict, results: Sequence[dict]) -> dict[str, dict]:
    """Every metric receives the same payload; aggregation does the pairing."""
    payload = results[0] if results else _parse_one("", doc)
    listed = CONTROL_METRICS if doc.get("control_task") else METRICS
    return {metric: payload for metric in listed}


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
# Directions are true ones (lm-eval's higher_is_better; docs/measurement.md §6): quantities
# without a direction (noise floors, spreads, the mean catalog position) are not lm-eval metrics;
# the report and the leaderboard show them.


def agg_iou_divergence(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].mean


def agg_serp_divergence(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].mean


def agg_prag_divergence(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].mean


def agg_iou_snsr(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].snsr


def agg_serp_snsr(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].snsr


def agg_prag_snsr(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].snsr


def agg_iou_snsv(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].snsv


def agg_serp_snsv(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].snsv


def agg_prag_snsv(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].snsv


def agg_iou_excess(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].excess


def agg_serp_excess(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].excess


def agg_prag_excess(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].excess


def agg_iou_group_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].group_p


def agg_serp_group_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].group_p


def agg_prag_group_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].group_p


def agg_iou_flagged_share(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].flagged_share


def agg_serp_flagged_share(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].flagged_share


def agg_prag_flagged_share(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].flagged_share


def _stderr(value: float) -> float | str:
    """A standard error, or lm-eval's "N/A" when there is none (fewer repeats than needed)."""
    return "N/A" if math.isnan(value) else value


def agg_iou_attribute_excess(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].attribute.mean


def agg_serp_attribute_excess(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].attribute.mean


def agg_prag_attribute_excess(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].attribute.mean


def agg_iou_attribute_excess_stderr(payloads: Sequence[dict]) -> float | str:
    return _stderr(_summary(payloads).metrics["iou"].attribute.stderr)


def agg_serp_attribute_excess_stderr(payloads: Sequence[dict]) -> float | str:
    return _stderr(_summary(payloads).metrics["serp"].attribute.stderr)


def agg_prag_attribute_excess_stderr(payloads: Sequence[dict]) -> float | str:
    return _stderr(_summary(payloads).metrics["prag"].attribute.stderr)


def agg_iou_attribute_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].attribute.p_value


def agg_serp_attribute_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].attribute.p_value


def agg_prag_attribute_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].attribute.p_value


def agg_iou_disparity(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].disparity.value


def agg_serp_disparity(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].disparity.value


def agg_prag_disparity(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].disparity.value


def agg_iou_disparity_stderr(payloads: Sequence[dict]) -> float | str:
    return _stderr(_summary(payloads).metrics["iou"].disparity.stderr)


def agg_serp_disparity_stderr(payloads: Sequence[dict]) -> float | str:
    return _stderr(_summary(payloads).metrics["serp"].disparity.stderr)


def agg_prag_disparity_stderr(payloads: Sequence[dict]) -> float | str:
    return _stderr(_summary(payloads).metrics["prag"].disparity.stderr)


def agg_iou_disparity_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].disparity.p_value


def agg_serp_disparity_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].disparity.p_value


def agg_prag_disparity_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].disparity.p_value


def agg_exact_k_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).fidelity.exact_k_rate


def agg_fill_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).fidelity.fill_rate


def agg_empty_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).fidelity.empty_rate


def agg_out_of_catalog_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).fidelity.out_of_catalog_rate


def agg_duplicate_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).fidelity.duplicate_rate


def agg_invalid_pair_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).invalid_pair_rate


def agg_position_bias(payloads: Sequence[dict]) -> float:
    return _summary(payloads).positions.position_bias


def agg_prefix_copy_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).positions.prefix_copy_rate


#: metric key → (aggregation, higher_is_better). The task template lists the same keys.
#: ``X_stderr`` follows its metric ``X``: lm-eval stores a metric's standard error under the
#: key ``X_stderr,<filter>`` and, having no bootstrap for relational metrics, writes "N/A"
#: there when it processes ``X``; the coldbias metric ``X_stderr``, processed right after,
#: writes the real standard error into that same key (its table shows it in the Stderr column).
METRICS: dict[str, tuple[Any, bool]] = {
    "iou_attribute_excess": (agg_iou_attribute_excess, False),
    "iou_attribute_excess_stderr": (agg_iou_attribute_excess_stderr, False),
    "serp_attribute_excess": (agg_serp_attribute_excess, False),
    "serp_attribute_excess_stderr": (agg_serp_attribute_excess_stderr, False),
    "prag_attribute_excess": (agg_prag_attribute_excess, False),
    "prag_attribute_excess_stderr": (agg_prag_attribute_excess_stderr, False),
    "iou_attribute_p": (agg_iou_attribute_p, True),
    "serp_attribute_p": (agg_serp_attribute_p, True),
    "prag_attribute_p": (agg_prag_attribute_p, True),
    "iou_disparity": (agg_iou_disparity, False),
    "iou_disparity_stderr": (agg_iou_disparity_stderr, False),
    "serp_disparity": (agg_serp_disparity, False),
    "serp_disparity_stderr": (agg_serp_disparity_stderr, False),
    "prag_disparity": (agg_prag_disparity, False),
    "prag_disparity_stderr": (agg_prag_disparity_stderr, False),
    "iou_disparity_p": (agg_iou_disparity_p, True),
    "serp_disparity_p": (agg_serp_disparity_p, True),
    "prag_disparity_p": (agg_prag_disparity_p, True),
    "iou_divergence": (agg_iou_divergence, False),
    "serp_divergence": (agg_serp_divergence, False),
    "prag_divergence": (agg_prag_divergence, False),
    "iou_snsr": (agg_iou_snsr, False),
    "serp_snsr": (agg_serp_snsr, False),
    "prag_snsr": (agg_prag_snsr, False),
    "iou_snsv": (agg_iou_snsv, False),
    "serp_snsv": (agg_serp_snsv, False),
    "prag_snsv": (agg_prag_snsv, False),
    "iou_excess": (agg_iou_excess, False),
    "serp_excess": (agg_serp_excess, False),
    "prag_excess": (agg_prag_excess, False),
    "iou_group_p": (agg_iou_group_p, True),
    "serp_group_p": (agg_serp_group_p, True),
    "prag_group_p": (agg_prag_group_p, True),
    "iou_flagged_share": (agg_iou_flagged_share, False),
    "serp_flagged_share": (agg_serp_flagged_share, False),
    "prag_flagged_share": (agg_prag_flagged_share, False),
    "exact_k_rate": (agg_exact_k_rate, True),
    "fill_rate": (agg_fill_rate, True),
    "empty_rate": (agg_empty_rate, False),
    "out_of_catalog_rate": (agg_out_of_catalog_rate, False),
    "duplicate_rate": (agg_duplicate_rate, False),
    "invalid_pair_rate": (agg_invalid_pair_rate, False),
    "position_bias": (agg_position_bias, False),
    "prefix_copy_rate": (agg_prefix_copy_rate, False),
}

#: The metrics of a control group's own tasks (the placebo): no attribute excess, which is
#: measured against the controls themselves.
CONTROL_METRICS = {k: v for k, v in METRICS.items() if "_attribute_" not in k}
