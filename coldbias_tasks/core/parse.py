"""Parse a model's free-text answer into a ranked list of catalog indices.

Model output is untrusted text: :func:`parse_ranking` never raises on any ``str`` and never
guesses. Matching is two-stage:

1. **Exact** on a normalized key (case, accents, punctuation, apostrophes, leading article,
   roman numerals II–IX as digits, spaces removed), tried on the whole entry, then on forms of
   it from most to least literal: without trailing years / parentheses / commentary, its bold
   or quoted part, without the answer's own parentheticals, without a native-script name, the
   title before " - Director" / " by Director", the full name after an abbreviation
   ("UTS - University of Technology Sydney"). A key that keeps the leading article is tried
   first ("Taxi Driver" is not "A Taxi Driver").

   Every catalog also answers to **derived aliases**, exact-only and dropped when two items
   share one: the abbreviation in a trailing parenthesis ("… (MIT)" ← "MIT") and the title
   without it; in institution catalogs (a third of the titles name a university, institute,
   college, school…) the main part before a separator ("Sorbonne University" for "Sorbonne
   University - Faculty of Science", "Trinity College Dublin" for "Trinity College Dublin, The
   University of Dublin"), the name after a leading abbreviation ("KIT, Karlsruhe Institute of
   Technology"), and an **institution key** applied to both sides: institution words across
   languages folded to English (Universität / Universidad / Université… = University,
   Technische = Technical, Institut = Institute…), "St" = "Saint", "und"/"et" = "and", a few
   city exonyms (München = Munich), particles and articles dropped, words sorted, so that
   "Technische Universität München" = "Technical University of Munich" and "Toronto
   University" = "University of Toronto". A key that is a leading part of another title
   ("Washington University" in "Washington University in St. Louis") is ambiguous.

   Songs shown as "Title by Artist" also answer to "Title - Artist", "Artist - Title",
   "Artist by Title" and the bare title (also without its parentheticals) when that title is
   unique in the catalog; an answer "Title by Artist" also matches a catalog entry "Title"
   that has no artist. A bare title found inside an entry that names **another** artist is not
   a match ("Take Me Out" by Missy Elliott is not "Take Me Out by Franz Ferdinand").
2. **Fuzzy** (rapidfuzz ``fuzz.ratio`` ≥ :data:`FUZZY_CUTOFF` on the normalized text) only for
   entries of ≥ :data:`FUZZY_MIN_CHARS` characters, only when the best candidate is unambiguous,
   carries the same numbers (so "Part III" never becomes "Part II") and every content word of one
   side has a close counterpart on the other (so "IIT Madras" never becomes "IIT Bombay", and
   "Frozen" never becomes "M"). See README "Parser" for the evidence behind the cutoff. A song
   whose artist matches a catalog artist exactly is also matched among that artist's songs
   (``fuzz.ratio`` ≥ :data:`ARTIST_TITLE_CUTOFF`, or a unique leading part of a title), so
   "Royal by Lorde" is "Royals by Lorde".

Entries that match nothing are reported in ``out_of_catalog`` when they look like list entries
(numbered or bulleted lines, or short lines of a list without markers), never when they are
prose ("Sure! Here are ..."); a lead-in sentence before ":" is dropped ("Here are 20 films: A,
B, C"). Structured answers are read as lists: JSON (an array of strings or of objects with a
"title" / "name" / "song" / "university"… field, also nested under a key such as
"recommendations", fenced or not) and HTML lists (``<ol>/<ul>`` with ``<li>``); their syntax is
never an entry. Full-width digits and CJK list markers and quotes are read like their ASCII
forms. Repeats of an already listed item go to ``duplicates``. Parsing stops once ``k`` unique
items are found. Text inside ``<think>…</think>`` is ignored. Invisible and control characters
(BOM, zero-width spaces, bidi marks, NUL, ESC…) are removed before anything else
(:func:`~coldbias_tasks.core.answer_text.strip_invisible`), so they change no item.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache

from rapidfuzz import fuzz, process

from coldbias_tasks.core.answer_text import strip_invisible

__all__ = [
    "ARTIST_TITLE_CUTOFF",
    "FUZZY_CUTOFF",
    "FUZZY_MIN_CHARS",
    "CatalogIndex",
    "Ranking",
    "build_index",
    "normalize",
    "normalized_key",
    "parse_ranking",
]

#: Minimum rapidfuzz ratio (0–100) for a fuzzy match; chosen on tests/data/parse_cases/, see README.
FUZZY_CUTOFF = 88.0
#: Minimum ratio between song titles when the answer's artist is exactly a catalog artist.
ARTIST_TITLE_CUTOFF = 85.0
#: Entries shorter than this (normalized, without spaces) are matched exactly or not at all.
FUZZY_MIN_CHARS = 6
#: Answers longer than this many characters are truncated before parsing (repetition loops).
MAX_ANSWER_CHARS = 200_000
#: Lines are cut to this many characters (no title is longer; keeps regexes linear).
MAX_LINE_CHARS = 2_000
#: A comma-joined line is split into at most this many parts.
MAX_JOINED_PARTS = 100
#: A title may itself contain up to this many commas ("The Good, the Bad and the Ugly").
MAX_TITLE_COMMAS = 3
#: Entries remembered per catalog index across calls.
MEMO_SIZE = 100_000
#: JSON answers longer than this are not decoded as JSON (they are read line by line).
MAX_JSON_CHARS = 100_000

_AMBIGUOUS = -1
_ARTICLES = ("the", "a", "an")
_STOPWORDS = frozenset({"the", "a", "an", "of", "and", "by", "de", "la", "le", "in", "at", "for"})
_SOUNDALIKE = frozenset(frozenset(p) for p in ("ck", "cs", "kq", "sz", "iy", "ae", "fv"))
_ROMAN = {"ii": "2", "iii": "3", "iv": "4", "vi": "6", "vii": "7", "viii": "8", "ix": "9"}
_NUMBER_WORDS = dict(
    enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
)

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

_THINK_BLOCK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_THINK_CLOSE = re.compile(r"^.*?</think>", re.DOTALL | re.IGNORECASE)
_LIST_MARKER = re.compile(
    r"^\s*(?:#{1,6}\s+)?(?:\*\*|__|\*|_)?\s*(?:"
    r"(?:[-*•·●▪◦+>]|\u2013|\u2014)\s+"  # bullets
    r"|#?\(?\d{1,3}\s*[.)\]、]\s*"  # 1.  1)  (1)  #1.  1]  1、
    r"|#\d{1,3}\s*[:.)-]?\s+"  # #1 Title
    r"|\d{1,3}\s+[-–—]\s+"  # 1 - Title
    r"|\d{1,3}\s*\t\s*"  # 1<TAB>Title
    r"|(?:rank|no\.?)\s*\d{1,3}\s*[:.)-]?\s+"  # Rank 1: Title
    r")",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^\s*#{1,6}\s")
_MARKDOWN = re.compile(r"[*_`~]+")
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_QUOTED = re.compile(r"[\"“”«»„「『《〈【](.+?)[\"“”«»„」』》〉】]")
_LEADING_QUOTED = re.compile(
    r"^\W*?[\"“«„「『《](.+?)[\"”»“」』》]\s*(?:by\s+|[-–—:,]\s*)([^\"“”«»„「」『』《》]+)$"
)
_TRAILING_YEAR = re.compile(r"\s*[(\[]\s*(?:19|20)\d\d\s*[)\]]\s*$|\s*[-–—,]\s*(?:19|20)\d\d\s*$")
_TRAILING_PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")
_ANY_PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")
_PAREN_CONTENT = re.compile(r"[(\[]\s*([^()\[\]]+?)\s*[)\]]")
_FEAT = re.compile(
    r"\s*[(\[]?\s*\b(?:feat\.?|ft\.?|featuring)\s+.*?(?:[)\]]|(?=\s+[-–—]\s+|\s+by\s+)|$)",
    re.IGNORECASE,
)
_COMMENT_SEP = re.compile(r"\s+[-–—]\s+|\s*[–—]\s*|:\s+|\s+\|\s+")
_DASH_SEP = re.compile(r"\s+[-–—|·]\s+|\s*[–—]\s*")
_ABBREV_SEP = re.compile(r"\s+[-–—|·]\s+|\s*[–—]\s*|,\s+")
_LEAD_IN = re.compile(r"^([^:]{1,150}?):\s*(\S.*)$")
_CATALOG_SEP = re.compile(r"\s+[-–—|·]\s+|,\s+|:\s+")
_PROSE_START = re.compile(
    r"^(?:sure|here|i\b|i'm|i’m|im\b|these|this|let me|enjoy|hope|note|based on|as an|"
    r"certainly|of course|okay|ok\b|great|happy|feel free|if you|you might|below|absolutely|"
    r"recommended|my top|top \d+|sorry|unfortunately)\b",
    re.IGNORECASE,
)
_JOINED = re.compile(r"[,;、，]")
_CONJUNCTION = re.compile(r"^(?:and|or|&)\s+", re.IGNORECASE)
_PUNCT = re.compile(r"[^\w\s]")
_ELIDED = re.compile(r"['’‘`´.]")
_SPACE = re.compile(r"\s+")
_DIGITS = re.compile(r"^\d+$")
_ABBREV = re.compile(r"^[A-Z][A-Za-z0-9&-]*[A-Z0-9][A-Za-z0-9&-]*$")  # MIT, UCLouvain, UC3M, TU
_NAME_WORD = re.compile(r"^(?:[A-Z][a-zà-ÿ'’-]+|[A-Z]\.(?:[A-Z]\.)*|Jr\.?|Sr\.?|de|van|von|del)$")
#: Capitalized words that make "Title - Two Words" a subtitle or sequel, not a director's name.
_NOT_NAME = frozenset(
    "The A An Of And In On At To For With From Into Over Under Beyond Without Part Chapter "
    "Episode Vol Volume Book Movie Film Story Saga Cut Edition Version Director Directed "
    "Returns Rises Begins Reloaded Revolutions Origins Awakens Strikes Back Again Forever Reborn "
    "Resurrection Revenge Redemption Reckoning Rising Uprising Resurgence Evolution Revolution "
    "Extinction Apocalypse Covenant Legacy Legend Legends Chronicles Tales Secret Secrets Curse "
    "Return Rise Dawn Dusk Day Days Night Nights War Wars Age Ages Last First Final New Old "
    "Lost Dark Darkness Light Man Men Woman Women Boy Girl World Worlds Kingdom Empire Nation "
    "Judgment Salvation Ghost Protocol Fallout Dead Reckoning Rogue Live Die Hard Harder "
    "Hope Menace Clones Sith Jedi Force Time Space Blood Black Red Blue Green White Golden "
    "Deadly Living Love Life Death King Queen Prince Princess Lord Lords City Town Island "
    "Planet Earth Moon Sun Star Stars Fire Ice Fury Road Home Homecoming Far Farewell "
    "Two Three Four Five Six Seven Eight Nine Ten Deux Trois II III IV V VI VII VIII IX X".split()
)
_NON_LATIN = re.compile(
    "[\u0370-\u03ff\u0400-\u04ff\u0590-\u05ff\u0600-\u06ff\u0900-\u0dff\u0e00-\u0e7f"
    "\u1100-\u11ff\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3200-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]+"
)
_EMPTY_BRACKETS = re.compile(r"[(\[]\s*[)\]]")
_WIDE = re.compile("[\u3000-\u303f\uff00-\uffef]")
_HTML_LIST = re.compile(r"<\s*(?:li|ol|ul)\b", re.IGNORECASE)
_HTML_ITEM = re.compile(r"<\s*li\b[^>]*>", re.IGNORECASE)
_HTML_BREAK = re.compile(r"<\s*(?:br|/li|/?p|/?ol|/?ul|/?div|/?tr|/?table)\b[^>]*>", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?\s*[a-zA-Z][a-zA-Z0-9]*\b[^<>]*>")
_FENCE = re.compile(r"```[a-zA-Z]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_JSON_SYNTAX_LINE = re.compile(r"^\s*[\[\]{}(),]*\s*$")
_JSON_PAIR = re.compile(r'^\s*"([^"]{1,40})"\s*:\s*(.*?)\s*,?\s*$')
_JSON_ITEM = re.compile(r'^\s*\[?\s*"(.+)"\s*\]?\s*,?\s*$')
_TRAILING_COMMA = re.compile(r",\s*([\]}])")
_JSON_TITLE_KEYS = (
    "title",
    "name",
    "movie",
    "film",
    "movie_title",
    "film_title",
    "song",
    "track",
    "song_title",
    "track_title",
    "university",
    "college",
    "school",
    "institution",
    "university_name",
    "college_name",
    "item",
    "recommendation",
)
_JSON_ARTIST_KEYS = ("artist", "artists", "band", "singer", "performer")


def normalize(text: str) -> str:
    """Lowercase, accent-free, punctuation-free text with single spaces.

    Apostrophes and dots vanish ("Schindler's" → "schindlers", "E.T." → "et"), "&" becomes
    "and", other punctuation becomes a space, a leading article is dropped, a trailing ", The"
    too, and roman numerals II–IX become digits.
    """
    return _forms(text)[1]


@lru_cache(maxsize=1 << 16)
def _forms(text: str) -> tuple[str, str]:
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
def _inst_key(norm: str) -> str | None:
    """The institution key of a normalized name, or None when it names no institution."""
    if _INST_HINT.isdisjoint(norm.split()):
        return None
    words = _inst_words(norm)
    if _INST_CORE.isdisjoint(words) or len(words) < 2:
        return None
    return " ".join(sorted(words))


@dataclass(frozen=True)
class Ranking:
    """A parsed answer.

    ``items``: catalog indices, best first, unique, at most k. ``out_of_catalog``: list entries
    that matched nothing (hallucinations). ``duplicates``: entries dropped as repeats.
    ``n_entries``: list entries seen (matched + out of catalog + duplicates). ``n_fuzzy``: items
    matched by the fuzzy stage.
    """

    items: tuple[int, ...]
    out_of_catalog: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    n_entries: int = 0
    n_fuzzy: int = 0


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
    songs: bool = False
    numbers: frozenset[str] = frozenset()  # number words of all titles (fuzzy pre-check)


def _split_by_artist(title: str) -> tuple[str, str] | None:
    """("Title", "Artist") for a catalog string "Title by Artist", else None."""
    head, sep, tail = title.rpartition(" by ")
    return (head, tail) if sep and head.strip() and tail.strip() else None


def _is_abbreviation(text: str) -> bool:
    """ "MIT", "Caltech" for "California Institute of Technology", "Tokyo Tech"."""
    words = text.split()
    return 0 < len(words) <= 3 and len(text) <= 24 and any(_ABBREV.match(w) for w in words)


def _abbreviates(short: str, long_: str) -> bool:
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
    paren = _TRAILING_PAREN.search(stripped)
    if paren and paren.start() > 0:
        content = paren.group().strip().strip("()[]").strip()
        main = stripped[: paren.start()].strip()
        names.append(main)
        for part in content.split("/"):  # "(MIPT / Moscow Phystech)"
            part = part.strip()
            if not _DIGITS.match(part) and (
                _is_abbreviation(part) or (institutions and _abbreviates(part, main))
            ):
                names.append(part)
        stripped = main
    if institutions:
        match = _CATALOG_SEP.search(stripped)
        if match:
            head, tail = stripped[: match.start()].strip(), stripped[match.end() :].strip()
            head_first = head.split()[0] if head.split() else ""
            if len(head.split()) >= 2 or _ABBREV.match(head):
                names.append(head)  # "Trinity College Dublin" of "…, The University of Dublin"
            if _ABBREV.match(tail) and len(tail) <= 10:
                names.append(tail)  # "UrFU" of "Ural Federal University - UrFU"
            elif len(tail.split()) >= 2 and (
                _ABBREV.match(head_first)  # "KIT, Karlsruhe Institute of Technology"
                or (match.group().strip() not in ",:" and _inst_key(normalize(tail)) is not None)
            ):
                names.append(tail)  # "University of Bologna" of "Alma Mater Studiorum - …"
    return names


def _word_prefixes(norm: str) -> list[str]:
    words = norm.split()
    return [" ".join(words[:end]) for end in range(1, len(words))]


def build_index(
    titles: Sequence[str], aliases: Sequence[Sequence[str]] | None = None
) -> CatalogIndex:
    """Index a catalog, cached per distinct (titles, aliases). ``aliases[i]``: other names of
    item i ("MIT"), matched exactly, never fuzzily, and never over another item's own title.
    """
    alias_key = tuple(tuple(a) for a in aliases) if aliases is not None else ()
    return _cached_index(tuple(titles), alias_key)


@lru_cache(maxsize=32)
def _cached_index(titles: tuple[str, ...], aliases: tuple[tuple[str, ...], ...]) -> CatalogIndex:
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
        table[key] = index if previous in (None, index) else _AMBIGUOUS

    def add_inst(name: str, index: int) -> None:
        norm = normalize(name)
        add(inst, _inst_key(norm), index)
        for prefix in _word_prefixes(norm):  # "Washington University" of "… in St. Louis"
            add(contest, _inst_key(prefix), index)

    songs = sum(1 for t in titles if _split_by_artist(t)) * 2 > len(titles)
    institutions = not songs and sum(
        1 for t in titles if _inst_key(normalize(t)) is not None
    ) * 3 > len(titles)
    prefix_owner: dict[str, int] = {}
    if not songs:
        for index, title in enumerate(titles):
            for prefix in _word_prefixes(normalize(title)):
                add(prefix_owner, prefix.replace(" ", ""), index)
    for index, title in enumerate(titles):
        literal_form, norm = _forms(title)
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
            unbracketed = _ANY_PAREN.sub("", song).strip()
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
            inst[key] = _AMBIGUOUS
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
        songs=songs,
        numbers=frozenset(w for c in choices for w in c.split() if _DIGITS.match(w)),
    )


def _strip_reasoning(text: str) -> str:
    text = _THINK_BLOCK.sub("\n", text)
    if "</think>" in text.lower():  # opening tag was in the prompt
        text = _THINK_CLOSE.sub("", text)
    return text


def _numbers(norm: str) -> list[str]:
    return sorted(w for w in norm.split() if _DIGITS.match(w))


def _is_typo(one: str, other: str) -> bool:
    """One letter dropped or added inside a word of ≥ 5 letters, two adjacent letters swapped,
    or (≥ 6 letters) one letter replaced by a sound-alike ("interstelar", "casablanka").
    Not a typo: another changed letter ("internal"/"infernal"), a different ending
    ("predators", "driven", "titanica"), a different start ("untouchables"/"intouchables"):
    those are usually other real titles.
    """
    short, long_ = sorted((one, other), key=len)
    if len(short) < 5 or short[0] != long_[0] or short[-1] != long_[-1]:
        return False
    if len(long_) == len(short) + 1:
        return any(long_[:i] + long_[i + 1 :] == short for i in range(1, len(long_) - 1))
    if len(long_) == len(short):
        diff = [i for i, (a, b) in enumerate(zip(one, other)) if a != b]
        if len(diff) == 1:  # one letter for a letter that sounds alike ("casablanka")
            return len(short) >= 6 and frozenset((one[diff[0]], other[diff[0]])) in _SOUNDALIKE
        return len(diff) == 2 and diff[1] == diff[0] + 1 and one[diff[0]] == other[diff[1]]
    return False


def _words_align(one: str, other: str) -> bool:
    """Content words pair up one to one, equal or as a typo (at most one typo per three content
    words); stopwords may be missing on either side.
    """
    left = [w for w in one.split() if w not in _STOPWORDS]
    right = [w for w in other.split() if w not in _STOPWORDS]
    if len(left) != len(right) or not left:
        return False
    unmatched = list(right)
    for word in left:
        if word in unmatched:
            unmatched.remove(word)
    rest = [w for w in left if w not in right]
    if len(rest) != len(unmatched) or len(rest) > max(1, len(left) // 3):
        return False
    if len(left) == 1 and rest and max(len(rest[0]), len(unmatched[0])) < 8:
        return False  # a one-word title near another ("Martin"/"Martian") is another film
    return all(_is_typo(a, b) for a, b in zip(rest, unmatched))


def _fuzzy(index: CatalogIndex, norm: str) -> int | None:
    if len(norm.replace(" ", "")) < FUZZY_MIN_CHARS:
        return None
    if not index.numbers.issuperset(_numbers(norm)):
        return None  # numbers must match, and no title carries this one ("… 1975")
    hits = process.extract(
        norm, index.fuzzy_choices, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=3
    )
    if not hits:
        return None
    _, best_score, best_pos = hits[0]
    owner = index.fuzzy_owner[best_pos]
    if any(index.fuzzy_owner[p] != owner and best_score - s < 3 for _, s, p in hits[1:]):
        return None  # two different items about equally close: do not guess
    candidate = index.fuzzy_choices[best_pos]
    if _numbers(norm) != _numbers(candidate):
        return None
    if not _words_align(norm, candidate):
        return None
    return owner


def _spell_numbers(norm: str) -> str:
    words = norm.split()
    return " ".join(
        _NUMBER_WORDS.get(int(w), w) if len(w) <= 2 and w.isdigit() else w for w in words
    )


def _artist_fuzzy(index: CatalogIndex, title: str, artist: str) -> int | None:
    """A song of exactly this artist whose title is close or which the title begins."""
    songs = index.by_artist.get(normalized_key(artist))
    if not songs:
        return None
    norm = _spell_numbers(normalize(title))
    if not norm:
        return None
    scored = sorted(
        ((fuzz.ratio(norm, _spell_numbers(song)), index_) for song, index_ in songs), reverse=True
    )
    best, owner = scored[0]
    if best >= ARTIST_TITLE_CUTOFF and not any(s > best - 3 for s, _ in scored[1:]):
        return owner
    words = norm.split()
    if len(words) >= 2:  # a truncated title: "Another Brick in the Wall" of "…, Pt. 2"
        prefixed = [i for song, i in songs if song.split()[: len(words)] == words]
        if len(prefixed) == 1:
            return prefixed[0]
    return None


def _artists_agree(answer_artist: str, catalog_artist: str) -> bool:
    one, other = normalized_key(answer_artist), catalog_artist
    if not one or not other:
        return True
    if one == other or one.startswith(other) or other.startswith(one):
        return True  # "Wu" for "Wu-Tang Clan", "Queen & David Bowie" for "Queen"
    return fuzz.ratio(one, other) >= 80


def _is_commentary(head: str, rest: str) -> bool:
    """Whether text after a separator reads as commentary rather than a subtitle: it starts in
    lower case, follows a year ("Jaws (1975) - Spielberg's classic"), or is a longer phrase in
    sentence case ("Jaws: The shark film that started it all"), or a short sentence ending in
    a full stop ("Jaws: Still scary."). Title-case text is a subtitle ("Halloween: The Curse of
    Michael Myers", "Star Wars: Episode I").
    """
    rest = _TRAILING_YEAR.sub("", rest)  # "Death of a Samurai (2011)" is still a subtitle
    words = rest.split()
    if not words:
        return False
    if rest[:1].islower() or _TRAILING_YEAR.search(head):
        return True
    capitalized = sum(1 for w in words if w[:1].isupper() or w[:1].isdigit())
    if len(words) >= 2 and rest.rstrip()[-1:] in ".!" and capitalized == 1:
        return True
    return len(words) >= 4 and capitalized * 2 < len(words)


def _looks_like_name(text: str) -> bool:
    """A person's name ("Steven Spielberg", "J. J. Abrams"), as after "Title - Director"."""
    words = text.split()
    return (
        2 <= len(words) <= 4
        and all(_NAME_WORD.match(w) and w not in _NOT_NAME for w in words)
        and words[0][:1].isupper()
    )


def _is_lead_in(head: str, joined: bool = False) -> bool:
    """A sentence before ":" ("Here are 20 films", "Epic movie on space"), not a title; before
    a comma-joined list (``joined``) two words in sentence case do ("Top picks: A, B, C")."""
    words = head.split()
    if _PROSE_START.match(_MARKDOWN.sub("", head).strip()):
        return True
    if not head.isascii() and _NON_LATIN.search(head) and _strip_native(head) is None:
        return True  # "推荐电影：" (a lead-in in another script)
    lower = sum(1 for w in words[1:] if w[:1].islower() and w.lower() not in _STOPWORDS)
    if joined:
        return len(words) >= 2 and lower * 2 >= len(words) - 1
    return len(words) >= 3 and lower * 2 > len(words) - 1


def _strip_native(text: str) -> str | None:
    """``text`` without non-Latin script ("東京大学 (The University of Tokyo)", "《盗梦空间》
    Inception"), or None when there is none or nothing Latin is left."""
    if text.isascii() or not _NON_LATIN.search(text):
        return None
    rest = _EMPTY_BRACKETS.sub("", _NON_LATIN.sub(" ", text)).strip(" \t-–—:;,|/")
    if rest[:1] in "([" and rest[-1:] in ")]":
        rest = rest[1:-1].strip()
    return rest if sum(ch.isalpha() for ch in rest) >= 2 else None


#: One string to try for an entry: (text, also tried by the fuzzy stage, the artist the entry
#: names beside this title or None).
_Candidate = tuple[str, bool, "str | None"]
_CANDIDATE_STRIP = " \t-–—:;,|*_「」『』《》〈〉【】"
_QUOTE_CHARS = frozenset('"“”«»„「『《〈【')


def _song_splits(plain: str) -> list[tuple[str, str]]:
    """(title, artist) readings of a song entry: '"Title" by Artist', 'Title by Artist',
    'Title - Artist' and 'Artist - Title'."""
    out: list[tuple[str, str]] = []
    quoted = _LEADING_QUOTED.match(plain)
    if quoted:
        out.append((quoted.group(1), quoted.group(2)))
    head, sep, tail = plain.rpartition(" by ")
    if sep and head.strip() and tail.strip():
        out.append((head, tail))
    for n, match in enumerate(_DASH_SEP.finditer(plain)):
        head, rest = plain[: match.start()], plain[match.end() :]
        if n >= 2:
            break
        if head.strip() and rest.strip() and not _is_commentary(head, rest):
            out.append((head, rest))
            out.append((rest, head))
    return [
        (t.strip(" \"“”«»„「」『』《》'-–—"), a.strip(" \"“”«»„「」『』《》'.-–—"))
        for t, a in out[:6]
    ]


def _no_year_paren(text: str) -> str:
    return (
        _TRAILING_YEAR.sub("", _TRAILING_PAREN.sub("", text))
        if "(" in text or "[" in text
        else text
    )


def _candidates(entry: str, songs: bool) -> Iterator[_Candidate]:
    """Strings to try for one list entry, most literal first."""
    seen: set[str] = set()

    def fresh(text: str) -> str | None:
        text = text.strip(_CANDIDATE_STRIP)
        if not text or text in seen:
            return None
        seen.add(text)
        return text

    lowered = entry.lower()
    base = _FEAT.sub("", entry) if ("ft" in lowered or "feat" in lowered) else entry
    quoted = not _QUOTE_CHARS.isdisjoint(base)
    if text := fresh(base):
        yield text, True, None
    plain = _MARKDOWN.sub("", base) if _MARKDOWN.search(base) else base
    if text := fresh(plain):
        yield text, True, None
    no_year = _TRAILING_YEAR.sub("", plain)
    has_paren = "(" in no_year or "[" in no_year
    for form in (no_year, _no_year_paren(no_year)):
        if text := fresh(form):
            yield text, True, None
    for match in _COMMENT_SEP.finditer(plain):
        head, rest = plain[: match.start()], plain[match.end() :]
        commentary = match.group().strip() in "–—" or _is_commentary(head, rest)
        if commentary and (text := fresh(_no_year_paren(head))):
            yield text, True, None
    for pattern, wanted in ((_BOLD, "*" in base or "_" in base), (_QUOTED, quoted)):
        parts = [next(g for g in m.groups() if g) for m in pattern.finditer(base)] if wanted else []
        if len(parts) == 1 or (parts and not _JOINED.search(base)):  # "«A», «B»" is a list
            for part in parts:
                if text := fresh(_TRAILING_YEAR.sub("", part)):
                    yield text, True, None
    unbracketed = _ANY_PAREN.sub("", no_year) if has_paren else no_year
    if text := fresh(unbracketed):
        yield text, True, None  # the answer's own parenthetical: "Berkeley (UC)"
    native = None if plain.isascii() else _strip_native(plain)
    if native is not None:
        for form in (native, _TRAILING_YEAR.sub("", _ANY_PAREN.sub("", native))):
            if text := fresh(form):
                yield text, True, None
    if ":" in plain:
        lead = _LEAD_IN.match(plain)
        if lead and _is_lead_in(lead.group(1)):
            for form in (lead.group(2), _no_year_paren(lead.group(2))):
                if text := fresh(form):
                    yield text, True, None
    if songs:
        paired: set[str] = set()
        for title, artist in _song_splits(no_year):
            for form in (title, _ANY_PAREN.sub("", title)):
                form = form.strip(_CANDIDATE_STRIP)
                if form and form not in paired:  # again, now with its artist
                    paired.add(form)
                    seen.add(form)
                    yield form, False, artist
    else:
        for n, match in enumerate(_ABBREV_SEP.finditer(unbracketed)):
            if n >= 3:
                break
            head, rest = unbracketed[: match.start()], unbracketed[match.end() :]
            if _ABBREV.match(head.strip()) and _abbreviates(head, rest):
                if text := fresh(rest):
                    yield text, False, None  # "UTS - University of Technology Sydney"
            elif match.group().strip() != "," and _looks_like_name(rest) and (text := fresh(head)):
                yield text, False, None  # "Jaws - Steven Spielberg"
        if " by " in unbracketed:
            head, _, rest = unbracketed.rpartition(" by ")
            if _looks_like_name(rest) and (text := fresh(head)):
                yield text, False, None  # "Jaws by Steven Spielberg"
    if ("(" in plain or "[" in plain) and not _JOINED.search(plain):  # not "A (X), B (Y)"
        for match in _PAREN_CONTENT.finditer(plain):
            content = match.group(1)
            wanted = _is_abbreviation(content) or native is not None
            if wanted and (text := fresh(content)):
                yield text, False, None  # "Singapore (NUS)", "東京大学 (…)"


class _Matcher:
    """Matches entries against one index, memoized on the index: an entry text seen in any
    earlier answer for the same catalog is not matched again (bounded to :data:`MEMO_SIZE`).
    """

    def __init__(self, index: CatalogIndex) -> None:
        self.index = index
        self.memo = index.memo

    def match(self, entry: str) -> tuple[int | None, bool]:
        """(catalog index or None, whether fuzzy)."""
        hit = self.memo.get(entry)
        if hit is None:
            if len(self.memo) >= MEMO_SIZE:
                self.memo.clear()
            hit = self.memo[entry] = self._match(entry)
        return hit

    def _lookup(self, text: str) -> tuple[int | None, bool]:
        """(index, -1 or None; whether found as a bare song title)."""
        index = self.index
        literal, norm = _forms(text)
        hit = index.literal.get(literal.replace(" ", ""))
        if hit is not None and hit != _AMBIGUOUS:
            return hit, False
        key = norm.replace(" ", "")
        hit = index.exact.get(key)
        if hit is not None:
            return hit, False
        hit = index.bare.get(key)
        if hit is not None:
            return hit, True
        if index.institutions:
            inst = _inst_key(norm)
            if inst is not None:
                return index.institutions.get(inst), False
        return None, False

    def _match(self, entry: str) -> tuple[int | None, bool]:
        index = self.index
        fuzzy_forms: list[str] = []
        splits: list[tuple[str, str]] = []
        entry_splits: list[tuple[str, str]] | None = None
        conflict = False
        for text, fuzzy_ok, artist in _candidates(entry, index.songs):
            hit, is_bare = self._lookup(text)
            if fuzzy_ok:
                fuzzy_forms.append(text)
            if artist is not None:
                splits.append((text, artist))
            if hit is None:
                continue
            if hit == _AMBIGUOUS:
                return None, False
            own_artist = index.artists[hit] if index.songs else ""
            if own_artist and (is_bare or artist is not None):
                if artist is not None:
                    artists = [artist]
                else:
                    if entry_splits is None:
                        entry_splits = _song_splits(_MARKDOWN.sub("", _FEAT.sub("", entry)))
                    key = normalized_key(text)
                    artists = [a for t, a in entry_splits if normalized_key(t) == key]
                if artists and not any(_artists_agree(a, own_artist) for a in artists):
                    conflict = True  # the answer names another artist for this title
                    continue
            return hit, False
        if conflict:
            return None, False
        for title, artist in splits:
            hit = _artist_fuzzy(index, title, artist)
            if hit is not None:
                return hit, True
        for form in dict.fromkeys(normalize(text) for text in fuzzy_forms):
            hit = _fuzzy(index, form)
            if hit is not None:
                return hit, True
        return None, False


def _looks_like_prose(line: str, marked: bool = False) -> bool:
    """A sentence rather than a list entry: ends with ":", a heading, long, or (unmarked lines
    only, since a numbered "I, Frankenstein" is an entry) opens like chat ("Sure", "Here", "I").
    """
    stripped = line.strip()
    words = stripped.split()
    if stripped.endswith(":") or _HEADING.match(stripped) or len(words) > 15:
        return True
    if len(words) >= 8 and stripped[-1:] in ".!?":
        return True
    return not marked and bool(_PROSE_START.match(_MARKDOWN.sub("", stripped)))


def _span_fits(parts: list[str], matcher: _Matcher, hit: int) -> bool:
    """Whether comma-joined parts can be one catalog title: the title has as many commas as
    the parts that start like a title ("Crouching Tiger, Hidden Dragon"; "Jaws, 1975")."""
    titled = sum(1 for p in parts[1:] if p[:1].isupper() or p[:1] in '"“«„「『《')
    return titled <= len(_JOINED.findall(matcher.index.titles[hit]))


def _split_joined(
    text: str, matcher: _Matcher, announced: bool = False
) -> list[tuple[str, int | None, bool]]:
    """Greedy longest-span segmentation of "A, B; C" so titles with commas stay whole.
    ``announced``: a lead-in said a list follows, so one match among several parts is a list."""
    parts = [p for p in re.split(r"\s*[,;、，]\s*", text) if p.strip()][:MAX_JOINED_PARTS]
    out: list[tuple[str, int | None, bool]] = []
    start = 0
    while start < len(parts):
        for end in range(min(len(parts), start + MAX_TITLE_COMMAS + 1), start, -1):
            span = ", ".join(parts[start:end])
            hit, fuzzy = matcher.match(span)
            if hit is None and end == start + 1 and _CONJUNCTION.match(span):
                span = _CONJUNCTION.sub("", span)  # "Jaws, Psycho, and Vertigo"
                hit, fuzzy = matcher.match(span)
            if (
                hit is not None
                and end > start + 1
                and not _span_fits(parts[start:end], matcher, hit)
            ):
                hit = None  # "UCL, ETH Zurich": two titles, not one title with a comma
            if hit is not None:
                out.append((span, hit, fuzzy))
                start = end
                break
        else:
            follows_match = bool(out) and out[-1][1] is not None
            if not (follows_match and parts[start][:1].islower()):  # "Jaws, a classic": comment
                out.append((parts[start], None, False))
            start += 1
    matched = sum(1 for _, hit, _ in out if hit is not None)
    if matched == 0 or (matched == 1 and len(out) > 1 and not (announced and len(out) > 2)):
        # nothing, or one title plus unmatched title-like parts ("Drive, He Said"): the line is
        # one entry that is not in the catalog, not a list
        return [(text, None, False)]
    return out


def _table_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|") if c.strip()]


def _json_entries(value: object, depth: int = 0) -> list[str]:
    """List entries of a decoded JSON answer: strings of arrays, the title-like field of
    objects (with " by <artist>" when an artist field is given), arrays nested in objects."""
    if depth > 20:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [e for v in value for e in _json_entries(v, depth + 1)]
    if not isinstance(value, dict):
        return []
    lowered = {str(k).strip().lower().replace(" ", "_"): v for k, v in value.items()}
    for key in _JSON_TITLE_KEYS:
        title = lowered.get(key)
        if isinstance(title, str) and title.strip():
            artist = next(
                (lowered[a] for a in _JSON_ARTIST_KEYS if isinstance(lowered.get(a), str)), None
            )
            return [f"{title} by {artist}" if artist else title]
    out: list[str] = []
    for key, item in lowered.items():
        if isinstance(item, (list, dict)):
            out += _json_entries(item, depth + 1)
        elif isinstance(item, str) and key.isdigit():  # {"1": "Jaws", "2": "Alien"}
            out.append(item)
    return out


def _decode_json(text: str) -> list[str] | None:
    """Entries of the first JSON array or object in ``text`` (fenced or not), or None."""
    if len(text) > MAX_JSON_CHARS or not ("[" in text or "{" in text):
        return None
    blocks = [m.group(1) for m in _FENCE.finditer(text)] or [text]
    for block in blocks:
        starts = [i for i in (block.find("["), block.find("{")) if i >= 0]
        if not starts:
            continue
        start = min(starts)
        end = max(block.rfind("]"), block.rfind("}"))
        if end <= start:
            continue
        snippet = block[start : end + 1]
        for attempt in (snippet, _TRAILING_COMMA.sub(r"\1", snippet)):
            try:
                value = json.loads(attempt)
            except (ValueError, RecursionError):
                continue
            entries = [e for e in _json_entries(value) if e.strip()]
            if entries:
                return entries
            break
    return None


def _structured_lines(text: str) -> list[str] | None:
    """The answer as list lines when it is JSON or an HTML list, else None."""
    entries = _decode_json(text)
    if entries is not None:
        return ["- " + _SPACE.sub(" ", e).strip() for e in entries]
    if _HTML_LIST.search(text):
        text = _HTML_ITEM.sub("\n- ", text)
        text = _HTML_BREAK.sub("\n", text)
        return html.unescape(_HTML_TAG.sub("", text)).splitlines()
    return None


def _json_line(line: str) -> tuple[str | None, bool]:
    """(entry text or None, whether the line is JSON syntax) for answers that look like JSON
    but do not decode."""
    if _JSON_SYNTAX_LINE.match(line):
        return None, True
    pair = _JSON_PAIR.match(line)
    if pair:
        key = pair.group(1).strip().lower().replace(" ", "_")
        value = pair.group(2).strip().rstrip(",").strip()
        if key in _JSON_TITLE_KEYS and value.startswith('"') and value.endswith('"'):
            return value[1:-1], True
        return None, True
    item = _JSON_ITEM.match(line)
    if item:
        return item.group(1), True
    return None, False


def _prepare(line: str) -> str:
    line = line[:MAX_LINE_CHARS]
    if not line.isascii() and _WIDE.search(line):
        line = unicodedata.normalize("NFKC", line).replace("．", ".")
    return line


def parse_ranking(
    text: str, catalog: Sequence[str], k: int, aliases: Sequence[Sequence[str]] | None = None
) -> Ranking:
    """Parse ``text`` into at most ``k`` unique catalog indices (0-based), best first.

    Never raises for any ``str`` (a non-str is treated as empty); ``k <= 0`` or an empty catalog
    gives an empty ranking. ``aliases`` (parallel to ``catalog``) adds exact-only other names.
    """
    if not isinstance(text, str) or k <= 0 or not catalog:
        return Ranking(items=())
    matcher = _Matcher(build_index(catalog, aliases))
    text = _strip_reasoning(strip_invisible(text[:MAX_ANSWER_CHARS]))
    structured = _structured_lines(text)
    raw_lines = structured if structured is not None else text.splitlines()
    jsonish = structured is None and any(
        line.lstrip().startswith(("[", "{", "```json")) for line in raw_lines
    )
    lines: list[str] = []
    for line in raw_lines:
        if jsonish:
            if line.lstrip().startswith("```"):
                continue
            entry, is_json = _json_line(line)
            if is_json:
                if entry is not None:
                    lines.append(_prepare("- " + entry))
                continue
        lines.append(_prepare(line))
    marked = [bool(_LIST_MARKER.match(line)) for line in lines]
    any_marked = any(marked)

    items: list[int] = []
    seen: set[int] = set()
    out_of_catalog: list[str] = []
    duplicates: list[str] = []
    n_fuzzy = 0
    for line, is_marked in zip(lines, marked):
        if len(items) >= k:
            break
        body = _LIST_MARKER.sub("", line, count=1) if is_marked else line
        if not body.strip() or (not is_marked and _HEADING.match(line)):
            continue
        if body.lstrip().startswith("|") or "\t" in body.strip():
            cells = _table_cells(body.replace("\t", "|"))
            cells = [c for c in cells if not _DIGITS.match(c) and set(c) - set("-: ")]
            hit = next((h for h in (matcher.match(c) for c in cells) if h[0] is not None), None)
            segments = [(body, hit[0], hit[1])] if hit else []
        else:
            hit, fuzzy = matcher.match(body)
            segments = [(body, hit, fuzzy)]
            lead = _LEAD_IN.match(body.strip()) if ":" in body else None
            announced = bool(
                lead
                and (hit is None or _JOINED.search(lead.group(2)))
                and _is_lead_in(lead.group(1), bool(_JOINED.search(lead.group(2))))
            )
            if lead and announced:
                body = lead.group(2)  # "Here are 20 films: A, B, C"
                hit, fuzzy = matcher.match(body)
                segments = [(body, hit, fuzzy)]
            if hit is None and _JOINED.search(body):
                segments = _split_joined(body, matcher, announced)
            if all(h is None for _, h, _ in segments) and not is_marked and _looks_like_prose(body):
                continue
        counts_as_entry = is_marked or not any_marked
        for segment, hit, fuzzy in segments:
            if len(items) >= k:
                break
            if hit is None:
                if counts_as_entry and not _looks_like_prose(segment, is_marked):
                    out_of_catalog.append(segment.strip())
            elif hit in seen:
                duplicates.append(segment.strip())
            else:
                seen.add(hit)
                items.append(hit)
                n_fuzzy += fuzzy
    n_entries = len(items) + len(out_of_catalog) + len(duplicates)
    return Ranking(tuple(items), tuple(out_of_catalog), tuple(duplicates), n_entries, n_fuzzy)
