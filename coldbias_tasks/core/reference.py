"""Reference lists: the larger lists of real items of a domain that the open protocol grounds
titles against when the catalog does not hold them (``core/grounding.py``).

A reference list is ``data/reference/<domain>.jsonl`` (one object per line: ``id``, ``title``,
optional ``year`` and ``artist``, other fields are facts kept for the report) with its source,
licence and coverage in ``data/reference/sources.json``; ``data/reference/README.md`` says how
each was derived. A domain without a file has no reference list (None).

Matching reuses the catalog's index and matcher (``core/catalog_index.py``,
``core/title_match.py``: exact normalised keys, derived aliases, guarded fuzzy) over the
reference titles; titles two entries share (remakes) match only through a stated year.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from coldbias_tasks.core.catalog_index import build_index, normalized_key
from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.jsonl import read_jsonl_objects, read_text
from coldbias_tasks.core.resources import data_dir
from coldbias_tasks.core.title_match import MARKDOWN, TitleMatcher

__all__ = ["YEAR_TOLERANCE", "RefEntry", "Reference", "load_reference", "reference_dir"]

#: A stated year may differ from an item's own year by at most this many years (release dates
#: differ by country and festival).
YEAR_TOLERANCE = 1
#: A reference file larger than this is refused (the shipped ones are < 3 MB).
MAX_REFERENCE_BYTES = 16 << 20
_BEFORE_YEAR = re.compile(r"^(.*?)\s*(?:[(\[]|[-–—,]\s*(?:18|19|20)\d\d)")
_STRIP = " \t\"'“”«»„*_`-–—:;,."


@dataclass(frozen=True)
class RefEntry:
    """One real item of a reference list: its stable ``id``, canonical ``title`` (songs:
    "Title by Artist"), release ``year`` (None when unknown), other names (``aliases``,
    matched exactly only)."""

    id: str
    title: str
    year: int | None = None
    aliases: tuple[str, ...] = ()


def reference_dir() -> Path:
    """Folder of the reference lists (``data/reference``)."""
    return data_dir() / "reference"


class Reference:
    """A domain's reference list with its matcher."""

    def __init__(self, domain: str, entries: tuple[RefEntry, ...], coverage: str) -> None:
        if not entries:
            raise CatalogError(f"the reference list of {domain!r} is empty; ship entries or none.")
        self.domain = domain
        self.entries = entries
        self.coverage = coverage
        self.ids = {e.id: e for e in entries}
        aliases = [e.aliases for e in entries] if any(e.aliases for e in entries) else None
        self._matcher = TitleMatcher(build_index([e.title for e in entries], aliases))
        shared: dict[str, list[int]] = {}
        for row, entry in enumerate(entries):
            shared.setdefault(normalized_key(entry.title), []).append(row)
        self._shared = {k: tuple(rows) for k, rows in shared.items() if len(rows) > 1}

    def __len__(self) -> int:
        return len(self.entries)

    def _fits(self, year: int | None, row: int) -> bool:
        own = self.entries[row].year
        return year is None or own is None or abs(year - own) <= YEAR_TOLERANCE

    def match(self, text: str, year: int | None = None) -> RefEntry | None:
        """The entry ``text`` names, or None. ``year``: the year the answer states (None:
        none stated); it must fit the entry's own year and picks one of several entries
        that share a title (remakes)."""
        hit, _ = self._matcher.match(text)
        if hit is not None:
            return self.entries[hit] if self._fits(year, hit) else None
        if year is None:
            return None
        head = _BEFORE_YEAR.match(MARKDOWN.sub("", text))
        if head is None:
            return None
        rows = self._shared.get(normalized_key(head.group(1).strip(_STRIP)), ())
        fitting = [r for r in rows if self._fits(year, r)]
        exact = [r for r in fitting if self.entries[r].year == year]
        chosen = exact if len(exact) == 1 else fitting
        return self.entries[chosen[0]] if len(chosen) == 1 else None


def _entry(path: Path, line: int, obj: dict[str, object]) -> RefEntry:
    ident, title, year = obj.get("id"), obj.get("title"), obj.get("year")
    artist = obj.get("artist")
    if not isinstance(ident, str) or not ident or not isinstance(title, str) or not title.strip():
        raise CatalogError(
            f"{path}, line {line}: a reference entry needs a non-empty string 'id' and 'title'; "
            "regenerate the file with its script (data/reference/README.md)."
        )
    if year is not None and not isinstance(year, int):
        raise CatalogError(f"{path}, line {line}: 'year' must be an integer or absent.")
    aliases = obj.get("aliases") or []
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise CatalogError(f"{path}, line {line}: 'aliases' must be a list of strings.")
    if isinstance(artist, str) and artist.strip():
        title = f"{title} by {artist}"
    return RefEntry(ident, title.strip(), year, tuple(aliases))


@lru_cache(maxsize=8)
def load_reference(domain: str) -> Reference | None:
    """The reference list of ``domain``, or None when the project ships none for it."""
    folder = reference_dir()
    path = folder / f"{domain}.jsonl"
    if not path.is_file():
        return None
    fix = "regenerate it with its script (data/reference/README.md)."
    rows = read_jsonl_objects(path, CatalogError, fix, MAX_REFERENCE_BYTES)
    entries = tuple(_entry(path, line, obj) for line, obj in rows)
    duplicates = len(entries) - len({e.id for e in entries})
    if duplicates:
        raise CatalogError(f"{path}: {duplicates} reference ids repeat; ids must be unique.")
    sources_path = folder / "sources.json"
    try:
        sources = json.loads(read_text(sources_path, CatalogError))
        coverage = str(sources[domain]["coverage"])
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise CatalogError(
            f"{sources_path}: no 'coverage' sentence for {domain!r} ({exc}); add one."
        ) from exc
    return Reference(domain, entries, coverage)
