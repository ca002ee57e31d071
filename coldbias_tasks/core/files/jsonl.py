"""Reading JSON Lines files (catalogs, lm-eval samples) with errors that name file and line."""

from __future__ import annotations

import gzip
import json
import re
import stat
import zlib
from pathlib import Path
from typing import Any

from coldbias_tasks.core.errors import ColdbiasError

__all__ = [
    "DATA_LIMIT",
    "DEPTH_LIMIT",
    "SIZE_LIMIT",
    "json_file",
    "json_object",
    "json_value",
    "nesting_depth",
    "read_jsonl_objects",
    "read_text",
    "too_deep",
]

#: Largest input file read (bytes): lm-eval samples (13.6 MB for a big run).
SIZE_LIMIT = 1 << 30
#: Largest catalog, persona or language file read (bytes).
DATA_LIMIT = 64 << 20
#: Deepest nesting of lists and objects read from any JSON or YAML input (coldbias' own files
#: nest at most 6 levels); deeper input is refused before it is parsed.
DEPTH_LIMIT = 64

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def read_text(path: Path, error: type[ColdbiasError], limit: int = SIZE_LIMIT) -> str:
    """The file's UTF-8 text (a ``.gz`` file decompressed, at most ``limit`` bytes after
    decompression: a gzip bomb stops there). Not a regular file (a device, a FIFO: reading
    would never end), bigger than ``limit`` bytes, unreadable, not gzip or not UTF-8 raises
    ``error`` naming the file."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise error(
                f"{path}: not a regular file (a device, FIFO or folder); pass a file's path."
            )
        if info.st_size > limit:
            raise error(
                f"{path}: {info.st_size:,} bytes, more than the {limit:,} coldbias reads; "
                "pass a smaller file."
            )
        if path.suffix == ".gz":
            return _gunzip(path, error, limit).decode("utf-8")
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise error(
            f"{path}: not UTF-8 text (byte {err.start}: {err.reason}); save the file as UTF-8."
        ) from err
    except OSError as err:
        raise error(f"{path}: cannot be read ({err.strerror}).") from err


def _gunzip(path: Path, error: type[ColdbiasError], limit: int) -> bytes:
    try:
        with gzip.open(path, "rb") as f:
            data = f.read(limit + 1)
    except (gzip.BadGzipFile, EOFError, zlib.error) as err:
        raise error(f"{path}: not a readable gzip file ({err}); recompress or unzip it.") from err
    if len(data) > limit:
        raise error(
            f"{path}: more than the {limit:,} bytes coldbias reads once decompressed; pass a "
            "smaller file."
        )
    return data


def nesting_depth(text: str) -> int:
    """How deeply the lists and objects of JSON ``text`` nest (brackets inside strings do not
    count); read without recursion, so any depth is measured."""
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub('""', text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def too_deep(text: str) -> bool:
    """Whether JSON ``text`` nests deeper than :data:`DEPTH_LIMIT` (cheap for shallow text)."""
    return text.count("[") + text.count("{") > DEPTH_LIMIT and nesting_depth(text) > DEPTH_LIMIT


def json_value(text: str, error: type[ColdbiasError], where: str, fix: str) -> Any:
    """``text`` parsed as JSON. Malformed JSON, nesting deeper than :data:`DEPTH_LIMIT` or a
    number of more than 4,300 digits raises ``error`` as "``where``: reason; ``fix``"."""
    if too_deep(text):
        raise error(f"{where}: JSON nested more than {DEPTH_LIMIT} levels deep; {fix}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise error(
            f"{where}: malformed JSON ({err.msg}, line {err.lineno} column {err.colno}); {fix}"
        ) from err
    except (ValueError, RecursionError) as err:  # a number beyond Python's 4,300-digit limit
        raise error(f"{where}: unreadable JSON ({str(err)[:120]}); {fix}") from None


def json_object(text: str, error: type[ColdbiasError], where: str, fix: str) -> dict[str, Any]:
    """``text`` as one JSON object (:func:`json_value`); another JSON value raises ``error``
    as "``where``: not a JSON object; ``fix``"."""
    value = json_value(text, error, where, fix)
    if not isinstance(value, dict):
        raise error(f"{where}: not a JSON object; {fix}")
    return value


def json_file(path: Path, error: type[ColdbiasError], fix: str, limit: int = SIZE_LIMIT) -> Any:
    """The JSON value of the file ``path`` (:func:`read_text`: a regular file of at most
    ``limit`` bytes; :func:`json_value`: nesting at most :data:`DEPTH_LIMIT` deep), the one
    way coldbias reads a JSON file; problems raise ``error`` naming the file and ``fix``."""
    return json_value(read_text(path, error, limit), error, str(path), fix)


def read_jsonl_objects(
    path: Path, error: type[ColdbiasError], fix: str, limit: int = SIZE_LIMIT
) -> list[tuple[int, dict[str, Any]]]:
    """(1-based line number, object) for every non-blank line of a file of at most ``limit``
    bytes. A line that is not JSON, or not a JSON object, raises ``error`` naming the file and
    line, followed by ``fix``.
    """
    lines = enumerate(read_text(path, error, limit).splitlines(), start=1)
    return [
        (n, json_object(line, error, f"{path}, line {n}", f"one JSON object per line; {fix}"))
        for n, line in lines
        if line.strip()
    ]
