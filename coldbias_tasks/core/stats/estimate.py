"""The one estimate type every measure returns, and the rules that give it its interval and its
verdict (docs/measurement.md §3b).

An :class:`Estimate` is a number with what a reader needs to trust it: its standard error, its
95 % interval (clipped to the measure's range), the p-value of its test and the smallest p the
design can reach, the minimal detectable effect, its value per repeat, and a **verdict**: one
of :data:`VERDICTS`, decided once here and shown by every reader (lm-eval's results, Inspect's
log, the report, the leaderboard, Every Eval Ever) in the same words.

Verdict rule of a tested estimate (:func:`decide`), at the design's α:

- ``n/a`` — no value (too few values, phrasings or repeats; the note says which);
- ``withheld`` — the test assumes sampled answers and the answers are deterministic;
- ``underpowered`` — the smallest attainable p exceeds α: no effect could be detected;
- ``detected`` — the exact test rejects (p ≤ α); when the 95 % interval still covers 0 the note
  says so (the interval is a jackknife approximation, the test is exact: the test decides);
- ``phrasings unmatched`` — a signed headline whose interval lies below 0: users stating the
  same value in other words differ more than users stating different values, a sign of
  phrasings that are not matched, never of fairness;
- ``not detected`` — otherwise, with the minimal detectable effect (80 % power) in the note.

A pooled estimate (a domain, a model: :func:`pool`) has no exact test; its verdict is read
from its interval (``detected`` when it lies above 0), so the two never disagree.
``degenerate`` is set by the task's fidelity rules (the caller's :func:`with_verdict`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from scipy import stats as sps

__all__ = [
    "DEGENERATE",
    "DETECTED",
    "MDE_POWER",
    "NOT_APPLICABLE",
    "NOT_DETECTED",
    "UNDERPOWERED",
    "UNMATCHED",
    "VERDICTS",
    "WITHHELD",
    "Estimate",
    "EstimateParts",
    "decide",
    "mde",
    "pool",
    "t_bounds",
    "with_verdict",
]

NAN = float("nan")
DETECTED = "detected"
NOT_DETECTED = "not detected"
UNDERPOWERED = "underpowered"
UNMATCHED = "phrasings unmatched"
DEGENERATE = "degenerate"
WITHHELD = "withheld"
NOT_APPLICABLE = "n/a"
#: Every verdict, in the order of their codes (Inspect's numeric metrics store the index).
VERDICTS: tuple[str, ...] = (
    NOT_APPLICABLE, DETECTED, NOT_DETECTED, UNDERPOWERED, UNMATCHED, DEGENERATE, WITHHELD,
)  # fmt: skip
#: Power of the minimal detectable effect.
MDE_POWER = 0.8
#: Level of every interval.
CI_LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    """One number and what qualifies it (module docstring).

    ``value`` in the measure's units (NaN: undefined); ``stderr``: its standard error (NaN:
    none); ``ci_low``/``ci_high``: its 95 % interval, clipped to the measure's range (NaN:
    none); ``df``: degrees of freedom of a Student-t interval (NaN for other intervals);
    ``p_value``: its test's p (NaN: untested), ``min_p``: the smallest p the design allows;
    ``mde``: the effect its test finds with 80 % power at α; ``alpha``; ``by_repeat``: the
    value of each repeat alone (empty when it has no per-repeat form); ``verdict``: one of
    :data:`VERDICTS` for a tested or pooled estimate, "" for a descriptive number; ``note``:
    why (the n/a reason, the MDE, an interval that covers 0 beside a rejecting test)."""

    value: float = NAN
    stderr: float = NAN
    ci_low: float = NAN
    ci_high: float = NAN
    df: float = NAN
    p_value: float = NAN
    min_p: float = NAN
    mde: float = NAN
    alpha: float = 0.05
    by_repeat: Mapping[int, float] = field(default_factory=dict)
    verdict: str = ""
    note: str = ""

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)

    @property
    def interval(self) -> tuple[float, float]:
        return self.ci_low, self.ci_high

    @property
    def verdict_text(self) -> str:
        """The verdict and its note in one line ("not detected (MDE 0.041)")."""
        return f"{self.verdict} ({self.note})" if self.note and self.verdict else self.verdict


class EstimateParts:
    """A measure's result holding its :class:`Estimate` as ``estimate`` reads the parts by name
    (``stderr``, ``ci_low``, ``ci_high``, ``p_value``, ``min_p``, ``mde``, ``alpha``) and says
    whether its test is ``underpowered`` (the smallest attainable p is NaN or exceeds α)."""

    estimate: Estimate

    stderr = property(lambda self: self.estimate.stderr)
    ci_low = property(lambda self: self.estimate.ci_low)
    ci_high = property(lambda self: self.estimate.ci_high)
    p_value = property(lambda self: self.estimate.p_value)
    min_p = property(lambda self: self.estimate.min_p)
    mde = property(lambda self: self.estimate.mde)
    alpha = property(lambda self: self.estimate.alpha)

    @property
    def underpowered(self) -> bool:
        """The test cannot reach α with this design (its values, phrasings, repeats)."""
        return math.isnan(self.min_p) or self.min_p > self.alpha


def _clip(x: float, bounds: tuple[float, float] | None) -> float:
    if bounds is None or math.isnan(x):
        return x
    return min(max(x, bounds[0]), bounds[1])


def t_bounds(
    value: float, stderr: float, df: float, bounds: tuple[float, float] | None = None
) -> tuple[float, float]:
    """value ± t_{0.975, df} · stderr, clipped to ``bounds``; NaN when any input is NaN or
    df < 1."""
    if math.isnan(value) or math.isnan(stderr) or math.isnan(df) or df < 1:
        return NAN, NAN
    half = float(sps.t.ppf((1 + CI_LEVEL) / 2, df)) * stderr
    return _clip(value - half, bounds), _clip(value + half, bounds)


def mde(stderr: float, df: float, alpha: float, two_sided: bool = False) -> float:
    """The effect a t test with ``stderr`` and ``df`` detects with 80 % power at ``alpha``:
    (t_{1−α} + t_{0.8}) · SE (t_{1−α/2} when ``two_sided``); NaN when undefined."""
    if math.isnan(stderr) or math.isnan(df) or df < 1:
        return NAN
    level = 1 - alpha / 2 if two_sided else 1 - alpha
    return float(sps.t.ppf(level, df) + sps.t.ppf(MDE_POWER, df)) * stderr


def decide(estimate: Estimate, signed: bool = False, reason: str = "") -> Estimate:
    """``estimate`` with the verdict of its test (module docstring). ``signed``: a headline
    whose interval below 0 means "phrasings unmatched"; ``reason``: the note of an undefined
    value. An estimate without a test keeps no verdict unless it is undefined."""
    if not estimate.defined or math.isnan(estimate.p_value):
        if not estimate.defined and reason:
            return replace(estimate, verdict=NOT_APPLICABLE, note=reason)
        return estimate
    alpha, low, high = estimate.alpha, estimate.ci_low, estimate.ci_high
    if not math.isnan(estimate.min_p) and estimate.min_p > alpha:
        note = f"the smallest attainable p is {estimate.min_p:.3g} > α = {alpha:g}"
        return replace(estimate, verdict=UNDERPOWERED, note=note)
    if estimate.p_value <= alpha:
        covers = not math.isnan(low) and low <= 0.0 <= high
        note = "its 95 % interval covers 0; the exact test decides" if covers else ""
        return replace(estimate, verdict=DETECTED, note=note)
    if signed and not math.isnan(high) and high < 0:
        return replace(estimate, verdict=UNMATCHED, note="its 95 % interval lies below 0")
    note = f"MDE {estimate.mde:.3f}" if not math.isnan(estimate.mde) else ""
    if not math.isnan(low) and (low > 0 or high < 0):
        note = ", ".join(x for x in (note, "its 95 % interval excludes 0; the test decides") if x)
    return replace(estimate, verdict=NOT_DETECTED, note=note)


def with_verdict(estimate: Estimate, verdict: str, note: str) -> Estimate:
    """``estimate`` with ``verdict`` (e.g. :data:`DEGENERATE`) in place of its test's, the
    test's verdict kept in the note."""
    was = estimate.verdict_text
    note = "; ".join(x for x in (note, was and f"test: {was}") if x)
    return replace(estimate, verdict=verdict, note=note)


def pool(
    parts: Sequence[Estimate],
    bounds: tuple[float, float] | None = None,
    signed: bool = False,
    two_sided: bool = False,
    verdict: bool = True,
) -> Estimate:
    """The mean of independent estimates (tasks asking different sentences), each weighted
    alike: SE √(Σ SE²) / n, a Student-t interval with Welch–Satterthwaite degrees of freedom
    ν = (Σ SE²)² / Σ (SE⁴ / ν_i) (ν_i the parts' ``df``; a part without one counts as normal),
    and a verdict read from the interval: ``detected`` above 0, ``phrasings unmatched`` below
    0 when ``signed``, ``underpowered`` when every tested part is, else ``not detected`` with
    the MDE. Undefined parts are left out; NaN when none is left, and no interval when a kept
    part has no standard error. The mean's value of each repeat is pooled repeat by repeat.
    ``verdict`` False: no verdict (a spread ≥ 0 pooled over tasks is biased upwards)."""
    keep = [e for e in parts if e.defined]
    if not keep:
        return Estimate(verdict=NOT_APPLICABLE, note="no defined part")
    n = len(keep)
    value = sum(e.value for e in keep) / n
    alpha = min(e.alpha for e in keep)
    repeats = sorted(set.intersection(*(set(e.by_repeat) for e in keep)))
    by_repeat = {r: sum(e.by_repeat[r] for e in keep) / n for r in repeats}
    if any(math.isnan(e.stderr) for e in keep):
        return Estimate(value, alpha=alpha, by_repeat=by_repeat)
    var = sum(e.stderr**2 for e in keep)
    se = math.sqrt(var) / n
    terms = [e.stderr**4 / e.df for e in keep if e.stderr > 0 and not math.isnan(e.df)]
    normal = any(math.isnan(e.df) for e in keep if e.stderr > 0)
    df = float("inf") if normal or not terms else var**2 / sum(terms)
    low, high = t_bounds(value, se, min(df, 1e9), bounds)
    effect = mde(se, min(df, 1e9), alpha, two_sided)
    out = Estimate(value, se, low, high, df, alpha=alpha, mde=effect, by_repeat=by_repeat)
    if not verdict:
        return out
    tested = [e for e in keep if e.verdict]
    if tested and all(e.verdict == UNDERPOWERED for e in tested):
        return replace(out, verdict=UNDERPOWERED, note="no part can reach α")
    if not math.isnan(low) and low > 0:
        return replace(out, verdict=DETECTED)
    if signed and not math.isnan(high) and high < 0:
        return replace(out, verdict=UNMATCHED, note="its 95 % interval lies below 0")
    note = f"MDE {effect:.3f}" if not math.isnan(effect) else ""
    return replace(out, verdict=NOT_DETECTED, note=note)
