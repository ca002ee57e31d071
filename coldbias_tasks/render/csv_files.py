"""CSV tables as coldbias writes them: floats at :data:`CSV_SIGNIFICANT_DIGITS` significant
digits, the same bytes for the same run on every CPU kind (report, leaderboard, studies)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from coldbias_tasks.core.vocabulary import CSV_FLOAT_FORMAT

__all__ = ["write_csv"]


def _csv_cell(value: object) -> object:
    """A float of a mixed column at the CSV precision (NaN stays empty); anything else as is."""
    if isinstance(value, float) and value == value:
        return CSV_FLOAT_FORMAT % value
    return value


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """One CSV table, floats at :data:`CSV_SIGNIFICANT_DIGITS` significant digits (so the same
    run gives the same bytes on every CPU kind), also inside mixed text/number columns; NaN as
    an empty cell."""
    frame = frame.copy()
    for col in [c for c in frame.columns if frame[c].dtype == "object"]:
        frame[col] = frame[col].map(_csv_cell)
    frame.to_csv(path, index=False, float_format=CSV_FLOAT_FORMAT)
