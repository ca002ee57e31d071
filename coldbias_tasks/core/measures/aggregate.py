"""From per-persona rankings over R repeats to the numbers coldbias reports.

Definitions: docs/measurement.md §2–§3. Plain data in, plain data out:
:class:`~coldbias_tasks.core.records.AnswerRecord` per model answer, frozen dataclasses out.
The lm-eval aggregations, the report and the leaderboard all call :func:`summarize_answers`.

Conventions
- Pairing: repeat r of an attribute value is compared with repeat r of the neutral user (same
  catalog order). Repeats without a neutral answer are skipped.
- B_r(a) = D(A_r, N_r) = 1 − Sim(A_r, N_r) (the raw, paper-comparable divergence). A pair where
  either list is empty has divergence 1 and counts as invalid (``invalid_pair_rate``).
- Noise floor F_r: the mean over the repeat's neutral replicates N'_rj (second, third, ...
  answers to the very same prompt) of D(N'_rj, N_r); the exact null of B_r(a). Without
  replicates it falls back to the cross-repeat floor (neutral repeats r ≠ r'), which with a
  per-repeat shuffle also contains the catalog-order effect. Both are reported.
- Excess d_r(a) = B_r(a) − F_r: zero in expectation when the attribute changes nothing.
- Per-value test (needs ≥ 1 replicate): within repeat r the value's answer and the M + 1
  neutral answers are exchangeable under the null; the statistic is, summed over repeats, the
  mean divergence of the sample labelled "value" to the others minus the mean divergence among
  the others, and the p-value is exact over all (M + 2)^R labellings (smallest attainable p =
  (M + 2)^−R: 1/243 at R = 5, M = 1; 1/1024 at R = 5, M = 2). Holm over the group's values.
- Group (omnibus) test: within repeat r all answers of the task are exchangeable under the
  null that no value matters; which M + 1 of them are "the neutral ones" is relabelled
  uniformly; statistic: mean over values of their mean divergence to the neutral ones minus the
  mean divergence among the neutral ones, summed over repeats; Monte Carlo p with 20,000 seeded
  draws (smallest attainable p ≈ 5·10^−5) or exact when the labellings are few.
- "std over repeats" is the sample standard deviation (ddof = 1); 0.0 with a single repeat.
  SNSV is the population standard deviation (ddof = 0) over the values' mean divergences.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from coldbias_tasks.core.measures.determinism import replicates_identical, withheld
from coldbias_tasks.core.measures.disparity import PhrasingDisparity, disparity
from coldbias_tasks.core.measures.diversity import DiversitySummary, task_diversity
from coldbias_tasks.core.parsing.open_answers import Grounding, grounding
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.similarities.lists import SIMILARITIES
from coldbias_tasks.core.stats.relabel import holm, min_relabel_p, relabel_p
from coldbias_tasks.core.stats.series import mean_by_repeat
from coldbias_tasks.core.vocabulary import (
    ALPHA,
    NEUTRAL_ID,
    SIMILARITY_NAMES,
    is_control_id,
    is_replicate_id,
)

__all__ = [
    "AnswersSummary",
    "Fidelity",
    "MetricSummary",
    "NoiseFloor",
    "Positions",
    "RepeatTable",
    "ValueStats",
    "arrange",
    "fidelity",
    "noise_floor",
    "pooled_answers",
    "positions",
    "summarize_answers",
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


def _divergence(metric: str, a: Sequence[int], n: Sequence[int]) -> float:
    return 1.0 - SIMILARITIES[metric](a, n)


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


def value_divergences(records: Iterable[AnswerRecord], metric: str) -> dict[str, dict[int, float]]:
    """Per attribute value, per repeat r: B_r(a) against neutral repeat r."""
    table = records if isinstance(records, RepeatTable) else arrange(records)
    return {
        persona: {
            r: _divergence(metric, answers[r].items, table.neutral[r].items)
            for r in sorted(answers)
            if r in table.neutral
        }
        for persona, answers in table.values.items()
    }


@dataclass(frozen=True)
class NoiseFloor:
    """Neutral-vs-neutral divergence (see the module docstring).

    ``mean``/``std``/``n_pairs``/``by_repeat`` describe the floor the values are compared with:
    ``kind == "replicate"`` (F_r = mean_j D(N'_rj, N_r)) when replicates exist, else
    ``"cross-repeat"`` (F_r = mean over r' ≠ r of D(N_r', N_r)). ``cross_repeat_mean`` is always
    the cross-repeat floor (NaN with fewer than two neutral repeats).
    """

    mean: float
    std: float
    n_pairs: int
    by_repeat: dict[int, float] = field(default_factory=dict)
    kind: str = "cross-repeat"
    cross_repeat_mean: float = NAN


def noise_floor(records: Iterable[AnswerRecord], metric: str) -> NoiseFloor:
    """The sampling noise floor of one task: replicate-based when possible, else cross-repeat."""
    table = records if isinstance(records, RepeatTable) else arrange(records)
    neutral = table.neutral
    cross: list[float] = []
    cross_by_repeat: dict[int, float] = {}
    for r in sorted(neutral):
        others = [
            _divergence(metric, neutral[o].items, neutral[r].items) for o in neutral if o != r
        ]
        if others:
            cross_by_repeat[r] = _mean(others)
            cross.extend(others)
    matched = {
        r: _mean([_divergence(metric, rep.items, neutral[r].items) for rep in reps])
        for r, reps in sorted(table.replicates.items())
        if r in neutral and reps
    }
    if matched:
        values = list(matched.values())
        return NoiseFloor(
            _mean(values), _std(values), len(values), matched, "replicate", _mean(cross)
        )
    return NoiseFloor(
        _mean(cross), _std(cross), len(cross), cross_by_repeat, "cross-repeat", _mean(cross)
    )


def _matrix(metric: str, samples: Sequence[AnswerRecord]) -> np.ndarray:
    """D[i, j] = divergence of sample i's list from sample j's (diagonal 0)."""
    n = len(samples)
    out = np.zeros((n, n))
    for i, j in itertools.permutations(range(n), 2):
        out[i, j] = _divergence(metric, samples[i].items, samples[j].items)
    return out


def _value_contributions(d: np.ndarray) -> list[float]:
    """For each choice j of which sample is "the value": its mean divergence to the others
    minus the mean divergence among the others (ordered pairs)."""
    n = d.shape[0]
    out = []
    for j in range(n):
        rest = [i for i in range(n) if i != j]
        to_rest = d[j, rest].mean()
        inner = (
            d[np.ix_(rest, rest)].sum() / (len(rest) * (len(rest) - 1)) if len(rest) > 1 else 0.0
        )
        out.append(float(to_rest - inner))
    return out


def _group_contributions(d: np.ndarray, n_neutral: int) -> np.ndarray:
    """For every choice of which ``n_neutral`` samples are neutral (the true ones, the last
    ``n_neutral`` indices, first): mean over the others of their mean divergence to the
    neutral ones, minus the mean divergence among the neutral ones."""
    n = d.shape[0]
    true = tuple(range(n - n_neutral, n))
    subsets = [true, *(s for s in itertools.combinations(range(n), n_neutral) if s != true)]
    idx = np.array(subsets)  # (n_subsets, n_neutral)
    col = d.sum(axis=0)  # Σ_v D[v, n] over all v, per n
    within = d[idx[:, :, None], idx[:, None, :]].sum(axis=(1, 2))  # Σ_{n, n' ∈ S} D[n, n']
    cross = col[idx].sum(axis=1) - within  # Σ_{v ∉ S, n ∈ S} D[v, n]
    n_values = n - n_neutral
    pairs = n_neutral * (n_neutral - 1)
    return cross / (n_values * n_neutral) - (within / pairs if pairs else 0.0)


@dataclass(frozen=True)
class ValueStats:
    """One sentence (an attribute value in one phrasing; the value itself in runs of task
    version < 4) under one similarity.

    ``mean``/``std``: raw divergence B_r(a) over repeats; ``excess_over_floor``: mean of
    d_r = B_r(a) − F_r; ``p_value``: the per-value relabelling test (NaN without replicates);
    ``p_adjusted``: Holm over the group's values; ``flagged``: ``p_adjusted`` ≤ α.
    """

    persona_id: str
    metric: str
    mean: float
    std: float
    n_repeats: int
    excess_over_floor: float
    p_value: float
    p_adjusted: float = NAN
    flagged: bool = False
    by_repeat: dict[int, float] = field(default_factory=dict)
    excess_by_repeat: dict[int, float] = field(default_factory=dict)
    #: the value the sentence states (``gender.female``) and its phrasing index
    value: str = ""
    phrasing: int = 0


@dataclass(frozen=True)
class MetricSummary:
    """One similarity over one attribute group (task).

    ``mean``/``std``/``snsr``/``snsv``: raw divergence (paper-comparable); ``excess``: mean over
    values of their excess; ``group_p``: the omnibus test; ``flagged_share``: share of values
    flagged after Holm. ``min_value_p``: smallest per-value p these settings allow;
    ``min_adjusted_p``: the smallest Holm-adjusted p (values × ``min_value_p``);
    ``min_group_p``: the group test's smallest p. ``underpowered``: no value can be flagged at
    α with these settings (``min_adjusted_p`` > α, or no replicates). ``disparity``: the
    headline, the disparity between the values controlled for phrasing
    (:mod:`coldbias_tasks.core.measures.disparity`). ``withheld``: why excess, tests and verdicts
    are
    NaN (deterministic answers, :mod:`.determinism`), else "". Since task version 4.0 the
    "values" of the per-value statistics are sentences (a value in one phrasing).
    """

    metric: str
    mean: float
    std: float
    snsr: float
    snsv: float
    noise_floor: NoiseFloor
    values: tuple[ValueStats, ...]
    excess: float = NAN
    group_p: float = NAN
    flagged_share: float = NAN
    min_value_p: float = NAN
    min_adjusted_p: float = NAN
    min_group_p: float = NAN
    alpha: float = ALPHA
    disparity: PhrasingDisparity = field(default_factory=PhrasingDisparity)
    withheld: str = ""

    @property
    def underpowered(self) -> bool:
        return math.isnan(self.min_adjusted_p) or self.min_adjusted_p > self.alpha

    @property
    def by_repeat(self) -> dict[int, float]:
        """Per repeat, the mean over sentences of the raw divergence B_r(a) (repeats without
        a figure left out): the series of ``mean``."""
        return mean_by_repeat(v.by_repeat for v in self.values)

    @property
    def excess_by_repeat(self) -> dict[int, float]:
        """Per repeat, the mean over sentences of B_r(a) − F_r (empty when withheld): the
        series of ``excess``."""
        return mean_by_repeat(v.excess_by_repeat for v in self.values)


def _value_test(metric: str, table: RepeatTable, persona: str) -> tuple[float, list[int]]:
    """(p-value, choices per repeat) of the per-value test; NaN without replicates."""
    rows, choices = [], []
    answers = table.values[persona]
    for r in sorted(answers):
        reps = table.replicates.get(r, [])
        if r not in table.neutral or not reps:
            continue
        contributions = _value_contributions(_matrix(metric, [answers[r], table.neutral[r], *reps]))
        rows.append(contributions)
        choices.append(len(contributions))
    return (relabel_p(rows) if rows else NAN), choices


def _group_test(metric: str, table: RepeatTable) -> tuple[float, float]:
    """(p-value, smallest attainable p) of the omnibus test."""
    rows, choices = [], []
    for r in sorted(table.neutral):
        neutrals = [table.neutral[r], *table.replicates.get(r, [])]
        values = [a[r] for _, a in sorted(table.values.items()) if r in a]
        if not values:
            continue
        contributions = _group_contributions(_matrix(metric, [*values, *neutrals]), len(neutrals))
        rows.append(contributions)
        choices.append(len(contributions))
    if not rows:
        return NAN, NAN
    return relabel_p(rows, seed=17), min_relabel_p(choices)


def _summarize_metric(table: RepeatTable, metric: str, alpha: float) -> MetricSummary:
    per_value = value_divergences(table, metric)
    floor = noise_floor(table, metric)
    tested = {p: _value_test(metric, table, p) for p in per_value}
    raw_p = [tested[p][0] for p in per_value]
    adjusted = dict(zip(per_value, holm(raw_p)))
    values = []
    for persona, by_repeat in per_value.items():
        repeats = sorted(by_repeat)
        diffs = {r: by_repeat[r] - floor.by_repeat[r] for r in repeats if r in floor.by_repeat}
        p_adj = adjusted[persona]
        values.append(
            ValueStats(
                persona_id=persona,
                metric=metric,
                mean=_mean([by_repeat[r] for r in repeats]),
                std=_std([by_repeat[r] for r in repeats]),
                n_repeats=len(repeats),
                excess_over_floor=_mean(list(diffs.values())),
                p_value=tested[persona][0],
                p_adjusted=p_adj,
                flagged=not math.isnan(p_adj) and p_adj <= alpha,
                by_repeat=dict(by_repeat),
                excess_by_repeat=diffs,
                value=next(iter(table.values[persona].values())).value,
                phrasing=next(iter(table.values[persona].values())).phrasing,
            )
        )
    means = [v.mean for v in values if not math.isnan(v.mean)]
    excesses = [v.excess_over_floor for v in values if not math.isnan(v.excess_over_floor)]
    repeats = sorted({r for by_repeat in per_value.values() for r in by_repeat})
    per_repeat_means = [_mean([b[r] for b in per_value.values() if r in b]) for r in repeats]
    tests = [v for v in values if not math.isnan(v.p_value)]
    smallest = [min_relabel_p(tested[v.persona_id][1]) for v in tests]
    group_p, min_group_p = _group_test(metric, table)
    return MetricSummary(
        metric=metric,
        mean=_mean(means),
        std=_std(per_repeat_means),
        snsr=max(means) - min(means) if means else NAN,
        snsv=_std(means, ddof=0),
        noise_floor=floor,
        values=tuple(values),
        excess=_mean(excesses),
        group_p=group_p,
        flagged_share=_mean([float(v.flagged) for v in tests]),
        min_value_p=min(smallest) if smallest else NAN,
        min_adjusted_p=min(1.0, len(tests) * min(smallest)) if smallest else NAN,
        min_group_p=min_group_p,
        alpha=alpha,
        disparity=disparity(metric, table.phrased, alpha),
    )


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
    list, 1 = bottom, ≈ 0.5 for position-blind picks. ``position_bias``: its distance from
    position-blind, |mean_position − 0.5| / 0.5 in [0, 1] (↓). ``prefix_copy_rate``: share of
    recommended items among the first k shown; ≈ k / n_shown for position-blind picks, 1 for a
    model that copies the catalog order.
    """

    mean_position: float
    prefix_copy_rate: float

    @property
    def position_bias(self) -> float:
        return abs(self.mean_position - 0.5) / 0.5


@dataclass(frozen=True)
class AnswersSummary:
    """Everything reported for a set of answers: one lm-eval task's (its neutral user,
    replicates and values), or all of a model's answers pooled (:func:`pooled_answers`: then
    only fidelity and positions are meaningful)."""

    metrics: dict[str, MetricSummary]
    fidelity: Fidelity
    positions: Positions
    invalid_pair_rate: float  # share of (value, repeat) pairs where either list is empty
    personas: tuple[str, ...]
    repeats: tuple[int, ...]
    n_replicates: int = 0
    alpha: float = ALPHA
    deterministic: bool = False  # replicates identical to the neutral answer (.determinism)
    diversity: DiversitySummary = field(default_factory=DiversitySummary)  # (.diversity)
    #: open tasks: where the listed items resolved (NaN rates for a catalog task)
    grounding: Grounding = field(default_factory=Grounding)


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


def pooled_answers(records: Sequence[AnswerRecord]) -> AnswersSummary:
    """The answer-level part of a summary over answers of many tasks (a model's whole run):
    fidelity and positions pooled over all answers; nothing that pairs answers (no similarity
    metrics, ``invalid_pair_rate`` NaN)."""
    return AnswersSummary(
        metrics={},
        fidelity=fidelity(records),
        positions=positions(records),
        invalid_pair_rate=NAN,
        personas=tuple(sorted({r.persona_id for r in records})),
        repeats=tuple(sorted({r.repeat for r in records})),
        grounding=grounding(records),
    )


def summarize_answers(
    records: Iterable[AnswerRecord],
    metrics: Sequence[str] = SIMILARITY_NAMES,
    alpha: float | None = None,
    catalog: str | None = None,
    catalog_sha256: str = "",
) -> AnswersSummary:
    """All statistics of one task's answers: the neutral persona, its replicates and the
    values. ``alpha``: the test level (default: the records' ``alpha``, else 0.05);
    ``catalog``: the items' catalog for diversity (default: the records' own) and the run's
    hash of it (diversity is skipped when the catalog changed since)."""
    records = list(records)
    if alpha is None:
        alpha = records[0].alpha if records else ALPHA
    table = arrange(records)
    per_metric = {m: _summarize_metric(table, m, alpha) for m in metrics}
    deterministic = replicates_identical(records)
    if deterministic:
        per_metric = {m: withheld(s) for m, s in per_metric.items()}
    pairs = [
        (answers[r], table.neutral[r])
        for answers in table.values.values()
        for r in answers
        if r in table.neutral
    ]
    invalid = _mean([float(not a.items or not n.items) for a, n in pairs])
    return AnswersSummary(
        metrics=per_metric,
        fidelity=fidelity(records),
        positions=positions(records),
        invalid_pair_rate=invalid,
        personas=tuple(sorted({r.persona_id for r in records})),
        repeats=tuple(sorted({r.repeat for r in records})),
        n_replicates=table.n_replicates,
        alpha=alpha,
        deterministic=deterministic,
        diversity=task_diversity(
            table.phrased,
            catalog or next((r.catalog for r in records if r.catalog), ""),
            alpha,
            catalog_sha256,
        ),
        grounding=grounding(records),
    )
