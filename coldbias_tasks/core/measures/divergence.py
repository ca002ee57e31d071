"""The raw divergence from the neutral user, paper-comparable (docs/measurement.md §2), and
FaiRLLM's spreads of it over the values.

B_r(a) = 1 − Sim(A_r, N_r) per sentence a and repeat r. Measures (per similarity, from its
:class:`~coldbias_tasks.core.measures.summary.MetricSummary`): ``divergence`` — the mean over
sentences of their mean over repeats, with its per-repeat series and a Student-t interval over
repeats (it contains sampling noise: compare it with the noise floor); ``snsr`` — max − min over
the sentences' mean divergence; ``snsv`` — their population standard deviation (ddof = 0).
"""

from __future__ import annotations

from collections.abc import Iterable

from coldbias_tasks.core.measures.base import Measure, register
from coldbias_tasks.core.measures.design import RepeatTable, arrange, divergence
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.stats.estimate import Estimate
from coldbias_tasks.core.stats.series import REPEATS_CI, REPEATS_SE, series_estimate

__all__ = ["DIVERGENCE", "SNSR", "SNSV", "value_divergences"]


def value_divergences(records: Iterable[AnswerRecord], metric: str) -> dict[str, dict[int, float]]:
    """Per attribute value, per repeat r: B_r(a) against neutral repeat r."""
    table = records if isinstance(records, RepeatTable) else arrange(records)
    return {
        persona: {
            r: divergence(metric, answers[r].items, table.neutral[r].items)
            for r in sorted(answers)
            if r in table.neutral
        }
        for persona, answers in table.values.items()
    }


DIVERGENCE = register(Measure(
    "divergence", lambda ms: series_estimate(ms.mean, ms.by_repeat, (0.0, 1.0)), False, (0.0, 1.0),
    "raw divergence B = 1 − Sim, mean over values (paper-comparable, contains sampling noise)",
    scope="similarity", series=True, stderr_method=REPEATS_SE, interval_method=REPEATS_CI,
    order=20,
))  # fmt: skip
SNSR = register(Measure(
    "snsr", lambda ms: Estimate(ms.snsr), False, (0.0, 1.0),
    "FaiRLLM's max − min over the values' mean divergence", scope="similarity", order=30,
))  # fmt: skip
SNSV = register(Measure(
    "snsv", lambda ms: Estimate(ms.snsv), False, (0.0, 1.0),
    "FaiRLLM's population std over the values' mean divergence", scope="similarity", order=40,
))  # fmt: skip
