"""A task's answers arranged for the measures: by repeat, sentence, value and phrasing.

Pairing: repeat r of an attribute value is compared with repeat r of the neutral user (same
catalog order); repeats without a neutral answer are skipped. B_r(a) = D(A_r, N_r) =
1 − Sim(A_r, N_r) (the raw, paper-comparable divergence of one similarity). "std over repeats"
is the sample standard deviation (ddof = 1); 0.0 with a single repeat.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.similarities import SIMILARITIES
from coldbias_tasks.core.vocabulary import NEUTRAL_ID, is_control_id, is_replicate_id

__all__ = ["RepeatTable", "arrange", "divergence", "mean", "std"]

NAN = float("nan")


def mean(xs: Sequence[float]) -> float:
    """Arithmetic mean; NaN for no values."""
    return sum(xs) / len(xs) if xs else NAN


def std(xs: Sequence[float], ddof: int = 1) -> float:
    """Standard deviation with ``ddof``; 0.0 when too few values, NaN for none."""
    if len(xs) <= ddof:
        return 0.0 if xs else NAN
    mu = mean(xs)
    return math.sqrt(sum((x - mu) ** 2 for x in xs) / (len(xs) - ddof))


def divergence(similarity: str, a: Sequence[int], n: Sequence[int]) -> float:
    """1 − Sim(a, n) of the registered ``similarity``, in [0, 1]."""
    return 1.0 - SIMILARITIES[similarity](a, n)


@dataclass(frozen=True)
class RepeatTable:
    """A task's answers by repeat: ``neutral[r]``, ``replicates[r]`` (sorted by persona id),
    ``values[sentence][r]`` (a value in one phrasing: the unit of the paper-comparable
    statistics) and ``phrased[value][phrasing][r]`` (the same answers by value and phrasing:
    the headline's layout). Control personas of task version 3 are set aside."""

    neutral: dict[int, AnswerRecord]
    replicates: dict[int, list[AnswerRecord]]
    values: dict[str, dict[int, AnswerRecord]]
    phrased: dict[str, dict[int, dict[int, AnswerRecord]]] = field(default_factory=dict)

    def neutrals(self) -> dict[int, list[AnswerRecord]]:
        """Per repeat with a neutral answer: the neutral answer and its replicates."""
        return {r: [n, *self.replicates.get(r, [])] for r, n in sorted(self.neutral.items())}

    @property
    def n_replicates(self) -> int:
        """Replicates per repeat (the smallest count over repeats with a neutral answer)."""
        return min((len(self.replicates.get(r, [])) for r in self.neutral), default=0)


def arrange(records: Iterable[AnswerRecord]) -> RepeatTable:
    """Sort a task's answers into a :class:`RepeatTable` (a later duplicate of the same
    (persona, repeat) replaces an earlier one)."""
    neutral: dict[int, AnswerRecord] = {}
    replicas: dict[int, dict[str, AnswerRecord]] = defaultdict(dict)
    values: dict[str, dict[int, AnswerRecord]] = defaultdict(dict)
    phrased: dict[str, dict[int, dict[int, AnswerRecord]]] = defaultdict(lambda: defaultdict(dict))
    for record in records:
        if record.persona_id == NEUTRAL_ID:
            neutral[record.repeat] = record
        elif is_replicate_id(record.persona_id):
            replicas[record.repeat][record.persona_id] = record
        elif is_control_id(record.persona_id):
            continue  # task version 3's control personas: no part of version 4's statistics
        else:
            values[record.persona_id][record.repeat] = record
            phrased[record.value][record.phrasing][record.repeat] = record
    replicates = {r: [found[p] for p in sorted(found)] for r, found in replicas.items()}
    by_value = {v: dict(by_phrasing) for v, by_phrasing in phrased.items()}
    return RepeatTable(neutral, replicates, dict(values), by_value)
