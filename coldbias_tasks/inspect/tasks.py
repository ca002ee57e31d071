"""coldbias forward tasks as Inspect tasks: the same documents, prompts, parsing and result as
lm-eval's (docs/inspect.md).

:func:`coldbias_task` builds one Inspect :class:`~inspect_ai.Task` for a (domain, group,
variant): one :class:`~inspect_ai.dataset.Sample` per document of
:func:`~coldbias_tasks.core.prompting.documents.build_docs` (every sentence in every repeat:
repeats are samples, as in lm-eval; Inspect's epochs are not used), its prompt as the user
message, the document as the sample's metadata; Inspect's ``generate()`` at the tasks'
temperature with the domain's token budget; :func:`answer_scorer` checks each answer against
its document (:func:`~coldbias_tasks.core.parsing.sample_check.check_answer`, the check lm-eval's
``process_results`` runs) and keeps the answer record's payload in the score's metadata; the
metric :func:`coldbias_result` computes the task's result once
(:func:`~coldbias_tasks.core.result.task_result`) and reports every lm-eval metric key of the
task with the same number. Inspect's metrics are numbers: a verdict is stored as its index in
:data:`~coldbias_tasks.core.stats.estimate.VERDICTS` (:func:`verdict_of` reads it back); a
missing standard error or bound ("N/A" in lm-eval's results) is left out.

Settings are lm-eval's ``--metadata`` keys, passed as task arguments
(``-T coldbias_repeats=2``) and checked by the same reader
(:class:`~coldbias_tasks.core.settings.Settings`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Solver, TaskState, generate

from coldbias_tasks.core.parsing.sample_check import check_answer
from coldbias_tasks.core.prompting.documents import TEMPERATURE, build_docs, domain_budget
from coldbias_tasks.core.records import AnswerRecord, TaskDoc
from coldbias_tasks.core.result import task_result
from coldbias_tasks.core.stats.estimate import VERDICTS
from coldbias_tasks.core.vocabulary import ANSWER_KEY, task_name

__all__ = [
    "answer_scorer",
    "coldbias_result",
    "coldbias_task",
    "inspect_numbers",
    "sample_id",
    "verdict_of",
]


def sample_id(doc: TaskDoc) -> str:
    """A document's sample id: its sentence id and repeat (``gender.female#3@r1``)."""
    return f"{doc.persona_id}@r{doc.repeat}"


def _samples(docs: Sequence[TaskDoc]) -> list[Sample]:
    return [Sample(input=d.prompt, id=sample_id(d), metadata=d.to_dict()) for d in docs]


def inspect_numbers(numbers: Mapping[str, float | str]) -> dict[str, float]:
    """lm-eval's numbers of a task as Inspect metrics: a verdict (key ``*_verdict``) becomes
    its index in :data:`VERDICTS`; "N/A" is left out; other values are floats (NaN kept)."""
    out: dict[str, float] = {}
    for key, value in numbers.items():
        if key.endswith("_verdict"):
            out[key] = float(VERDICTS.index(str(value)))
        elif value != "N/A":
            out[key] = float(value)
    return out


def verdict_of(code: float) -> str:
    """The verdict an Inspect metric ``*_verdict`` stores (its index in :data:`VERDICTS`)."""
    if math.isnan(code) or not 0 <= int(code) < len(VERDICTS) or code != int(code):
        raise ValueError(f"{code!r} is no verdict code; codes are 0–{len(VERDICTS) - 1}")
    return VERDICTS[int(code)]


@metric
def coldbias_result() -> Metric:
    """Every lm-eval metric key of the task, computed once from its answer records
    (:func:`~coldbias_tasks.core.result.task_result`): the phrasing-controlled disparity per
    similarity with its standard error, 95 % interval, p-value and verdict code, and the rest."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        records = [
            AnswerRecord.from_payload(s.score.metadata[ANSWER_KEY])
            for s in scores
            if s.score.metadata and ANSWER_KEY in s.score.metadata
        ]
        return inspect_numbers(task_result(records).lm_numbers())

    return compute


@scorer(metrics=[coldbias_result()])
def answer_scorer() -> Scorer:
    """One answer checked against its document (the check lm-eval's ``process_results``
    runs): the score's value is the number of catalog items the answer ranks, its metadata the
    answer record's payload (under ``coldbias_answer``, as lm-eval logs it)."""

    async def score(state: TaskState, target: Target) -> Score:
        record, _ = check_answer(state.output.completion, state.metadata, reverse=False)
        payload = record.to_payload()
        return Score(
            value=len(record.items),
            answer=state.output.completion,
            metadata={ANSWER_KEY: payload},
        )

    return score


def coldbias_task(
    domain: str,
    group: str,
    variant: str = "plain",
    solver: Solver | None = None,
    **settings: Any,
) -> Task:
    """The Inspect task of ``coldbias_{domain}[_{variant}]_{group}``. ``settings``: lm-eval's
    ``coldbias_*`` metadata keys (checked; unknown keys name the closest valid one);
    ``solver``: default Inspect's ``generate()`` (a test passes a synthetic one)."""
    docs = build_docs(domain, group, variant, settings)
    config = GenerateConfig(temperature=TEMPERATURE, max_tokens=domain_budget(domain, settings))
    return Task(
        name=task_name(domain, group, variant),
        dataset=MemoryDataset(_samples(docs), name=task_name(domain, group, variant)),
        solver=solver or generate(),
        scorer=answer_scorer(),
        config=config,
        epochs=1,
        metadata={"lm_eval_task": task_name(domain, group, variant), **settings},
    )
