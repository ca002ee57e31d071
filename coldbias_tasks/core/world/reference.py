"""Reference lists: the larger lists of real items of a domain that the open protocol grounds
titles against when the catalog does not hold them (``core/parsing/grounding.py``).

A domain's reference list is the file its domain file names (``reference:``, e.g.
``data/reference/movie.jsonl``: one object per line: ``id``, ``title``, optional ``year`` and
``artist``, other fields are facts kept for the report) with its source, licence and coverage in
the ``sources.json`` beside it; ``data/reference/README.md`` says how each was derived. A domain
that names none has no reference list (None).

Matching reuses the catalog's index and matcher (``core/parsing/catalog_index.py``,
``core/parsing/title_match.py``: exact normalised keys, derived aliases, guarded fuzzy) over the
reference titles. Titles two entries share (remakes) match only through a stated year, and so
does a bare title that the list also holds with subtitles ("The Lord of the Rings" beside "The
Lord of the Rings: The Return of the King": the entry names the series as often as that film).
An abbreviation in brackets grounds only with the name beside it ("Singapore (NUS)" grounds in
the catalog, never in the reference), and in a list of institutions it must fit the name
("University of Science and Technology (IST)" is not the Sudanese "University of Science and
Technology").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.files.jsonl import json_file, read_jsonl_objects
from coldbias_tasks.core.parsing.catalog_index import (
    ABBREVIATION,
    ANY_PAREN,
    DIGITS,
    TRAILING_PAREN,
    abbreviates,
    build_index,
    is_abbreviation,
    normalized_key,
)
from coldbias_tasks.core.parsing.title_match import MARKDOWN, TitleMatcher
from coldbias_tasks.core.world.domains import TitleKind
from coldbias_tasks.core.world.domains import domain as domain_of

__all__ = [
    "YEAR_TOLERANCE",
    "RefEntry",
    "Reference",
    "load_reference",
    "read_reference",
    "reference_entries",
]

#: A stated year may differ from an item's own year by at most this many years (release dates
#: differ by country and festival).
YEAR_TOLERANCE = 1
#: A reference file larger than this is refused (the shipped ones are < 3 MB).
MAX_REFERENCE_BYTES = 16 << 20
_BEFORE_YEAR = re.compile(r"^(.*?)\s*(?:[(\[]|[-–—,]\s*(?:18|19|20)\d\d)")
_PAREN_CONTENT = re.compile(r"[(\[]\s*([^()\[\]]+?)\s*[)\]]")
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


class Reference:
    """A domain's reference list with its matcher."""

    def __init__(
        self,
        domain: str,
        entries: tuple[RefEntry, ...],
        coverage: str,
        kind: TitleKind | None = None,
    ) -> None:
        if not entries:
            raise CatalogError(f"the reference list of {domain!r} is empty; ship entries or none.")
        self.domain = domain
        self.entries = entries
        self.coverage = coverage
        self.ids = {e.id: e for e in entries}
        aliases = [e.aliases for e in entries] if any(e.aliases for e in entries) else None
        kind = kind or domain_of(domain).title_kind  # what the titles are, as the domain declares
        self._matcher = TitleMatcher(build_index([e.title for e in entries], aliases, kind))
        shared: dict[str, list[int]] = {}
        for row, entry in enumerate(entries):
            shared.setdefault(normalized_key(entry.title), []).append(row)
        self._shared = {k: tuple(rows) for k, rows in shared.items() if len(rows) > 1}
        heads = {normalized_key(e.title.split(":", 1)[0]) for e in entries if ":" in e.title}
        self._series = frozenset(
            row
            for row, entry in enumerate(entries)
            if ":" not in entry.title and normalized_key(entry.title) in heads
        )

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
            if not self._fits(year, hit) or (year is None and hit in self._series):
                return None
            if not self._named_outside_brackets(text, hit):
                return None
            if self._matcher.index.institutions and not self._abbreviation_fits(text, hit):
                return None
            return self.entries[hit]
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

    def _named_outside_brackets(self, text: str, row: int) -> bool:
        """Whether an entry that carries an abbreviation in brackets ("Colorado (UCD)",
        "Vincennes (Paris VIII) Saint-Denis") names ``row`` also without the brackets: an
        abbreviation alone grounds nothing in a list this large. True without such brackets."""
        if "(" not in text and "[" not in text:
            return True
        parts = [m.group(1) for m in _PAREN_CONTENT.finditer(text)]
        if not any(is_abbreviation(p.strip()) and not DIGITS.match(p.strip()) for p in parts):
            return True
        bare = ANY_PAREN.sub("", text).strip()
        return bool(bare) and self._matcher.match(bare)[0] == row

    def _abbreviation_fits(self, text: str, row: int) -> bool:
        """Whether an abbreviation in brackets at the end of ``text`` ("… (IST)") is one of
        the entry's names or abbreviates its title; True when there is none."""
        paren = TRAILING_PAREN.search(text.strip())
        if paren is None:
            return True
        short = paren.group().strip().strip("()[]").strip()
        if DIGITS.match(short) or not ABBREVIATION.match(short):
            return True
        entry = self.entries[row]
        names = [entry.title, *entry.aliases]
        key = normalized_key(short)
        return any(normalized_key(n) == key or abbreviates(short, n) for n in names)


def _entry(path: Path, line: int, obj: dict[str, object]) -> RefEntry:
    ident, title, year = obj.get("id"), obj.get("title"), obj.get("year")
    artist = obj.get("artist")
    if not isinstance(ident, str) or not ident or not isinstance(title, str) or not title.strip():
        raise CatalogError(
            f"{path}, line {line}: a reference entry needs a non-empty string 'id' and 'title'; "
            "regenerate the file with its script (data/reference/README.md)."
        )
    if year is not None and (type(year) is not int or not 0 < year < 10_000):
        raise CatalogError(
            f"{path}, line {line}: year is {year!r:.40}, not a year; write it as a number "
            "(e.g. 1994) or leave it out."
        )
    aliases = obj.get("aliases") or []
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise CatalogError(f"{path}, line {line}: 'aliases' must be a list of strings.")
    if isinstance(artist, str) and artist.strip():
        title = f"{title} by {artist}"
    return RefEntry(ident, title.strip(), year, tuple(aliases))


def with_aliases(
    entries: tuple[RefEntry, ...], extra: Mapping[str, Sequence[str]]
) -> tuple[RefEntry, ...]:
    """``entries`` with more names per entry id (``data/names/``: names in other languages,
    former names), matched exactly like the entries' own aliases."""
    return tuple(
        replace(e, aliases=tuple(dict.fromkeys((*e.aliases, *extra[e.id])))) if e.id in extra else e
        for e in entries
    )


def load_reference(domain: str) -> Reference | None:
    """The reference list of ``domain`` (its domain file's ``reference``), or None when it
    names none."""
    path = domain_of(domain).reference_file
    return None if path is None else read_reference(domain, path)


@lru_cache(maxsize=8)
def read_reference(domain: str, path: Path) -> Reference:
    """The reference list of ``domain`` in ``path``, its coverage from the ``sources.json``
    beside it; a bad file raises a CatalogError naming it and the fix."""
    return Reference(domain, *reference_entries(domain, path))


@lru_cache(maxsize=8)
def reference_entries(domain: str, path: Path) -> tuple[tuple[RefEntry, ...], str]:
    """(the entries, the coverage sentence) of :func:`read_reference`, without building
    the matcher (the grounder adds names first: ``with_aliases``)."""
    fix = "regenerate it with its script (data/reference/README.md)."
    rows = read_jsonl_objects(path, CatalogError, fix, MAX_REFERENCE_BYTES)
    entries = tuple(_entry(path, line, obj) for line, obj in rows)
    duplicates = len(entries) - len({e.id for e in entries})
    if duplicates:
        raise CatalogError(f"{path}: {duplicates} reference ids repeat; ids must be unique.")
    sources_path = path.parent / "sources.json"
    if not sources_path.is_file():
        raise CatalogError(
            f"{sources_path} is missing: it states each reference list's source, licence and "
            f"coverage; add it with a 'coverage' sentence for {domain!r}."
        )
    sources = json_file(sources_path, CatalogError, fix)
    entry = sources.get(domain) if isinstance(sources, dict) else None
    coverage = entry.get("coverage") if isinstance(entry, dict) else None
    if not isinstance(coverage, str) or not coverage.strip():
        raise CatalogError(
            f"{sources_path}: no 'coverage' sentence for {domain!r} ({domain}.coverage is "
            f"{coverage!r:.40}); add one stating what the list covers."
        )
    return entries, coverage
