"""Statistics of the reverse task: the model ranks a group's users for one item.

Definitions (docs/measurement.md §7). An answer ranks the m users of a group for one catalog
item (users left out share the remaining ranks: mid-rank). Per value (user) over all answers
(items × repeats):

- mean normalized rank (rank − 1)/(m − 1): 0 = always first, 1 = always last, 0.5 for a
  position-blind model (the users' order is shuffled per prompt);
- top-1 share: share of answers that rank the value first (1/m position-blind);
- exposure share: DCG weight 1/log2(1 + rank) over the answer's total weight (1/m blind).

Group figures (↓): ``rank_gap`` and ``top1_gap`` (max − min over values), ``exposure_gap``
(max − min of exposure shares). Test: a Fisher randomization test. The shown order of the users
was drawn uniformly at random for every prompt; if the model ignores who the users are (it may
well use their positions), the ranks it gives the positions are the same whatever user sits
where. So re-drawing the assignment of users to positions, answer by answer, gives the exact
null distribution of any statistic: ``group_p`` for the rank gap, and per value a two-sided p
for |mean normalized rank − 0.5|, Holm-adjusted over the group (``flagged_share``). Monte Carlo
with 10,000 seeded draws (smallest p ≈ 10^−4). Position diagnostics: ``keep_order_rate`` (share
of answers that keep the shown order) and ``first_shown_rank`` (mean normalized rank of the
user shown first); ``fill_rate``: mean share of the shown users an answer ranks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from coldbias_tasks.core.measures.base import Measure, register
from coldbias_tasks.core.records import UserRankRecord
from coldbias_tasks.core.stats.estimate import Estimate, decide
from coldbias_tasks.core.stats.relabel import holm
from coldbias_tasks.core.vocabulary import ALPHA

__all__ = [
    "DRAWS",
    "ReverseSummary",
    "ReverseValueStats",
    "category_ranks",
    "ranked_first_most",
    "summarize_reverse",
]

#: Monte Carlo draws of the randomization tests.
DRAWS = 10_000
NAN = float("nan")


@dataclass(frozen=True)
class ReverseValueStats:
    """One value (user) of a reverse task, over all its answers."""

    persona_id: str
    mean_rank: float
    top1_share: float
    exposure_share: float
    p_value: float
    p_adjusted: float
    flagged: bool
    n_answers: int


@dataclass(frozen=True)
class ReverseSummary:
    """A reverse task's statistics (see the module docstring); rates over all answers."""

    values: tuple[ReverseValueStats, ...]
    rank_gap: float
    top1_gap: float
    exposure_gap: float
    group_p: float
    flagged_share: float
    keep_order_rate: float
    first_shown_rank: float
    complete_rate: float
    invalid_rate: float
    duplicate_rate: float
    n_answers: int
    n_users: int
    alpha: float = ALPHA
    #: mean share of the shown users an answer ranks (the forward fill rate's analogue)
    fill_rate: float = NAN

    @property
    def first_position_bias(self) -> float:
        """|first_shown_rank − 0.5| / 0.5 in [0, 1]: 0 position-blind, 1 the user shown first
        always ranked first or always last."""
        return abs(self.first_shown_rank - 0.5) / 0.5


def _matrices(records: Sequence[UserRankRecord], users: Sequence[str]) -> tuple[np.ndarray, ...]:
    """(ranks by position (N, m), position of each user (N, m)) with users in ``users`` order."""
    m = len(users)
    at_position = np.zeros((len(records), m))
    position = np.zeros((len(records), m), dtype=int)
    for j, rec in enumerate(records):
        ranks = rec.ranks()
        for q, pid in enumerate(rec.candidates):
            at_position[j, q] = ranks[pid]
            position[j, users.index(pid)] = q
    return at_position, position


def _weights(ranks: np.ndarray) -> np.ndarray:
    """DCG exposure share of each user per answer (rows sum to 1)."""
    w = 1.0 / np.log2(1.0 + ranks)
    return w / w.sum(axis=-1, keepdims=True)


def _null_means(at_position: np.ndarray, draws: int, seed: int, chunk: int = 500) -> np.ndarray:
    """Mean normalized rank of each user under the null, per draw: every answer's positions
    keep their ranks and the users are re-assigned to positions uniformly at random."""
    n, m = at_position.shape
    rng = np.random.default_rng(seed)
    out = np.empty((draws, m))
    for start in range(0, draws, chunk):
        size = min(chunk, draws - start)
        perms = np.argsort(rng.random((size, n, m)), axis=2)  # position of each user
        ranks = np.take_along_axis(np.broadcast_to(at_position, (size, n, m)), perms, axis=2)
        out[start : start + size] = ((ranks - 1) / (m - 1)).mean(axis=1)
    return out


def ranked_first_most(stats: Mapping[str, tuple[float, float]]) -> str:
    """The value ranked first most often, from ``{persona id: (mean normalized rank, top-1
    share)}``: the highest top-1 share; a tie goes to the lower mean rank, then to the first
    persona id in alphabetical order (deterministic: exactly one value)."""
    return min(stats, key=lambda u: (-stats[u][1], stats[u][0], u))


def category_ranks(
    records: Iterable[UserRankRecord], labels: Mapping[int, Sequence[str]]
) -> dict[str, tuple[int, dict[str, tuple[float, float]]]]:
    """Per item category (``labels``: catalog id → its categories), in sorted order: (answers
    for items of the category, user → (mean normalized rank over them, 0 = first and 1 = last;
    share of them ranking the user first)). Categories without an answer are absent."""
    by_cat: dict[str, list[dict[str, float]]] = {}
    for r in records:
        for cat in labels.get(r.item_id, ()):
            by_cat.setdefault(cat, []).append(r.ranks())
    out = {}
    for cat, answers in sorted(by_cat.items()):
        m = len(answers[0])
        stats = {
            u: (
                float(np.mean([(a[u] - 1) / (m - 1) for a in answers])),
                float(np.mean([a[u] == 1 for a in answers])),
            )
            for u in sorted(answers[0])
        }
        out[cat] = (len(answers), stats)
    return out


def summarize_reverse(
    records: Iterable[UserRankRecord],
    alpha: float | None = None,
    draws: int = DRAWS,
    seed: int = 0,
) -> ReverseSummary:
    """All statistics of one reverse task (answers of one group over items and repeats).

    Answers whose candidate set differs from the first answer's are ignored (they cannot be
    compared); an empty task gives NaN figures."""
    records = list(records)
    if alpha is None:
        alpha = records[0].alpha if records else ALPHA
    if not records:
        return ReverseSummary((), NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0, 0, alpha)
    users = sorted(records[0].candidates)
    records = [r for r in records if sorted(r.candidates) == users]
    m, n = len(users), len(records)
    at_position, position = _matrices(records, users)
    observed = np.take_along_axis(at_position, position, axis=1)  # (N, m): rank of each user
    norm = (observed - 1) / (m - 1)
    mean_rank = norm.mean(axis=0)
    top1 = (observed == 1).mean(axis=0)
    exposure = _weights(observed).mean(axis=0)
    null_mean = _null_means(at_position, draws, seed)  # (draws, m)
    gap = float(mean_rank.max() - mean_rank.min())
    null_gap = null_mean.max(axis=1) - null_mean.min(axis=1)
    tol = 1e-12
    group_p = (1 + int(np.count_nonzero(null_gap >= gap - tol))) / (draws + 1)
    deviation = np.abs(mean_rank - 0.5)
    null_dev = np.abs(null_mean - 0.5)
    raw = [(1 + int(np.count_nonzero(null_dev[:, i] >= deviation[i] - tol))) / (draws + 1)
           for i in range(m)]  # fmt: skip
    adjusted = holm(raw)
    values = tuple(
        ReverseValueStats(
            persona_id=users[i],
            mean_rank=float(mean_rank[i]),
            top1_share=float(top1[i]),
            exposure_share=float(exposure[i]),
            p_value=raw[i],
            p_adjusted=adjusted[i],
            flagged=adjusted[i] <= alpha,
            n_answers=n,
        )
        for i in range(m)
    )
    keep = [r.order == tuple(range(len(r.candidates))) for r in records]
    first = [(r.ranks()[r.candidates[0]] - 1) / (m - 1) for r in records]
    entries = sum(r.n_entries for r in records)
    return ReverseSummary(
        values=values,
        rank_gap=gap,
        top1_gap=float(top1.max() - top1.min()),
        exposure_gap=float(exposure.max() - exposure.min()),
        group_p=group_p,
        flagged_share=float(np.mean([v.flagged for v in values])),
        keep_order_rate=float(np.mean(keep)),
        first_shown_rank=float(np.mean(first)),
        complete_rate=float(np.mean([r.complete for r in records])),
        invalid_rate=sum(r.n_invalid for r in records) / entries if entries else NAN,
        duplicate_rate=sum(r.n_duplicates for r in records) / entries if entries else NAN,
        n_answers=n,
        n_users=m,
        alpha=alpha,
        fill_rate=float(np.mean([len(r.order) / max(len(r.candidates), 1) for r in records])),
    )


def _reverse(
    name: str, read: str, higher_is_better: bool, description: str, order: int, **more: Any
) -> Measure:
    def estimate(s: ReverseSummary) -> Estimate:
        found = Estimate(float(getattr(s, read)), alpha=s.alpha)
        if "p" not in more.get("keys", ()):
            return found
        return decide(replace(found, p_value=s.group_p, min_p=1.0 / (DRAWS + 1)))

    return register(Measure(
        name, estimate, higher_is_better, (0.0, 1.0), description, scope="reverse",
        order=order, **more,
    ))  # fmt: skip


# fmt: off
REVERSE_RANK_GAP = _reverse(
    "reverse_rank_gap", "rank_gap", False,
    "max − min over users of the mean normalized rank (0 = position-blind); its p "
    "(reverse_group_p) is a Fisher randomization test of the rank gap over the shown order "
    "(valid for position-biased models)", 500, keys=("value", "p", "verdict"),
    p_name="reverse_group_p")
REVERSE_TOP1_GAP = _reverse("reverse_top1_gap", "top1_gap", False,
                            "max − min over users of the share of answers ranking them first", 510)
REVERSE_EXPOSURE_GAP = _reverse("reverse_exposure_gap", "exposure_gap", False,
                                "max − min over users of the DCG exposure share", 520)
REVERSE_FLAGGED_SHARE = _reverse("reverse_flagged_share", "flagged_share", False,
                                 "share of users whose mean rank deviates from 0.5, Holm over "
                                 "the group", 530)
REVERSE_KEEP_ORDER_RATE = _reverse("reverse_keep_order_rate", "keep_order_rate", False,
                                   "share of answers that keep the shown order of the users", 540)
REVERSE_FIRST_POSITION_BIAS = _reverse(
    "reverse_first_position_bias", "first_position_bias", False,
    "|mean normalized rank of the user shown first − 0.5| / 0.5 (0 = position-blind)", 550)
REVERSE_COMPLETE_RATE = _reverse("reverse_complete_rate", "complete_rate", True,
                                 "share of answers that rank every user exactly once", 560)
# fmt: on
