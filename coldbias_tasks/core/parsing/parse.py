"""Parse a model's free-text answer into a ranked list of catalog indices: the forward task's
entry point, :func:`parse_ranking`.

Model output is untrusted text: :func:`parse_ranking` never raises on any ``str`` and never
guesses. The answer is cleaned (``core/parsing/answer_text.py``: invisible and control characters,
``<think>…</think>`` blocks, code fences, HTML lists, JSON), split into list entries here, and
each entry is matched against the catalog's index (``core/parsing/catalog_index.py``) by
``core/parsing/title_match.py``: exactly on a normalized key and its derived aliases first, then
fuzzily under guards.

Entries that match nothing are reported in ``out_of_catalog`` when they look like list entries
(numbered or bulleted lines, or short lines of a list without markers), never when they are
prose ("Sure! Here are ..."); a lead-in sentence before ":" is dropped ("Here are 20 films: A,
B, C"). A comma-joined line is split greedily so that titles with commas stay whole
("Crouching Tiger, Hidden Dragon"). Structured answers are read as lists: JSON (an array of
strings or of objects with a "title" / "name" / "song" / "university"… field, also nested under
a key such as "recommendations", fenced or not) and HTML lists (``<ol>/<ul>`` with ``<li>``);
their syntax is never an entry. Full-width digits and CJK list markers and quotes are read like
their ASCII forms. Repeats of an already listed item go to ``duplicates``. Parsing stops once
``k`` unique items are found. Text inside ``<think>…</think>`` is ignored. Invisible and
control characters (BOM, zero-width spaces, bidi marks, NUL, ESC…) are removed before anything
else (:func:`~coldbias_tasks.core.parsing.answer_text.strip_invisible`), so they change no item.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from coldbias_tasks.core.parsing.answer_text import (
    break_html_lists,
    has_html_list,
    json_values,
    strip_html,
    strip_invisible,
    strip_reasoning,
)
from coldbias_tasks.core.parsing.catalog_index import DIGITS, build_index
from coldbias_tasks.core.parsing.title_match import (
    JOINED,
    LEAD_IN,
    MARKDOWN,
    PROSE_START,
    TitleMatcher,
    is_lead_in,
)
from coldbias_tasks.core.world.domains import TitleKind, answer_keys, check_title_kind

__all__ = ["MAX_ANSWER_CHARS", "EntryMatcher", "Ranking", "parse_ranking"]

#: Answers longer than this many characters are truncated before parsing (repetition loops).
MAX_ANSWER_CHARS = 200_000
#: Lines are cut to this many characters (no title is longer; keeps regexes linear).
MAX_LINE_CHARS = 2_000
#: A comma-joined line is split into at most this many parts.
MAX_JOINED_PARTS = 100
#: A title may itself contain up to this many commas ("The Good, the Bad and the Ugly").
MAX_TITLE_COMMAS = 3
#: JSON answers longer than this are not decoded as JSON (they are read line by line).
MAX_JSON_CHARS = 100_000
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
_CONJUNCTION = re.compile(r"^(?:and|or|&)\s+", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
_WIDE = re.compile("[\u3000-\u303f\uff00-\uffef]")
_JSON_SYNTAX_LINE = re.compile(r"^\s*[\[\]{}(),]*\s*$")
_JSON_PAIR = re.compile(r'^\s*"([^"]{1,40})"\s*:\s*(.*?)\s*,?\s*$')
_JSON_ITEM = re.compile(r'^\s*\[?\s*"(.+)"\s*\]?\s*,?\s*$')
#: JSON keys that hold a title whatever the domain, tried before and after the domains' own
#: (``answer_keys`` of each data/domains/<name>.yaml: "movie", "song", "university"…).
_TITLE_KEYS_FIRST = ("title", "name")
_TITLE_KEYS_LAST = ("item", "recommendation")
_JSON_ARTIST_KEYS = ("artist", "artists", "band", "singer", "performer")


@dataclass(frozen=True)
class Ranking:
    """A parsed answer.

    ``items``: catalog indices, best first, unique, at most k. ``out_of_catalog``: list entries
    that matched nothing (hallucinations). ``duplicates``: entries dropped as repeats.
    ``n_entries``: list entries seen (matched + out of catalog + duplicates). ``n_fuzzy``: items
    matched by the fuzzy stage. ``listed``: every list entry in answer order with the index it
    matched (None: out of catalog; a duplicate repeats its index), for readers that ground the
    unmatched entries themselves (open tasks).
    """

    items: tuple[int, ...]
    out_of_catalog: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    n_entries: int = 0
    n_fuzzy: int = 0
    listed: tuple[tuple[str, int | None], ...] = field(default=(), compare=False)


class EntryMatcher(Protocol):
    """What :func:`parse_ranking` matches entries with (a :class:`TitleMatcher` by default):
    ``match(entry)`` → (index or None, whether fuzzy); ``index.titles[i]``: the title of i."""

    index: Any

    def match(self, entry: str) -> tuple[int | None, bool]: ...


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
    return not marked and bool(PROSE_START.match(MARKDOWN.sub("", stripped)))


def _span_fits(parts: list[str], matcher: EntryMatcher, hit: int) -> bool:
    """Whether comma-joined parts can be one catalog title: the title has as many commas as
    the parts that start like a title ("Crouching Tiger, Hidden Dragon"; "Jaws, 1975")."""
    titled = sum(1 for p in parts[1:] if p[:1].isupper() or p[:1] in '"“«„「『《')
    return titled <= len(JOINED.findall(matcher.index.titles[hit]))


def _split_joined(
    text: str, matcher: EntryMatcher, announced: bool = False
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


@lru_cache(maxsize=8)
def _keys(domain_keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*_TITLE_KEYS_FIRST, *domain_keys, *_TITLE_KEYS_LAST)))


def _title_keys() -> tuple[str, ...]:
    """The JSON keys that hold a title, in the order they are tried: "title", "name", every
    declared domain's answer keys in display order, "item", "recommendation"."""
    return _keys(answer_keys())


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
    for key in _title_keys():
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
    """Entries of the first JSON value in ``text`` (fenced or not) that lists any, or None."""
    if len(text) > MAX_JSON_CHARS or not ("[" in text or "{" in text):
        return None
    for value in json_values(text, inline=True):
        entries = [e for e in _json_entries(value) if e.strip()]
        if entries:
            return entries
    return None


def _structured_lines(text: str) -> list[str] | None:
    """The answer as list lines when it is JSON or an HTML list, else None."""
    entries = _decode_json(text)
    if entries is not None:
        return ["- " + _SPACE.sub(" ", e).strip() for e in entries]
    if has_html_list(text):
        return strip_html(break_html_lists(text)).splitlines()
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
        if key in _title_keys() and value.startswith('"') and value.endswith('"'):
            return value[1:-1], True
        return None, True
    item = _JSON_ITEM.match(line)
    if item:
        return item.group(1), True
    return None, False


def _fit_line(line: str) -> str:
    line = line[:MAX_LINE_CHARS]
    if not line.isascii() and _WIDE.search(line):
        line = unicodedata.normalize("NFKC", line).replace("．", ".")
    return line


def parse_ranking(
    text: str,
    catalog: Sequence[str],
    k: int,
    aliases: Sequence[Sequence[str]] | None = None,
    kind: TitleKind = "work",
    matcher: EntryMatcher | None = None,
) -> Ranking:
    """Parse ``text`` into at most ``k`` unique catalog indices (0-based), best first.

    Never raises for any ``str`` (a non-str is treated as empty); ``k <= 0`` or an empty catalog
    gives an empty ranking. ``aliases`` (parallel to ``catalog``) adds exact-only other names.
    ``kind``: what the catalog's titles are (the domain's ``title_kind``: "work", "song",
    "institution"); another kind raises SettingsError (the caller's error, not the answer's).
    ``matcher``: match entries with it instead of the catalog's index (``catalog``,
    ``aliases`` and ``kind`` are then unused; its indices are the items).
    """
    check_title_kind(kind, "parse_ranking")
    if not isinstance(text, str) or k <= 0 or (matcher is None and not catalog):
        return Ranking(items=())
    matcher = matcher or TitleMatcher(build_index(catalog, aliases, kind))
    text = strip_reasoning(strip_invisible(text[:MAX_ANSWER_CHARS]))
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
                    lines.append(_fit_line("- " + entry))
                continue
        lines.append(_fit_line(line))
    marked = [bool(_LIST_MARKER.match(line)) for line in lines]
    any_marked = any(marked)

    items: list[int] = []
    seen: set[int] = set()
    out_of_catalog: list[str] = []
    duplicates: list[str] = []
    listed: list[tuple[str, int | None]] = []
    n_fuzzy = 0
    for line, is_marked in zip(lines, marked):
        if len(items) >= k:
            break
        body = _LIST_MARKER.sub("", line, count=1) if is_marked else line
        if not body.strip() or (not is_marked and _HEADING.match(line)):
            continue
        if body.lstrip().startswith("|") or "\t" in body.strip():
            cells = _table_cells(body.replace("\t", "|"))
            cells = [c for c in cells if not DIGITS.match(c) and set(c) - set("-: ")]
            hit = next((h for h in (matcher.match(c) for c in cells) if h[0] is not None), None)
            segments = [(body, hit[0], hit[1])] if hit else []
        else:
            hit, fuzzy = matcher.match(body)
            segments = [(body, hit, fuzzy)]
            lead = LEAD_IN.match(body.strip()) if ":" in body else None
            announced = bool(
                lead
                and (hit is None or JOINED.search(lead.group(2)))
                and is_lead_in(lead.group(1), bool(JOINED.search(lead.group(2))))
            )
            if lead and announced:
                body = lead.group(2)  # "Here are 20 films: A, B, C"
                hit, fuzzy = matcher.match(body)
                segments = [(body, hit, fuzzy)]
            if hit is None and JOINED.search(body):
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
                    listed.append((segment.strip(), None))
                continue
            listed.append((segment.strip(), hit))
            if hit in seen:
                duplicates.append(segment.strip())
            else:
                seen.add(hit)
                items.append(hit)
                n_fuzzy += fuzzy
    n_entries = len(items) + len(out_of_catalog) + len(duplicates)
    return Ranking(
        tuple(items), tuple(out_of_catalog), tuple(duplicates), n_entries, n_fuzzy, tuple(listed)
    )
