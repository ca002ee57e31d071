"""What the disparity costs the user: per-answer utilities compared between values, with the
wording controlled (docs/measurement.md §3e).

The headline says whether the *lists* differ between values; this says whether a value gets a
*worse* list. Three per-answer utilities, one module each: preference served
(:mod:`.preference`, pref tasks), item quality (:mod:`.item_quality`, domains with offline
facts: movies) and answer failure (:mod:`.failure`). For each, m[v, p] is the mean utility of
sentence (v, p) over its repeats (answers without a utility left out) and the gap between values
is the phrasing-controlled contrast of :mod:`.contrast` (signed at two values, the spread over
pairs at more; within-phrasing relabelling test, delete-one-phrasing jackknife with t(P − 1),
MDE, "underpowered"), with every pair of values tested and Holm over the pairs. In a pref task
a "phrasing" is a phrasing × preference cell
(:func:`~coldbias_tasks.core.prompting.documents.build_docs`), so each value is compared with
the others stating the same preference in the same words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from coldbias_tasks.core.measures.contrast import Contrast, PairContrast, contrast, pair_contrasts
from coldbias_tasks.core.measures.failure import failed
from coldbias_tasks.core.measures.item_quality import item_facts, item_quality
from coldbias_tasks.core.measures.preference import matching_items, preference_served
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.stats.estimate import Estimate, decide

__all__ = ["CostSummary", "UtilityGap", "summarize_costs", "utility_gap"]

NAN = float("nan")
#: value → phrasing → repeat → answer (:attr:`~.design.RepeatTable.phrased`)
Phrased = Mapping[str, Mapping[int, Mapping[int, AnswerRecord]]]


@dataclass(frozen=True)
class UtilityGap:
    """One utility's gap between values: ``contrast`` (its estimate is the lm-eval metric),
    ``pairs`` (every pair, Holm; empty at two values), ``means`` (value → mean utility over its
    answers that have one), ``unit`` (what one unit is), ``n_answers`` / ``n_defined`` (answers,
    and those with a utility) and ``note`` (why there is no value, else "")."""

    name: str
    unit: str
    contrast: Contrast = field(default_factory=Contrast)
    pairs: tuple[PairContrast, ...] = ()
    means: dict[str, float] = field(default_factory=dict)
    n_answers: int = 0
    n_defined: int = 0
    note: str = ""


@dataclass(frozen=True)
class CostSummary:
    """A task's costs to the user: the gaps of preference served, item quality and failure."""

    preference: UtilityGap = field(default_factory=lambda: UtilityGap("preference", ""))
    quality: UtilityGap = field(default_factory=lambda: UtilityGap("quality", ""))
    failure: UtilityGap = field(default_factory=lambda: UtilityGap("failure", ""))

    def gaps(self) -> tuple[UtilityGap, ...]:
        return self.preference, self.quality, self.failure


def _mean(xs: list[float]) -> float:
    finite = [x for x in xs if not math.isnan(x)]
    return sum(finite) / len(finite) if finite else NAN


def utility_gap(
    phrased: Phrased,
    utility: Callable[[AnswerRecord], float],
    name: str,
    unit: str,
    alpha: float = 0.05,
    bounds: tuple[float, float] = (0.0, 1.0),
    empty: str = "",
) -> UtilityGap:
    """The gap between values of ``utility`` over ``phrased`` (module docstring); with no
    answer having a utility, an n/a contrast whose note is ``empty``."""
    cells: dict[str, dict[int, float]] = {}
    means: dict[str, float] = {}
    n_answers = n_defined = 0
    for value in sorted(phrased):
        everything: list[float] = []
        for p, by_repeat in sorted(phrased[value].items()):
            xs = [utility(by_repeat[r]) for r in sorted(by_repeat)]
            everything += xs
            cells.setdefault(value, {})[p] = _mean(xs)
        means[value] = _mean(everything)
        n_answers += len(everything)
        n_defined += sum(not math.isnan(x) for x in everything)
    if n_defined == 0:
        undefined = decide(Estimate(alpha=alpha), reason=empty or f"no answer has a {name}")
        return UtilityGap(name, unit, Contrast(name, undefined), n_answers=n_answers,
                          note=empty)  # fmt: skip
    found = contrast(cells, name, alpha, bounds=bounds)
    if not found.estimate.defined:
        why = f"{found.n_values} values, {found.n_phrasings} phrasings with a {name} for each"
        found = Contrast(name, decide(found.estimate, reason=f"too few: {why}"),
                         n_values=found.n_values, n_phrasings=found.n_phrasings)  # fmt: skip
    return UtilityGap(
        name, unit, found, pair_contrasts(cells, name, alpha, bounds), means, n_answers,
        n_defined,
    )  # fmt: skip


def summarize_costs(phrased: Phrased, catalog: str, alpha: float = 0.05) -> CostSummary:
    """The three gaps of a task's answers ``phrased`` over the items of ``catalog`` (a declared
    domain; a user's catalog has neither preferences nor facts: those two are n/a)."""
    prefs = {r.preference for by_p in phrased.values() for by_r in by_p.values()
             for r in by_r.values() if r.preference}  # fmt: skip
    matching = {p: matching_items(catalog, p) for p in prefs}
    facts = item_facts(catalog)
    return CostSummary(
        preference=utility_gap(
            phrased, lambda r: preference_served(r, matching), "preference served",
            "share of the k slots holding an item of the stated preference", alpha,
            empty="no stated preference (a pref task's users state one)",
        ),
        quality=utility_gap(
            phrased, lambda r: item_quality(r, facts), "item quality",
            "critics' score points (0–100)", alpha, (0.0, 100.0),
            empty=f"no offline quality fact for the items of {catalog or 'this catalog'!r}",
        ),
        failure=utility_gap(phrased, failed, "failure", "share of answers that fail", alpha),
    )  # fmt: skip
