"""lm-eval adapters of the reverse task (``coldbias_reverse_{domain}_{group}``): the dataset and
the per-doc results (the ranked user list parsed and checked against its document, logged once).
The aggregations are :func:`coldbias_tasks.lmeval.harness.aggregate_answers` and the declared
reverse metrics' ``agg_*``, each reading one number from
:func:`coldbias_tasks.core.measures.reverse.summarize_reverse` (computed once per task)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.prompting.documents import build_reverse_docs
from coldbias_tasks.lmeval.harness import answer_record, parse_filter

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


def process_reverse_results(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    """The answer's record once, under ``ANSWER_KEY``, and its short id under every reverse
    metric (:func:`coldbias_tasks.lmeval.harness.answer_record`)."""
    return answer_record(doc, results, reverse=True)


#: The reverse filter of task YAMLs written before ``coldbias_answer``: refuses with the fix
#: (:func:`coldbias_tasks.lmeval.harness.parse_filter`).
parse_reverse_filter = parse_filter
