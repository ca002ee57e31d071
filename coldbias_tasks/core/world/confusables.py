"""Names that look alike: ids of a persona file must differ visibly, not by a lookalike letter.

A value id such as ``gіrl`` (Cyrillic і) next to ``girl`` makes two personas a reader cannot
tell apart in any table. :func:`confusable_problem` refuses ids that are not in NFKC form,
that mix lookalike scripts (Latin with Cyrillic, Greek, ...) in one id, or whose *skeletons*
(NFKC, case-folded, lookalike letters mapped to Latin as Unicode TR39 does for the common
cases) coincide.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

__all__ = ["confusable_problem", "skeleton"]

#: Scripts whose letters pass for Latin ones; an id mixing two of them is refused.
_LOOKALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC"})

#: Lookalike letters (after case folding) → the Latin letter they pass for (TR39's common
#: cases: Cyrillic, Greek, Armenian; digits that pass for letters).
_TO_LATIN = str.maketrans(
    {
        # Cyrillic
        "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j",
        "к": "k", "ӏ": "l", "м": "m", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s", "т": "t",
        "у": "y", "х": "x", "ԝ": "w", "ѵ": "v", "ь": "b", "п": "n",
        # Greek
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ζ": "z", "ϲ": "c",
        # Armenian
        "օ": "o", "ս": "u", "ո": "n", "հ": "h", "ց": "g",
        # Latin lookalikes and digits that pass for letters
        "ɡ": "g", "ı": "i", "ɩ": "i", "ʟ": "l", "0": "o", "1": "l",
    }
)  # fmt: skip


def skeleton(text: str) -> str:
    """What ``text`` looks like: NFKC, case-folded, lookalike letters as Latin, ``rn`` as
    ``m`` and ``vv`` as ``w``."""
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_TO_LATIN)
    return folded.replace("rn", "m").replace("vv", "w")


def _scripts(text: str) -> set[str]:
    found = set()
    for ch in text:
        if ch.isalpha():
            script = unicodedata.name(ch, "UNKNOWN").split()[0]
            if script in _LOOKALIKE_SCRIPTS:
                found.add(script)
    return found


def confusable_problem(ids: Iterable[str]) -> str | None:
    """Why some of ``ids`` cannot be told apart, or None: an id not in NFKC form, an id mixing
    lookalike scripts, or two ids with the same :func:`skeleton`."""
    seen: dict[str, str] = {}
    for name in ids:
        if unicodedata.normalize("NFKC", name) != name:
            fixed = unicodedata.normalize("NFKC", name)
            return f"id {name!r} is not in NFKC form (write it as {fixed!r})"
        scripts = _scripts(name)
        if len(scripts) > 1:
            return (
                f"id {name!r} mixes {' and '.join(sorted(s.title() for s in scripts))} letters "
                "(a lookalike letter); write it in one script"
            )
        key = skeleton(name)
        if key in seen and seen[key] != name:
            return (
                f"ids {seen[key]!r} and {name!r} look alike (both read {key!r} once lookalike "
                "letters are mapped); rename one"
            )
        seen[key] = name
    return None
