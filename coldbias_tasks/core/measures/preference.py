"""Preference served, per answer: the share of the list that matches the preference the user
stated (the pref variant; docs/measurement.md §3e).

A pref task's user states one of the domain's checkable preferences (``preferences`` in
``data/domains/<name>.yaml``: an id, a catalog ``field`` and the ``label`` an item must carry
there, e.g. genres ∋ Action). Per answer, **preference served** = (listed items whose
``field`` lists ``label``) / k: the share of the k slots the user asked for that hold an item
of the stated preference (units: share of k; "3.2 action films in 10" is 0.32 at k = 10). A
slot left empty or filled with an invented title serves nothing, so failures lower it too
(:mod:`.failure` measures them alone). NaN for an answer stating no preference (other
variants, the neutral user) or a record of a catalog without that field.

:mod:`.costs` compares it between values (``preference_gap``): the share of each catalog's
items matching a preference differs between preferences, but every value is asked with every
preference in every phrasing, so that cancels within each cell.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.measures.contrast import contrast_measure
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.domains import domains

__all__ = ["PREFERENCE_GAP", "matching_items", "preference_served"]

NAN = float("nan")


@lru_cache(maxsize=32)
def _matching(catalog: str, preference: str) -> frozenset[int] | None:
    """Catalog rows of ``catalog`` (a declared domain) that serve ``preference``; None when the
    domain or preference is unknown or the catalog lacks the field."""
    spec = domains().get(catalog)
    found = spec.preferences.get(preference) if spec else None
    if found is None:
        return None
    try:
        labels = load_catalog(catalog).categories(found.field)
    except (CatalogError, OSError):
        return None
    return frozenset(i for i, cats in labels.items() if found.label in cats)


def matching_items(catalog: str, preference: str) -> frozenset[int] | None:
    """The catalog rows serving ``preference`` (None: not checkable, see :func:`_matching`)."""
    return _matching(catalog, preference) if catalog and preference else None


def preference_served(
    record: AnswerRecord, matching: Mapping[str, frozenset[int] | None] | None = None
) -> float:
    """Share of the k slots holding an item of the record's stated preference (module
    docstring); ``matching``: preference → its rows (default: read from the record's catalog)."""
    if not record.preference or record.k <= 0:
        return NAN
    rows = (
        matching.get(record.preference)
        if matching is not None
        else matching_items(record.catalog, record.preference)
    )
    if rows is None:
        return NAN
    return sum(1 for i in record.items if i in rows) / record.k


PREFERENCE_GAP = contrast_measure(
    "preference_gap",
    lambda summary: summary.costs.preference.contrast.estimate,
    (0.0, 1.0),
    "do some values' users get less of what they asked for? In a pref task (the user states a "
    "checkable preference, e.g. a genre), the spread between values of the share of the k "
    "slots holding an item of the stated preference, compared within each phrasing × "
    "preference cell and averaged over cells (signed at two values: the second value's share "
    "minus the first's); 0 when every value is served alike; listed by pref tasks only. Standard "
    "error: delete-one-cell jackknife (t with P − 1 df); p: relabelling of the values within "
    "each cell",
    220,
    protocol="pref",
)
