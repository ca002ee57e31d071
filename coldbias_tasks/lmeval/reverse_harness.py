"""lm-eval adapters of the reverse task (``coldbias_reverse_{domain}_{group}``): the dataset,
the filter that parses ranked user lists, and the per-doc results. The aggregations are the
declared reverse metrics' ``agg_*`` of :mod:`coldbias_tasks.lmeval.harness`, each reading one
number from :func:`coldbias_tasks.core.reverse.summarize_reverse` (computed once per task)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coldbias_tasks.core.answers import reverse_record_from_answer
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.metric_specs import lm_metrics
from coldbias_tasks.core.records import ReverseDoc
from coldbias_tasks.lmeval.documents import build_reverse_docs

__all__ = [
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
    """Every reverse metric receives the same payload (aggregations: ``harness.agg_*``)."""
    payload = results[0] if results else parse_reverse_filter([[""]], [doc])[0]
    return dict.fromkeys(lm_metrics(reverse=True), payload)
