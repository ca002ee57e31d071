"""Clean-up of a model's raw answer text, shared by the forward parser (``core/parse.py``) and
the reverse parser (``core/parse_users.py``): one set of patterns for both.

- :func:`strip_invisible`: invisible and control characters a hostile or broken answer may
  carry (a BOM, zero-width spaces, bidi marks, NUL, ESC and colour codes, other C0 / C1
  controls) are removed before the text is split into lines; the control characters that
  ``str.splitlines`` treats as line breaks become ``"\\n"``, so no line is merged or dropped.
"""

from __future__ import annotations

import re

__all__ = ["INVISIBLE_CHARS", "LINE_BREAK_CONTROLS", "strip_invisible"]

#: Characters that print as nothing: BOM U+FEFF, soft hyphen, Arabic letter mark, Mongolian
#: vowel separator, zero-width space / non-joiner / joiner U+200B–D, LRM / RLM U+200E–F, bidi
#: embeddings and overrides U+202A–E, word joiner and invisible operators U+2060–4, bidi
#: isolates U+2066–9 and the deprecated format characters U+206A–F.
INVISIBLE_CHARS = (
    "\ufeff\u00ad\u061c\u180e"
    + "".join(map(chr, range(0x200B, 0x2010)))
    + "".join(map(chr, range(0x202A, 0x202F)))
    + "".join(map(chr, range(0x2060, 0x2065)))
    + "".join(map(chr, range(0x2066, 0x2070)))
)
#: Control characters that ``str.splitlines`` reads as line breaks (VT, FF, FS, GS, RS, NEL).
LINE_BREAK_CONTROLS = "\x0b\x0c\x1c\x1d\x1e\x85"

_CONTROL = "".join(
    chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if chr(c) not in "\t\n\r"
)
_COLOUR_CODE = r"\x1b\[[0-9;]{0,20}m"  # ANSI colours: "\x1b[31m" … "\x1b[0m"
_HIDDEN = re.compile(f"{_COLOUR_CODE}|[{re.escape(INVISIBLE_CHARS)}{re.escape(_CONTROL)}]+")
_BREAKS = frozenset(LINE_BREAK_CONTROLS)


def _replace(match: re.Match[str]) -> str:
    return "\n" * sum(1 for ch in match.group() if ch in _BREAKS)


def strip_invisible(text: str) -> str:
    """``text`` without invisible and control characters (tab, newline and carriage return
    kept; VT, FF, FS, GS, RS and NEL become a newline each; ANSI colour codes removed whole).
    Linear in ``len(text)``; text without such characters comes back unchanged."""
    return _HIDDEN.sub(_replace, text)
