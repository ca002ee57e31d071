"""Item-group exposure: which kinds of items each persona is recommended (paper H2/H4).

Definitions: docs/measurement.md §5.

For a catalog metadata field (movie genre, Western production, song decade, college region, …)
the exposure of category c for persona p is the mean over p's answers of the share of its
recommended items that belong to c. An item may belong to several categories (a film with two
genres counts in both), so shares over categories can sum to more than 1. Answers without items
are skipped. The gap is the persona's share minus the neutral user's share.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.vocabulary import NEUTRAL_ID

__all__ = ["exposure", "exposure_gap"]


def exposure(
    records: Iterable[AnswerRecord], categories: Mapping[int, Iterable[str]]
) -> dict[str, dict[str, float]]:
    """persona → category → mean share of recommended items in that category (0–1)."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    answers: dict[str, int] = defaultdict(int)
    labels = {item: tuple(dict.fromkeys(cats)) for item, cats in categories.items()}
    all_labels = sorted({c for cats in labels.values() for c in cats})
    for record in records:
        if not record.items:
            continue
        answers[record.persona_id] += 1
        share = 1.0 / len(record.items)
        for item in record.items:
            for label in labels.get(item, ()):
                sums[record.persona_id][label] += share
    return {
        persona: {c: sums[persona][c] / n for c in all_labels} for persona, n in answers.items()
    }


def exposure_gap(shares: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """persona → category → share minus the neutral share (empty without a neutral persona)."""
    neutral = shares.get(NEUTRAL_ID)
    if neutral is None:
        return {}
    return {
        persona: {c: s - neutral.get(c, 0.0) for c, s in by_cat.items()}
        for persona, by_cat in shares.items()
        if persona != NEUTRAL_ID
    }
