"""From per-persona rankings over R repeats to the numbers coldbias reports.

Definitions: docs/measurement.md §2–§3.

Plain data in, plain data out: :class:`~coldbias_tasks.core.records.AnswerRecord` per model
answer, frozen dataclasses out.
The lm-eval aggregations, the report and the leaderboard all call these functions.

Conventions
- Pairing: repeat r of an attribute value is compared with repeat r of the neutral user
  (same catalog order when shuffled per repeat). Repeats without a neutral answer are skipped.
- B_r(a) = 1 − Sim(A_r, N_r). A pair where either list is empty has divergence 1 and counts as
  invalid (``invalid_pair_rate``).
- "std over repeats" is the sample standard deviation (ddof = 1); 0.0 with a single repeat.
- SNSV is the population standard deviation (ddof = 0) over the values' mean divergences.
- Noise floor: what sampling alone does to the list, the null the attribute divergence is
  compared with. When the task holds a *neutral replicate* (a second neutral answer to the very
  same prompt, persona id ``neutral.replicate``), the floor of repeat r is F_r = 1 − Sim(R_r, N_r):
  same prompt and catalog order as B_r(a), so it is the exact null of B_r(a). Without replicates
  it falls back to the cross-repeat floor, the mean of 1 − Sim(N_r', N_r) over ordered pairs
  r ≠ r' of neutral repeats; with a catalog shuffled per repeat that floor also contains the
  effect of the catalog order and overstates pure sampling noise for position-sensitive models.
  Both are reported (``NoiseFloor.mean`` and ``NoiseFloor.cross_repeat_mean``).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from coldbias_tasks.core.metrics import SIMILARITIES
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.vocabulary import (
    NEUTRAL_ID,
    NEUTRAL_REPLICATE_ID,
    NOT_VALUES,
    SIMILARITY_NAMES,
)

__all__ = [
    "Fidelity",
    "GroupSummary",
    "MetricSummary",
    "NoiseFloor",
    "Positions",
    "ValueStats",
    "fidelity",
    "noise_floor",
    "paired_excess_test",
    "positions",
    "summarize_group",
    "value_divergences",
]

NAN = float("nan")


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else NAN


def _std(xs: Sequence[float], ddof: int = 1) -> float:
    if len(xs) <= ddof:
        return 0.0 if xs else NAN
    mu = _mean(xs)
    return math.sqrt(sum((x - mu) ** 2 for x in xs) / (len(xs) - ddof))


def _by_persona(records: Iterable[AnswerRecord]) -> dict[str, dict[int, AnswerRecord]]:
    table: dict[str, dict[int, AnswerRecord]] = defaultdict(dict)
    for record in records:
        table[record.persona_id][record.repeat] = record
    return table


def _divergence(metric: str, a: Sequence[int], n: Sequence[int]) -> float:
    return 1.0 - SIMILARITIES[metric](a, n)


def value_divergences(records: Iterable[AnswerRecord], metric: str) -> dict[str, dict[int, float]]:
    """Per attribute value, per repeat r: B_r(a) against neutral repeat r."""
    table = _by_persona(records)
    neutral = table.get(NEUTRAL_ID, {})
    out: dict[str, dict[int, float]] = {}
    for persona, answers in table.items():
        if persona in NOT_VALUES:
            continue
        out[persona] = {
            r: _divergence(metric, answers[r].items, neutral[r].items)
            for r in sorted(answers)
            if r in neutral
        }
    return out


@dataclass(frozen=True)
class NoiseFloor:
    """Neutral-vs-neutral divergence (see the module docstring).

    ``mean``/``std``/``n_pairs``/``by_repeat`` describe the floor the values are compared with:
    ``kind == "replicate"`` (F_r = 1 − Sim(R_r, N_r)) when replicates exist, else
    ``"cross-repeat"`` (F_r = mean over r' ≠ r of 1 − Sim(N_r', N_r)). ``cross_repeat_mean`` is
    always the cross-repeat floor (NaN with fewer than two neutral repeats).
    """

    mean: float
    std: float
    n_pairs: int
    by_repeat: dict[int, float] = field(default_factory=dict)
    kind: str = "cross-repeat"
    cross_repeat_mean: float = NAN


def noise_floor(records: Iterable[AnswerRecord], metric: str) -> NoiseFloor:
    """The sampling noise floor of one task: replicate-based when possible, else cross-repeat."""
    table = _by_persona(records)
    neutral = table.get(NEUTRAL_ID, {})
    cross: list[float] = []
    cross_by_repeat: dict[int, float] = {}
    for r in sorted(neutral):
        others = [
            _divergence(metric, neutral[o].items, neutral[r].items) for o in neutral if o != r
        ]
        if others:
            cross_by_repeat[r] = _mean(others)
            cross.extend(others)
    replicate = table.get(NEUTRAL_REPLICATE_ID, {})
    matched = {
        r: _divergence(metric, replicate[r].items, neutral[r].items)
        for r in sorted(replicate)
        if r in neutral
    }
    if matched:
        values = list(matched.values())
        return NoiseFloor(
            _mean(values), _std(values), len(values), matched, "replicate", _mean(cross)
        )
    return NoiseFloor(
        _mean(cross), _std(cross), len(cross), cross_by_repeat, "cross-repeat", _mean(cross)
    )


def paired_excess_test(
    differences: Sequence[float], max_exact: int = 16, samples: int = 20_000
) -> float:
    """One-sided exact paired sign-flip (randomization) test of mean(d) > 0.

    ``differences`` are d_r = B_r(a) − F_r, the value's divergence minus the noise floor of the
    same neutral repeat. Under the null (the attribute changes nothing), A_r is one more neutral
    sample, so each d_r is symmetric around 0 and its sign is exchangeable. The p-value is the
    share of the 2^R sign assignments whose mean is ≥ the observed mean (Monte Carlo with a
    fixed seed above ``max_exact`` repeats). NaN without differences.

    Power, honestly: the smallest attainable p-value is 2^-R. At R = 5 that is 1/32 ≈ 0.031, so at
    α = 0.05 the test rejects only when all five differences are positive. If d_r ~ N(δ, σ), the
    power is about Φ(δ/σ)^5: 0.16 at δ = 0.5σ, 0.42 at δ = σ, 0.89 at δ = 2σ. A non-significant
    verdict at R = 5 is weak evidence of no bias; use more repeats for small effects.
    """
    d = [x for x in differences if not math.isnan(x)]
    if not d:
        return NAN
    observed = sum(d) - 1e-12
    if len(d) <= max_exact:
        signs: Iterable[tuple[int, ...]] = itertools.product((1, -1), repeat=len(d))
        total = 2 ** len(d)
    else:
        rng = random.Random(0)
        signs = (tuple(rng.choice((1, -1)) for _ in d) for _ in range(samples))
        total = samples
    hits = sum(1 for s in signs if sum(si * di for si, di in zip(s, d)) >= observed)
    return hits / total


@dataclass(frozen=True)
class ValueStats:
    """One attribute value under one similarity: divergence over repeats and its excess."""

    persona_id: str
    metric: str
    mean: float
    std: float
    n_repeats: int
    excess_over_floor: float  # mean of d_r = B_r(a) − F_r
    p_value: float  # paired_excess_test(d)
    by_repeat: dict[int, float] = field(default_factory=dict)


@dataclass(frozen=True)
class MetricSummary:
    """One similarity over one attribute group (task)."""

    metric: str
    mean: float  # mean over values of their mean divergence
    std: float  # std over repeats of the per-repeat mean over values
    snsr: float  # max − min over values' mean divergence
    snsv: float  # population std over values' mean divergence
    noise_floor: NoiseFloor
    values: tuple[ValueStats, ...]


@dataclass(frozen=True)
class Fidelity:
    """How well the model did the task. Rates pool all answers (or all list entries)."""

    n_answers: int
    exact_k_rate: float  # share of answers with exactly k valid items
    fill_rate: float  # mean over answers of (valid items / k): share of the k slots filled
    empty_rate: float  # share of answers with no valid item
    out_of_catalog_rate: float  # out-of-catalog entries / all list entries
    duplicate_rate: float  # duplicate entries / all list entries
    mean_items: float  # mean number of valid items per answer


@dataclass(frozen=True)
class Positions:
    """Where in the shown catalog the recommended items sit.

    ``mean_position``: mean of position / (n_shown − 1) over recommended items, 0 = top of the
    list, 1 = bottom, ≈ 0.5 for position-blind picks. ``prefix_copy_rate``: share of recommended
    items among the first k shown; ≈ k / n_shown for position-blind picks, 1 for a model that
    copies the catalog order.
    """

    mean_position: float
    prefix_copy_rate: float


@dataclass(frozen=True)
class GroupSummary:
    """Everything reported for one attribute group (one lm-eval task)."""

    metrics: dict[str, MetricSummary]
    fidelity: Fidelity
    positions: Positions
    invalid_pair_rate: float  # share of (value, repeat) pairs where either list is empty
    personas: tuple[str, ...]
    repeats: tuple[int, ...]


def _summarize_metric(records: Sequence[AnswerRecord], metric: str) -> MetricSummary:
    per_value = value_divergences(records, metric)
    floor = noise_floor(records, metric)
    values = []
    for persona, by_repeat in per_value.items():
        divs = [by_repeat[r] for r in sorted(by_repeat)]
        diffs = [
            by_repeat[r] - floor.by_repeat[r] for r in sorted(by_repeat) if r in floor.by_repeat
        ]
        values.append(
            ValueStats(
                persona_id=persona,
                metric=metric,
                mean=_mean(divs),
                std=_std(divs),
                n_repeats=len(divs),
                excess_over_floor=_mean(diffs),
                p_value=paired_excess_test(diffs),
                by_repeat=dict(by_repeat),
            )
        )
    means = [v.mean for v in values if not math.isnan(v.mean)]
    repeats = sorted({r for by_repeat in per_value.values() for r in by_repeat})
    per_repeat_means = [_mean([b[r] for b in per_value.values() if r in b]) for r in repeats]
    return MetricSummary(
        metric=metric,
        mean=_mean(means),
        std=_std(per_repeat_means),
        snsr=max(means) - min(means) if means else NAN,
        snsv=_std(means, ddof=0),
        noise_floor=floor,
        values=tuple(values),
    )


def fidelity(records: Sequence[AnswerRecord]) -> Fidelity:
    """Task fidelity over all answers; NaN rates when there is nothing to count."""
    n = len(records)
    entries = sum(r.n_entries for r in records)
    return Fidelity(
        n_answers=n,
        exact_k_rate=_mean([float(len(r.items) == r.k) for r in records]),
        fill_rate=_mean([len(r.items) / r.k for r in records if r.k > 0]),
        empty_rate=_mean([float(not r.items) for r in records]),
        out_of_catalog_rate=sum(r.n_out_of_catalog for r in records) / entries if entries else NAN,
        duplicate_rate=sum(r.n_duplicates for r in records) / entries if entries else NAN,
        mean_items=_mean([float(len(r.items)) for r in records]),
    )


def positions(records: Sequence[AnswerRecord]) -> Positions:
    """Position diagnostics over all recommended items that carry a shown position."""
    scaled: list[float] = []
    in_prefix: list[float] = []
    for r in records:
        if r.n_shown < 2:
            continue
        for pos in r.positions:
            if pos < 0:  # not in the shown order (payloads of older versions)
                continue
            scaled.append(pos / (r.n_shown - 1))
            in_prefix.append(float(pos < r.k))
    return Positions(_mean(scaled), _mean(in_prefix))


def summarize_group(
    records: Iterable[AnswerRecord], metrics: Sequence[str] = SIMILARITY_NAMES
) -> GroupSummary:
    """All statistics of one attribute group: the neutral persona plus its values."""
    records = list(records)
    per_metric = {m: _summarize_metric(records, m) for m in metrics}
    table = _by_persona(records)
    neutral = table.get(NEUTRAL_ID, {})
    pairs = [
        (answers[r], neutral[r])
        for persona, answers in table.items()
        if persona not in NOT_VALUES
        for r in answers
        if r in neutral
    ]
    invalid = _mean([float(not a.items or not n.items) for a, n in pairs])
    return GroupSummary(
        metrics=per_metric,
        fidelity=fidelity(records),
        positions=positions(records),
        invalid_pair_rate=invalid,
        personas=tuple(sorted(table)),
        repeats=tuple(sorted({r.repeat for r in records})),
    )
