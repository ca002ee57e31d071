"""Deterministic answers: the same-prompt replicates repeat the neutral answer.

coldbias' noise floor is the divergence of M extra answers to the very same neutral prompt
from the neutral answer. A backend that does not sample (temperature 0, greedy decoding) or
that samples with one fixed seed for every request (lm-eval's API models send ``seed=1234`` in
every request and vLLM honours it) answers every replicate with the neutral answer itself: the
floor is 0 and the "excess" is the raw divergence, so the tests compare against nothing.
:func:`replicates_identical` detects this from the parsed answers; :func:`withheld` blanks
the quantities that assume sampling (excess, tests, verdicts) of one metric summary, keeping
the raw divergence (paper-comparable) and fidelity. Without replicates nothing is detected
(the report then says "no neutral replicate").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, TypeVar

from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.vocabulary import NEUTRAL_ID, is_replicate_id

__all__ = [
    "DETERMINISTIC_MESSAGE",
    "MIN_REPLICATES",
    "SAMPLED_FIELDS",
    "replicates_identical",
    "withheld",
]

#: The fields of a similarity's summary (:class:`~.summary.MetricSummary`) that assume sampled
#: answers: the excess, its group test and the per-value flags (the measures reading them are
#: registered with ``sampling=True``).
SAMPLED_FIELDS: tuple[str, ...] = ("excess", "group_p", "flagged_share")

#: Why the numbers are withheld, and the fix (the report, the leaderboard and lm-eval's log).
DETERMINISTIC_MESSAGE = (
    "deterministic answers: every same-prompt neutral replicate is identical to the neutral "
    "answer, so the noise floor is 0 and an excess would be the raw divergence; excess, tests "
    "and verdicts are withheld. Cause: one fixed sampling seed in every request (plain "
    "lm-eval API models send seed=1234), temperature 0 or greedy decoding. Fix: sample "
    "(temperature > 0, do_sample) with a seed per request: `coldbias eval --model "
    "local-chat-completions` does that; for vLLM give the engine seed in --model_args seed=N "
    "and no seed in --gen_kwargs"
)

S = TypeVar("S")
NAN = float("nan")


#: Replicates (over all repeats) needed before identical ones count as deterministic. A peaked
#: sampling model repeats its neutral answer by chance: the 0.5B demo model, copying the head of
#: a 40-item music catalog at T = 0.7, did so in 3 of 3 replicate pairs (M = 1, R = 3). With 6
#: pairs that needs a model whose every repeat is near-certain; the default M = 3, R = 5 gives 15.
MIN_REPLICATES = 6


def replicates_identical(records: Iterable[AnswerRecord]) -> bool:
    """True when the task has at least :data:`MIN_REPLICATES` neutral replicates, every
    replicate's list equals the neutral list of its repeat, and some attribute value's list
    differs from its neutral list (so an excess would be a non-zero raw divergence posing as
    bias). A task whose answers are all identical (a model copying the catalog order, identical
    empty answers) is not flagged here: its divergences and excess are 0 and the fidelity rules
    (:mod:`.quality`) report it. Repeats without a neutral answer are skipped."""
    neutral: dict[int, tuple[int, ...]] = {}
    replicates: list[AnswerRecord] = []
    values: list[AnswerRecord] = []
    for record in records:
        if record.persona_id == NEUTRAL_ID:
            neutral[record.repeat] = record.items
        else:
            (replicates if is_replicate_id(record.persona_id) else values).append(record)
    paired = [r for r in replicates if r.repeat in neutral]
    if len(paired) < MIN_REPLICATES or not all(r.items == neutral[r.repeat] for r in paired):
        return False
    return any(v.items != neutral[v.repeat] for v in values if v.repeat in neutral)


def withheld(summary: S, reason: str = DETERMINISTIC_MESSAGE) -> S:
    """A metric summary (:class:`~coldbias_tasks.core.measures.summary.MetricSummary`) without
    the quantities that assume sampling (:data:`SAMPLED_FIELDS`: excess, group p, flagged
    share); every value's excess, p-values and flag become NaN / not flagged; ``withheld`` carries
    ``reason``. The headline (the disparity between values controlled for phrasing) stays: its
    test relabels sentences, not samples, and holds for deterministic answers too."""
    values: Any = summary.values  # type: ignore[attr-defined]  (duck-typed: no import cycle)
    blank = tuple(
        dataclasses.replace(
            v, excess_over_floor=NAN, p_value=NAN, p_adjusted=NAN, flagged=False,
            excess_by_repeat={},
        )
        for v in values
    )  # fmt: skip
    sampled = dict.fromkeys(SAMPLED_FIELDS, NAN)
    return dataclasses.replace(  # type: ignore[type-var]
        summary, values=blank, withheld=reason, **sampled
    )
