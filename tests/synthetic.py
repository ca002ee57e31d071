"""A synthetic recommender with known behaviour, run through lm-eval's own evaluator.

:class:`SyntheticRecommender` is an ``lm_eval.api.model.LM``: lm-eval builds the real task docs
and prompts, sends the requests, applies the coldbias filter and aggregations and logs samples,
exactly as with a real model. Only the answers are synthetic: for a request it draws k of the
titles shown in that doc from a Plackett–Luce model over a fixed item popularity, with its own
seeded RNG per (persona, repeat, task). ``effect`` multiplies the popularity weights of chosen
items for chosen personas: with no effect every persona samples from the same distribution, so
B_r(a) and the replicate floor F_r are exchangeable (the exact null of the statistics).

:func:`run_synthetic` writes an lm-eval output folder (``results_<ts>.json`` and
``samples_<task>_<ts>.jsonl``) the way ``lm_eval --output_path OUT --log_samples`` does.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lm_eval.api.model import LM

from coldbias_tasks.core.vocabulary import NEUTRAL_ID, is_replicate_id

#: persona id → (catalog id → weight multiplier); ids not listed keep weight 1.
Effect = Mapping[str, Callable[[int], float]]


def popularity(item: int, skew: float = 1.0) -> float:
    """A fixed, persona-independent popularity weight of catalog item ``item`` (> 0)."""
    h = int(hashlib.sha256(f"pop:{item}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return math.exp(skew * 3.0 * h)


def _rng(*parts: object) -> random.Random:
    return random.Random(hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest())


def sample_ranking(
    shown: Sequence[int], k: int, rng: random.Random, weight: Callable[[int], float]
) -> list[int]:
    """k of ``shown`` without replacement, Plackett–Luce in ``weight`` (Gumbel top-k)."""
    keys = [
        (math.log(weight(item)) - math.log(-math.log(rng.random() or 1e-12)), item)
        for item in shown
    ]
    return [item for _, item in sorted(keys, reverse=True)[:k]]


class SyntheticRecommender(LM):
    """Answers coldbias prompts with k shown titles, one per line.

    ``seed``: the model's sampling seed (different seeds give different answers to the same
    prompt). ``effect``: persona id → weight multiplier per catalog id. ``style``: how the
    answer is written (``"numbered"``: "1. Title"; ``"plain"``: one title per line; ``"json"``:
    a JSON array; ``"auto"``: JSON for the json template, else numbered). ``effect_when``: a
    predicate on the doc; the effect applies only where it holds (e.g. one template).
    ``sentence_effect``: a weight multiplier for every persona that says anything (every value
    and control, not the neutral user nor its replicates) — a model that reacts to any
    sentence alike; ``effect`` entries apply on top of it. ``effect`` is keyed by the value's
    persona id (``gender.female``: every phrasing of the value) or a sentence's id.
    ``wording``: every distinct user sentence gets a popularity of its own (a hash of its
    text), raised to this power — a model that reacts to each sentence by its wording alone.
    ``doc_effect``: a document → a weight multiplier per catalog id (None: none), applied on
    top of everything else (e.g. one value's users given fewer items of their stated genre).
    """

    def __init__(
        self,
        seed: int = 0,
        effect: Effect | None = None,
        skew: float = 1.0,
        style: str = "numbered",
        titles: Callable[[Mapping[str, Any]], Sequence[str]] | None = None,
        user_effect: Mapping[str, float] | None = None,
        keep_order: bool = False,
        effect_when: Callable[[Mapping[str, Any]], bool] | None = None,
        sentence_effect: Callable[[int], float] | None = None,
        wording: float = 0.0,
        doc_effect: Callable[[Mapping[str, Any]], Callable[[int], float] | None] | None = None,
        **_: Any,  # batch_size, device, ... from lm-eval's CLI
    ) -> None:
        super().__init__()
        self.wording = wording
        self.doc_effect = doc_effect
        self.sentence_effect = sentence_effect
        self.effect_when = effect_when
        self.user_effect = dict(user_effect or {})
        self.keep_order = keep_order
        self.seed = seed
        self.effect = dict(effect or {})
        self.skew = skew
        self.style = style
        self._titles = titles

    @property
    def tokenizer_name(self) -> str:
        return "coldbias-synthetic"

    def apply_chat_template(
        self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True
    ) -> str:
        return "\n".join(m["content"] for m in chat_history)

    def _answer(self, doc: Mapping[str, Any]) -> str:
        if doc.get("kind") == "reverse":
            return self._rank_users(doc)
        if "shown_ids" not in doc:  # another harness task: a fixed short answer
            return str(doc.get("answer", "ok"))
        shown: list[int] = list(doc["shown_ids"])
        k = int(doc["k"])
        persona = str(doc["persona_id"])
        boost = self.effect.get(persona) or self.effect.get(str(doc.get("value") or ""))
        if boost is not None and self.effect_when is not None and not self.effect_when(doc):
            boost = None
        says_something = not persona.startswith("neutral")
        base = self.sentence_effect if says_something else None
        per_doc = self.doc_effect(doc) if self.doc_effect else None
        if per_doc is not None:
            base = (lambda b, d: lambda i: (b(i) if b else 1.0) * d(i))(base, per_doc)
        rng = _rng(
            self.seed,
            doc.get("domain"),
            doc.get("attribute_group"),
            doc.get("variant"),
            persona,
            doc["repeat"],
        )
        picked = sample_ranking(
            shown,
            k,
            rng,
            lambda item: (
                popularity(item, self.skew)
                * (boost(item) if boost else 1.0)
                * (base(item) if base else 1.0)
            ),
        )
        if self.wording and says_something:
            salt = int(hashlib.sha256(str(doc.get("user")).encode()).hexdigest()[:6], 16)
            picked = sample_ranking(  # the sentence's own popularity on top
                shown,
                k,
                _rng(self.seed, "wording", doc.get("user"), doc["repeat"]),
                lambda item: (
                    popularity(item, self.skew)
                    * popularity(item + salt, self.skew) ** self.wording
                    * (boost(item) if boost else 1.0)
                    * (per_doc(item) if per_doc else 1.0)
                ),
            )
        names = self._titles(doc) if self._titles else None
        if names is None:
            from coldbias_tasks.core.world.catalog import load_catalog

            names = load_catalog(doc["catalog"]).titles
        lines = [names[i] for i in picked]
        if self.style == "json" or (self.style == "auto" and doc.get("template") == "json"):
            return json.dumps(lines, ensure_ascii=False)
        if self.style in ("numbered", "auto"):
            return "\n".join(f"{n}. {t}" for n, t in enumerate(lines, start=1))
        return "\n".join(lines)

    def _rank_users(self, doc: Mapping[str, Any]) -> str:
        """A reverse answer: the users ranked by a random score plus ``user_effect`` (persona
        id → shift; a positive shift ranks the user higher), or in the shown order with
        ``keep_order``; numbered "1. 3. a girl" style."""
        rng = _rng(self.seed, "reverse", doc["attribute_group"], doc["item_id"], doc["repeat"])
        users = list(range(len(doc["candidates"])))
        if not self.keep_order:
            score = {i: rng.random() + self.user_effect.get(doc["candidates"][i], 0.0)
                     for i in users}  # fmt: skip
            users.sort(key=lambda i: -score[i])
        return "\n".join(
            f"{rank}. {i + 1}. {doc['phrases'][i]}" for rank, i in enumerate(users, start=1)
        )

    @classmethod
    def create_from_arg_string(
        cls, arg_string: str, additional_config: dict | None = None
    ) -> SyntheticRecommender:
        """``--model_args seed=3,skew=2.0`` (the CLI path)."""
        kwargs = {}
        for part in filter(None, (arg_string or "").split(",")):
            key, _, value = part.partition("=")
            kwargs[key] = float(value) if key == "skew" else int(value) if key == "seed" else value
        return cls(**{k: v for k, v in kwargs.items() if k in ("seed", "skew")})

    def generate_until(self, requests: Sequence[Any], disable_tqdm: bool = False) -> list[str]:
        return [self._answer(req.doc) for req in requests]

    def loglikelihood(self, requests: Sequence[Any], disable_tqdm: bool = False) -> list:
        raise NotImplementedError("the synthetic recommender only generates")

    def loglikelihood_rolling(self, requests: Sequence[Any], disable_tqdm: bool = False) -> list:
        raise NotImplementedError("the synthetic recommender only generates")


class FixedSeedRecommender(SyntheticRecommender):
    """Answers a replicate exactly as the neutral prompt it repeats (a fixed request seed)."""

    def _answer(self, doc: Mapping[str, Any]) -> str:
        if is_replicate_id(str(doc.get("persona_id", ""))):
            doc = {**doc, "persona_id": NEUTRAL_ID}
        return super()._answer(doc)


def run_synthetic(
    model: LM,
    tasks: Sequence[str],
    metadata: Mapping[str, Any],
    output_path: Path | None = None,
    model_name: str = "coldbias/synthetic-recommender",
    include_path: str | Path | None = None,
    apply_chat_template: bool = False,
) -> dict[str, Any]:
    """Evaluate ``model`` on coldbias ``tasks`` with lm-eval's ``simple_evaluate``; with
    ``output_path`` also write the results JSON and samples files as lm-eval's CLI does.
    Returns lm-eval's results dict (samples included).
    """
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from coldbias_tasks.core.resources import tasks_dir

    manager = TaskManager(
        include_path=str(include_path or tasks_dir()),
        include_defaults=False,
        metadata=dict(metadata),
    )
    tracker = EvaluationTracker(output_path=str(output_path)) if output_path else None
    results = simple_evaluate(
        model=model,
        model_args=f"pretrained={model_name}",
        tasks=list(tasks),
        task_manager=manager,
        log_samples=True,
        evaluation_tracker=tracker,
        apply_chat_template=apply_chat_template,
        metadata=dict(metadata),
        verbosity="ERROR",
    )
    assert results is not None
    if tracker is not None:
        samples = results["samples"]
        blob = {k: v for k, v in results.items() if k != "samples"}
        tracker.save_results_aggregated(results=blob, samples=samples)
        for task in blob["configs"]:
            tracker.save_results_samples(task_name=task, samples=samples[task])
    return results


def metric_table(results: Mapping[str, Any]) -> str:
    """lm-eval's per-task and per-group metric values as canonical JSON (for golden files)."""
    table = {
        section: {
            task: {k: v for k, v in sorted(entry.items()) if "," in k}
            for task, entry in sorted(results.get(section, {}).items())
        }
        for section in ("results", "groups")
    }
    return json.dumps(table, indent=1, sort_keys=True, default=str) + "\n"


def register() -> str:
    """Register :class:`SyntheticRecommender` as lm-eval model ``coldbias-synthetic`` (for runs
    through the ``coldbias eval`` command line in this process); returns the name."""
    from lm_eval.api.registry import MODEL_REGISTRY, register_model

    name = "coldbias-synthetic"
    if name not in MODEL_REGISTRY:
        register_model(name)(SyntheticRecommender)
    return name
