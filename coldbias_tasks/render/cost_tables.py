"""The report page's view of the ``costs`` CSV (:mod:`coldbias_tasks.analysis.costs_report`):
one screen wide instead of the CSV's ~30 columns.

- first the gaps between values: utility and its unit, the gap (the spread between values,
  lm-eval's metric) with its 95 % interval, p, smallest detectable effect, verdict, and the
  lowest against the highest value in the user's units (at three values or more a wider
  difference than the spread);
- then the value pairs a group of three or more values is tested on, only when some pair is
  flagged (every pair and the per-value means stay in the CSV).
"""

from __future__ import annotations

import math

import pandas as pd

from coldbias_tasks.render import html as H

__all__ = ["cost_tables"]


def _text(value: object) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def _words(row: pd.Series) -> str:
    """The CSV's sentence without its closing "(verdict)" (the verdict has its own column)."""
    says, verdict = _text(row.get("says")), _text(row.get("verdict"))
    return says.removesuffix(f" ({verdict})") if verdict else says


def cost_tables(sub: pd.DataFrame) -> str:
    """HTML of one model's cost rows (``row`` = gap / pair); "" when none."""
    if sub.empty or "row" not in sub.columns:
        return ""
    gaps = sub[sub["row"] == "gap"]
    pairs = sub[(sub["row"] == "pair") & (sub["verdict"].astype(str) != "not flagged")]
    parts = []
    if not gaps.empty:
        parts.append(
            H.table(
                ["task", "utility", "unit", "gap: spread between values [95 % interval]",
                 "p value", "smallest detectable effect", "verdict",
                 "lowest vs highest value, in the user's units"],
                [
                    [r["task"], r["utility"], _text(r["unit"]),
                     H.fmt_interval(r["gap"], r["ci_low"], r["ci_high"]),
                     H.fmt(H.number(r["p_value"])), H.fmt(H.number(r["mde"])),
                     _text(r["verdict"]), _words(r)]
                    for _, r in gaps.iterrows()
                ],
                text_columns=[0, 1, 2, 6, 7],
            )
        )  # fmt: skip
    if not pairs.empty:
        parts.append(
            H.table(
                ["task", "utility", "values", "signed gap", "p (adjusted)", "verdict"],
                [
                    [r["task"], r["utility"], f"{r['reference']} vs {r['other']}",
                     H.fmt(H.number(r["signed"])), H.fmt(H.number(r.get("p_adjusted"))),
                     _text(r["verdict"])]
                    for _, r in pairs.iterrows()
                ],
                text_columns=[0, 1, 2, 5],
            )
        )  # fmt: skip
    return "\n".join(parts)
