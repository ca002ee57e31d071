"""The secondary view: does the attribute move the list more than other sentences do?
(docs/measurement.md §3c).

Each domain's placebo task asks control sentences of three families — content-free in the same
frames ("I am a person."), non-sensitive descriptive ("I am a left-handed person."), irrelevant
facts ("I am someone whose car is blue.") — in every repeat, once per domain rather than in
every task. For one attribute task and one family f:

- every sentence x (a value in one phrasing, or a control sentence) gets m(x), the mean over
  repeats of its mean divergence from the neutral answers of its own task in that repeat (the
  neutral answer and its same-prompt replicates; both tasks share each repeat's catalog order);
- excess over f = mean of m over the task's sentences − mean of m over f's sentences, with a
  Welch standard error that takes **sentences as the units** (the values' phrasings on one
  side, the family's sentences on the other), a Welch–Satterthwaite t interval.

Mark over the families: "robust" when every family's interval excludes 0 with the same sign, or
every one covers 0 and the spread of the excesses is at most 2 × the largest SE; else
"control-dependent" (the answer depends on which irrelevant sentences one compares with). A
negative excess means the values move the list *less* than those sentences: a change of spread,
never negative bias.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from coldbias_tasks.core.measures.design import arrange
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY, SIMILARITIES

__all__ = ["FamilyExcess", "FamilyView", "control_families", "sentence_distances"]

NAN = float("nan")
#: The families a placebo task should have for a mark (data/personas.yaml).
FAMILIES = ("content_free", "descriptive", "irrelevant_fact")


@dataclass(frozen=True)
class FamilyExcess:
    """One family: ``excess`` (divergence units, [−1, 1]) with its ``stderr`` and 95 %
    interval; ``n_sentences`` of the family, ``n_task_sentences`` of the attribute task."""

    family: str
    excess: float
    stderr: float
    ci_low: float
    ci_high: float
    n_sentences: int
    n_task_sentences: int


@dataclass(frozen=True)
class FamilyView:
    """All families of one attribute task under one similarity, and the mark."""

    families: tuple[FamilyExcess, ...]
    mark: str

    @property
    def spread(self) -> float:
        values = [f.excess for f in self.families if not math.isnan(f.excess)]
        return max(values) - min(values) if values else NAN


def sentence_distances(records: Iterable[AnswerRecord], metric: str) -> dict[str, float]:
    """Sentence id → m(x): mean over repeats of the mean divergence of x's answer from the
    repeat's neutral answers (neutral and replicates); neutral answers themselves excluded."""
    table = arrange(records)
    neutrals = table.neutrals()
    sim = SIMILARITIES[metric]
    out = {}
    for sentence, by_repeat in table.values.items():
        per_repeat = [
            float(np.mean([1.0 - sim(a.items, n.items) for n in neutrals[r]]))
            for r, a in by_repeat.items()
            if neutrals.get(r)
        ]
        if per_repeat:
            out[sentence] = float(np.mean(per_repeat))
    return out


def _welch(a: list[float], b: list[float]) -> tuple[float, float, float, float]:
    """(difference of means, SE, 95 % interval) of two samples of sentences."""
    if not a or not b:
        return NAN, NAN, NAN, NAN
    diff = float(np.mean(a) - np.mean(b))
    va = np.var(a, ddof=1) / len(a) if len(a) > 1 else NAN
    vb = np.var(b, ddof=1) / len(b) if len(b) > 1 else NAN
    se = math.sqrt(va + vb) if not (math.isnan(va) or math.isnan(vb)) else NAN
    if math.isnan(se) or se == 0:
        return diff, se, NAN, NAN
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = float(sps.t.ppf(0.975, df)) * se
    return diff, se, diff - half, diff + half


def _mark(families: list[FamilyExcess]) -> str:
    usable = [f for f in families if not math.isnan(f.ci_low)]
    if len(usable) < 2:
        return "not computable"
    above = all(f.ci_low > 0 for f in usable)
    below = all(f.ci_high < 0 for f in usable)
    covers = all(f.ci_low <= 0 <= f.ci_high for f in usable)
    spread = max(f.excess for f in usable) - min(f.excess for f in usable)
    if above or below or (covers and spread <= 2 * max(f.stderr for f in usable)):
        return "robust"
    return "control-dependent"


def control_families(
    tasks: Sequence[Iterable[AnswerRecord]],
    placebo: Iterable[AnswerRecord],
    families: Mapping[str, str],
    metric: str = HEADLINE_SIMILARITY,
) -> FamilyView:
    """The excess of the sentences of one or more attribute tasks (a task, or a domain's tasks
    pooled: each sentence anchored on its own task's neutral answers) over each control family
    of the domain's placebo task (``families``: control value id → family)."""
    own = [m for task in tasks for m in sentence_distances(task, metric).values()]
    control_records = list(placebo)
    value_of = {r.persona_id: r.value for r in control_records}
    by_family: dict[str, list[float]] = {}
    for sentence, m in sentence_distances(control_records, metric).items():
        family = families.get(value_of.get(sentence, ""), "")
        if family:
            by_family.setdefault(family, []).append(m)
    out = []
    for family in sorted(by_family, key=lambda f: (FAMILIES.index(f) if f in FAMILIES else 9, f)):
        diff, se, low, high = _welch(own, by_family[family])
        out.append(FamilyExcess(family, diff, se, low, high, len(by_family[family]), len(own)))
    return FamilyView(tuple(out), _mark(out))
