"""Parse a model's free-text answer into a ranked list of catalog indices.

Model output is untrusted text: :func:`parse_ranking` never raises on any ``str`` and never
guesses. Matching is two-stage:

1. **Exact** on a normalized key (case, accents, punctuation, apostrophes, leading article,
   roman numerals II–IX as digits, spaces removed), tried on the whole entry, then on the entry
   without trailing years / parentheses / commentary, then on its bold or quoted part. Songs
   shown as "Title by Artist" also answer to "Title - Artist", "Artist - Title" and the bare
   title when that title is unique in the catalog.
2. **Fuzzy** (rapidfuzz ``fuzz.ratio`` ≥ :data:`FUZZY_CUTOFF` on the normalized text) only for
   entries of ≥ :data:`FUZZY_MIN_CHARS` characters, only when the best candidate is unambiguous,
   carries the same numbers (so "Part III" never becomes "Part II") and every content word of one
   side has a close counterpart on the other (so "IIT Madras" never becomes "IIT Bombay", and
   "Frozen" never becomes "M"). See README "Parser" for the evidence behind the cutoff.

Entries that match nothing are reported in ``out_of_catalog`` when they look like list entries
(numbered or bulleted lines, or short lines of a list without markers), never when they are
prose ("Sure! Here are ..."). Repeats of an already listed item go to ``duplicates``. Parsing
stops once ``k`` unique items are found. Text inside ``<think>…</think>`` is ignored.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process

__all__ = [
    "FUZZY_CUTOFF",
    "FUZZY_MIN_CHARS",
    "CatalogIndex",
    "Ranking",
    "build_index",
    "normalize",
    "normalized_key",
    "parse_ranking",
]

#: Minimum rapidfuzz ratio (0–100) for a fuzzy match; chosen on tests/parse_cases.py, see README.
FUZZY_CUTOFF = 88.0
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

_AMBIGUOUS = -1
_ARTICLES = ("the", "a", "an")
_STOPWORDS = frozenset({"the", "a", "an", "of", "and", "by", "de", "la", "le", "in", "at", "for"})
_SOUNDALIKE = frozenset(frozenset(p) for p in ("ck", "cs", "kq", "sz", "iy", "ae", "fv"))
_ROMAN = {"ii": "2", "iii": "3", "iv": "4", "vi": "6", "vii": "7", "viii": "8", "ix": "9"}

_THINK_BLOCK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_THINK_CLOSE = re.compile(r"^.*?</think>", re.DOTALL | re.IGNORECASE)
_LIST_MARKER = re.compile(
    r"^\s*(?:#{1,6}\s+)?(?:\*\*|__|\*|_)?\s*(?:"
    r"(?:[-*•·●▪◦+>]|\u2013|\u2014)\s+"  # bullets
    r"|#?\(?\d{1,3}\s*[.)\]]\s*"  # 1.  1)  (1)  #1.  1]
    r"|#\d{1,3}\s*[:.)-]?\s+"  # #1 Title
    r"|\d{1,3}\s+[-–—]\s+"  # 1 - Title
    r"|(?:rank|no\.?)\s*\d{1,3}\s*[:.)-]?\s+"  # Rank 1: Title
    r")",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^\s*#{1,6}\s")
_MARKDOWN = re.compile(r"[*_`~]+")
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_QUOTED = re.compile(r"[\"“”«»„](.+?)[\"“”«»„]")
_TRAILING_YEAR = re.compile(r"\s*[(\[]\s*(?:19|20)\d\d\s*[)\]]\s*$|\s*[-–—,]\s*(?:19|20)\d\d\s*$")
_TRAILING_PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")
_FEAT = re.compile(
    r"\s*[(\[]?\s*\b(?:feat\.?|ft\.?|featuring)\s+.*?(?:[)\]]|(?=\s+[-–—]\s+|\s+by\s+)|$)",
    re.IGNORECASE,
)
_COMMENT_SEP = re.compile(r"\s+[-–—]\s+|\s*[–—]\s*|:\s+|\s+\|\s+")
_PROSE_START = re.compile(
    r"^(?:sure|here|i\b|i'm|i’m|im\b|these|this|let me|enjoy|hope|note|based on|as an|"
    r"certainly|of course|okay|ok\b|great|happy|feel free|if you|you might|below|absolutely|"
    r"recommended|my top|top \d+|sorry|unfortunately)\b",
    re.IGNORECASE,
)
_CONJUNCTION = re.compile(r"^(?:and|or|&)\s+", re.IGNORECASE)
_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")
_DIGITS = re.compile(r"^\d+$")


def normalize(text: str) -> str:
    """Lowercase, accent-free, punctuation-free text with single spaces.

    Apostrophes and dots vanish ("Schindler's" → "schindlers", "E.T." → "et"), "&" becomes
    "and", other punctuation becomes a space, a leading article is dropped, a trailing ", The"
    too, and roman numerals II–IX become digits.
    """
    return _normalize(text)


@lru_cache(maxsize=1 << 16)
def _normalize(text: str) -> str:
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.lower().replace("&", " and ").replace("½", " 1/2")
    text = re.sub(r"['’‘`´.]", "", text)
    text = _PUNCT.sub(" ", text).replace("_", " ")
    words = _SPACE.sub(" ", text).strip().split(" ")
    if len(words) > 1 and words[-1] in _ARTICLES:
        words = words[:-1]  # "Godfather, The"
    if len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(_ROMAN.get(w, w) for w in words if w)


def normalized_key(text: str) -> str:
    """The exact-match key: :func:`normalize` without spaces ("Spider-Man" = "Spiderman")."""
    return normalize(text).replace(" ", "")


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


def _split_by_artist(title: str) -> tuple[str, str] | None:
    """("Title", "Artist") for a catalog string "Title by Artist", else None."""
    head, sep, tail = title.rpartition(" by ")
    return (head, tail) if sep and head.strip() and tail.strip() else None


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
    primary: dict[str, int] = {}
    secondary: dict[str, int] = {}
    choices: list[str] = []
    owners: list[int] = []

    def add(table: dict[str, int], key: str, index: int) -> None:
        if not key:
            return
        previous = table.get(key)
        table[key] = index if previous in (None, index) else _AMBIGUOUS

    songs = sum(1 for t in titles if _split_by_artist(t)) * 2 > len(titles)
    for index, title in enumerate(titles):
        add(primary, normalized_key(title), index)
        choices.append(normalize(title))
        owners.append(index)
        parts = _split_by_artist(title) if songs else None  # "North by Northwest" is no song
        if parts:
            song, artist = parts
            add(secondary, normalized_key(f"{song} {artist}"), index)
            add(secondary, normalized_key(f"{artist} {song}"), index)
            add(secondary, normalized_key(song), index)
    for index, names in enumerate(aliases):
        for name in names:
            add(secondary, normalized_key(name), index)
    exact = dict(secondary)
    exact.update(primary)  # a full catalog string always wins over a derived form
    return CatalogIndex(titles, exact, tuple(choices), tuple(owners))


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


def _is_commentary(head: str, rest: str) -> bool:
    """Whether text after a separator reads as commentary rather than a subtitle: it starts in
    lower case, follows a year ("Jaws (1975) - Spielberg's classic"), or is a longer phrase in
    sentence case ("Jaws: The shark film that started it all"). Title-case text is a subtitle
    ("Halloween: The Curse of Michael Myers", "Star Wars: Episode I").
    """
    words = rest.split()
    if not words:
        return False
    if rest[:1].islower() or _TRAILING_YEAR.search(head):
        return True
    capitalized = sum(1 for w in words if w[:1].isupper() or w[:1].isdigit())
    return len(words) >= 4 and capitalized * 2 < len(words)


def _candidates(entry: str) -> list[str]:
    """Strings to try for one list entry, most literal first."""
    found: list[str] = []

    def add(text: str) -> None:
        text = text.strip(" \t-–—:;,|*_")
        if text and text not in found:
            found.append(text)

    base = _FEAT.sub("", entry)
    add(base)
    plain = _MARKDOWN.sub("", base)
    add(plain)
    no_year = _TRAILING_YEAR.sub("", plain)
    add(no_year)
    add(_TRAILING_YEAR.sub("", _TRAILING_PAREN.sub("", no_year)))
    for match in _COMMENT_SEP.finditer(plain):
        head, rest = plain[: match.start()], plain[match.end() :]
        if match.group().strip() in "–—" or _is_commentary(head, rest):
            add(_TRAILING_YEAR.sub("", _TRAILING_PAREN.sub("", head)))
    for pattern in (_BOLD, _QUOTED):
        for match in pattern.finditer(base):
            add(_TRAILING_YEAR.sub("", next(g for g in match.groups() if g)))
    return found


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

    def _match(self, entry: str) -> tuple[int | None, bool]:
        forms = list(dict.fromkeys(normalize(text) for text in _candidates(entry)))
        for form in forms:
            hit = self.index.exact.get(form.replace(" ", ""))
            if hit is not None:
                return (hit, False) if hit != _AMBIGUOUS else (None, False)
        for form in forms:
            hit = _fuzzy(self.index, form)
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


def _split_joined(text: str, matcher: _Matcher) -> list[tuple[str, int | None, bool]]:
    """Greedy longest-span segmentation of "A, B; C" so titles with commas stay whole."""
    parts = [p for p in re.split(r"\s*[,;]\s*", text) if p.strip()][:MAX_JOINED_PARTS]
    out: list[tuple[str, int | None, bool]] = []
    start = 0
    while start < len(parts):
        for end in range(min(len(parts), start + MAX_TITLE_COMMAS + 1), start, -1):
            span = ", ".join(parts[start:end])
            hit, fuzzy = matcher.match(span)
            if hit is None and end == start + 1 and _CONJUNCTION.match(span):
                span = _CONJUNCTION.sub("", span)  # "Jaws, Psycho, and Vertigo"
                hit, fuzzy = matcher.match(span)
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
    if matched == 0 or (matched == 1 and len(out) > 1):
        # nothing, or one title plus unmatched title-like parts ("Drive, He Said"): the line is
        # one entry that is not in the catalog, not a list
        return [(text, None, False)]
    return out


def _table_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|") if c.strip()]


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
    lines = [
        line[:MAX_LINE_CHARS] for line in _strip_reasoning(text[:MAX_ANSWER_CHARS]).splitlines()
    ]
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
        if body.lstrip().startswith("|"):
            cells = [c for c in _table_cells(body) if not _DIGITS.match(c) and set(c) - set("-: ")]
            hit = next((h for h in (matcher.match(c) for c in cells) if h[0] is not None), None)
            segments = [(body, hit[0], hit[1])] if hit else []
        else:
            hit, fuzzy = matcher.match(body)
            segments = [(body, hit, fuzzy)]
            if hit is None and re.search(r"[,;]", body):
                segments = _split_joined(body, matcher)
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
