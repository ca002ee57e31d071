"""The report's forward CSV tables by file stem: the forward tables (:mod:`.report`), the
contrasts (:mod:`.contrasts`) and the prompt robustness (:mod:`.robustness`): ``robustness``
(per model, task and prompt template/language: excess with interval) and
``prompt_sensitivity`` (spread over prompts and Kendall τ of the rankings), ``diversity``
(:mod:`.diversity_report`), ``costs`` (:mod:`.costs_report`) and, for open tasks, ``coverage``
(:mod:`.coverage_report`). The reverse
task's tables are :func:`~.reverse_report.reverse_tables`."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from coldbias_tasks.analysis.contrasts import controls_table, implicit_table, intersections_table
from coldbias_tasks.analysis.costs_report import costs_table
from coldbias_tasks.analysis.coverage_report import coverage_table
from coldbias_tasks.analysis.diversity_report import diversity_table
from coldbias_tasks.analysis.report import (
    TaskReport,
    disparity_pairs_table,
    exposure_between_table,
    exposure_table,
    fidelity_table,
    groups_table,
    values_table,
)
from coldbias_tasks.analysis.robustness import sensitivity_table, variant_table

__all__ = ["tables"]


def tables(reports: Sequence[TaskReport]) -> dict[str, pd.DataFrame]:
    """The report's CSV tables by file stem (empty optional tables are left out)."""
    out = {
        "values": values_table(reports),
        "groups": groups_table(reports),
        "fidelity": fidelity_table(reports),
        "exposure": exposure_table(reports),
    }
    pairs = [(r.model, r) for r in reports]
    optional = {
        "controls": controls_table(reports),
        "disparity_pairs": disparity_pairs_table(reports),
        "exposure_between": exposure_between_table(reports),
        "diversity": diversity_table(reports),
        "costs": costs_table(reports),
        "coverage": coverage_table(reports),
        "intersections": intersections_table(reports),
        "implicit": implicit_table(reports),
        "robustness": variant_table(pairs),
        "prompt_sensitivity": sensitivity_table(pairs),
    }
    return out | {k: v for k, v in optional.items() if not v.empty}
