"""From one raw answer and its document to an :class:`~coldbias_tasks.core.records.AnswerRecord`.

Used by the lm-eval filter at run time and by the offline loader when it re-parses logged
answers with the current parser (``coldbias report --reparse``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.parsing.open_answers import record_from_open_answer
from coldbias_tasks.core.parsing.parse import parse_ranking
from coldbias_tasks.core.parsing.parse_users import parse_user_ranking
from coldbias_tasks.core.records import AnswerRecord, ReverseDoc, TaskDoc, UserRankRecord
from coldbias_tasks.core.vocabulary import OPEN
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.domains import domain

__all__ = ["MAX_LOGGED_ENTRIES", "record_from_answer", "reverse_record_from_answer"]

#: Logged lists of out-of-catalog / duplicate strings are cut to this many entries.
MAX_LOGGED_ENTRIES = 25


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
            f"({catalog.sha256[:12]} ≠ {sha256[:12]}); rebuild the task or restore the catalog."
        )
    shown_set = sorted(shown_ids)
    aliases = catalog.aliases()
    return (
        shown_set,
        [catalog.titles[i] for i in shown_set],
        [aliases[i] for i in shown_set] if aliases else None,
        {item: pos for pos, item in enumerate(shown_ids)},
    )


def record_from_answer(text: Any, doc: TaskDoc) -> AnswerRecord:
    """Parse ``text`` against the items shown in ``doc`` only: an item of the full catalog that
    the model was not shown counts as out of catalog. The index is built on the shown set in
    catalog order, so all repeats (shuffles) of a task share one cached index. The titles are
    matched as the doc's domain declares them (``title_kind`` in its file); an unknown domain raises
    SettingsError. A non-string answer is an empty one. An open task's answer (nothing shown)
    is grounded instead
    (:func:`~coldbias_tasks.core.parsing.open_answers.record_from_open_answer`)."""
    if doc.variant == OPEN:
        return record_from_open_answer(text, doc)
    shown_set, titles, aliases, position = _shown_view(
        doc.catalog, doc.catalog_sha256, doc.shown_ids
    )
    kind = domain(doc.domain).title_kind
    answer = text if isinstance(text, str) else ""
    ranking = parse_ranking(answer, titles, doc.k, aliases=aliases, kind=kind)
    items = tuple(shown_set[i] for i in ranking.items)
    return AnswerRecord(
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
        alpha=doc.alpha,
        value=doc.value,
        phrasing=doc.phrasing,
        preference=doc.preference,
        control=doc.control_task,
        catalog=doc.catalog,
    )


def reverse_record_from_answer(text: Any, doc: ReverseDoc) -> UserRankRecord:
    """Parse a reverse answer against the users shown in ``doc`` (never guesses; invalid and
    repeated entries are counted, users left out are absent)."""
    ranking = parse_user_ranking(text if isinstance(text, str) else "", doc.phrases)
    return UserRankRecord(
        item_id=doc.item_id,
        repeat=doc.repeat,
        candidates=doc.candidates,
        order=tuple(ranking.order),
        n_entries=ranking.n_entries,
        n_invalid=len(ranking.invalid),
        n_duplicates=len(ranking.duplicates),
        alpha=doc.alpha,
    )
