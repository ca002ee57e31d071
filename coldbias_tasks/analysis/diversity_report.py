"""The report's ``diversity`` table: per task, each value's list diversity and the
phrasing-controlled contrasts between the values (:mod:`coldbias_tasks.core.measures.diversity`,
docs/measurement.md §3d).

One CSV, two kinds of rows (column ``row``):

- ``value``: per attribute value, over its phrasings and repeats — ``n_lists`` answers,
  ``n_short`` of them with fewer than two labelled items (no entropy, no ILD), ``n_unknown``
  listed items without categories, ``coverage`` (distinct items listed / items shown, mean over
  its phrasings), ``ild``, and per category field ``entropy_<field>`` (normalised, [0, 1]) and
  ``entropy_bits_<field>`` (bits);
- ``contrast``: per statistic (``entropy (widest: <field>)``, the joint test over fields and
  the lm-eval metric; ``ild``; ``coverage``; ``entropy:<field>``, uncorrected per field) — the
  contrast (the spread between values, ≥ 0: the number lm-eval reports), ``signed``
  (``other`` − ``reference`` at two values: which value's lists are narrower), jackknife SE and
  95 % t(P − 1) interval of the contrast, the relabelling p, its smallest attainable value, the
  minimal detectable effect and the verdict.

The placebo task is left out (its sentences are controls, not values of one attribute).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from coldbias_tasks.analysis.report import TaskReport, ident
from coldbias_tasks.analysis.verdicts import DIVERSITY_WORDS, verdict_words
from coldbias_tasks.core.measures.diversity import DiversityContrast
from coldbias_tasks.core.vocabulary import PLACEBO_GROUP

__all__ = ["contrast_row", "contrast_verdict", "diversity_table"]


def contrast_verdict(c: DiversityContrast) -> str:
    """The verdict of one diversity contrast in words (decided with its estimate, once); n/a
    with the reason when it cannot be tested."""
    if not c.estimate.verdict:
        return "n/a: needs two values with lists of ≥ 2 labelled items in two phrasings"
    return verdict_words(c.estimate, DIVERSITY_WORDS)


def contrast_row(c: DiversityContrast) -> dict[str, Any]:
    """A contrast's report columns: statistic, values compared, contrast and signed contrast,
    standard error, interval, p, smallest p, MDE, counts and the verdict in words."""
    return {
        "statistic": c.statistic,
        "reference": c.reference,
        "other": c.other,
        "contrast": c.spread,
        "signed": c.signed,
        "stderr": c.stderr,
        "ci_low": c.ci_low,
        "ci_high": c.ci_high,
        "p_value": c.p_value,
        "min_p": c.min_p,
        "mde": c.mde,
        "n_values": c.n_values,
        "n_phrasings": c.n_phrasings,
        "verdict": contrast_verdict(c),
    }


def diversity_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """Per task: a ``value`` row per attribute value and a ``contrast`` row per statistic
    (module docstring); empty when no task has labelled items."""
    rows = []
    for rep in reports:
        d = rep.summary.diversity
        if rep.task.group == PLACEBO_GROUP or not d.values:
            continue
        for v in d.values:
            per_field = {f"entropy_{f}": v.entropy[f] for f in d.fields}
            bits = {f"entropy_bits_{f}": v.entropy_bits[f] for f in d.fields}
            rows.append(
                {
                    **ident(rep),
                    "row": "value",
                    "value": v.value,
                    "n_lists": v.n_lists,
                    "n_short": v.n_short,
                    "n_unknown": v.n_unknown,
                    "coverage": v.coverage,
                    "ild": v.ild,
                    **per_field,
                    **bits,
                }
            )
        for c in d.contrasts().values():
            rows.append({**ident(rep), "row": "contrast", **contrast_row(c)})
    return pd.DataFrame(rows)
