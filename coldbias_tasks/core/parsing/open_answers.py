"""Open answers (FaiRLLM's protocol: no catalog in the prompt): from free text to an
:class:`~coldbias_tasks.core.records.AnswerRecord` over grounded keys, and the grounding rates.

An open answer is split into list entries by the catalog parser (``core/parsing/parse.py``: numbered
lists, bullets, JSON, HTML, ``<think>`` blocks, lead-ins, prose) with a matcher that knows the
domain's catalog and reference list through the grounder (``core/parsing/grounding.py``): entries
that
resolve to a catalog or reference entry are matched (so comma-joined lines split as for the
catalog task), the other list entries are resolved to their normalised title key. Keys are
deduplicated (a spelling variant of a listed film is a duplicate), at most k are kept, best
first.

How keys enter the record (so that IOU/SERP/PRAG, the headline and exposure work unchanged):
``items`` holds, per key, the catalog row for a catalog key ``c:<row>`` (the ids exposure reads
its categories by) and a stable negative code for a reference or title key
(:func:`item_code`: −1 − the first 48 bits of the key's SHA-256, the same in every run and
process); ``keys`` holds the key strings, parallel to ``items``. Two answers share an item
exactly when they share a key. An open record has no shown order (``positions`` empty,
``n_shown`` 0); ``n_out_of_catalog`` counts its ungrounded items (known to neither list:
possibly invented), so the fidelity's ``out_of_catalog_rate`` ("invented or not shown") and the
degenerate-output check (``core/measures/quality.py``) read invented items as in a catalog task.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Protocol

from coldbias_tasks.core.parsing.parse import parse_ranking
from coldbias_tasks.core.records import AnswerRecord, TaskDoc

__all__ = [
    "GROUNDING_FIELD",
    "LEVEL_LABELS",
    "Grounding",
    "catalog_items",
    "grounded_items",
    "grounding",
    "item_code",
    "key_level",
    "level_labels",
    "record_from_open_answer",
]

#: Grounding levels by key prefix: a catalog row, a reference entry, a normalised title only.
_PREFIX_LEVEL = {"c:": "catalog", "r:": "reference", "t:": "title"}
#: The report's name of each level (the pseudo catalog field :data:`GROUNDING_FIELD`).
LEVEL_LABELS = {"catalog": "catalog", "reference": "reference (not in catalog)",
                "title": "ungrounded"}  # fmt: skip
#: Exposure field of the report's grounding tables (not a catalog column).
GROUNDING_FIELD = "grounding"
#: Logged lists of strings are cut to this many entries (as for catalog answers).
_MAX_LOGGED = 25


class _Grounded(Protocol):
    key: str
    level: str
    title: str


class _Grounder(Protocol):
    def ground(self, entry: str) -> _Grounded | None: ...


def key_level(key: str) -> str:
    """``catalog``, ``reference`` or ``title`` for a grounding key; ValueError for any other."""
    level = _PREFIX_LEVEL.get(key[:2])
    if level is None:
        raise ValueError(f"grounding key {key!r} starts with none of c:, r:, t:")
    return level


def item_code(key: str) -> int:
    """The record's item id of a key: the row of ``c:<row>``; for a reference or title key
    −1 − (the first 6 bytes of its UTF-8 SHA-256 as an integer): negative, never a catalog row,
    identical across runs (a collision among 10⁴ keys has probability ≈ 2·10⁻⁷)."""
    if key_level(key) == "catalog":
        return int(key[2:])
    return -1 - int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:6], "big")


@dataclass
class _Titles:
    titles: list[str]


class _GroundedMatcher:
    """A :class:`~coldbias_tasks.core.parsing.parse.EntryMatcher` matching entries the grounder
    resolves
    to the catalog or the reference list (index: the order found; one index per key)."""

    def __init__(self, grounder: _Grounder) -> None:
        self.grounder = grounder
        self.found: list[_Grounded] = []
        self.index = _Titles([])
        self._by_key: dict[str, int] = {}

    def match(self, entry: str) -> tuple[int | None, bool]:
        hit = self.grounder.ground(entry)
        if hit is None or hit.level == "title":
            return None, False
        if hit.key not in self._by_key:
            self._by_key[hit.key] = len(self.found)
            self.found.append(hit)
            self.index.titles.append(hit.title)
        return self._by_key[hit.key], False


def record_from_open_answer(
    text: Any, doc: TaskDoc, grounder: _Grounder | None = None
) -> AnswerRecord:
    """Parse an open task's answer and ground its entries (``grounder``: default the domain's,
    :func:`coldbias_tasks.core.parsing.grounding.grounder` over the task's catalog). A non-string
    answer
    is an empty one. Entries the grounder rejects (no title left) are not counted: ``n_entries``
    = items + duplicates (ungrounded items are items, also counted in ``n_out_of_catalog``)."""
    grounder = grounder or _domain_grounder(doc.domain, doc.catalog, doc.catalog_sha256)
    matcher = _GroundedMatcher(grounder)
    # every entry is read (k × 4 bounds a repetition loop); the k unique keys are kept below
    ranking = parse_ranking(text if isinstance(text, str) else "", (), 4 * doc.k, matcher=matcher)
    keys: list[str] = []
    titles: list[str] = []
    duplicates: list[str] = []
    n_entries = 0
    for entry, hit in ranking.listed:
        if len(keys) >= doc.k:
            break
        grounded = matcher.found[hit] if hit is not None else grounder.ground(entry)
        if grounded is None:  # no title (prose the parser took for an entry)
            continue
        n_entries += 1
        if grounded.key in keys:
            duplicates.append(entry)
        else:
            keys.append(grounded.key)
            titles.append(grounded.title)
    ungrounded = [t for key, t in zip(keys, titles) if key_level(key) == "title"]
    return AnswerRecord(
        persona_id=doc.persona_id,
        repeat=doc.repeat,
        items=tuple(item_code(key) for key in keys),
        k=doc.k,
        n_entries=n_entries,
        n_out_of_catalog=len(ungrounded),
        n_duplicates=len(duplicates),
        titles=tuple(titles),
        out_of_catalog=tuple(ungrounded[:_MAX_LOGGED]),
        duplicates=tuple(duplicates[:_MAX_LOGGED]),
        alpha=doc.alpha,
        value=doc.value,
        phrasing=doc.phrasing,
        preference=doc.preference,
        control=doc.control_task,
        keys=tuple(keys),
        catalog=doc.catalog,
    )


@lru_cache(maxsize=8)
def _domain_grounder(domain: str, catalog_name: str, sha256: str) -> _Grounder:
    """The grounder of a task's domain over its catalog (built once per catalog)."""
    from coldbias_tasks.core.errors import CatalogError
    from coldbias_tasks.core.parsing.grounding import grounder
    from coldbias_tasks.core.world.catalog import load_catalog

    catalog = load_catalog(catalog_name)
    if catalog.sha256 != sha256:
        raise CatalogError(
            f"catalog {catalog_name!r} changed since the docs were built "
            f"({catalog.sha256[:12]} ≠ {sha256[:12]}); rebuild the task or restore the catalog."
        )
    return grounder(domain, catalog)


@dataclass(frozen=True)
class Grounding:
    """Where an open task's listed items resolved, pooled over its answers.

    ``n_items``: unique listed items (at most k per answer); ``grounded_rate``: share resolved
    to a catalog or reference entry (the rest are normalised titles only: possibly invented, or
    real but outside the reference); ``catalog_rate``: share resolved to the catalog. Both NaN
    without open answers (a catalog task) or without any item.
    """

    n_items: int = 0
    grounded_rate: float = float("nan")
    catalog_rate: float = float("nan")


def grounding(records: Iterable[AnswerRecord]) -> Grounding:
    """:class:`Grounding` over the records that carry grounding keys (open answers)."""
    levels = [key_level(key) for r in records for key in r.keys]
    if not levels:
        return Grounding()
    n = len(levels)
    return Grounding(
        n_items=n,
        grounded_rate=sum(level != "title" for level in levels) / n,
        catalog_rate=levels.count("catalog") / n,
    )


def catalog_items(record: AnswerRecord) -> AnswerRecord:
    """The record with its catalog items only (an open answer's grounded catalog items, for
    exposure over catalog fields); a catalog task's record is returned unchanged."""
    return _keep_levels(record, ("catalog",))


def grounded_items(record: AnswerRecord) -> AnswerRecord:
    """The record with its grounded items only (catalog or reference: what is known to be an
    item; the open headline's lists, ``core/measures/coverage.py``); a catalog task's record is
    returned unchanged."""
    return _keep_levels(record, ("catalog", "reference"))


def _keep_levels(record: AnswerRecord, levels: tuple[str, ...]) -> AnswerRecord:
    if not record.keys:
        return record
    kept = [i for i, key in enumerate(record.keys) if key_level(key) in levels]
    if len(kept) == len(record.keys):
        return record
    return replace(
        record,
        items=tuple(record.items[i] for i in kept),
        keys=tuple(record.keys[i] for i in kept),
        titles=tuple(record.titles[i] for i in kept if i < len(record.titles)),
    )


def level_labels(records: Sequence[AnswerRecord]) -> Mapping[int, list[str]]:
    """Item id → its grounding label (:data:`LEVEL_LABELS`) for every item of open records:
    the categories of the report's :data:`GROUNDING_FIELD` (which values get more ungrounded
    items)."""
    return {
        item: [LEVEL_LABELS[key_level(key)]] for r in records for item, key in zip(r.items, r.keys)
    }
