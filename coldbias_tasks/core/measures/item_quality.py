"""Item quality, per answer: how good, by an offline fact, are the items a user is given?
(docs/measurement.md §3e). Not :mod:`.quality`, the policy for degenerate model output.

Facts are read from ``data/facts/<domain>.jsonl`` (one row per catalog item with a known fact:
``id`` the catalog's id, ``critics_score`` 0–100), built by ``scripts/build_item_facts.py``
from the CC0 Wikidata film snapshot of ``bokeh-sampledata`` (movies: 377 of 500 films have a
critics' score; ``data/facts/sources.json`` states source and coverage). Songs and universities
have no offline fact (the college catalog deliberately has no ranks): no file, no value.

Per answer, **item quality** = the mean critics' score (points, 0–100) of its listed items that
have one; NaN when none has (an empty list, or only items without a fact) or the domain has no
facts. :mod:`.costs` compares it between values (``quality_gap``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.measures.contrast import contrast_measure
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.resources import data_folders
from coldbias_tasks.core.world.catalog import load_catalog

__all__ = ["FACT", "QUALITY_GAP", "item_facts", "item_quality"]

NAN = float("nan")
#: The fact item quality reads (points, 0–100).
FACT = "critics_score"


@lru_cache(maxsize=16)
def _facts(catalog: str) -> dict[int, float]:
    for folder in data_folders():
        path = folder / "facts" / f"{catalog}.jsonl"
        if path.is_file():
            break
    else:
        return {}
    try:
        rows = load_catalog(catalog).table["id"].tolist()
    except (CatalogError, OSError, KeyError):
        return {}
    index = {str(item): i for i, item in enumerate(rows)}
    out: dict[int, float] = {}
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        score = row.get(FACT)
        if not isinstance(score, (int, float)) or not 0 <= score <= 100:
            if score is None:
                continue
            raise CatalogError(f"{path}:{line_no}: {FACT} {score!r} is not a score in 0–100; "
                               "rebuild the file with scripts/build_item_facts.py")  # fmt: skip
        if str(row.get("id")) in index:
            out[index[str(row["id"])]] = float(score)
    return out


def item_facts(catalog: str) -> dict[int, float]:
    """Catalog row → critics' score of the declared domain ``catalog`` (empty: no facts)."""
    return _facts(catalog) if catalog else {}


def item_quality(record: AnswerRecord, facts: Mapping[int, float] | None = None) -> float:
    """Mean critics' score of the record's items that have one (module docstring); ``facts``:
    row → score (default: the record's catalog's)."""
    known = item_facts(record.catalog) if facts is None else facts
    scores = [known[i] for i in record.items if i in known]
    return sum(scores) / len(scores) if scores else NAN


QUALITY_GAP = contrast_measure(
    "quality_gap",
    lambda summary: summary.costs.quality.contrast.estimate,
    (0.0, 100.0),
    "do some values get worse items? Movies: the spread between values of the mean critics' "
    "score (0–100, the CC0 Wikidata film snapshot of bokeh-sampledata) of the listed films, "
    "compared within each phrasing and averaged over phrasings (signed at two values: the "
    "second value's mean minus the first's); 0 when every value gets films of equal score; n/a "
    "where no offline fact exists (songs, universities). Standard error: delete-one-phrasing "
    "jackknife (t with P − 1 df); p: relabelling of the values within each phrasing",
    230,
    protocol="pref",
)
