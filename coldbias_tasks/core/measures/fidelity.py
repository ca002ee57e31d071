"""Task fidelity and positions: how well the model did the task, and where in the shown catalog
its picks sit (docs/measurement.md §4). Rates pool all answers (or all list entries); NaN when
there is nothing to count. Each rate is a descriptive measure of the task (scope "task")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from coldbias_tasks.core.measures.base import Measure, Protocol, register
from coldbias_tasks.core.measures.design import mean
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.stats.estimate import Estimate

__all__ = ["Fidelity", "Positions", "fidelity", "positions"]

NAN = float("nan")


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


def fidelity(records: Sequence[AnswerRecord]) -> Fidelity:
    """Task fidelity over all answers; NaN rates when there is nothing to count."""
    n = len(records)
    entries = sum(r.n_entries for r in records)
    return Fidelity(
        n_answers=n,
        exact_k_rate=mean([float(len(r.items) == r.k) for r in records]),
        fill_rate=mean([len(r.items) / r.k for r in records if r.k > 0]),
        empty_rate=mean([float(not r.items) for r in records]),
        out_of_catalog_rate=sum(r.n_out_of_catalog for r in records) / entries if entries else NAN,
        duplicate_rate=sum(r.n_duplicates for r in records) / entries if entries else NAN,
        mean_items=mean([float(len(r.items)) for r in records]),
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
    return Positions(mean(scaled), mean(in_prefix))


def _rate(
    name: str,
    read: Callable[[Any], float],
    higher_is_better: bool,
    description: str,
    order: int,
    protocol: Protocol = "both",
) -> Measure:
    return register(Measure(
        name, lambda summary: Estimate(float(read(summary))), higher_is_better, (0.0, 1.0),
        description, protocol=protocol, order=order,
    ))  # fmt: skip


# fmt: off
EXACT_K_RATE = _rate("exact_k_rate", lambda s: s.fidelity.exact_k_rate, True,
                     "share of answers with exactly k valid items", 100)
FILL_RATE = _rate("fill_rate", lambda s: s.fidelity.fill_rate, True,
                  "mean over answers of the share of the k slots filled with valid items", 110)
EMPTY_RATE = _rate("empty_rate", lambda s: s.fidelity.empty_rate, False,
                   "share of answers without any valid item", 120)
OUT_OF_CATALOG_RATE = _rate("out_of_catalog_rate", lambda s: s.fidelity.out_of_catalog_rate,
                            False, "share of list entries that are invented or not shown", 130,
                            "catalog")
DUPLICATE_RATE = _rate("duplicate_rate", lambda s: s.fidelity.duplicate_rate, False,
                       "share of list entries that repeat an earlier item", 140)
INVALID_PAIR_RATE = _rate("invalid_pair_rate", lambda s: s.invalid_pair_rate, False,
                          "share of (value, repeat) pairs where either list is empty "
                          "(divergence 1)", 150)
PREFIX_COPY_RATE = _rate("prefix_copy_rate", lambda s: s.positions.prefix_copy_rate, False,
                         "share of recommended items among the first k shown (1 = copies the "
                         "catalog order)", 160, "catalog")
POSITION_BIAS = _rate("position_bias", lambda s: s.positions.position_bias, False,
                      "|mean catalog position − 0.5| / 0.5: 0 position-blind, 1 always first or "
                      "always last shown", 170, "catalog")
# fmt: on
