"""Clean-up of a model's raw answer text, shared by the forward parser (``core/parsing/parse.py``)
and
the reverse parser (``core/parsing/parse_users.py``): one set of patterns for both.

- :func:`strip_invisible`: invisible and control characters a hostile or broken answer may
  carry (a BOM, zero-width spaces, bidi marks, NUL, ESC and colour codes, other C0 / C1
  controls) are removed before the text is split into lines; the control characters that
  ``str.splitlines`` treats as line breaks become ``"\\n"``, so no line is merged or dropped.
- :func:`strip_reasoning`: text inside ``<think>…</think>`` (also ``< think >``, ``<think
  …>``, ``</ think>``, any case) is dropped, as is everything after an unclosed ``<think>``
  and everything before a ``</think>`` whose opening was in the prompt.
- :func:`json_values`: the JSON values of an answer, from its code fences (```` ```json ````
  or any other info string, closed or not) and from the answer itself; a trailing comma
  before ``]`` / ``}`` is forgiven.
- :func:`break_html_lists`: ``<li>`` becomes a ``- `` bullet line, the tags that end a line
  (``br``, ``p``, ``li``, ``ol``, ``ul``, ``div``, ``tr``, ``table``) become line breaks;
  :func:`strip_html` then removes the remaining tags and decodes entities.

Every function is linear-ish in the text length and never raises on a ``str``.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator

from coldbias_tasks.core.errors import RecordError
from coldbias_tasks.core.files.jsonl import json_value, too_deep

__all__ = [
    "INVISIBLE_CHARS",
    "LINE_BREAK_CONTROLS",
    "break_html_lists",
    "has_html_list",
    "json_values",
    "strip_html",
    "strip_invisible",
    "strip_reasoning",
]

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
#: Code fences read for JSON per answer.
MAX_FENCES = 5

_CONTROL = "".join(
    chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if chr(c) not in "\t\n\r"
)
_COLOUR_CODE = r"\x1b\[[0-9;]{0,20}m"  # ANSI colours: "\x1b[31m" … "\x1b[0m"
_HIDDEN = re.compile(f"{_COLOUR_CODE}|[{re.escape(INVISIBLE_CHARS)}{re.escape(_CONTROL)}]+")
_BREAKS = frozenset(LINE_BREAK_CONTROLS)

_THINK_TAG = re.compile(r"<\s*(/?)\s*think\b[^<>]{0,200}>", re.IGNORECASE)
#: A code fence: its info string (never a bracket, so ```` ```[1, 2]``` ```` keeps its JSON),
#: an optional newline, then its content up to the closing fence or the end.
_FENCE = re.compile(r"```[^\n`\[{]{0,40}\n?(.*?)(?:```|\Z)", re.DOTALL)
_JSON_LINE_START = re.compile(r"(?m)^[ \t]*[\[{]")
_TRAILING_COMMA = re.compile(r",\s*([\]}])")
_HTML_LIST = re.compile(r"<\s*(?:li|ol|ul)\b", re.IGNORECASE)
_HTML_ITEM = re.compile(r"<\s*li\b[^<>]{0,200}>", re.IGNORECASE)
_HTML_BREAK = re.compile(r"<\s*/?\s*(?:br|p|li|ol|ul|div|tr|table)\b[^<>]{0,200}>", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?\s*[a-zA-Z][a-zA-Z0-9]*\b[^<>]*>")


def _replace(match: re.Match[str]) -> str:
    return "\n" * sum(1 for ch in match.group() if ch in _BREAKS)


def strip_invisible(text: str) -> str:
    """``text`` without invisible and control characters (tab, newline and carriage return
    kept; VT, FF, FS, GS, RS and NEL become a newline each; ANSI colour codes removed whole).
    Text without such characters comes back unchanged."""
    return _HIDDEN.sub(_replace, text)


def strip_reasoning(text: str) -> str:
    """``text`` without its reasoning blocks; the parts around a block are joined by a
    newline ("A<think>…</think>B" → "A\\nB")."""
    kept: list[str] = []
    pos = 0
    inside = False
    for m in _THINK_TAG.finditer(text):
        closing = bool(m.group(1))
        if not closing and not inside:
            kept.append(text[pos : m.start()])
            inside = True
        elif closing and inside:
            inside = False
            pos = m.end()
        elif closing:  # its opening was in the prompt: all before it is reasoning
            kept = []
            pos = m.end()
    if not inside:
        kept.append(text[pos:])
    return "\n".join(kept)


def _loads(snippet: str) -> object | None:
    """``snippet`` decoded as JSON (nested at most :data:`DEPTH_LIMIT` deep), else with
    trailing commas removed, else None."""
    for attempt in (snippet, _TRAILING_COMMA.sub(r"\1", snippet)):
        try:
            return json_value(attempt, RecordError, "answer", "")
        except RecordError:
            continue
    return None


def json_values(text: str, *, inline: bool) -> Iterator[object]:
    """Decoded JSON values of ``text``, one per block: its code fences (at most
    :data:`MAX_FENCES`), then the text itself.

    ``inline`` (the forward parser: JSON may sit inside prose, "Here: [...]"): the value spans
    from the block's first ``[`` / ``{`` to its last ``]`` / ``}``, and the text is read only
    when it has no fence. Otherwise (the reverse parser, where "user [3]" is prose): the value
    starts at a ``[`` / ``{`` that begins a line and may be followed by more text, and the text
    is read after its fences. A trailing comma before ``]`` / ``}`` is forgiven either way.
    """
    fences = [m.group(1) for _, m in zip(range(MAX_FENCES), _FENCE.finditer(text))]
    if inline:
        for block in fences or [text]:
            starts = [i for i in (block.find("["), block.find("{")) if i >= 0]
            end = max(block.rfind("]"), block.rfind("}"))
            if starts and end > min(starts):
                value = _loads(block[min(starts) : end + 1])
                if value is not None:
                    yield value
        return
    decoder = json.JSONDecoder()
    for block in [*fences, text]:
        m = _JSON_LINE_START.search(block)
        if m is None or too_deep(block):
            continue
        try:
            yield decoder.raw_decode(block, m.end() - 1)[0]
        except (ValueError, RecursionError):
            end = max(block.rfind("]"), block.rfind("}"))
            value = _loads(block[m.end() - 1 : end + 1]) if end >= m.end() else None
            if value is not None:
                yield value


def has_html_list(text: str) -> bool:
    """Whether ``text`` holds an HTML list (``<li>``, ``<ol>`` or ``<ul>``)."""
    return "<" in text and _HTML_LIST.search(text) is not None


def break_html_lists(text: str) -> str:
    """``<li>`` as a ``- `` bullet on a new line; line-ending tags as line breaks."""
    if "<" not in text:
        return text
    return _HTML_BREAK.sub("\n", _HTML_ITEM.sub("\n- ", text))


def strip_html(text: str) -> str:
    """``text`` without HTML tags, entities decoded ("&amp;" → "&")."""
    return html.unescape(_HTML_TAG.sub("", text))
