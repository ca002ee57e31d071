"""The leaderboard as long and wide tables (the CSV files of ``coldbias leaderboard``)."""

from __future__ import annotations

import math

import pandas as pd

from coldbias_tasks.analysis.leaderboard import Cell, Leaderboard

__all__ = ["long_table", "wide_table"]


def _value(cell: Cell | None) -> float | int | str:
    return math.nan if cell is None else cell.value


def _has_ci(lb: Leaderboard, key: str) -> bool:
    return any(key in row.cells and not math.isnan(row.cells[key].ci_low) for row in lb.rows)


def long_table(lb: Leaderboard) -> pd.DataFrame:
    """model, column, value, ci_low, ci_high, direction (one line per row × column)."""
    out = []
    for row in lb.rows:
        for col in lb.columns[1:]:
            cell = row.cells.get(col.key)
            if cell is None:
                continue
            out.append(
                {
                    "model": row.label,
                    "column": col.key,
                    "value": cell.value,
                    "ci_low": cell.ci_low,
                    "ci_high": cell.ci_high,
                    "direction": col.direction,
                }
            )
    return pd.DataFrame(out, columns=["model", "column", "value", "ci_low", "ci_high", "direction"])


def wide_table(lb: Leaderboard) -> pd.DataFrame:
    """One row per model; headers carry the direction marker; interval columns follow."""
    with_ci = {c.key for c in lb.columns if _has_ci(lb, c.key)}
    names = ["model"]
    for col in lb.columns[1:]:
        names.append(f"{col.key} {col.direction}".strip())
        if col.key in with_ci:
            names += [f"{col.key}_ci_low", f"{col.key}_ci_high"]
    out = []
    for row in lb.rows:
        line: dict[str, float | int | str] = {"model": row.label}
        for col in lb.columns[1:]:
            cell = row.cells.get(col.key)
            line[f"{col.key} {col.direction}".strip()] = _value(cell)
            if col.key in with_ci:
                line[f"{col.key}_ci_low"] = math.nan if cell is None else cell.ci_low
                line[f"{col.key}_ci_high"] = math.nan if cell is None else cell.ci_high
        out.append(line)
    return pd.DataFrame(out, columns=names)
