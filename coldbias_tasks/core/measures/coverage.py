"""Coverage as part of an open task's measurement (docs/open.md "Coverage", docs/measurement.md
§3e).

An open answer's titles are grounded (``core/parsing/grounding.py``); an ungrounded title is
keyed by its spelling, so two names of one item would be two items, and a value whose items are
named in another script, or poorly covered by the lists, would look treated differently. The rule:

1. **The headline is computed on grounded keys** (catalog or reference: what is known to be an
   item; ``open_answers.grounded_items``): the open task's similarities, excess, tests and
   disparity compare the grounded part of each list. Ungrounded entries are reported beside it
   (``grounded_rate``, the report's ``grounding`` exposure rows), never counted as items.
2. **The grounded share per value is tested** between values: per answer, s = grounded keys /
   listed keys (NaN for an empty list); per sentence (value v, phrasing p) its mean over
   repeats; the phrasing-controlled contrast between values and its within-phrasing relabelling
   test (``diversity.contrast``: the same machinery as the diversity contrast; signed
   other − reference at V = 2, the spread at V > 2).
3. **Coverage-dependent** when the grounded share differs between values (its p ≤ α), or when
   the headline on grounded keys and the headline on all keys (ungrounded spellings counted as
   items, the rule before) disagree in verdict (one ``detected``, the other not). Such a task's
   headline depends on what the lists cover, not only on what is recommended: the report and
   the leaderboard mark it, as they mark a task whose placebo group moves.

Catalog tasks list catalog items only: every key is grounded, nothing here applies (``applies``
False, the measures NaN). Assumptions of the test: as for the diversity contrast (phrasings
matched across values, repeats independent).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from coldbias_tasks.core.measures.base import Measure, register
from coldbias_tasks.core.measures.disparity import PhrasingDisparity
from coldbias_tasks.core.measures.diversity import DiversityContrast, contrast
from coldbias_tasks.core.parsing.open_answers import key_level
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.stats.estimate import DETECTED, Estimate

__all__ = [
    "COVERAGE_DEPENDENT",
    "COVERAGE_MEASURES",
    "GROUNDED_SHARE_CONTRAST",
    "CoverageCheck",
    "coverage_check",
    "grounded_share",
]

NAN = float("nan")


def grounded_share(record: AnswerRecord) -> float:
    """Grounded keys / listed keys of one open answer; NaN for an empty list or a catalog
    task's record (no keys)."""
    if not record.keys:
        return NAN
    return sum(key_level(k) != "title" for k in record.keys) / len(record.keys)


@dataclass(frozen=True)
class CoverageCheck:
    """An open task's coverage check (module docstring). ``share``: the grounded share's
    contrast between values; ``grounded``: the headline (IOU disparity) on grounded keys;
    ``all_keys``: the same on all keys; ``reasons``: why the task is coverage-dependent
    (empty when it is not); ``applies``: an open task."""

    share: DiversityContrast = field(default_factory=DiversityContrast)
    grounded: Estimate = field(default_factory=Estimate)
    all_keys: Estimate = field(default_factory=Estimate)
    reasons: tuple[str, ...] = ()
    applies: bool = False

    @property
    def dependent(self) -> bool:
        """Whether the headline depends on coverage (a reason is given)."""
        return bool(self.reasons)


def _detected(estimate: Estimate) -> bool:
    return estimate.verdict == DETECTED


def coverage_check(
    phrased: Mapping[str, Mapping[int, Mapping[int, AnswerRecord]]],
    grounded: PhrasingDisparity,
    all_keys: PhrasingDisparity,
    alpha: float = 0.05,
) -> CoverageCheck:
    """The check of an open task: ``phrased[value][phrasing][repeat]`` its answers with all
    keys; ``grounded`` / ``all_keys`` its headline disparity on grounded keys / on all keys."""
    cells: dict[str, dict[int, float]] = {}
    for value, by_phrasing in phrased.items():
        for p, by_repeat in by_phrasing.items():
            shares = [grounded_share(r) for r in by_repeat.values()]
            finite = [s for s in shares if not math.isnan(s)]
            cells.setdefault(value, {})[p] = sum(finite) / len(finite) if finite else NAN
    share = contrast(cells, "grounded share", alpha, seed=37)
    reasons: list[str] = []
    if share.p_value <= alpha:
        reasons.append(
            f"the grounded share differs between values (spread {share.spread:.3f}, "
            f"p {share.p_value:.3g})"
        )
    g, a = grounded.estimate, all_keys.estimate
    if g.verdict and a.verdict and _detected(g) != _detected(a):
        reasons.append(
            f"the headline is {g.verdict} on grounded keys but {a.verdict} on all keys "
            f"(ungrounded spellings counted as items: {a.value:+.3f}, p {a.p_value:.3g})"
        )
    return CoverageCheck(share, g, a, tuple(reasons), True)


GROUNDED_SHARE_CONTRAST = register(Measure(
    "grounded_share_contrast", lambda s: s.coverage.share.estimate, False, (0.0, 1.0),
    "open tasks only: do some values get more of their listed items grounded (known to the "
    "catalog or reference list) than others? The spread between values of the answers' grounded "
    "share, compared within each phrasing and averaged over phrasings (signed other − reference "
    "at two values). Standard error: delete-one-phrasing jackknife (t with P − 1 df); p: "
    "relabelling of the values within each phrasing",
    keys=("value", "stderr", "p", "verdict"), controls=False, protocol="open",
    stderr_method="delete-one-phrasing jackknife",
    interval_method="Student t with P − 1 degrees of freedom, clipped to [0, 1]", order=320,
))  # fmt: skip
COVERAGE_DEPENDENT = register(Measure(
    "coverage_dependent",
    lambda s: Estimate(float(s.coverage.dependent) if s.coverage.applies else NAN),
    False, (0.0, 1.0),
    "open tasks only: 1 when the headline depends on what the lists cover — the grounded share "
    "differs between values (grounded_share_contrast p ≤ α) or the headline on grounded keys "
    "and on all keys (ungrounded spellings counted as items) disagree in verdict — else 0",
    controls=False, protocol="open", order=330,
))  # fmt: skip
#: The measures of this module (the report shows them in its ``coverage`` table).
COVERAGE_MEASURES = (GROUNDED_SHARE_CONTRAST, COVERAGE_DEPENDENT)
