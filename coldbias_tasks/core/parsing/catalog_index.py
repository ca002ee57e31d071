"""Catalog index and title normalization of the forward parser: the exact-match keys of a
catalog, built once per catalog and cached (matching itself is ``core/parsing/title_match.py``).

**Keys.** :func:`normalize` folds case, accents, punctuation and apostrophes, drops a leading
article (and a trailing ", The"), reads roman numerals II–IX as digits; :func:`normalized_key`
also removes spaces ("Spider-Man" = "Spiderman"). A key that keeps the leading article is
kept too (``CatalogIndex.literal``: "Taxi Driver" is not "A Taxi Driver").

**Derived aliases** of every catalog, exact-only and dropped when two items share one: the
abbreviation in a trailing parenthesis ("… (MIT)" ← "MIT") and the title without it; in
institution catalogs (title kind "institution", declared by the domain: its file's ``title_kind``)
the main part before a separator ("Sorbonne University" for "Sorbonne University - Faculty of
Science", "Trinity College Dublin" for "Trinity College Dublin, The University of Dublin"), the
name after a leading abbreviation ("KIT, Karlsruhe Institute of Technology"), and an
**institution key** (:func:`institution_key`) applied to both sides: institution words across
languages folded to English (Universität / Universidad / Université… = University, Technische
= Technical, Institut = Institute…), "St" = "Saint", "und"/"et" = "and", a few city exonyms
(München = Munich), particles and articles dropped, words sorted, so that "Technische
Universität München" = "Technical University of Munich" and "Toronto University" = "University
of Toronto". A key that is a leading part of another title ("Washington University" in
"Washington University in St. Louis") is ambiguous.

**Songs.** In a song catalog (title kind "song"), each "Title by Artist" also answers to
"Title - Artist", "Artist - Title", "Artist by Title" and (``CatalogIndex.bare``) the bare
title, also without its parentheticals, when that title is unique in the catalog; its
artist's songs are listed for the artist-aware fuzzy stage (``CatalogIndex.by_artist``). The
kind is declared, never guessed from the titles: in a "work" catalog "North by Northwest" or a
book's "Title by Author" is one title, matched as written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache

from coldbias_tasks.core.world.domains import TitleKind, check_title_kind

__all__ = [
    "AMBIGUOUS",
    "CatalogIndex",
    "build_index",
    "clear_caches",
    "institution_key",
    "key_forms",
    "normalize",
    "normalized_key",
]

#: The value of a key that two catalog items share (matched by neither).
AMBIGUOUS = -1
_ARTICLES = ("the", "a", "an")
_ROMAN = {"ii": "2", "iii": "3", "iv": "4", "vi": "6", "vii": "7", "viii": "8", "ix": "9"}

# Institution names: words folded to one English form ("" = dropped), applied to both sides.
_INST_FOLD: dict[str, str] = {}
for _canon, _variants in {
    "university": "universitat universitaet universidad universidade universita universite "
    "universiteit uniwersytet universitet univerzita univerzitet universiti universitas "
    "universitatea universitetet universitaire universitario universitaria",
    "institute": "institut instituto istituto instytut institutet institutes",
    "technical": "technische technischen technisch tecnica tecnico technique techniques "
    "technicka techniczna teknisk tekniska",
    "technology": "technologie tecnologia technologii teknologi",
    "polytechnic": "politecnico polytechnique politecnica politechnika polytechnical",
    "college": "colegio collegio",
    "school": "ecole escuela escola scuola schule",
    "national": "nacional nazionale nationale",
    "autonomous": "autonoma autonomo",
    "catholic": "catolica catolico catholique cattolica katholieke katholische",
    "pontifical": "pontificia pontificio pontificale",
    "free": "freie libre libera livre vrije",
    "federal": "federale",
    "saint": "st ste sainte",
    "and": "und et",
    "munich": "munchen muenchen",
    "cologne": "koln koeln",
    "vienna": "wien",
    "prague": "praha",
    "rome": "roma",
    "milan": "milano",
    "turin": "torino",
    "naples": "napoli",
    "florence": "firenze",
    "venice": "venezia",
    "lisbon": "lisboa",
    "warsaw": "warszawa",
    "moscow": "moskva",
    "copenhagen": "kobenhavn",
    "gothenburg": "goteborg",
    "brussels": "bruxelles brussel",
    "geneva": "geneve genf",
    "seville": "sevilla",
    "athens": "athina",
    "nuremberg": "nurnberg",
    "": "of the a an de di da do dos das des du del della delle dei degli der den zu von la le "
    "les el at in for fur",
}.items():
    for _variant in _variants.split():
        _INST_FOLD[_variant] = _canon
_INST_CORE = frozenset(
    {"university", "institute", "college", "school", "polytechnic", "academy", "conservatory"}
)
_INST_HINT = frozenset(_INST_CORE | {w for w, c in _INST_FOLD.items() if c in _INST_CORE} | {"uc"})
_CATALOG_SEP = re.compile(r"\s+[-–—|·]\s+|,\s+|:\s+")
_PUNCT = re.compile(r"[^\w\s]")
_ELIDED = re.compile(r"['’‘`´.]")

#: A parenthesis or bracket at the end of a title ("Jaws (1975)", "… (MIT)").
TRAILING_PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")
#: Any parenthesis or bracket, with the spaces before it.
ANY_PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")
#: A word of digits only.
DIGITS = re.compile(r"^\d+$")
#: An abbreviation: MIT, UCLouvain, UC3M, TU.
ABBREVIATION = re.compile(r"^[A-Z][A-Za-z0-9&-]*[A-Z0-9][A-Za-z0-9&-]*$")


def normalize(text: str) -> str:
    """Lowercase, accent-free, punctuation-free text with single spaces.

    Apostrophes and dots vanish ("Schindler's" → "schindlers", "E.T." → "et"), "&" becomes
    "and", other punctuation becomes a space, a leading article is dropped, a trailing ", The"
    too, and roman numerals II–IX become digits.
    """
    return key_forms(text)[1]


@lru_cache(maxsize=1 << 16)
def key_forms(text: str) -> tuple[str, str]:
    """(normalized text keeping a leading article, :func:`normalize` text)."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.lower().replace("&", " and ").replace("½", " 1/2")
    text = _PUNCT.sub(" ", _ELIDED.sub("", text)).replace("_", " ")
    words = [_ROMAN.get(w, w) for w in text.split()]
    literal = " ".join(words)
    if len(words) > 1 and words[-1] in _ARTICLES:
        words = words[:-1]  # "Godfather, The"
    if len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    return literal, " ".join(words)


def normalized_key(text: str) -> str:
    """The exact-match key: :func:`normalize` without spaces ("Spider-Man" = "Spiderman")."""
    return normalize(text).replace(" ", "")


def _inst_words(norm: str) -> list[str]:
    words: list[str] = []
    tokens = norm.split()
    for i, word in enumerate(tokens):
        if word == "uc" and i + 1 < len(tokens):  # "UC Berkeley"
            words += ["university", "california"]
            continue
        word = _INST_FOLD.get(word, word)
        if word:
            words.append(word)
    return words


@lru_cache(maxsize=1 << 15)
def institution_key(norm: str) -> str | None:
    """The institution key of a normalized name, or None when it names no institution."""
    if _INST_HINT.isdisjoint(norm.split()):
        return None
    words = _inst_words(norm)
    if _INST_CORE.isdisjoint(words) or len(words) < 2:
        return None
    return " ".join(sorted(words))


@dataclass(frozen=True)
class CatalogIndex:
    """Lookup structures for one catalog, built once by :func:`build_index` and cached."""

    titles: tuple[str, ...]
    exact: dict[str, int]  # normalized key → index, or -1 when two items share the key
    fuzzy_choices: tuple[str, ...]  # normalized forms, parallel to fuzzy_owner
    fuzzy_owner: tuple[int, ...]
    memo: dict[str, tuple[int | None, bool]] = field(default_factory=dict, compare=False)
    literal: dict[str, int] = field(default_factory=dict)  # keys keeping a leading article
    bare: dict[str, int] = field(default_factory=dict)  # bare song titles of "Title by Artist"
    institutions: dict[str, int] = field(default_factory=dict)  # institution keys
    artists: tuple[str, ...] = ()  # artist key per item ("" = none), song catalogs only
    by_artist: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    kind: TitleKind = "work"
    numbers: frozenset[str] = frozenset()  # number words of all titles (fuzzy pre-check)


def _split_by_artist(title: str) -> tuple[str, str] | None:
    """("Title", "Artist") for a catalog string "Title by Artist", else None."""
    head, sep, tail = title.rpartition(" by ")
    return (head, tail) if sep and head.strip() and tail.strip() else None


def is_abbreviation(text: str) -> bool:
    """ "MIT", "Caltech" for "California Institute of Technology", "Tokyo Tech"."""
    words = text.split()
    return 0 < len(words) <= 3 and len(text) <= 24 and any(ABBREVIATION.match(w) for w in words)


def abbreviates(short: str, long_: str) -> bool:
    """Whether ``short`` (letters only) is made of leading parts of successive words of
    ``long_`` ("caltech" ← "California Institute of Technology")."""
    letters = normalized_key(short)
    words = normalize(long_).split()
    if not 2 <= len(letters) <= 12 or not words or len(words) > 30:
        return False

    @cache
    def fits(pos: int, word: int) -> bool:
        if pos == len(letters):
            return True
        for w in range(word, len(words)):
            candidate = words[w]
            n = 0
            while (
                n < len(candidate) and pos + n < len(letters) and candidate[n] == letters[pos + n]
            ):
                n += 1
                if fits(pos + n, w + 1):
                    return True
        return False

    return fits(0, 0)


def _derived_names(title: str, institutions: bool) -> list[str]:
    """Other names of one catalog title (see the module docstring)."""
    names: list[str] = []
    stripped = title.strip()
    paren = TRAILING_PAREN.search(stripped)
    if paren and paren.start() > 0:
        content = paren.group().strip().strip("()[]").strip()
        main = stripped[: paren.start()].strip()
        names.append(main)
        for part in content.split("/"):  # "(MIPT / Moscow Phystech)"
            part = part.strip()
            if not DIGITS.match(part) and (
                is_abbreviation(part) or (institutions and abbreviates(part, main))
            ):
                names.append(part)
        stripped = main
    if institutions:
        match = _CATALOG_SEP.search(stripped)
        if match:
            head, tail = stripped[: match.start()].strip(), stripped[match.end() :].strip()
            head_first = head.split()[0] if head.split() else ""
            if len(head.split()) >= 2 or ABBREVIATION.match(head):
                names.append(head)  # "Trinity College Dublin" of "…, The University of Dublin"
            if ABBREVIATION.match(tail) and len(tail) <= 10:
                names.append(tail)  # "UrFU" of "Ural Federal University - UrFU"
            elif len(tail.split()) >= 2 and (
                ABBREVIATION.match(head_first)  # "KIT, Karlsruhe Institute of Technology"
                or (
                    match.group().strip() not in ",:"
                    and institution_key(normalize(tail)) is not None
                )
            ):
                names.append(tail)  # "University of Bologna" of "Alma Mater Studiorum - …"
    return names


def _word_prefixes(norm: str) -> list[str]:
    words = norm.split()
    return [" ".join(words[:end]) for end in range(1, len(words))]


def build_index(
    titles: Sequence[str],
    aliases: Sequence[Sequence[str]] | None = None,
    kind: TitleKind = "work",
) -> CatalogIndex:
    """Index a catalog, cached per distinct (titles, aliases, kind). ``aliases[i]``: other
    names of item i ("MIT"), matched exactly, never fuzzily, and never over another item's own
    title. ``kind``: what the titles are (``Domain.title_kind``); another raises SettingsError."""
    alias_key = tuple(tuple(a) for a in aliases) if aliases is not None else ()
    return _index_catalog(tuple(titles), alias_key, check_title_kind(kind, "build_index"))


@lru_cache(maxsize=32)
def _index_catalog(
    titles: tuple[str, ...], aliases: tuple[tuple[str, ...], ...], kind: TitleKind
) -> CatalogIndex:
    literal: dict[str, int] = {}
    primary: dict[str, int] = {}
    secondary: dict[str, int] = {}
    bare: dict[str, int] = {}
    inst: dict[str, int] = {}
    contest: dict[str, int] = {}
    choices: list[str] = []
    owners: list[int] = []
    artists: list[str] = []
    by_artist: dict[str, list[tuple[str, int]]] = {}

    def add(table: dict[str, int], key: str | None, index: int) -> None:
        if not key:
            return
        previous = table.get(key)
        table[key] = index if previous in (None, index) else AMBIGUOUS

    def add_inst(name: str, index: int) -> None:
        norm = normalize(name)
        add(inst, institution_key(norm), index)
        for prefix in _word_prefixes(norm):  # "Washington University" of "… in St. Louis"
            add(contest, institution_key(prefix), index)

    songs = kind == "song"
    institutions = kind == "institution"
    prefix_owner: dict[str, int] = {}
    if not songs:
        for index, title in enumerate(titles):
            for prefix in _word_prefixes(normalize(title)):
                add(prefix_owner, prefix.replace(" ", ""), index)
    for index, title in enumerate(titles):
        literal_form, norm = key_forms(title)
        add(literal, literal_form.replace(" ", ""), index)
        add(primary, norm.replace(" ", ""), index)
        choices.append(norm)
        owners.append(index)
        parts = _split_by_artist(title) if songs else None  # "North by Northwest" is no song
        names = [] if songs else _derived_names(title, institutions)
        if parts:
            song, artist = parts
            artist_key = normalized_key(artist)
            artists.append(artist_key)
            song_forms = [song]
            unbracketed = ANY_PAREN.sub("", song).strip()
            if unbracketed and unbracketed != song:
                song_forms.append(unbracketed)  # "Sweet Dreams" of "Sweet Dreams (Are …)"
            for form in song_forms:
                add(secondary, normalized_key(f"{form} {artist}"), index)
                add(secondary, normalized_key(f"{artist} {form}"), index)
                add(secondary, normalized_key(f"{artist} by {form}"), index)
                add(bare, normalized_key(form), index)
            by_artist.setdefault(artist_key, []).append((normalize(song), index))
        else:
            artists.append("")
            if songs:
                names = _derived_names(title, False)
        names = [  # a leading part of another title is no name of this one
            n for n in names if prefix_owner.get(normalized_key(n), index) == index
        ]
        for name in names:
            add(secondary, normalized_key(name), index)
        if institutions:
            for name in [title, *names]:
                add_inst(name, index)
    for index, names in enumerate(aliases):
        for name in names:
            add(secondary, normalized_key(name), index)
            if institutions:
                add_inst(name, index)
    for key, owner in contest.items():
        if key in inst and inst[key] != owner:
            inst[key] = AMBIGUOUS
    exact = dict(secondary)
    exact.update(primary)  # a full catalog string always wins over a derived form
    for key in exact:
        bare.pop(key, None)
    return CatalogIndex(
        titles,
        exact,
        tuple(choices),
        tuple(owners),
        literal=literal,
        bare=bare,
        institutions=inst,
        artists=tuple(artists) if songs else (),
        by_artist={k: tuple(v) for k, v in by_artist.items()},
        kind=kind,
        numbers=frozenset(w for c in choices for w in c.split() if DIGITS.match(w)),
    )


def clear_caches() -> None:
    """Forget every cached index (with its match memo) and normalized string, as in a fresh
    process (benchmarks; a changed ``title_match.FUZZY_CUTOFF`` needs fresh memos)."""
    _index_catalog.cache_clear()
    key_forms.cache_clear()
    institution_key.cache_clear()
