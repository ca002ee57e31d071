"""Matching one list entry of an answer against a catalog index (``core/parsing/catalog_index.py``);
:class:`TitleMatcher` is what ``core/parsing/parse.py`` calls per entry. Two stages, never a guess:

1. **Exact** on a normalized key, tried on the whole entry, then on forms of it from most to
   least literal: without trailing years / parentheses / commentary, its bold or quoted part,
   without the answer's own parentheticals, without a native-script name, the title before
   " - Director" / " by Director", the full name after an abbreviation ("UTS - University of
   Technology Sydney"). A key that keeps the leading article is tried first ("Taxi Driver" is
   not "A Taxi Driver"). An answer "Title by Artist" also matches a catalog entry "Title" that
   has no artist. A bare title found inside an entry that names **another** artist is not a
   match ("Take Me Out" by Missy Elliott is not "Take Me Out by Franz Ferdinand").
2. **Fuzzy** (rapidfuzz ``fuzz.ratio`` ≥ :data:`FUZZY_CUTOFF` on the normalized text) only for
   entries of ≥ :data:`FUZZY_MIN_CHARS` characters, only when the best candidate is unambiguous,
   carries the same numbers (so "Part III" never becomes "Part II") and every content word of one
   side has a close counterpart on the other (so "IIT Madras" never becomes "IIT Bombay", and
   "Frozen" never becomes "M"). See README "Parser" for the evidence behind the cutoff. A song
   whose artist matches a catalog artist exactly is also matched among that artist's songs
   (``fuzz.ratio`` ≥ :data:`ARTIST_TITLE_CUTOFF`, or a unique leading part of a title), so
   "Royal by Lorde" is "Royals by Lorde".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rapidfuzz import fuzz, process

from coldbias_tasks.core.parsing.catalog_index import (
    ABBREVIATION,
    AMBIGUOUS,
    ANY_PAREN,
    DIGITS,
    TRAILING_PAREN,
    CatalogIndex,
    abbreviates,
    institution_key,
    is_abbreviation,
    key_forms,
    normalize,
    normalized_key,
)

__all__ = [
    "ARTIST_TITLE_CUTOFF",
    "FUZZY_CUTOFF",
    "FUZZY_MIN_CHARS",
    "MEMO_SIZE",
    "TitleMatcher",
    "is_lead_in",
]

#: Minimum rapidfuzz ratio (0–100) for a fuzzy match; chosen on tests/data/parse_cases/, see README.
FUZZY_CUTOFF = 88.0
#: Minimum ratio between song titles when the answer's artist is exactly a catalog artist.
ARTIST_TITLE_CUTOFF = 85.0
#: Entries shorter than this (normalized, without spaces) are matched exactly or not at all.
FUZZY_MIN_CHARS = 6
#: Entries remembered per catalog index across calls.
MEMO_SIZE = 100_000
_STOPWORDS = frozenset({"the", "a", "an", "of", "and", "by", "de", "la", "le", "in", "at", "for"})
_SOUNDALIKE = frozenset(frozenset(p) for p in ("ck", "cs", "kq", "sz", "iy", "ae", "fv"))
_NUMBER_WORDS = dict(
    enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
)
MARKDOWN = re.compile(r"[*_`~]+")
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_QUOTED = re.compile(r"[\"“”«»„「『《〈【](.+?)[\"“”«»„」』》〉】]")
_LEADING_QUOTED = re.compile(
    r"^\W*?[\"“«„「『《](.+?)[\"”»“」』》]\s*(?:by\s+|[-–—:,]\s*)([^\"“”«»„「」『』《》]+)$"
)
_TRAILING_YEAR = re.compile(r"\s*[(\[]\s*(?:19|20)\d\d\s*[)\]]\s*$|\s*[-–—,]\s*(?:19|20)\d\d\s*$")
_PAREN_CONTENT = re.compile(r"[(\[]\s*([^()\[\]]+?)\s*[)\]]")
_FEAT = re.compile(
    r"\s*[(\[]?\s*\b(?:feat\.?|ft\.?|featuring)\s+.*?(?:[)\]]|(?=\s+[-–—]\s+|\s+by\s+)|$)",
    re.IGNORECASE,
)
_COMMENT_SEP = re.compile(r"\s+[-–—]\s+|\s*[–—]\s*|:\s+|\s+\|\s+")
_DASH_SEP = re.compile(r"\s+[-–—|·]\s+|\s*[–—]\s*")
_ABBREV_SEP = re.compile(r"\s+[-–—|·]\s+|\s*[–—]\s*|,\s+")
LEAD_IN = re.compile(r"^([^:]{1,150}?):\s*(\S.*)$")
PROSE_START = re.compile(
    r"^(?:sure|here|i\b|i'm|i’m|im\b|these|this|let me|enjoy|hope|note|based on|as an|"
    r"certainly|of course|okay|ok\b|great|happy|feel free|if you|you might|below|absolutely|"
    r"recommended|my top|top \d+|sorry|unfortunately)\b",
    re.IGNORECASE,
)
JOINED = re.compile(r"[,;、，]")
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


def _numbers(norm: str) -> list[str]:
    return sorted(w for w in norm.split() if DIGITS.match(w))


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


def is_lead_in(head: str, joined: bool = False) -> bool:
    """A sentence before ":" ("Here are 20 films", "Epic movie on space"), not a title; before
    a comma-joined list (``joined``) two words in sentence case do ("Top picks: A, B, C")."""
    words = head.split()
    if PROSE_START.match(MARKDOWN.sub("", head).strip()):
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
        _TRAILING_YEAR.sub("", TRAILING_PAREN.sub("", text)) if "(" in text or "[" in text else text
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
    plain = MARKDOWN.sub("", base) if MARKDOWN.search(base) else base
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
        if len(parts) == 1 or (parts and not JOINED.search(base)):  # "«A», «B»" is a list
            for part in parts:
                if text := fresh(_TRAILING_YEAR.sub("", part)):
                    yield text, True, None
    unbracketed = ANY_PAREN.sub("", no_year) if has_paren else no_year
    if text := fresh(unbracketed):
        yield text, True, None  # the answer's own parenthetical: "Berkeley (UC)"
    native = None if plain.isascii() else _strip_native(plain)
    if native is not None:
        for form in (native, _TRAILING_YEAR.sub("", ANY_PAREN.sub("", native))):
            if text := fresh(form):
                yield text, True, None
    if ":" in plain:
        lead = LEAD_IN.match(plain)
        if lead and is_lead_in(lead.group(1)):
            for form in (lead.group(2), _no_year_paren(lead.group(2))):
                if text := fresh(form):
                    yield text, True, None
    if songs:
        paired: set[str] = set()
        for title, artist in _song_splits(no_year):
            for form in (title, ANY_PAREN.sub("", title)):
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
            if ABBREVIATION.match(head.strip()) and abbreviates(head, rest):
                if text := fresh(rest):
                    yield text, False, None  # "UTS - University of Technology Sydney"
            elif match.group().strip() != "," and _looks_like_name(rest) and (text := fresh(head)):
                yield text, False, None  # "Jaws - Steven Spielberg"
        if " by " in unbracketed:
            head, _, rest = unbracketed.rpartition(" by ")
            if _looks_like_name(rest) and (text := fresh(head)):
                yield text, False, None  # "Jaws by Steven Spielberg"
    if ("(" in plain or "[" in plain) and not JOINED.search(plain):  # not "A (X), B (Y)"
        for match in _PAREN_CONTENT.finditer(plain):
            content = match.group(1)
            wanted = is_abbreviation(content) or native is not None
            if wanted and (text := fresh(content)):
                yield text, False, None  # "Singapore (NUS)", "東京大学 (…)"


class TitleMatcher:
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
        literal, norm = key_forms(text)
        hit = index.literal.get(literal.replace(" ", ""))
        if hit is not None and hit != AMBIGUOUS:
            return hit, False
        key = norm.replace(" ", "")
        hit = index.exact.get(key)
        if hit is not None:
            return hit, False
        hit = index.bare.get(key)
        if hit is not None:
            return hit, True
        if index.institutions:
            inst = institution_key(norm)
            if inst is not None:
                return index.institutions.get(inst), False
        return None, False

    def _match(self, entry: str) -> tuple[int | None, bool]:
        index = self.index
        fuzzy_forms: list[str] = []
        splits: list[tuple[str, str]] = []
        entry_splits: list[tuple[str, str]] | None = None
        conflict = False
        for text, fuzzy_ok, artist in _candidates(entry, index.kind == "song"):
            hit, is_bare = self._lookup(text)
            if fuzzy_ok:
                fuzzy_forms.append(text)
            if artist is not None:
                splits.append((text, artist))
            if hit is None:
                continue
            if hit == AMBIGUOUS:
                return None, False
            own_artist = index.artists[hit] if index.kind == "song" else ""
            if own_artist and (is_bare or artist is not None):
                if artist is not None:
                    artists = [artist]
                else:
                    if entry_splits is None:
                        entry_splits = _song_splits(MARKDOWN.sub("", _FEAT.sub("", entry)))
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
