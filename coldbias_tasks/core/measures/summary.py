"""Everything computed from one task's answers, once: the summary the measures read
(docs/measurement.md §2–§3).

Plain data in, plain data out: :class:`~coldbias_tasks.core.records.AnswerRecord` per model
answer, frozen dataclasses out. :func:`summarize_answers` arranges the answers
(:mod:`.design`) and computes, per registered similarity, the raw divergence of each sentence
(:mod:`.divergence`), the noise floor, excess and tests (:mod:`.excess`) and the headline
(:mod:`.disparity`); for the task, fidelity and positions (:mod:`.fidelity`), diversity
(:mod:`.diversity`), the costs to the user (:mod:`.costs`) and, for open tasks, grounding and
coverage (:mod:`.coverage`: an open task's similarities compare the grounded items of its lists).
:func:`coldbias_tasks.core.result.task_result` turns it into every measure's estimate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from coldbias_tasks.core.measures.costs import CostSummary, summarize_costs
from coldbias_tasks.core.measures.coverage import CoverageCheck, coverage_check
from coldbias_tasks.core.measures.design import RepeatTable, arrange, mean, std
from coldbias_tasks.core.measures.determinism import replicates_identical, withheld
from coldbias_tasks.core.measures.disparity import PhrasingDisparity, disparity
from coldbias_tasks.core.measures.divergence import value_divergences
from coldbias_tasks.core.measures.diversity import DiversitySummary, task_diversity
from coldbias_tasks.core.measures.excess import NoiseFloor, group_test, noise_floor, value_test
from coldbias_tasks.core.measures.fidelity import Fidelity, Positions, fidelity, positions
from coldbias_tasks.core.parsing.open_answers import Grounding, grounded_items, grounding
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY, SIMILARITY_NAMES
from coldbias_tasks.core.stats.relabel import holm, min_relabel_p
from coldbias_tasks.core.stats.series import mean_by_repeat
from coldbias_tasks.core.vocabulary import ALPHA

__all__ = [
    "AnswersSummary",
    "MetricSummary",
    "ValueStats",
    "pooled_answers",
    "summarize_answers",
]

NAN = float("nan")


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


def _summarize_metric(table: RepeatTable, metric: str, alpha: float) -> MetricSummary:
    per_value = value_divergences(table, metric)
    floor = noise_floor(table, metric)
    tested = {p: value_test(metric, table, p) for p in per_value}
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
                mean=mean([by_repeat[r] for r in repeats]),
                std=std([by_repeat[r] for r in repeats]),
                n_repeats=len(repeats),
                excess_over_floor=mean(list(diffs.values())),
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
    per_repeat_means = [mean([b[r] for b in per_value.values() if r in b]) for r in repeats]
    tests = [v for v in values if not math.isnan(v.p_value)]
    smallest = [min_relabel_p(tested[v.persona_id][1]) for v in tests]
    group_p, min_group_p = group_test(metric, table)
    return MetricSummary(
        metric=metric,
        mean=mean(means),
        std=std(per_repeat_means),
        snsr=max(means) - min(means) if means else NAN,
        snsv=std(means, ddof=0),
        noise_floor=floor,
        values=tuple(values),
        excess=mean(excesses),
        group_p=group_p,
        flagged_share=mean([float(v.flagged) for v in tests]),
        min_value_p=min(smallest) if smallest else NAN,
        min_adjusted_p=min(1.0, len(tests) * min(smallest)) if smallest else NAN,
        min_group_p=min_group_p,
        alpha=alpha,
        disparity=disparity(metric, table.phrased, alpha),
    )


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
    #: open tasks: the grounded share between values and the headline on all keys (.coverage)
    coverage: CoverageCheck = field(default_factory=CoverageCheck)
    #: what the disparity costs the user: utility gaps between values (.costs)
    costs: CostSummary = field(default_factory=CostSummary)


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
    is_open = any(r.keys for r in records)
    # an open task's lists are compared on their grounded items (.coverage, rule 1)
    table = arrange([grounded_items(r) for r in records] if is_open else records)
    per_metric = {m: _summarize_metric(table, m, alpha) for m in metrics}
    check = CoverageCheck()
    if is_open and metrics:
        headline = HEADLINE_SIMILARITY if HEADLINE_SIMILARITY in per_metric else metrics[0]
        every_key = arrange(records)
        check = coverage_check(
            every_key.phrased,
            per_metric[headline].disparity,
            disparity(headline, every_key.phrased, alpha),
            alpha,
        )
    deterministic = replicates_identical(records)
    if deterministic:
        per_metric = {m: withheld(s) for m, s in per_metric.items()}
    pairs = [
        (answers[r], table.neutral[r])
        for answers in table.values.values()
        for r in answers
        if r in table.neutral
    ]
    invalid = mean([float(not a.items or not n.items) for a, n in pairs])
    catalog = catalog or next((r.catalog for r in records if r.catalog), "")
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
        diversity=task_diversity(table.phrased, catalog, alpha, catalog_sha256),
        grounding=grounding(records),
        coverage=check,
        costs=summarize_costs(table.phrased, catalog, alpha),
    )
