"""What a measure is, and the registry of them.

A :class:`Measure` is one number computed from a task's answers, declared once in the module
that computes it: its name, the part of the task's summary it reads (``scope``), the function
returning its :class:`~coldbias_tasks.core.stats.estimate.Estimate`, its true direction and
range, what it means, and which of the estimate's parts lm-eval lists (value, standard error,
p-value, interval, verdict). :func:`coldbias_tasks.core.result.task_result` computes every
registered measure once per task; lm-eval's aggregations, Inspect's metric, the report and the
leaderboard read those estimates. How a measure is labelled and pooled over tasks is the
readers' business (``data/metrics.yaml``, :mod:`coldbias_tasks.analysis.presentation`).

Scopes: ``"similarity"`` measures are computed per registered similarity from its
:class:`~coldbias_tasks.core.measures.summary.MetricSummary` (lm-eval keys ``{sim}_{name}``),
``"task"`` measures from the task's
:class:`~coldbias_tasks.core.measures.summary.AnswersSummary` (key ``name``), ``"reverse"``
measures from a reverse task's :class:`~coldbias_tasks.core.measures.reverse.ReverseSummary`.
Adding a measure: a module in this package that computes it and calls :func:`register` (its
``order`` places it among the others); the package finds the module by itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, get_args

from coldbias_tasks.core.similarities import SIMILARITY_NAMES
from coldbias_tasks.core.stats.estimate import VERDICTS, Estimate
from coldbias_tasks.core.vocabulary import ANSWER_KEY

__all__ = [
    "PARTS",
    "LmKey",
    "Measure",
    "Part",
    "Protocol",
    "Scope",
    "lm_keys",
    "measure",
    "measures",
    "register",
    "withdraw",
]

Scope = Literal["similarity", "task", "reverse"]
#: Which forward tasks list a measure: both protocols, catalog tasks only (what needs a shown
#: catalog: positions, out-of-catalog entries), open tasks only (the grounding rates) or pref
#: tasks only (what needs a stated preference: undefined elsewhere, so never listed there).
Protocol = Literal["both", "catalog", "open", "pref"]
#: The parts of an estimate lm-eval can list, in the order its metric_list gives them (a
#: standard error right after its value: lm-eval writes "N/A" under ``X_stderr`` when it
#: aggregates ``X``, and the metric ``X_stderr``, aggregated next, writes the real one).
Part = Literal["value", "stderr", "p", "ci_low", "ci_high", "verdict"]
PARTS: tuple[Part, ...] = get_args(Part)


@dataclass(frozen=True)
class Measure:
    """One measure (module docstring).

    ``estimate``: the per-task function (its argument set by ``scope``). ``higher_is_better``:
    the direction of the value; ``range``: (low, high) in its units (intervals are clipped to
    it); ``description``: what it means, units and edge cases, one or two sentences; ``keys``:
    the parts lm-eval lists ("value" always); ``p_name``: the lm-eval name of its p-value when
    it is not ``<name>_p`` (``group_p`` of the excess); ``controls``: also computed for a control
    group's tasks (the placebo); ``protocol``: which forward tasks list it; ``sampling``: it
    assumes sampled answers (withheld for deterministic ones, :mod:`.determinism`); ``signed``:
    a headline whose interval below 0 means "phrasings unmatched"; ``series``: its estimate
    carries its value per repeat (``by_repeat``); ``stderr_method`` / ``interval_method``: how
    its standard error and interval are computed (shown with them, e.g. in Every Eval Ever);
    ``order``: its place."""

    name: str
    estimate: Callable[[Any], Estimate]
    higher_is_better: bool
    range: tuple[float, float]
    description: str
    scope: Scope = "task"
    keys: tuple[Part, ...] = ("value",)
    p_name: str = ""
    controls: bool = True
    protocol: Protocol = "both"
    sampling: bool = False
    signed: bool = False
    series: bool = False
    stderr_method: str = ""
    interval_method: str = ""
    order: int = 1000

    def __post_init__(self) -> None:
        """Refuse a measure that cannot be shown (ValueError naming it and the fix)."""
        if not self.name.isidentifier() or self.name != self.name.lower():
            raise ValueError(f"measure name {self.name!r} must be a lower-case identifier")
        if self.scope not in get_args(Scope) or self.protocol not in get_args(Protocol):
            raise ValueError(f"{self.name}: scope {self.scope!r} / protocol {self.protocol!r}")
        if not self.range[0] < self.range[1]:
            raise ValueError(f"{self.name}: range must be (low, high) with low < high")
        if "value" not in self.keys or any(k not in PARTS for k in self.keys):
            raise ValueError(f"{self.name}: keys must include 'value' and be among {PARTS}")
        if self.scope == "reverse" and not self.name.startswith("reverse_"):
            raise ValueError(f"reverse measure {self.name!r} must start with 'reverse_'")

    def key_names(self, similarity: str = "") -> dict[Part, str]:
        """lm-eval key of each listed part (``iou_disparity``, ``iou_disparity_stderr``,
        ``iou_disparity_p``, ``iou_group_p`` …)."""
        prefix = f"{similarity}_" if self.scope == "similarity" else ""
        out: dict[Part, str] = {}
        for part in PARTS:
            if part not in self.keys:
                continue
            if part == "value":
                out[part] = f"{prefix}{self.name}"
            elif part == "p":
                out[part] = f"{prefix}{self.p_name or self.name + '_p'}"
            else:
                out[part] = f"{prefix}{self.name}_{part}"
        return out


@dataclass(frozen=True)
class LmKey:
    """One lm-eval metric key: the measure, the similarity it is computed for ("" unless the
    scope is ``"similarity"``) and the part of the estimate it holds."""

    key: str
    measure: Measure
    similarity: str = ""
    part: Part = "value"

    @property
    def higher_is_better(self) -> bool | None:
        """The value's direction; None for the other parts (a standard error, a p-value, a
        bound or a verdict has no "better")."""
        return self.measure.higher_is_better if self.part == "value" else None

    @property
    def averaged(self) -> bool:
        """Whether lm-eval's groups average it (values only; groups compute their own
        standard error from the tasks')."""
        return self.part == "value"

    def of(self, estimate: Estimate) -> float | str:
        """This part of ``estimate``, as lm-eval's results hold it: a missing standard error
        or bound is "N/A", a verdict its text ("" → "n/a")."""
        if self.part == "verdict":
            return estimate.verdict or VERDICTS[0]
        value = {
            "value": estimate.value, "stderr": estimate.stderr, "p": estimate.p_value,
            "ci_low": estimate.ci_low, "ci_high": estimate.ci_high,
        }[self.part]  # fmt: skip
        value = float(value)
        return "N/A" if self.part != "value" and math.isnan(value) else value


_MEASURES: dict[str, Measure] = {}
#: bumped by every change of :data:`_MEASURES` (the key of :func:`lm_keys`' cache)
_generation = 0


def register(m: Measure) -> Measure:
    """Add ``m`` to the registry; returns it. A name registered twice, or an lm-eval key that
    another measure already lists, raises ValueError naming both."""
    global _generation
    if m.name in _MEASURES and _MEASURES[m.name] is not m:
        raise ValueError(f"measure {m.name!r} is registered twice; give the new one its own name")
    taken = {lk.key: lk.measure.name for lk in _all_keys(_generation).values()}
    taken[ANSWER_KEY] = "the answer record's (coldbias_tasks.core.vocabulary.ANSWER_KEY)"
    for sim in SIMILARITY_NAMES if m.scope == "similarity" else ("",):
        for key in m.key_names(sim).values():
            if key in taken and taken[key] != m.name:
                raise ValueError(f"measure {m.name!r}: lm-eval key {key!r} is {taken[key]!r}'s")
    _MEASURES[m.name] = m
    _generation += 1
    return m


def withdraw(name: str) -> None:
    """Remove a registered measure (a plugin's or a test's); unknown names are ignored."""
    global _generation
    if _MEASURES.pop(name, None) is not None:
        _generation += 1


def measures(scope: Scope | None = None) -> tuple[Measure, ...]:
    """The registered measures of ``scope`` (all without), in their order."""
    ordered = sorted(_MEASURES.values(), key=lambda m: (m.order, m.name))
    return tuple(m for m in ordered if scope is None or m.scope == scope)


def measure(name: str) -> Measure:
    """The registered measure ``name`` (KeyError naming the registered ones)."""
    found = _MEASURES.get(name)
    if found is None:
        raise KeyError(f"no measure {name!r}; registered: {', '.join(m.name for m in measures())}")
    return found


def lm_keys(reverse: bool = False, control: bool = False) -> dict[str, LmKey]:
    """lm-eval key → :class:`LmKey`, in the order of the task YAMLs' ``metric_list``: the
    forward measures (a control group's tasks: those with ``controls``), or the reverse ones;
    per measure its similarities in registry order, per similarity its parts."""
    keys = _all_keys(_generation)
    return {
        k: lk
        for k, lk in keys.items()
        if (lk.measure.scope == "reverse") == reverse and (lk.measure.controls or not control)
    }


@lru_cache(maxsize=4)
def _all_keys(generation: int) -> dict[str, LmKey]:
    out: dict[str, LmKey] = {}
    for m in measures():
        for sim in SIMILARITY_NAMES if m.scope == "similarity" else ("",):
            for part, key in m.key_names(sim).items():
                out[key] = LmKey(key, m, sim, part)
    return out
