"""CSV tables as coldbias writes them (the one place: report, leaderboard, studies): floats at
:data:`CSV_SIGNIFICANT_DIGITS` significant digits, the same bytes for the same run on every CPU
kind; text cells that a spreadsheet would read as a formula neutralised (OWASP, CSV injection)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from coldbias_tasks.core.vocabulary import CSV_FLOAT_FORMAT

__all__ = ["csv_text", "write_csv"]

#: First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", re.IGNORECASE)


def csv_text(text: str) -> str:
    """``text`` safe as a spreadsheet cell: one starting with ``=``, ``+``, ``-``, ``@``, tab
    or CR gets a leading single quote (OWASP's CSV-injection advice), unless it is a plain
    number (``-0.012`` stays a number)."""
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _csv_cell(value: object) -> object:
    """A float of a mixed column at the CSV precision (NaN stays empty), text through
    :func:`csv_text`; anything else as is."""
    if isinstance(value, float) and value == value:
        return CSV_FLOAT_FORMAT % value
    return csv_text(value) if isinstance(value, str) else value


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """One CSV table, floats at the CSV precision (so the same run gives the same bytes on every
    CPU kind), also inside mixed text/number columns; NaN as an empty cell; every text cell and
    header through :func:`csv_text`."""
    frame = frame.copy()
    for col in frame.columns:
        if frame[col].dtype == "object" or pd.api.types.is_string_dtype(frame[col].dtype):
            frame[col] = frame[col].map(_csv_cell)
    frame.columns = [csv_text(c) if isinstance(c, str) else c for c in frame.columns]
    frame.to_csv(path, index=False, float_format=CSV_FLOAT_FORMAT)
