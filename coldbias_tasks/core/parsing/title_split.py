"""Splitting one open-answer entry into title / credit / other name / year before grounding
(``core/parsing/grounding.py``).

Real open answers wrap a title in quotes and then credit it again, or add a translation in
brackets; read as written, such an entry is a title no list holds, keyed by its whole spelling:

- ``"Kesariya by Aamir Khan" by Aamir Khan`` → title "Kesariya", credit "Aamir Khan" (a quoted
  "Title by A" followed by the same credit: the credit is said twice);
- ``"Yesterday by The Beatles" (The Beatles)``, ``"Love Story" by Queen (by Queen)``,
  ``"Checkmate (by Michael Jackson)"`` → title and the one credit;
- ``"卧虎藏龙" (Crouching Tiger, Hidden Dragon)``, ``《我和我的家乡》(My Motherland)``,
  ``"Skyward" (日本語: "スカイワード")`` → title and the bracketed name in another script (a
  translation: an **other name**, tried when the title grounds nothing);
- ``"Jaws" (1975)`` → title and year (the year is read by ``grounding.stated_year`` as before).

Never a guess: credits that disagree (``"Come Together" by The Beatles (by Jimi Hendrix)``), a
title whose only "by" is its own (``"North by Northwest"``, no credit after it) and unquoted
entries are not split (:func:`split_title` returns None), so the matcher reads them as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coldbias_tasks.core.parsing.catalog_index import normalized_key

__all__ = ["Split", "split_title"]

_OPEN = '"“«„「『《〈【'
_CLOSE = '"”»“」』》〉】'
_LEADING_QUOTED = re.compile(rf"^[{_OPEN}]([^{_OPEN}{_CLOSE}]+)[{_CLOSE}]\s*(.*)$")
_TAIL = re.compile(r"^(?:by\s+(?P<by>[^()\[\]]+?))?\s*(?:[(\[](?P<paren>[^()\[\]]+)[)\]])?\s*$")
_INNER_BY = re.compile(r"^(?P<title>.+?)\s+by\s+(?P<credit>[^()\[\]]+)$")
_INNER_PAREN_BY = re.compile(r"^(?P<title>.+?)\s*[(\[]\s*by\s+(?P<credit>[^()\[\]]+)[)\]]$")
_LANG_LABEL = re.compile(r"^[^\W\d_]{1,12}\s*[:：]\s*")
_YEAR = re.compile(r"^(?:18|19|20)\d\d$")
_QUOTE_CHARS = _OPEN + _CLOSE + " '"
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class Split:
    """One entry split: ``title`` (as written, without quotes), ``credit`` (the artist or
    author said once; "" when none), ``other`` (a name in another script given in brackets;
    "" when none), ``year`` (a bracketed year; None when none)."""

    title: str
    credit: str = ""
    other: str = ""
    year: int | None = None

    def text(self, songs: bool) -> str:
        """The entry rebuilt for the matcher: "Title by Credit" in a song domain, the title
        alone elsewhere (a film's director does not name the film)."""
        return f"{self.title} by {self.credit}" if songs and self.credit else self.title


def _script(text: str) -> str:
    return "cjk" if _CJK.search(text) else "latin"


def _same_credit(one: str, other: str) -> bool:
    a, b = normalized_key(one), normalized_key(other)
    return bool(a) and (a == b or a.startswith(b) or b.startswith(a))


def split_title(entry: str) -> Split | None:
    """The :class:`Split` of a cleaned entry (no list marker) that starts with a quoted title
    and says more than the title; None when there is nothing to split or the parts disagree."""
    match = _LEADING_QUOTED.match(entry.strip())
    if match is None:
        return None
    quoted, rest = match.group(1).strip(), match.group(2).strip().rstrip(".")
    tail = _TAIL.match(rest)
    if tail is None:
        return None
    credits: list[str] = []
    other, year = "", None
    title = quoted
    inner = _INNER_PAREN_BY.match(quoted)
    if inner is None and (tail.group("by") or tail.group("paren")):
        inner = _INNER_BY.match(quoted)  # a quoted "Title by A" only when a credit follows
    if inner is not None:
        title = inner.group("title").strip()
        credits.append(inner.group("credit").strip())
    if tail.group("by"):
        credits.append(tail.group("by").strip())
    paren = (tail.group("paren") or "").strip()
    if paren:
        label = _LANG_LABEL.match(paren)
        bare = paren[label.end() :] if label else paren
        bare = bare.strip(_QUOTE_CHARS)
        if _YEAR.match(bare):
            year = int(bare)
        elif label or _script(bare) != _script(title):
            other = bare
        else:
            credits.append(re.sub(r"^by\s+", "", bare, flags=re.IGNORECASE).strip())
    if any(not _same_credit(credits[0], c) for c in credits[1:]):
        return None  # two different credits: which one is meant is not known
    credit = credits[0] if credits else ""
    if not title or (not credit and not other and year is None):
        return None
    return Split(title, credit, other, year)
