"""lm-eval adapters of the reverse task (``coldbias_reverse_{domain}_{group}``): the dataset,
the filter that parses ranked user lists, and the aggregations, each reading one number from
:func:`coldbias_tasks.core.reverse.summarize_reverse` (computed once per task)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coldbias_tasks.core.answers import reverse_record_from_answer
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.records import ReverseDoc, UserRankRecord
from coldbias_tasks.core.reverse import ReverseSummary, summarize_reverse
from coldbias_tasks.lmeval.documents import build_reverse_docs
from coldbias_tasks.lmeval.harness import cached

__all__ = [
    "REVERSE_METRICS",
    "load_reverse_dataset",
    "parse_reverse_filter",
    "process_reverse_results",
]


def load_reverse_dataset(**kwargs: Any) -> Any:
    """``custom_dataset`` hook of the reverse tasks (``domain``, ``group`` from
    ``dataset_kwargs``; ``coldbias_*`` settings from ``--metadata``)."""
    from datasets import Dataset, DatasetDict

    missing = [key for key in ("domain", "group") if key not in kwargs]
    if missing:
        raise SettingsError(f"coldbias reverse task YAML lacks dataset_kwargs {missing}")
    docs = build_reverse_docs(kwargs["domain"], kwargs["group"], metadata=kwargs)
    return DatasetDict({"test": Dataset.from_list([d.to_dict() for d in docs])})


def parse_reverse_filter(resps: Sequence[Sequence[str]], docs: Sequence[dict]) -> list[dict]:
    """Filter for ``function: custom``: per doc, the payload of its parsed user ranking."""
    return [
        reverse_record_from_answer(r[0] if r else "", ReverseDoc.from_dict(doc)).to_payload()
        for r, doc in zip(resps, docs)
    ]


def process_reverse_results(doc: dict, results: Sequence[dict]) -> dict[str, dict]:
    payload = results[0] if results else parse_reverse_filter([[""]], [doc])[0]
    return {metric: payload for metric in REVERSE_METRICS}


def _reverse_summary(payloads: Sequence[dict]) -> ReverseSummary:
    return summarize_reverse(map(UserRankRecord.from_payload, payloads))


def _summary(payloads: Sequence[dict]) -> ReverseSummary:
    return cached(payloads, _reverse_summary)


def agg_reverse_rank_gap(payloads: Sequence[dict]) -> float:
    return _summary(payloads).rank_gap


def agg_reverse_top1_gap(payloads: Sequence[dict]) -> float:
    return _summary(payloads).top1_gap


def agg_reverse_exposure_gap(payloads: Sequence[dict]) -> float:
    return _summary(payloads).exposure_gap


def agg_reverse_group_p(payloads: Sequence[dict]) -> float:
    return _summary(payloads).group_p


def agg_reverse_flagged_share(payloads: Sequence[dict]) -> float:
    return _summary(payloads).flagged_share


def agg_reverse_keep_order_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).keep_order_rate


def agg_reverse_first_position_bias(payloads: Sequence[dict]) -> float:
    return abs(_summary(payloads).first_shown_rank - 0.5) / 0.5


def agg_reverse_complete_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).complete_rate


#: metric key → (aggregation, higher_is_better); every direction is a true one.
REVERSE_METRICS: dict[str, tuple[Any, bool]] = {
    "reverse_rank_gap": (agg_reverse_rank_gap, False),
    "reverse_top1_gap": (agg_reverse_top1_gap, False),
    "reverse_exposure_gap": (agg_reverse_exposure_gap, False),
    "reverse_group_p": (agg_reverse_group_p, True),
    "reverse_flagged_share": (agg_reverse_flagged_share, False),
    "reverse_keep_order_rate": (agg_reverse_keep_order_rate, False),
    "reverse_first_position_bias": (agg_reverse_first_position_bias, False),
    "reverse_complete_rate": (agg_reverse_complete_rate, True),
}
