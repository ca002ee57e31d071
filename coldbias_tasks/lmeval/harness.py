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

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from coldbias_tasks.core.aggregate import GroupSummary, summarize_group
from coldbias_tasks.core.catalog import load_catalog
from coldbias_tasks.core.errors import CatalogError, SettingsError
from coldbias_tasks.core.parse import parse_ranking
from coldbias_tasks.core.records import AnswerRecord, TaskDoc
from coldbias_tasks.lmeval.documents import build_docs

__all__ = ["METRICS", "load_dataset", "parse_filter", "process_results"]

#: Payload lists of out-of-catalog / duplicate strings are cut to this many entries.
MAX_LOGGED_ENTRIES = 25


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


@lru_cache(maxsize=64)
def _shown_view(
    catalog_name: str, sha256: str, shown_ids: tuple[int, ...]
) -> tuple[list[int], list[str], list[tuple[str, ...]] | None, dict[int, int]]:
    """Per (catalog, shown order): the shown set in catalog order, its titles and aliases, and
    each item's shown position; computed once and shared by all answers to that order.
    """
    catalog = load_catalog(catalog_name)
    if catalog.sha256 != sha256:
        raise CatalogError(
            f"catalog {catalog_name!r} changed since the docs were built "
            f"({catalog.sha256[:12]} ≠ {sha256[:12]}); rebuild the task."
        )
    shown_set = sorted(shown_ids)
    aliases = catalog.aliases()
    return (
        shown_set,
        [catalog.titles[i] for i in shown_set],
        [aliases[i] for i in shown_set] if aliases else None,
        {item: pos for pos, item in enumerate(shown_ids)},
    )


def _parse_one(text: Any, stored: dict) -> dict:
    """Parse against the items shown in this doc only: an item of the full catalog that the
    model was not shown counts as out of catalog. The index is built on the shown set in
    catalog order, so all repeats (shuffles) of a task share one cached index.
    """
    doc = TaskDoc.from_dict(stored)
    shown_set, titles, aliases, position = _shown_view(
        doc.catalog, doc.catalog_sha256, doc.shown_ids
    )
    ranking = parse_ranking(text if isinstance(text, str) else "", titles, doc.k, aliases=aliases)
    items = tuple(shown_set[i] for i in ranking.items)
    record = AnswerRecord(
        persona_id=doc.persona_id,
        repeat=doc.repeat,
        items=items,
        k=doc.k,
        positions=tuple(position[i] for i in items),
        n_shown=len(position),
        n_entries=ranking.n_entries,
        n_out_of_catalog=len(ranking.out_of_catalog),
        n_duplicates=len(ranking.duplicates),
        n_fuzzy=ranking.n_fuzzy,
        titles=tuple(titles[j] for j in ranking.items),
        out_of_catalog=ranking.out_of_catalog[:MAX_LOGGED_ENTRIES],
        duplicates=ranking.duplicates[:MAX_LOGGED_ENTRIES],
    )
    return record.to_payload()


def parse_filter(resps: Sequence[Sequence[str]], docs: Sequence[dict]) -> list[dict]:
    """Filter for ``function: custom``: per doc, the parse payload of its (single) answer."""
    return [_parse_one(r[0] if r else "", doc) for r, doc in zip(resps, docs)]


def process_results(doc: dict, results: Sequence[dict]) -> dict[str, dict]:
    """Every metric receives the same payload; aggregation does the pairing."""
    payload = results[0] if results else _parse_one("", doc)
    return {metric: payload for metric in METRICS}


_SUMMARIES: dict[tuple[int, ...], tuple[Sequence[dict], GroupSummary]] = {}


def _summary(payloads: Sequence[dict]) -> GroupSummary:
    """summarize_group over a task's payloads, computed once for all of its metrics.

    process_results hands the same payload objects to every metric, so the lists lm-eval passes
    to the aggregations hold identical objects: the key is their identities (the cached entry
    keeps the objects alive, so an id cannot be reused while cached).
    """
    key = tuple(id(p) for p in payloads)
    hit = _SUMMARIES.get(key)
    if hit is None:
        if len(_SUMMARIES) >= 8:
            _SUMMARIES.clear()
        records = map(AnswerRecord.from_payload, payloads)
        hit = _SUMMARIES[key] = (list(payloads), summarize_group(records))
    return hit[1]


# --- aggregations: one named function per metric key ------------------------------------------


def agg_iou_divergence(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].mean


def agg_serp_divergence(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].mean


def agg_prag_divergence(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].mean


def agg_iou_divergence_std(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].std


def agg_serp_divergence_std(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].std


def agg_prag_divergence_std(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].std


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


def agg_iou_noise_floor(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].noise_floor.mean


def agg_serp_noise_floor(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].noise_floor.mean


def agg_prag_noise_floor(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].noise_floor.mean


def agg_iou_cross_repeat_floor(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["iou"].noise_floor.cross_repeat_mean


def agg_serp_cross_repeat_floor(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["serp"].noise_floor.cross_repeat_mean


def agg_prag_cross_repeat_floor(payloads: Sequence[dict]) -> float:
    return _summary(payloads).metrics["prag"].noise_floor.cross_repeat_mean


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


def agg_mean_catalog_position(payloads: Sequence[dict]) -> float:
    return _summary(payloads).positions.mean_position


def agg_prefix_copy_rate(payloads: Sequence[dict]) -> float:
    return _summary(payloads).positions.prefix_copy_rate


#: metric key → (aggregation, higher_is_better). The task template lists the same keys.
METRICS: dict[str, tuple[Any, bool]] = {
    "iou_divergence": (agg_iou_divergence, False),
    "serp_divergence": (agg_serp_divergence, False),
    "prag_divergence": (agg_prag_divergence, False),
    "iou_divergence_std": (agg_iou_divergence_std, False),
    "serp_divergence_std": (agg_serp_divergence_std, False),
    "prag_divergence_std": (agg_prag_divergence_std, False),
    "iou_snsr": (agg_iou_snsr, False),
    "serp_snsr": (agg_serp_snsr, False),
    "prag_snsr": (agg_prag_snsr, False),
    "iou_snsv": (agg_iou_snsv, False),
    "serp_snsv": (agg_serp_snsv, False),
    "prag_snsv": (agg_prag_snsv, False),
    "iou_noise_floor": (agg_iou_noise_floor, False),
    "serp_noise_floor": (agg_serp_noise_floor, False),
    "prag_noise_floor": (agg_prag_noise_floor, False),
    "iou_cross_repeat_floor": (agg_iou_cross_repeat_floor, False),
    "serp_cross_repeat_floor": (agg_serp_cross_repeat_floor, False),
    "prag_cross_repeat_floor": (agg_prag_cross_repeat_floor, False),
    "exact_k_rate": (agg_exact_k_rate, True),
    "fill_rate": (agg_fill_rate, True),
    "empty_rate": (agg_empty_rate, False),
    "out_of_catalog_rate": (agg_out_of_catalog_rate, False),
    "duplicate_rate": (agg_duplicate_rate, False),
    "invalid_pair_rate": (agg_invalid_pair_rate, False),
    "mean_catalog_position": (agg_mean_catalog_position, False),
    "prefix_copy_rate": (agg_prefix_copy_rate, False),
}
