"""The report page's view of the ``diversity`` CSV
(:mod:`coldbias_tasks.analysis.diversity_report`): two tables
one screen wide instead of the CSV's ~40 columns.

- first the answer, the contrasts between values: statistic, contrast with its 95 % interval,
  p, smallest detectable effect and verdict (the per-field entropy contrasts, uncorrected, stay
  in the CSV);
- then per value: lists, coverage, intra-list diversity and the mean normalised entropy over
  the domain's category fields (each field's entropy stays in the CSV).
"""

from __future__ import annotations

import math

import pandas as pd

from coldbias_tasks.render import html as H

__all__ = ["diversity_tables"]


def _entropy_mean(row: pd.Series) -> float:
    """Mean of the row's normalised per-field entropies (NaN fields left out; NaN if none)."""
    cells = [
        H.number(row[c])
        for c in row.index
        if str(c).startswith("entropy_") and not str(c).startswith("entropy_bits_")
    ]
    cells = [c for c in cells if not math.isnan(c)]
    return sum(cells) / len(cells) if cells else math.nan


def diversity_tables(sub: pd.DataFrame) -> str:
    """HTML of one model's diversity rows (``row`` = value / contrast); "" when none."""
    if sub.empty or "row" not in sub.columns:
        return ""
    values = sub[sub["row"] == "value"]
    per_field = sub["statistic"].astype(str).str.startswith("entropy:")  # uncorrected, CSV only
    contrasts = sub[(sub["row"] == "contrast") & ~per_field]
    parts = []
    if not contrasts.empty:
        parts.append(
            H.table(
                ["task", "statistic", "contrast [95 % interval]", "p value",
                 "smallest detectable effect", "verdict"],
                [
                    [r["task"], r["statistic"],
                     H.fmt_interval(r["contrast"], r["ci_low"], r["ci_high"]),
                     H.fmt(H.number(r["p_value"])), H.fmt(H.number(r["mde"])), r["verdict"]]
                    for _, r in contrasts.iterrows()
                ],
                text_columns=[0, 1, 5],
            )
        )  # fmt: skip
    if not values.empty:
        parts.append(
            H.table(
                ["task", "value", "lists", "coverage", "intra-list diversity",
                 "entropy (mean over fields, 0–1)"],
                [
                    [r["task"], r["value"], H.fmt(H.number(r["n_lists"]), 0),
                     H.fmt(H.number(r["coverage"])), H.fmt(H.number(r["ild"])),
                     H.fmt(_entropy_mean(r))]
                    for _, r in values.iterrows()
                ],
                text_columns=[0, 1],
            )
        )  # fmt: skip
    return "\n".join(parts)
