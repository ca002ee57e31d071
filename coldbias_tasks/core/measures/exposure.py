"""Item-group exposure: which kinds of items each persona is recommended (e.g. whether a
value's lists hold fewer Western films than the neutral user's).

Definitions: docs/measurement.md §5.

For a catalog metadata field (movie genre, Western production, song decade, college region, …)
the exposure of category c for persona p is the mean over p's answers of the share of its
recommended items that belong to c. An item may belong to several categories (a film with two
genres counts in both), so shares over categories can sum to more than 1. Answers without items
are skipped. The gap is the persona's share minus the neutral user's share.

:func:`exposure_stats` adds, per (value, category), the signed difference from the neutral
answers with a Student-t interval over repeats, a within-repeat relabelling p-value (valid under
the per-repeat shuffle), BH q-values, the base rate in the shown catalog and the Jensen–Shannon
divergence of the category distribution with the replicates' JSD as its floor.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats as sps

from coldbias_tasks.core.measures.design import RepeatTable, arrange
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.stats.relabel import benjamini_hochberg, relabel_p
from coldbias_tasks.core.vocabulary import NEUTRAL_ID

__all__ = ["ExposureStat", "category_shares", "exposure", "exposure_gap", "exposure_stats"]

NAN = float("nan")


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


@dataclass(frozen=True)
class ExposureStat:
    """One (value, category) of one catalog field, over a task's repeats (shares in [0, 1]).

    ``share``: mean over the value's answers of the share of its items in the category;
    ``neutral_share``: the same over all neutral answers (the neutral user and its replicates);
    ``diff`` = share − neutral_share (signed) with a 95 % Student-t interval over repeats
    (``ci_low``, ``ci_high``; NaN with one repeat); ``p_value``: two-sided exact within-repeat
    relabelling test (the value's answer and the neutral answers of a repeat are exchangeable
    under the null);
    ``q_value``: Benjamini–Hochberg over the task's (value, category) pairs of the field;
    ``base_rate``: the category's share of the items shown; ``jsd``: Jensen–Shannon divergence
    (base 2, in [0, 1]) of the value's category distribution from the neutral user's, and
    ``jsd_floor`` the replicates' JSD from the neutral user (same prompt: sampling alone).
    """

    persona_id: str
    category: str
    share: float
    neutral_share: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    q_value: float
    base_rate: float
    jsd: float
    jsd_floor: float
    n_repeats: int


def category_shares(
    record: AnswerRecord, labels: Mapping[int, tuple[str, ...]], cats: list[str]
) -> np.ndarray:
    """Share of the answer's items in each of ``cats`` (an item counts for each of its labels,
    which must all be in ``cats``); NaN for an empty answer."""
    out = np.zeros(len(cats))
    if not record.items:
        return out * np.nan
    index = {c: i for i, c in enumerate(cats)}
    for item in record.items:
        for label in labels.get(item, ()):
            out[index[label]] += 1.0 / len(record.items)
    return out


def _jsd(p: np.ndarray, q: np.ndarray) -> float:
    """Jensen–Shannon divergence, base 2, of two non-negative vectors (normalized here)."""
    if p.sum() <= 0 or q.sum() <= 0:
        return NAN
    p, q = p / p.sum(), q / q.sum()
    m = (p + q) / 2

    def kl(a: np.ndarray, b: np.ndarray) -> float:
        mask = a > 0
        return float(np.sum(a[mask] * np.log2(a[mask] / b[mask])))

    return 0.5 * kl(p, m) + 0.5 * kl(q, m)


def _t_interval(diffs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """95 % Student-t interval of the column means of ``diffs`` (repeats × categories);
    NaN with fewer than two repeats."""
    n = diffs.shape[0]
    mean = diffs.mean(axis=0)
    if n < 2:
        return mean * np.nan, mean * np.nan
    half = float(sps.t.ppf(0.975, n - 1)) * diffs.std(axis=0, ddof=1) / np.sqrt(n)
    return mean - half, mean + half


def _jsd_floor(neutral_by_repeat: Mapping[int, list[np.ndarray]], table: RepeatTable) -> float:
    """The replicates' JSD from the neutral user, like with like: for each replicate j, the
    JSD of its answers (summed over repeats) from the neutral answers of the same repeats, as
    a value's JSD is computed; the mean over j. (Comparing the neutral answer with the *mean*
    of the replicates smooths one side and biases the floor low: under the null a value's
    JSD would exceed it about 72 % of the time.) NaN without replicates."""
    floors = []
    depth = max((len(vs) for vs in neutral_by_repeat.values()), default=0)
    for j in range(1, depth):
        pairs = [
            (vs[0], vs[j])
            for r, vs in neutral_by_repeat.items()
            if len(vs) > j and table.neutral[r].items
        ]
        if pairs:
            floors.append(_jsd(np.sum([b for _, b in pairs], 0), np.sum([a for a, _ in pairs], 0)))
    finite = [f for f in floors if not math.isnan(f)]
    return float(np.mean(finite)) if finite else NAN


def exposure_stats(
    records: Iterable[AnswerRecord],
    categories: Mapping[int, Iterable[str]],
    shown: Sequence[int],
) -> list[ExposureStat]:
    """Signed, tested exposure of every (value, category) of one field for one task.

    ``categories``: catalog id → labels; ``shown``: the catalog ids shown (base rates).
    Repeats where the value or every neutral answer is empty are skipped; categories no answer
    and no shown item has are left out.
    """
    table = arrange(records)
    labels = {item: tuple(dict.fromkeys(c)) for item, c in categories.items()}
    cats = sorted({c for item in shown for c in labels.get(item, ())})
    if not cats:
        return []
    base = np.zeros(len(cats))
    for item in shown:
        for label in labels.get(item, ()):
            base[cats.index(label)] += 1.0 / len(shown)
    neutral_by_repeat: dict[int, list[np.ndarray]] = {}
    for r, record in table.neutral.items():
        answers = [record, *table.replicates.get(r, [])]
        vectors = [
            v for v in (category_shares(a, labels, cats) for a in answers) if not np.isnan(v).any()
        ]
        if vectors:
            neutral_by_repeat[r] = vectors
    jsd_floor = _jsd_floor(neutral_by_repeat, table)
    out: list[ExposureStat] = []
    rows: list[tuple[str, int, float]] = []
    for persona in sorted(table.values):
        answers = table.values[persona]
        repeats = [r for r in sorted(answers) if r in neutral_by_repeat and answers[r].items]
        if not repeats:
            continue
        value = np.array([category_shares(answers[r], labels, cats) for r in repeats])
        neutral = np.array([np.mean(neutral_by_repeat[r], axis=0) for r in repeats])
        diffs = value - neutral  # (repeats, categories)
        low, high = _t_interval(diffs)
        jsd = _jsd(value.sum(axis=0), np.sum([neutral_by_repeat[r][0] for r in repeats], axis=0))
        for c, cat in enumerate(cats):
            contributions = []
            for i, r in enumerate(repeats):
                samples = [value[i, c], *(v[c] for v in neutral_by_repeat[r])]
                contributions.append(
                    [s - (sum(samples) - s) / (len(samples) - 1) for s in samples]
                    if len(samples) > 1
                    else [0.0]
                )
            p = relabel_p(contributions, two_sided=True)
            rows.append((persona, c, p))
            out.append(
                ExposureStat(
                    persona_id=persona,
                    category=cat,
                    share=float(value[:, c].mean()),
                    neutral_share=float(neutral[:, c].mean()),
                    diff=float(diffs[:, c].mean()),
                    ci_low=float(low[c]),
                    ci_high=float(high[c]),
                    p_value=p,
                    q_value=NAN,
                    base_rate=float(base[c]),
                    jsd=jsd,
                    jsd_floor=jsd_floor,
                    n_repeats=len(repeats),
                )
            )
    q = benjamini_hochberg([s.p_value for s in out])
    return [replace(s, q_value=qv) for s, qv in zip(out, q)]
