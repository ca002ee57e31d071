"""Matching one entry of a reverse-task answer against the candidate users shown in the prompt:
by number, by phrase, or both (the parser around it is ``core/parsing/parse_users.py``).

**Phrase matching**, on a key that ignores case, accents (but not Japanese voicing marks),
punctuation, markdown, quotes and a leading article (a/an/the, un/une/le/la/l'/les, der/die/das,
el/la…; "girl" = "a girl", "The child of a doctor" = "the child of a doctor"), Japanese and
Chinese characters counting as one word each:

1. exact: the entry, else a head of it (the text before " - ", "–", ":", ",", "(", ". " …, so
   "a girl – she would love the story" is "a girl"), else a bold or quoted part of it;
2. containment: the only candidate whose phrase occurs as whole words in the entry's head (or,
   for an entry without a number whose head names nobody, in the whole entry). Longest match
   first: a phrase found only inside a longer candidate's phrase does not count ("a female
   American" is not "a female"). "female" never contains "male" (whole words only). An entry
   that also carries a content word of only another candidate names two users ("a Black or a
   White person", "a girl who likes boy bands") and is ambiguous.

A number must be in ``1..len(candidates)``; a number and a phrase on one entry must name the
same user; a phrase matching two candidates equally is ambiguous (:data:`BAD`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "BAD",
    "BARE_NUMBER",
    "HAS_WORD",
    "MAX_LINE_CHARS",
    "CandidateIndex",
    "candidate_index",
    "clean_entry",
    "decode_entry",
    "is_code",
]

#: Lines are cut to this many characters (keeps every regex linear-ish).
MAX_LINE_CHARS = 1_000

BAD = -1  # an entry that is decided invalid (conflict, out of range, ambiguous)


# --- normalisation ------------------------------------------------------------------------------

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u3005\u3006"
_TOKEN = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")
_NON_WORD = re.compile(r"[\W_]+")
_ACCENTS = re.compile("[\u0300-\u036f]+")
_ARTICLES = frozenset(
    "a an the un une le la les l des du ein eine einen einem einer der die das den dem "
    "el los las unos unas il lo gli uno".split()
)


@lru_cache(maxsize=1 << 15)
def _tokens(text: str) -> tuple[str, ...]:
    """Lowercase, accent-free words; each Japanese / Chinese / Korean character is a word."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    text = unicodedata.normalize("NFC", _ACCENTS.sub("", text)).casefold()
    return tuple(_TOKEN.findall(_NON_WORD.sub(" ", text)))


#: Words never taken as naming a candidate on their own (see :func:`_contained`).
_FUNCTION_WORDS = _ARTICLES | frozenset(
    "of on in at to is are who whose which that this with for and or by from "
    "de d qui dont est et ou en au aux a à von zu und oder ist mit y o que con".split()
)


_HIRAGANA = re.compile("[\u3040-\u309f]")  # Japanese particles and endings, not content words


def _strip_article(tokens: tuple[str, ...]) -> tuple[str, ...]:
    return tokens[1:] if len(tokens) > 1 and tokens[0] in _ARTICLES else tokens


def _key(text: str) -> str:
    return " ".join(_strip_article(_tokens(text)))


@dataclass(frozen=True)
class CandidateIndex:
    n: int
    exact: dict[str, int]  # phrase key → candidate index, or BAD when two candidates share it
    starts: dict[str, tuple[tuple[tuple[str, ...], int], ...]]  # first word → (words, index)
    longest: int
    distinct: dict[str, int]  # a content word of exactly one candidate → that candidate


def _build_candidate_index(candidates: tuple[object, ...]) -> CandidateIndex:
    exact: dict[str, int] = {}
    words: dict[str, tuple[str, ...]] = {}
    for i, phrase in enumerate(candidates):
        if not isinstance(phrase, str):
            continue
        tokens = _strip_article(_tokens(phrase[:MAX_LINE_CHARS]))
        if not tokens:
            continue
        key = " ".join(tokens)
        exact[key] = BAD if key in exact else i
        words[key] = tokens
    starts: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for key, tokens in words.items():
        starts.setdefault(tokens[0], []).append((tokens, exact[key]))
    longest = max((len(t) for t in words.values()), default=0)
    owners: dict[str, set[int]] = {}
    for key, tokens in words.items():
        for token in tokens:
            owners.setdefault(token, set()).add(exact[key])
    distinct = {
        t: next(iter(o))
        for t, o in owners.items()
        if len(o) == 1 and BAD not in o and t not in _FUNCTION_WORDS and not _HIRAGANA.match(t)
    }
    return CandidateIndex(
        len(candidates), exact, {k: tuple(v) for k, v in starts.items()}, longest, distinct
    )


@lru_cache(maxsize=256)
def _cached_candidate_index(candidates: tuple[str, ...]) -> CandidateIndex:
    return _build_candidate_index(candidates)


def candidate_index(candidates: tuple[object, ...]) -> CandidateIndex:
    if all(isinstance(c, str) for c in candidates):
        return _cached_candidate_index(candidates)  # type: ignore[arg-type]
    return _build_candidate_index(candidates)


def _contained(tokens: tuple[str, ...], index: CandidateIndex) -> int | None:
    """The only candidate whose words occur in ``tokens`` (longest match first), BAD when
    two do, None when none does."""
    hits: list[tuple[int, int, int]] = []  # (start, end, candidate)
    for i, token in enumerate(tokens):
        for words, idx in index.starts.get(token, ()):
            if tokens[i : i + len(words)] == words:
                hits.append((i, i + len(words), idx))
    found = {idx for _, _, idx in hits}
    if BAD in found:
        return BAD
    if len(found) <= 1:
        return _check_others(tokens, found.pop(), index) if found else None
    by_start: dict[int, list[tuple[int, int]]] = {}
    for start, end, idx in hits:
        by_start.setdefault(start, []).append((end, idx))
    kept = set()
    for start, end, idx in hits:
        nested = any(
            s <= start and end <= e and e - s > end - start and other != idx
            for s in range(max(0, start - index.longest), start + 1)
            for e, other in by_start.get(s, ())
        )
        if not nested:
            kept.add(idx)
    if len(kept) != 1 or BAD in kept:
        return BAD
    return _check_others(tokens, kept.pop(), index)


def _check_others(tokens: tuple[str, ...], found: int, index: CandidateIndex) -> int:
    """BAD when ``tokens`` also carry a word of only another candidate ("a Black or a White
    person" names two users, though only "white person" occurs whole)."""
    for token in tokens:
        other = index.distinct.get(token)
        if other is not None and other != found:
            return BAD
    return found


# --- entry text ---------------------------------------------------------------------------------

_MARKDOWN = re.compile(r"\*\*|__|[*`~]|(?<!\w)_|_(?!\w)")
_EDGES = " \t.,;:!?。、・-–—=>"
_PAIRS = {
    "(": ")", "[": "]", "{": "}", '"': '"', "'": "'", "“": "”", "„": "“", "«": "»",
    "「": "」", "『": "』", "‘": "’", "<": ">", "【": "】",
}  # fmt: skip
_QUOTE_CHARS = "\"'“”‘’«»„「」『』"
HAS_WORD = re.compile(r"[^\W_]")
_SIGNED = re.compile(r"^\s*[-\u2212]\d")  # "-3", "−3": a negative number


def clean_entry(text: str) -> str:
    """Without markdown, edge punctuation and wrapping quotes or brackets. A minus sign glued
    to a leading number stays (as "−", so "-3" is no user number: none was shown as "-3")."""
    text = _MARKDOWN.sub("", text)
    signed = _SIGNED.match(text) is not None
    text = text.strip(_EDGES)
    for _ in range(4):
        if len(text) < 2 or text[0] not in _PAIRS or text[-1] != _PAIRS[text[0]]:
            break
        inner = text[1:-1]
        if text[0] in inner or _PAIRS[text[0]] in inner:
            break
        text = inner.strip(_EDGES)
    if text and text[0] in _QUOTE_CHARS and text.count(text[0]) == 1:
        text = text[1:]
    if text and text[-1] in _QUOTE_CHARS and text.count(text[-1]) == 1:
        text = text[:-1]
    text = text.strip(_EDGES)
    return "\u2212" + text if signed and text[:1].isdigit() else text


_HEAD_SEP = re.compile(r"\s+[-–—]+\s+|\s*[–—]+\s*|\s*[:;,(\[|]|、|[.!?。！？](?:\s|$)")
_EMPHASIS = re.compile(r"\*\*([^*]+)\*\*|__([^_]+)__|[\"“„«「『]([^\"“”«»„「」『』]+)[\"”“»」』]")


def _resolve(
    raw: str, index: CandidateIndex, contain: bool, contain_all: bool
) -> tuple[int | None, int]:
    """(candidate, BAD or None; level) of a phrase: level 3 exact, 2 exact head or emphasis,
    1 containment, 0 nothing."""
    text = clean_entry(raw)
    if not text:
        return None, 0
    exact = index.exact
    key = _key(text)
    if key in exact:
        return exact[key], 3
    cuts = [m.start() for m in _HEAD_SEP.finditer(text, 1)][:20]
    for cut in reversed(cuts):
        key = _key(text[:cut])
        if key in exact:
            return exact[key], 2
    emphasized = set()
    for m in _EMPHASIS.finditer(raw):
        key = _key(m.group(1) or m.group(2) or m.group(3) or "")
        if key in exact:
            emphasized.add(exact[key])
    if emphasized:
        return (emphasized.pop() if len(emphasized) == 1 else BAD), 2
    if contain:
        head = text[: cuts[0]] if cuts else text
        found = _contained(_tokens(head), index)
        if found is None and contain_all and cuts:
            found = _contained(_tokens(text), index)
        if found is not None:
            return found, 1
    return None, 0


_KW = (
    r"(?:users?|candidates?|candidat[ae]?|utilisat(?:eur|rice)|usuari[oa]|benutzer|nutzer|"
    r"kandidat|option|ユーザー?|候補者?|用户|用戶|候选人?)"
)
_NUM = r"(\d{1,3})(?!\d)(?![.,]\d)"  # not "1000" (read "100"), "3.5" or "3,5"
#: Active markup or code in an entry ("<script>alert(1);</script>", "<img onerror=f(2)>",
#: "javascript:f(2)", "x = g(3);"): its digits are never read as user numbers. Inert formatting
#: tags ("<b>", "</td>") are no code.
_TAG = re.compile(r"<\s*/?\s*([A-Za-z][\w:-]*)\b([^<>]{0,200})>")
_INERT_TAGS = frozenset(
    "b i u s em strong small big mark span font sup sub code pre tt kbd samp br hr p div "
    "li ol ul dl dt dd table thead tbody tfoot tr td th caption center blockquote q del ins "
    "h1 h2 h3 h4 h5 h6".split()
)
_HANDLER = re.compile(r"\bon[a-z]+\s*=|\bstyle\s*=", re.I)
_SCHEME = re.compile(r"\b(?:javascript|vbscript|data)\s*:", re.I)
_CALL = re.compile(r"(?<![\w$.])[A-Za-z_$][\w$]*\(")  # "alert(", not "a girl (3)"
_CODE_SIGN = re.compile(r"[;={}]")


def is_code(text: str, line: str | None = None) -> bool:
    """Active markup (a tag other than inert formatting, or one with an event handler), a
    script link (``javascript:``), or a call among code signs ("f(2);", "x = g(3)"); the signs
    may be anywhere on the ``line`` that ``text`` is a part of ("3, alert(4);, 1")."""
    if "<" in text:
        for m in _TAG.finditer(text):
            if m.group(1).lower() not in _INERT_TAGS or _HANDLER.search(m.group(2)):
                return True
    if ":" in text and _SCHEME.search(text):
        return True
    return bool(_CALL.search(text) and _CODE_SIGN.search(text if line is None else line))


_AFTER = r"\s*(?:$|[-–—:;,.!=)\]]\s*(.*))$"
_KW_LEAD = re.compile(rf"^{_KW}\s*(?:no\.?|n°|#)?\s*{_NUM}\s*(.*)$", re.I | re.S)
_HASH_LEAD = re.compile(rf"^#\s*{_NUM}\s*(.*)$", re.S)
BARE_NUMBER = re.compile(r"^(\d{1,3})$")
_PAREN_LEAD = re.compile(rf"^{_NUM}\s*[(\[]([^()\[\]]*)[)\]]\s*(.*)$", re.S)
_SEP_LEAD = re.compile(rf"^{_NUM}\s*(?:[-–—:=)\]]|\.(?!\d)|、)\s*(.*)$", re.S)
_SPACE_LEAD = re.compile(rf"^{_NUM}\s+(.+)$", re.S)
_PAREN_TAIL = re.compile(
    rf"^(.+?)\s*[(\[]\s*(?:{_KW}\s*)?#?\s*{_NUM}\s*[)\]]\s*(?:$|[-–—:;,.!]\s*(.*))$",
    re.I | re.S,
)
_KW_TAIL = re.compile(rf"^(.+?)[\s,:;=–—-]+{_KW}\s*#?\s*{_NUM}{_AFTER}", re.I | re.S)


def decode_entry(
    raw: str, index: CandidateIndex, contain: bool, line: str | None = None
) -> tuple[int | None, int]:
    """(candidate, BAD or None; level) of one entry's text (list marker removed). Level 3: the
    whole text is a number and/or an exact phrase; 2: recognised with commentary; 1: named by
    containment only; 0: names nobody. A number in markup or code (:func:`is_code`; ``line``:
    the line that ``raw`` is a part of) is never read as a user number: such an entry is
    invalid (BAD) unless a phrase alone names a user."""
    text = clean_entry(raw)
    if not HAS_WORD.search(text):
        return None, 0
    key = _key(text)
    if key in index.exact:
        return index.exact[key], 3
    number: int | None = None
    phrase = ""
    weak = False
    m = _KW_LEAD.match(text) or _HASH_LEAD.match(text)
    if m:
        number, phrase = int(m.group(1)), m.group(2)
    elif m := BARE_NUMBER.match(text):
        number = int(m.group(1))
    elif m := _PAREN_LEAD.match(text):
        number, phrase = int(m.group(1)), m.group(2)
        if not clean_entry(phrase):
            phrase = m.group(3)
    elif m := _SEP_LEAD.match(text):
        number, phrase = int(m.group(1)), m.group(2)
    elif m := _PAREN_TAIL.match(text) or _KW_TAIL.match(text):
        number, phrase = int(m.group(2)), m.group(1)
    elif m := _SPACE_LEAD.match(text):
        number, phrase, weak = int(m.group(1)), m.group(2), True
    if number is None:
        return _resolve(text, index, contain, contain_all=contain)
    found, level = _resolve(phrase, index, contain=True, contain_all=False)
    if weak and found is None:  # "3 users would love it" is not user 3
        return _resolve(text, index, contain, contain_all=contain)
    level = 3 if not clean_entry(phrase) or level == 3 else 2
    if is_code(raw, line):  # "<script>alert(1);</script>": no shown user number
        return BAD, level
    if not 1 <= number <= index.n or found == BAD:
        return BAD, level
    if found is not None and found != number - 1:
        return BAD, level  # the number and the phrase name different users
    return number - 1, level
