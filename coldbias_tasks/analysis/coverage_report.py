"""The report's ``coverage`` table: per open task, whether its headline depends on what the
lists cover (:mod:`coldbias_tasks.core.measures.coverage`, docs/open.md "Coverage").

One row per open task: the grounded rate (pooled), the grounded share's contrast between values
(spread, signed at two values, jackknife SE, relabelling p, verdict) and each value's mean
deviation from the other values of its phrasing, the headline (IOU disparity) on grounded keys
(what the task reports) and on all keys (ungrounded spellings counted as items, the rule
before), and ``coverage_dependent`` with its reasons. Empty (left out of the report) without
open tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from coldbias_tasks.analysis.report import TaskReport, ident

__all__ = ["coverage_table"]


def coverage_table(reports: Sequence[TaskReport]) -> pd.DataFrame:
    """One row per open task (module docstring); an empty frame without open tasks."""
    rows: list[dict[str, Any]] = []
    for rep in reports:
        check = rep.summary.coverage
        if not check.applies:
            continue
        share, g, a = check.share, check.grounded, check.all_keys
        rows.append(
            {
                **ident(rep),
                "grounded_rate": rep.summary.grounding.grounded_rate,
                "share_contrast": share.spread,
                "share_signed": share.signed,
                "share_stderr": share.stderr,
                "share_p": share.p_value,
                "share_verdict": share.estimate.verdict,
                "share_by_value": "; ".join(
                    f"{v} {x:+.3f}" for v, x in sorted(share.by_value.items())
                ),
                "disparity_grounded": g.value,
                "disparity_grounded_p": g.p_value,
                "disparity_grounded_verdict": g.verdict,
                "disparity_all_keys": a.value,
                "disparity_all_keys_p": a.p_value,
                "disparity_all_keys_verdict": a.verdict,
                "coverage_dependent": check.dependent,
                "reasons": "; ".join(check.reasons),
            }
        )
    return pd.DataFrame(rows)
