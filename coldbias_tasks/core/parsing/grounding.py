"""Grounding the titles of an open-ended answer ("recommend 20 movies", no catalog shown).

Each listed title resolves to the first level that knows it:

1. ``catalog``: the domain's catalog item (the forward parser's matcher,
   ``core/parsing/title_match.TitleMatcher`` over ``core/parsing/catalog_index.build_index``), key
   ``c:<row>``;
2. ``reference``: an entry of the domain's larger reference list shipped as facts in
   ``data/reference/`` (``core/world/reference.py``), key ``r:<reference id>``;
3. ``title``: the entry's normalised title key (:func:`title_key`, FaiRLLM's clean-up:
   lower-case, quotes and brackets removed, text after " - " cut), key ``t:<key>``, so that
   divergences between two lists stay defined for titles no list knows (possibly invented).

A song entry that names another artist than the catalog's, as "Hotel California (Charlie
Parker)" or 'Taylor Swift, "Hotel California"', is not that catalog song (another song of
the same title, or a wrong attribution: the title level keeps it).

Precision first: a level grounds an entry only on an exact normalised key, a derived alias or
the matcher's guarded fuzzy stage. In a domain whose ``year_rule`` is "match" (movie), an
ambiguous title (two films "Psycho") grounds only when a year in the entry ("Psycho (1998)")
picks one, and a stated year more than :data:`YEAR_TOLERANCE` from the item's own year (a
remake the list does not hold) is no match; elsewhere a stated year is ignored.
:meth:`Grounder.ground` never raises on any string; it returns None for text that is no title
(empty, prose such as "Here are 20 movies:").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from coldbias_tasks.core.parsing.answer_text import strip_invisible
from coldbias_tasks.core.parsing.catalog_index import (
    ABBREVIATION,
    ANY_PAREN,
    TRAILING_PAREN,
    build_index,
    normalized_key,
)
from coldbias_tasks.core.parsing.script_fold import fold_script
from coldbias_tasks.core.parsing.title_match import MARKDOWN, PROSE_START, TitleMatcher
from coldbias_tasks.core.parsing.title_match import _artists_agree as artists_agree
from coldbias_tasks.core.parsing.title_split import split_title
from coldbias_tasks.core.world.catalog import Catalog
from coldbias_tasks.core.world.domains import domain as domain_of
from coldbias_tasks.core.world.names import Names, load_names
from coldbias_tasks.core.world.reference import (
    YEAR_TOLERANCE,
    Reference,
    reference_entries,
    with_aliases,
)

__all__ = [
    "YEAR_TOLERANCE",
    "Grounded",
    "Grounder",
    "Level",
    "clear_cache",
    "grounder",
    "stated_year",
    "title_key",
]

Level = Literal["catalog", "reference", "title"]

#: Entries longer than this many characters are cut before grounding (no title is longer).
MAX_ENTRY_CHARS = 500

_LIST_MARKER = re.compile(
    r"^\s*(?:#{1,6}\s+)?(?:[-*•·●▪◦+>]\s+|#?\(?\d{1,3}\s*[.)\]、:]\s*|\d{1,3}\s+[-–—]\s+)"
)
_YEAR_IN_BRACKETS = re.compile(r"[(\[]\s*(?:[^()\[\]]*?[\s,;])?((?:18|19|20)\d\d)\b[^()\[\]]*[)\]]")
_YEAR_AT_END = re.compile(r"(?:\s[-–—]\s*|,\s*)((?:18|19|20)\d\d)\s*\.?\s*$")
_QUOTES = re.compile(r"[\"“”«»„「」『』《》〈〉【】*_`]")
_DASH_CUT = re.compile(r"\s+[-–—]\s+.*$|\s*[–—]\s*.*$")
_SPACES = re.compile(r"\s+")
#: Song entries that name an artist in forms the catalog matcher reads as part of the title:
#: "Title (Artist)" and 'Artist, "Title"'.
_PAREN_ARTIST = re.compile(r"^.+?\s*[(\[]([^()\[\]]+)[)\]]\s*$")
_ARTIST_THEN_QUOTED = re.compile(r'^([^,"“”]+),\s*["“][^"“”]+["”]\s*$')
_NO_ARTIST = re.compile(
    r"\b(?:feat|ft|featuring|live|remaster(?:ed)?|version|edit|mix|remix|demo|acoustic|cover|"
    r"from|theme|with|part|pt|single|album)\b|^\W*(?:19|20)\d\d\W*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Grounded:
    """One listed title, resolved.

    ``key``: ``"c:<catalog row index>"``, ``"r:<reference id>"`` or ``"t:<normalised
    title>"``; ``level``: which of the three; ``catalog_index``: the catalog row (catalog level
    only); ``title``: the catalog's / reference's canonical title, or the entry as given
    (cleaned of list markers) at the title level.
    """

    key: str
    level: Level
    catalog_index: int | None = None
    title: str = ""


def stated_year(entry: str) -> int | None:
    """The release year an entry states: in brackets ("Jaws (1975)", "(1975, Spielberg)") or
    after a final dash or comma ("Jaws - 1975"); None when it states none. A year that is part
    of the title ("Blade Runner 2049", "1917") is not a stated year."""
    match = _YEAR_IN_BRACKETS.search(entry) or _YEAR_AT_END.search(entry)
    return int(match.group(1)) if match else None


def _clean(entry: str) -> tuple[str, bool]:
    """(the entry without invisible characters, a list marker, markdown emphasis and
    surrounding space; whether it had a list marker)."""
    text = " ".join(strip_invisible(entry[:MAX_ENTRY_CHARS]).split())
    marker = _LIST_MARKER.match(text)
    if marker:
        text = text[marker.end() :]
    return MARKDOWN.sub("", text).strip(), marker is not None


def title_key(entry: str) -> str:
    """FaiRLLM's clean-up of a title: lower-case, quotes and brackets (with their content: a
    year, a director) removed, text after " - " cut, spaces collapsed; "" when nothing is
    left."""
    text = _DASH_CUT.sub("", _clean(entry)[0])
    text = ANY_PAREN.sub("", text)
    text = _QUOTES.sub("", text).lower()
    return _SPACES.sub(" ", text).strip(" .,;:!?'-")


def _is_prose(text: str, marked: bool) -> bool:
    """A sentence rather than a title: a lead-in ending with ":", a long sentence, or (an
    entry without list marker, as a numbered "Here Comes the Sun" is a title) a chat opening
    ("Sure", "Here are", "Enjoy!"). A title followed by " - " and a comment ("Universidade de
    São Paulo - Brazil's top-ranking institution.") is judged by the title."""
    head = _DASH_CUT.sub("", text).strip()
    if head and head != text and len(head.split()) <= 10:
        text = head
    words = text.split()
    if not words or text.endswith(":") or len(words) > 20:
        return True
    if len(words) >= 8 and text[-1:] in ".!?":
        return True
    return not marked and bool(PROSE_START.match(text))


def _year(value: object) -> int | None:
    """A catalog's year cell as an int; None when missing or not a year (a user's catalog)."""
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return None


class Grounder:
    """Resolves entries of one domain against its catalog, then its reference list."""

    def __init__(
        self,
        domain: str,
        catalog: Catalog,
        reference: Reference | None,
        names: Names | None = None,
    ) -> None:
        self.domain = domain
        self.catalog = catalog
        self.reference = reference
        spec = domain_of(domain)
        #: whether a stated year tells items apart (the domain's ``year_rule``: "match")
        self.years = spec.year_rule == "match"
        #: the domain's other names (``data/names/``), already in ``reference`` when given
        self.names = names if names is not None else catalog_names(domain, catalog, None)
        own = catalog.aliases()
        extra = self.names.for_rows(_row_ids(catalog))
        if any(extra):
            own = [(*a, *e) for a, e in zip(own or [()] * len(catalog), extra)]
        self._matcher = TitleMatcher(build_index(catalog.titles, own, spec.title_kind))
        years = catalog.table.get("year") if self.years else None
        self._catalog_years = None if years is None else tuple(_year(y) for y in years)

    @property
    def coverage(self) -> str:
        """One sentence: what the reference list holds and what it leaves out."""
        if self.reference is None:
            return (
                f"No reference list for {self.domain!r}: only its {len(self.catalog)} catalog "
                "items ground; every other title keeps its normalised title key."
            )
        return self.reference.coverage

    def _year_fits(self, year: int | None, own: int | None) -> bool:
        return year is None or own is None or abs(year - own) <= YEAR_TOLERANCE

    def _other_artist(self, text: str, hit: int) -> bool:
        """Whether a song entry names an artist, in brackets after the title or before a
        quoted title, that is not the catalog song's artist nor part of its title."""
        index = self._matcher.index
        own = index.artists[hit] if index.kind == "song" else ""
        if not own:
            return False
        match = _PAREN_ARTIST.match(text) or _ARTIST_THEN_QUOTED.match(text)
        if match is None or _NO_ARTIST.search(match.group(1)):
            return False
        head, by, artist = text[: match.start(1)].rpartition(" by ")
        if by and head and artists_agree(artist.strip(" ([-–—"), own):
            return False  # '"Stairway to Heaven" by Led Zeppelin (an album)'

        named = match.group(1).strip()
        if normalized_key(named) in normalized_key(self.catalog.titles[hit]):
            return False  # "Sweet Dreams (Are Made of This)"
        return not artists_agree(named, own)

    def _catalog(self, text: str, year: int | None) -> Grounded | None:
        hit, _ = self._matcher.match(text)
        if hit is None or self._other_artist(text, hit):
            return None
        if self._catalog_years is not None and not self._year_fits(year, self._catalog_years[hit]):
            return None  # "Psycho (1998)" is not the catalog's "Psycho" (1960)
        return Grounded(f"c:{hit}", "catalog", hit, self.catalog.titles[hit])

    def _reference(self, text: str, year: int | None) -> Grounded | None:
        """The reference entry ``text`` names; an entry that is itself a catalog item under
        another name (swot's "University of Campinas", alias "Unicamp", is the catalog's
        "Universidade Estadual de Campinas") resolves to the catalog item."""
        ref = self.reference.match(text, year) if self.reference is not None else None
        if ref is None:
            return None
        for name in (ref.title, *ref.aliases):
            found = self._catalog(name, ref.year)
            if found is not None:
                return found
        return Grounded(f"r:{ref.id}", "reference", None, ref.title)

    def _levels(self, text: str, year: int | None) -> Grounded | None:
        """Catalog, then reference. An entry with an abbreviation in brackets ("University of
        Colorado Denver (UCD)") is first grounded by its name, so that the abbreviation alone
        (the catalog's "UCD", University College Dublin) does not win over the name."""
        paren = TRAILING_PAREN.search(text)
        if paren and paren.start() > 0 and ABBREVIATION.match(paren.group().strip(" ()[]")):
            found = self._catalog(text[: paren.start()], year) or self._reference(text, year)
            if found is not None:
                return found
        return self._catalog(text, year) or self._reference(text, year)

    def ground(self, entry: str) -> Grounded | None:
        """The grounded title of one list entry, or None when it is no title (empty, prose).
        Never raises on any ``str``; a non-str is no title."""
        if not isinstance(entry, str):
            return None
        text, marked = _clean(entry)
        if not text or _is_prose(text, marked):
            return None
        year = stated_year(text) if self.years else None
        split = split_title(text)  # '"Kesariya by A" by A', '"卧虎藏龙" (Crouching Tiger…)'
        main = text if split is None else split.text(self._matcher.index.kind == "song")
        tried = (main, split.other if split else "", text if split else "")
        for candidate in dict.fromkeys(f for c in tried if c for f in (c, fold_script(c))):
            found = self._levels(candidate, year)
            if found is not None:
                return found
        key = title_key(fold_script(main))
        if not key or not any(ch.isalnum() for ch in key):
            return None
        return Grounded(f"t:{key}", "title", None, text)


def _row_ids(catalog: Catalog) -> list[str]:
    ids = catalog.table.get("id")
    return [str(i) for i in ids] if ids is not None else []


def catalog_names(domain: str, catalog: Catalog, reference_ids: frozenset[str] | None) -> Names:
    """The other names of ``domain`` (``data/names/<domain>.yaml``) checked against
    ``catalog`` and the reference ids; none for a catalog without an ``id`` column."""
    ids = _row_ids(catalog)
    if not ids:
        return Names({}, {}, {}, {})
    own = catalog.aliases() or [()] * len(catalog)
    titles = [(t, *a) for t, a in zip(catalog.titles, own)]
    return load_names(domain, ids, titles, reference_ids)


_CACHE: dict[tuple[str, str], Grounder] = {}


def grounder(domain: str, catalog: Catalog) -> Grounder:
    """The :class:`Grounder` of ``domain`` over ``catalog``, built once per (domain, catalog
    hash). A domain without a reference list (``reference`` in its domain file) grounds on
    the catalog alone."""
    key = (domain, catalog.sha256)
    found = _CACHE.get(key)
    if found is None:
        path = domain_of(domain).reference_file
        reference = None
        if path is None:
            names = catalog_names(domain, catalog, None)
        else:  # the names join the reference entries before its matcher is built (once)
            entries, coverage = reference_entries(domain, path)
            names = catalog_names(domain, catalog, frozenset(e.id for e in entries))
            entries = with_aliases(entries, names.reference_names())
            reference = Reference(domain, entries, coverage)
        found = _CACHE[key] = Grounder(domain, catalog, reference, names)
    return found


def clear_cache() -> None:
    """Forget every built grounder (tests)."""
    _CACHE.clear()
