"""The seed paper's figures replayed on imported runs (docs/seed-study.md), following the
study's own ``result.py`` and ``get_overall_stats.py`` conventions: per value phrase (a phrase
used by two groups, e.g. "an American", counts once), 1 − Sim(value, neutral) per seed skipping
empty value answers, mean and population std over seeds, then the mean of those over phrases
(:func:`paper_figure`). Also the seed-level figures the design statistics
(:mod:`coldbias_tasks.analysis.seed_study.statistics`) test: :func:`seed_means`,
:func:`coupling`. A seed is a repeat of the imported run (:mod:`.importer`).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from coldbias_tasks.analysis.run_data import ModelResults, TaskData
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY, SIMILARITIES
from coldbias_tasks.core.vocabulary import NEUTRAL_ID, is_value_id

__all__ = [
    "STUDY_GROUP_ORDER",
    "PaperFigure",
    "by_seed",
    "coupling",
    "divergence",
    "domain_tasks",
    "paper_figure",
    "phrase_key",
    "seed_means",
]

NAN = float("nan")


def phrase_key(persona_id: str) -> str:
    """The study keys its figures by value phrase: "country.american" and
    "continent.american" are one key ("american")."""
    return persona_id.split(".", 1)[-1]


def divergence(metric: str, a: Sequence[int], b: Sequence[int]) -> float:
    """1 − similarity ``metric`` (a registered similarity name) of two item lists, in [0, 1]."""
    return 1.0 - SIMILARITIES[metric](a, b)


def domain_tasks(model: ModelResults, domain: str, variant: str = "plain") -> list[TaskData]:
    """The model's tasks of one domain and variant (attribute groups), by name."""
    return [
        t for _, t in sorted(model.tasks.items()) if t.domain == domain and t.variant == variant
    ]


#: The study's group order (its sensitive_attributes.json); a phrase used by two groups keeps
#: the answer of the later one in its result.py ("an American": continent, "an Asian": race).
STUDY_GROUP_ORDER = ("country", "gender", "continent", "occupation", "race", "religion", "physics")


def by_seed(tasks: Iterable[TaskData]) -> tuple[dict[int, AnswerRecord], dict[str, dict]]:
    """(neutral by repeat, phrase key → repeat → value answer); a phrase in two groups keeps
    the answer of the group later in :data:`STUDY_GROUP_ORDER`, as the study's result.py."""
    neutral: dict[int, AnswerRecord] = {}
    values: dict[str, dict[int, AnswerRecord]] = defaultdict(dict)
    rank = {g: i for i, g in enumerate(STUDY_GROUP_ORDER)}
    for task in sorted(tasks, key=lambda t: rank.get(t.group, len(rank))):
        for r in task.records:
            if r.persona_id == NEUTRAL_ID:
                neutral[r.repeat] = r
            elif is_value_id(r.persona_id):
                values[phrase_key(r.persona_id)][r.repeat] = r
    return neutral, dict(values)


@dataclass(frozen=True)
class PaperFigure:
    """The paper's number for one model × domain: ``mean`` of the values' mean divergence,
    ``std`` the mean of their population std over seeds; ``n_values`` phrases, ``n_seeds``."""

    mean: float
    std: float
    n_values: int
    n_seeds: int


def paper_figure(tasks: Sequence[TaskData], metric: str = HEADLINE_SIMILARITY) -> PaperFigure:
    """Replay of the study's result.py + get_overall_stats.py on imported answers."""
    neutral, values = by_seed(tasks)
    means, stds = [], []
    for by_repeat in values.values():
        xs = [
            divergence(metric, by_repeat[r].items, neutral[r].items)
            for r in sorted(by_repeat)
            if r in neutral and by_repeat[r].items  # result.py skips empty value answers
        ]
        if xs:
            means.append(float(np.mean(xs)))
            stds.append(float(np.std(xs)))
    if not means:
        return PaperFigure(NAN, NAN, 0, len(neutral))
    return PaperFigure(float(np.mean(means)), float(np.mean(stds)), len(means), len(neutral))


def seed_means(tasks: Sequence[TaskData], metric: str = HEADLINE_SIMILARITY) -> dict[int, float]:
    """Per seed (repeat): the mean over phrases of D(V_s, N_s) (empty value answers skipped):
    the seed-level figure whose mean over seeds is close to :func:`paper_figure`."""
    neutral, values = by_seed(tasks)
    out = {}
    for r in sorted(neutral):
        xs = [
            divergence(metric, v[r].items, neutral[r].items)
            for v in values.values()
            if r in v and v[r].items
        ]
        if xs:
            out[r] = float(np.mean(xs))
    return out


def coupling(
    tasks: Sequence[TaskData], metric: str = HEADLINE_SIMILARITY
) -> tuple[float, float, float]:
    """(same-seed D(V_s, N_s), cross-seed D(V_s, N_t), cross-seed neutral floor D(N_s, N_t)),
    means over values and seed pairs. Same-seed below cross-seed means the shared request
    seed couples a value's answer to its seed's neutral answer."""
    neutral, values = by_seed(tasks)
    same, cross = [], []
    for v in values.values():
        for s, t in itertools.product(sorted(v), sorted(neutral)):
            (same if s == t else cross).append(divergence(metric, v[s].items, neutral[t].items))
    floor = [
        divergence(metric, neutral[s].items, neutral[t].items)
        for s, t in itertools.permutations(sorted(neutral), 2)
    ]
    return tuple(float(np.mean(x)) if x else NAN for x in (same, cross, floor))  # type: ignore[return-value]
