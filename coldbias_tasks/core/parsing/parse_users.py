"""Parse a model's answer to the reverse task (one item, a numbered list of candidate users)
into a ranking of those users.

The prompt shows candidate ``i`` as ``"{i + 1}. {candidates[i]}"`` (shuffled per prompt) and
asks for all users, best first. Model output is untrusted text: :func:`parse_user_ranking`
never raises on any ``str`` and never guesses.

**Accepted.** One entry per numbered or bulleted line ("1. a girl", "1) a girl", "(1)", "1、",
"１．", "①", "#1: a girl", "Rank 1: a girl", "1st: …", "第1位：…", "- a girl", "* 3",
"**3. a girl**", "> a girl", markdown table rows "| 1 | a girl |"), or per unmarked line that
is a number or a phrase. The answer's own list marker is the **rank**, never a user number
("1. 3" is user 3 at rank 1, "1. a girl" names by phrase); ranks are taken in line order. Only
when the "N." / "N)" / "N、" markers of an answer do not count 1, 2, 3… (restarts at 1 allowed)
are they the shown user numbers ("3. a girl" copied from the prompt), checked against the
phrase like any user number. An
entry names a user by number ("3", "User 3", "Candidate 3", "#3", "ユーザー3", "3 - a girl",
"3: a girl", "3 (a girl)", "a girl (3)", "a girl - User 3"), by phrase, or both. One-line lists
are split on ``,`` ``;`` ``、`` ``>`` ``→`` ``->`` (also after a lead-in "Ranking: 3, 1, 2,
4", and on "and" / "then" inside such a list: "a girl, a boy, a female and a male") when at
least two parts are recognisable entries. JSON arrays of numbers, phrases or objects with a
"user" / "candidate" / "number" / "phrase" field (also under one key such as "ranking", also in
```json fences) are read element by element. Text inside ``<think>…</think>`` is ignored, as is
everything after an unclosed ``<think>`` and everything before a ``</think>`` whose opening was
in the prompt. Invisible and control characters (BOM, zero-width spaces, bidi marks, NUL,
ESC…) are removed first. Answers are cut to :data:`MAX_TEXT_CHARS` characters, lines to
:data:`MAX_LINE_CHARS`.

**Phrase matching** (``core/parsing/user_match.py``): exact on a key that ignores case, accents,
punctuation, markdown, quotes and a leading article, then by containment of a candidate's
whole phrase; no fuzzy matching.

**Decided, never guessed.** Only the numbers of the shown users are read: a number must be in
``1..len(candidates)`` and written as shown (not "-3", "3.5", "0013", "1000"), and a number
inside markup or code ("<script>alert(1);</script>", "javascript:f(2)", "x = g(3);") is no
user number (inert formatting such as "<b>" or "</td>" is no code); a number and a phrase on
one entry must name the same user; a phrase matching two candidates equally ("a girl or a boy",
two candidates with the same key) is ambiguous. Such entries go to ``invalid``, as do list
entries naming nobody. No fuzzy matching: "girls", "Black" or "teenager" name nobody. One
structural rule reads "N - phrase" / "N: phrase" prefixes of unnumbered lines as ranks, not user
numbers, when they run 1, 2, …, m (m ≥ 2) in order over the answer (the only reading in which a
model that contradicts its phrases is consistent). Prose (lines that are neither marked, nor a
number, nor a phrase, and lines indented under an entry already decided) is skipped and not
counted; an unmarked short line that names nobody counts as invalid only between two unmarked
entries. Repeats of a ranked user go to ``duplicates``. Parsing stops once every candidate is
ranked (later restatements are not counted).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from coldbias_tasks.core.parsing.answer_text import (
    break_html_lists,
    json_values,
    strip_invisible,
    strip_reasoning,
)
from coldbias_tasks.core.parsing.user_match import (
    BAD,
    BARE_NUMBER,
    HAS_WORD,
    MAX_LINE_CHARS,
    CandidateIndex,
    candidate_index,
    clean_entry,
    decode_entry,
    is_code,
)

__all__ = ["MAX_LINE_CHARS", "MAX_TEXT_CHARS", "UserRanking", "parse_user_ranking"]

#: The answer (without reasoning) is cut to this many characters (repetition loops).
MAX_TEXT_CHARS = 50_000
#: Raw answers (with reasoning) are cut to this many characters before ``<think>`` is removed.
MAX_RAW_CHARS = 1_000_000
#: A one-line list is split into at most this many parts.
MAX_PARTS = 200


@dataclass(frozen=True)
class UserRanking:
    """A parsed reverse-task answer.

    ``order``: candidate indices (0-based, in the shown numbering: candidate ``i`` was shown as
    "i+1."), best first, unique. ``invalid``: entries naming no candidate, naming two, or whose
    number and phrase disagree. ``duplicates``: entries naming a candidate already ranked.
    ``n_entries``: entries seen (``len(order) + len(invalid) + len(duplicates)``).
    ``n_candidates``: how many candidates were shown.
    """

    order: tuple[int, ...]
    invalid: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    n_entries: int = 0
    n_candidates: int = 0

    @property
    def complete(self) -> bool:
        """Every candidate ranked, each exactly once (no duplicate entry)."""
        return (
            self.n_candidates > 0 and len(self.order) == self.n_candidates and not self.duplicates
        )


# --- lines --------------------------------------------------------------------------------------

_BULLET = re.compile(r"^(?:[-+•·●▪◦‣・○■□►▶✓✔–—]|\*(?!\*))\s+")
_RANK_WORD = (
    r"(?:(?:rank(?:ed)?|rang|platz|place|position|top)\s*(?:no\.?|#)?\s*\d{1,3}(?!\d)"
    r"|#\s?\d{1,3}(?!\d)"
    r"|\d{1,3}\s*(?:st|nd|rd|th|er|re|e|ème|eme|º|°)(?![^\W\d_])\.?\s*(?:place|choice|choix)?"
    r"|第?\s*\d{1,3}\s*位)"
    r"\s*(?:[:.)\-–—=]|\s|$)\s*"
)
_RANK = re.compile(
    rf"^(?:{_RANK_WORD}|\(?\d{{1,3}}\s*[)\]](?!\d)\s*|\d{{1,3}}\.(?!\d)\s*|\d{{1,3}}\s*、\s*)",
    re.I,
)
_RANK_AFTER_BULLET = re.compile(rf"^{_RANK_WORD}", re.I)
_MARKER_NUMBER = re.compile(r"\d{1,3}")
_DIGIT_MARKER = re.compile(r"^\(?(\d{1,3})\s*[.)\]、]")
_SEQ_PREFIX = re.compile(r"^(\d{1,3})\s*(?:[-–—:=)]|\.(?!\d))\s*(?=\S)(.*)$", re.S)
_HEADING = re.compile(r"^#{1,6}\s+")
_QUOTE_PREFIX = re.compile(r"^(?:>\s*)+")
_MD_OPEN = re.compile(r"^(?:\*\*|__)\s*")
_TABLE_RULE = re.compile(r"^:?-{2,}:?$")
_CIRCLED = re.compile("(?m)^([ \t]*)([\u2460-\u2473])")
_LIST_SEP = re.compile(r"\s*(?:[,;，；、]|->|=>|[>→⟶⇒➔➜])\s*")
_CONNECTOR = re.compile(
    r"^(?:(?:and|or|then|followed\s+by|finally|lastly|next|et|puis|enfin|und|dann|y|luego)"
    r"\s+)+",
    re.I,
)
_CONJUNCTION = re.compile(r"\s+(?:and|then|et|puis|und|dann|y|luego)\s+", re.I)
_LEAD_IN = re.compile(r"^([^:]{1,80}?):\s*(\S.*)$", re.S)
_PROSE_END = re.compile(r"[.!?:。！？]\s*$")
_PROSE_START = re.compile(
    r"^(?:sure|here|i\b|i'm|these|this|that|let|based|note|okay|ok\b|certainly|of course|"
    r"my\b|final|answer|ranking|explanation|reason|in summary|overall|so\b|the ranking)",
    re.I,
)


@dataclass
class _Line:
    kind: str  # "rank", "bullet", "unmarked"
    content: str
    indent: int
    seq_number: int | None = None  # an "N - phrase" prefix of an unnumbered line
    marker_number: int | None = None  # the N of a "N." / "N)" / "(N)" / "N、" marker


def _split_line(raw: str) -> _Line | None:
    line = raw[:MAX_LINE_CHARS]
    stripped = line.strip()
    if not stripped or stripped.startswith("```"):
        return None
    indent = len(line) - len(line.lstrip())
    if stripped.startswith("|"):
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        cells = [c for c in cells if c and not _TABLE_RULE.match(c)]
        if not cells:
            return None
        first = clean_entry(cells[0])
        if BARE_NUMBER.match(first) and len(cells) > 1:
            return _Line("rank", " - ".join(cells[1:]), indent)
        return _Line("unmarked", " - ".join(cells), indent)
    if len(numbers := _parts(stripped)) >= 2 and all(BARE_NUMBER.match(p) for p in numbers):
        return _Line("unmarked", stripped, indent)  # "3、1、2、4": not a marker "3、"
    text = _QUOTE_PREFIX.sub("", stripped)
    text = _MD_OPEN.sub("", _HEADING.sub("", text))
    kind = "unmarked"
    marker_number = None
    if m := _RANK.match(text):
        kind, rest = "rank", text[m.end() :]
        digits = _DIGIT_MARKER.match(m.group())
        marker_number = int(digits.group(1)) if digits else None
        if not HAS_WORD.search(clean_entry(rest)):  # "3." alone: a bare number
            number = _MARKER_NUMBER.search(m.group())
            rest = number.group() if number else rest
        text = rest
    elif m := _BULLET.match(text):
        kind, text = "bullet", text[m.end() :]
        if m := _RANK_AFTER_BULLET.match(text):
            text = text[m.end() :]
            kind = "rank"
    result = _Line(kind, text, indent)
    if kind == "rank":
        result.marker_number = marker_number
    if kind != "rank" and (m := _SEQ_PREFIX.match(clean_entry(text))):
        result.seq_number = int(m.group(1))
    return result


def _parts(text: str) -> list[str]:
    return [p for p in (q.strip() for q in _LIST_SEP.split(text, MAX_PARTS)) if p][:MAX_PARTS]


class _Parser:
    def __init__(self, index: CandidateIndex) -> None:
        self.index = index
        self.memo: dict[tuple[str, bool, str | None], tuple[int | None, int]] = {}

    def decode(self, text: str, contain: bool, line: str | None = None) -> tuple[int | None, int]:
        """(candidate, BAD or None; level) of ``text``, a part of ``line`` if given."""
        memo_key = (text, contain, line)
        if memo_key not in self.memo:
            self.memo[memo_key] = decode_entry(text, self.index, contain, line)
        return self.memo[memo_key]

    def part(self, text: str, line: str) -> tuple[int | None, int]:
        """A part of the one-line list ``line``: its own marker removed, leading "and"/"then"
        too."""
        text = _CONNECTOR.sub("", clean_entry(text))
        m = _RANK.match(text) or _BULLET.match(text)
        if m and HAS_WORD.search(clean_entry(text[m.end() :])):
            text = text[m.end() :]
        return self.decode(text, contain=False, line=line)

    def as_list(self, text: str) -> list[tuple[str, int | None]] | None:
        """Entries of a one-line list, or None when ``text`` is not one."""
        parts = _parts(text)
        if len(parts) < 2:
            return None
        decided = [self.part(p, text) for p in parts]
        if sum(level >= 2 for _, level in decided) < 2:
            return None
        out: list[tuple[str, int | None]] = []
        for part, (idx, level) in zip(parts, decided):
            if level >= 2:
                out.append((part, idx))
                continue
            pieces = [p for p in _CONJUNCTION.split(_CONNECTOR.sub("", part)) if p.strip()]
            sub = [self.part(p, text) for p in pieces] if len(pieces) > 1 else []
            if sub and all(level >= 2 for _, level in sub):
                out.extend((p, i) for p, (i, _) in zip(pieces, sub))
            else:
                out.append((part, self.decode(_CONNECTOR.sub("", part), True, text)[0]))
        return out

    def content(self, text: str, marked: bool) -> list[tuple[str, int | None]] | None:
        """Entries of one line's content; None when an unmarked line is not an entry."""
        idx, level = self.decode(text, contain=marked)
        if level == 3:
            return [(text, idx)]
        m = _LEAD_IN.match(clean_entry(text))
        if m and is_code(m.group(1) + ":"):
            m = None  # "javascript:alert(2)" is no lead-in announcing user 2
        lead_in = m is not None and self.decode(m.group(1), contain=False)[1] < 2
        if m and lead_in and (listed := self.as_list(m.group(2))) is not None:
            return listed  # "Ranking: 3, 1, 2, 4"
        if (listed := self.as_list(clean_entry(text))) is not None:
            return listed
        if m and lead_in:
            rest_idx, rest_level = self.decode(m.group(2), contain=False)
            if rest_level >= 2 and level < 2:
                return [(m.group(2).strip(), rest_idx)]
        if marked or level >= 2:
            return [(text, idx)]
        return None


def _looks_like_entry(text: str) -> bool:
    """An unmarked line that could be a list entry (short, no sentence), not prose."""
    text = text.strip()
    if not HAS_WORD.search(text) or len(text) > 60 or _PROSE_END.search(text):
        return False
    if _PROSE_START.match(clean_entry(text)):
        return False
    return len(text.split()) <= 6 and (" " in text or len(text) <= 20)


def _json_items(text: str) -> list[object] | None:
    """The elements of a JSON array answer (fenced or not, or under one key), else None."""
    for value in json_values(text, inline=False):
        for _ in range(3):
            if not isinstance(value, dict):
                break
            lists = [v for v in value.values() if isinstance(v, list)]
            dicts = [v for v in value.values() if isinstance(v, dict)]
            if len(lists) == 1:
                value = lists[0]
            elif not lists and len(dicts) == 1:
                value = dicts[0]
            elif value and all(str(k).strip().isdigit() for k in value):
                value = list(value.values())  # {"1": "a girl", "2": "a boy"}
            else:
                break
        if isinstance(value, list):
            return value
    return None


_JSON_NUMBER_KEYS = ("user", "candidate", "user_number", "number", "index", "id", "user_id")
_JSON_TEXT_KEYS = ("user", "candidate", "phrase", "description", "name", "persona", "label")


def _json_entry(item: object) -> str:
    if isinstance(item, bool) or item is None:
        return json.dumps(item)
    if isinstance(item, int):
        return str(item)
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        number = next((item[k] for k in _JSON_NUMBER_KEYS if isinstance(item.get(k), int)), None)
        phrase = next((item[k] for k in _JSON_TEXT_KEYS if isinstance(item.get(k), str)), None)
        if isinstance(number, int) and not isinstance(number, bool):
            return f"{number} ({phrase})" if phrase else str(number)
        if phrase:
            return phrase
    try:
        return json.dumps(item, ensure_ascii=False)[:MAX_LINE_CHARS]
    except (TypeError, ValueError, RecursionError):
        return "?"


def _line_entries(text: str, parser: _Parser) -> Iterator[tuple[str, int | None]]:
    lines = [_split_line(raw) for raw in text.splitlines()]
    seq = [ln for ln in lines if ln is not None and ln.seq_number is not None]
    if len(seq) >= 2 and [ln.seq_number for ln in seq] == list(range(1, len(seq) + 1)):
        for ln in seq:  # "1 - a girl", "2 - a boy": the numbers are ranks
            if m := _SEQ_PREFIX.match(clean_entry(ln.content)):
                ln.content, ln.kind = m.group(2), "rank"
    numbered = [ln for ln in lines if ln is not None and ln.marker_number is not None]
    markers = [ln.marker_number for ln in numbered]
    if all(n == 1 or (i and n == markers[i - 1] + 1) for i, n in enumerate(markers)):
        for ln in numbered:  # "1. …", "2. …" (restarting at 1): the answer's own ranks
            ln.marker_number = None
    # decide every line: ("entry", marked, entries) | ("maybe", text) | None (prose)
    decided: list[tuple[str, bool, list[tuple[str, int | None]]] | None] = []
    parent: tuple[int, bool] | None = None  # (indent, resolved) of the last marked entry
    for ln in lines:
        if ln is None:
            decided.append(None)
            continue
        marked = ln.kind != "unmarked"
        if parent is not None and ln.indent > parent[0] and ln.kind != "rank" and parent[1]:
            decided.append(None)  # indented under an entry already decided: commentary
            continue
        if parent is not None and ln.indent <= parent[0]:
            parent = None
        entries = parser.content(ln.content, marked)
        if ln.marker_number is not None and entries is not None and len(entries) == 1:
            entry, idx = entries[0]  # "3. a girl", "1. a boy": the shown user numbers
            if idx is not None and idx != ln.marker_number - 1:
                entries = [(entry, BAD)]
        heading = ln.content.rstrip(" *_").endswith(":")  # "1. Top choices:"
        if (
            marked
            and heading
            and entries is not None
            and len(entries) == 1
            and entries[0][1] is None
        ):
            decided.append(None)
            continue
        if marked and entries is not None:
            parent = (ln.indent, entries[-1][1] is not None and entries[-1][1] != BAD)
        if entries is not None:
            decided.append(("entry", marked, entries))
        elif _looks_like_entry(ln.content):
            decided.append(("maybe", False, [(ln.content.strip(), None)]))
        else:
            decided.append(None)
    previous: list[bool | None] = []  # per line: is the nearest entry above it marked?
    last: bool | None = None
    for row in decided:
        previous.append(last)
        if row is not None and row[0] == "entry":
            last = row[1]
    following: bool | None = None
    between = [False] * len(decided)
    for i in range(len(decided) - 1, -1, -1):
        row = decided[i]
        between[i] = previous[i] is False and following is False
        if row is not None and row[0] == "entry":
            following = row[1]
    for i, row in enumerate(decided):
        if row is None or (row[0] == "maybe" and not between[i]):
            continue  # a "maybe" line counts only between two unmarked entries
        yield from row[2]


def _entries(text: str, parser: _Parser) -> Iterator[tuple[str, int | None]]:
    items = _json_items(text)
    if items is None:
        yield from _line_entries(text, parser)
        return
    for item in items:
        entry = _json_entry(item)
        yield from parser.content(entry, marked=True) or [(entry, None)]


def _clean_answer(text: str) -> str:
    """The answer without hidden characters and reasoning, cut to :data:`MAX_TEXT_CHARS`,
    circled numbers as "N. ", NFKC-normalized, HTML list items as bullet lines."""
    text = strip_reasoning(strip_invisible(text[:MAX_RAW_CHARS]))[:MAX_TEXT_CHARS]
    text = _CIRCLED.sub(lambda m: f"{m.group(1)}{ord(m.group(2)) - 0x245F}. ", text)
    text = unicodedata.normalize("NFKC", text)[:MAX_TEXT_CHARS]
    return break_html_lists(text)


def parse_user_ranking(text: str, candidates: Sequence[str]) -> UserRanking:
    """Rank the shown ``candidates`` (``candidates[i]`` shown as "i+1. …") from ``text``.

    Never raises on a ``str``; a non-``str`` answer gives an empty ranking. See the module
    docstring for what is accepted and what is never guessed.
    """
    try:
        shown: tuple[object, ...] = (
            () if isinstance(candidates, (str, bytes)) else tuple(candidates)
        )
    except TypeError:
        shown = ()
    n = len(shown)
    if not isinstance(text, str) or not text.strip() or n == 0:
        return UserRanking((), n_candidates=n)
    parser = _Parser(candidate_index(shown))
    order: list[int] = []
    seen: set[int] = set()
    invalid: list[str] = []
    duplicates: list[str] = []
    for entry, idx in _entries(_clean_answer(text), parser):
        if len(order) == n:
            break
        entry = entry.strip()[:MAX_LINE_CHARS]
        if idx is None or idx == BAD or not 0 <= idx < n:
            invalid.append(entry)
        elif idx in seen:
            duplicates.append(entry)
        else:
            seen.add(idx)
            order.append(idx)
    return UserRanking(
        tuple(order),
        tuple(invalid),
        tuple(duplicates),
        len(order) + len(invalid) + len(duplicates),
        n,
    )
