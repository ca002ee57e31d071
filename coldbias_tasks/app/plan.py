"""``coldbias plan``: what a run costs, and what it can detect, before it starts.

For ``--tasks`` (tasks or groups) and the run's ``coldbias_*`` settings (``--metadata`` as for
``coldbias eval``, or the shorthands ``--n_items --k --repeats --replicates --phrasings``) it
builds the real documents and prompts (:func:`~coldbias_tasks.core.prompting.documents.build_docs`,
no model loaded) and prints per task and in total:

- **prompts** (= answers: one generation each) and the design (values V, phrasings P);
- **prefill tokens**: every prompt's tokens, and those left **after the shared catalog prefix**
  (with prefix caching each repeat's catalog is computed once per domain and run: the longest
  common prefix of the prompts of one domain, repeat and kind, cut at a line end). Counted with
  the bundled Qwen models' tokenizer and chat template when one of them is assembled
  (``coldbias demo`` assembles the 1.5B, ``scripts/test.sh`` the 0.5B; both share it), else
  estimated at :data:`CHARS_PER_TOKEN` characters per token (said so);
- **decode tokens** expected: k titles at the shown titles' mean length
  (:func:`~coldbias_tasks.core.prompting.documents.answer_list_tokens`), and the cap
  ``max_gen_toks``;
- **time**: engine start + prefill after the prefix ÷ prefill rate + decode ÷ batched decode
  rate, on this machine from its calibration (:mod:`.calibrate`, measured once with the bundled
  0.5B model, cached) or the stated default :data:`~.calibrate.DEFAULT_CPU`, and on the GPU
  classes of :data:`GPU_CLASSES` from spec-sheet figures (labelled as assumed, not measured);
- **MDE**: the IOU disparity the design detects with 80 % power at α
  (:func:`~coldbias_tasks.core.measures.disparity.planned_mde`) at the spread of the committed
  1.5B runs (:data:`SD_SENTENCE`, :data:`SD_NOISE`; docs/cost.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from coldbias_tasks.app.calibrate import DEFAULT_CPU, Throughput, load_calibration
from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.files.jsonl import DATA_LIMIT, json_object
from coldbias_tasks.core.measures.disparity import planned_mde
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.core.settings import Settings
from coldbias_tasks.core.vocabulary import (
    NEUTRAL_ID,
    REVERSE,
    is_coldbias_task,
    is_replicate_id,
    parse_task_name,
)
from coldbias_tasks.core.world.domains import domains as declared_domains

__all__ = [
    "CHARS_PER_TOKEN",
    "GPU_CLASSES",
    "SD_NOISE",
    "SD_SENTENCE",
    "Plan",
    "TaskPlan",
    "expand_tasks",
    "main",
    "make_plan",
    "render",
]

#: Characters per token of the estimate used when no tokenizer is available.
CHARS_PER_TOKEN = 4.0
#: Spread of the phrasing terms of the headline (IOU) between sentences, assumed for the MDE:
#: √(P · SE²) averaged (root mean square) over the six tested tasks of the committed
#: Qwen2.5-Coder-1.5B leaderboard run (leaderboards/results, R = 2, k 10, 100 items):
#: 0.071 at R = 2, split into a between-sentence part and sampling noise by the simulation's
#: repeat scaling (docs/cost.md).
SD_SENTENCE = 0.060
#: Sampling-noise spread of one repeat's phrasing terms (IOU), the remainder of that split.
SD_NOISE = 0.053
#: Reverse-task answers: tokens per ranked user (a number and a short phrase).
TOKENS_PER_RANKED_USER = 8


@dataclass(frozen=True)
class GpuClass:
    """A GPU class from its spec sheet: dense bf16 TFLOP/s and memory GB/s."""

    name: str
    tflops: float
    bandwidth_gbs: float


#: Named GPU classes (public spec sheets, dense bf16).
GPU_CLASSES: tuple[GpuClass, ...] = (
    GpuClass("L4 24GB", 121.0, 300.0),
    GpuClass("A100 80GB", 312.0, 2039.0),
    GpuClass("H100 80GB SXM", 989.0, 3350.0),
)
#: The model the GPU figures assume: a 1.5B model like Qwen2.5-1.5B (parameters; KV bytes per
#: token in bf16: 28 layers × K and V × 2 KV heads × 128 dims × 2 bytes).
GPU_MODEL_PARAMS = 1.54e9
GPU_MODEL_KV_BYTES = 28 * 2 * 2 * 128 * 2
#: Assumed utilisation: prefill at 40 % of peak FLOP/s; decode steps read the weights and every
#: running sequence's KV cache at 60 % of the memory bandwidth; vLLM's default 256 sequences.
GPU_PREFILL_UTILISATION = 0.4
GPU_BANDWIDTH_UTILISATION = 0.6
GPU_MAX_SEQS = 256
GPU_ENGINE_START_S = 60.0


def gpu_throughput(gpu: GpuClass, context_tokens: float, sequences: int) -> Throughput:
    """:class:`~.calibrate.Throughput` of ``gpu`` for the assumed 1.5B model at a mean context
    of ``context_tokens`` with ``sequences`` requests (batched up to :data:`GPU_MAX_SEQS`)."""
    prefill = GPU_PREFILL_UTILISATION * gpu.tflops * 1e12 / (2 * GPU_MODEL_PARAMS)
    batch = max(1, min(sequences, GPU_MAX_SEQS))
    step_bytes = 2 * GPU_MODEL_PARAMS + batch * context_tokens * GPU_MODEL_KV_BYTES
    step_s = step_bytes / (gpu.bandwidth_gbs * 1e9 * GPU_BANDWIDTH_UTILISATION)
    source = (
        f"assumed, not measured: 1.5B model, {GPU_PREFILL_UTILISATION:.0%} of "
        f"{gpu.tflops:g} TFLOP/s, {GPU_BANDWIDTH_UTILISATION:.0%} of {gpu.bandwidth_gbs:g} GB/s"
    )
    return Throughput(gpu.name, prefill, batch / step_s, GPU_ENGINE_START_S, source)


# --- tasks ------------------------------------------------------------------------------------

_GROUP = re.compile(r"^group:\s*(\S+)\s*$", re.MULTILINE)
_MEMBER = re.compile(r"^\s+-\s+(\S+)\s*$")


@lru_cache(maxsize=4)
def _groups(folder: str) -> dict[str, tuple[str, ...]]:
    """Group → member names of the group YAMLs under ``folder``."""
    groups: dict[str, tuple[str, ...]] = {}
    for path in Path(folder).rglob("*.yaml"):
        if not path.is_file() or path.stat().st_size > DATA_LIMIT:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        match = _GROUP.search(text)
        if not match:
            continue
        members, inside = [], False
        for line in text.splitlines():
            if line.startswith("task:"):
                inside = True
            elif inside and (m := _MEMBER.match(line)):
                members.append(m.group(1))
            elif inside and line and not line.startswith(" "):
                break
        groups[match.group(1)] = tuple(members)
    return groups


def expand_tasks(tasks: str, folder: str | None = None) -> list[str]:
    """The coldbias tasks of a ``--tasks`` list, groups expanded (in order, once each). Refuses
    an unknown or foreign name with the closest valid ones (SettingsError)."""
    from coldbias_tasks.app.launch import check_task_names, task_names

    root = folder or str(tasks_dir())
    names = [t.strip() for t in tasks.split(",") if t.strip()]
    if not names:
        raise SettingsError("--tasks: give one or more coldbias tasks or groups (coldbias_movie).")
    for name in names:
        if not is_coldbias_task(name):
            raise SettingsError(
                f"--tasks: {name!r} is not a coldbias task; coldbias plan knows only coldbias "
                "tasks and groups (coldbias_movie, coldbias_movie_gender)."
            )
    check_task_names(",".join(names), [root])
    groups, known = _groups(root), task_names(root)
    domains = declared_domains()
    out: list[str] = []

    def add(name: str) -> None:
        if name in groups:
            for member in groups[name]:
                add(member)
        elif parse_task_name(name)[0] not in domains:
            raise SettingsError(
                f"--tasks: {name!r} is a tag, not a task or group; name its groups instead "
                "(coldbias_movie, coldbias_music, coldbias_college)."
            )
        elif name not in out:
            out.append(name)

    for name in names:
        if name in groups or name in known:
            add(name)
    return out


# --- tokens -----------------------------------------------------------------------------------


class TokenCounter:
    """Prompt tokens as the model sees them: the bundled model's tokenizer and chat template when
    it loads offline, else :data:`CHARS_PER_TOKEN` characters per token (``exact`` False)."""

    def __init__(self, use_tokenizer: bool = True) -> None:
        self._tok, source = _bundled_tokenizer() if use_tokenizer else (None, "")
        self.exact = self._tok is not None
        self.chat_before, self.chat_after = 0, 0
        if self._tok is not None:
            mark = "\x00coldbias\x00"
            text = self._tok.apply_chat_template(
                [{"role": "user", "content": mark}], tokenize=False, add_generation_prompt=True
            )
            before, _, after = text.partition(mark)
            self.chat_before, self.chat_after = self.count(before), self.count(after)
        self.method = (
            f"counted with the tokenizer and chat template of the bundled {source}"
            if self.exact
            else f"estimated at {CHARS_PER_TOKEN:g} characters per token (no tokenizer: "
            "`coldbias demo` assembles the bundled model once); chat template not counted"
        )

    def count(self, text: str) -> int:
        if self._tok is None:
            return math.ceil(len(text) / CHARS_PER_TOKEN)
        return len(self._tok(text, add_special_tokens=False)["input_ids"])


def _bundled_tokenizer() -> tuple[Any, str]:
    """The tokenizer of a bundled Qwen model assembled and loadable offline (the tests' 0.5B,
    else the demo's 1.5B: one tokenizer and chat template) and that model's name, else (None,
    "")."""
    try:
        from coldbias_tasks.app.models import DEFAULT_MODEL, DEMO_MODEL, is_assembled, prepare_model

        name = next((n for n in (DEFAULT_MODEL, DEMO_MODEL) if is_assembled(n)), None)
        if name is None:
            return None, ""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(prepare_model(name, log=False))), name
    except Exception:  # no transformers, a broken cache: fall back to the stated estimate
        return None, ""


def shared_prefix(texts: Sequence[str]) -> str:
    """The longest common prefix of ``texts``, cut after its last line break ('' for one text
    or none: a lone prompt shares nothing)."""
    if len(texts) < 2:
        return ""
    common = os.path.commonprefix(list(texts))  # noqa: RUF071  (strings, not paths)
    return common[: common.rfind("\n") + 1]


# --- the plan ---------------------------------------------------------------------------------


@dataclass
class TaskPlan:
    """One task's cost: ``prompts`` (= answers), ``prefill`` (all prompt tokens), ``uncached``
    (prefill after the shared prefixes: a prefix is charged to the first task that uses it),
    ``decode`` (expected), ``decode_cap`` (at ``max_gen_toks``), the design and its MDE."""

    task: str
    prompts: int = 0
    prefill: int = 0
    uncached: int = 0
    decode: float = 0.0
    decode_cap: int = 0
    n_values: int = 0
    n_phrasings: int = 0
    n_repeats: int = 0
    mde: float = math.nan


@dataclass
class Plan:
    tasks: list[TaskPlan]
    settings: Settings
    counting: str
    machine: Throughput
    gpus: list[Throughput] = field(default_factory=list)

    @property
    def total(self) -> TaskPlan:
        t = TaskPlan("total")
        for p in self.tasks:
            t.prompts += p.prompts
            t.prefill += p.prefill
            t.uncached += p.uncached
            t.decode += p.decode
            t.decode_cap += p.decode_cap
        return t

    def seconds(self, rate: Throughput) -> float:
        t = self.total
        return rate.start_s + t.uncached / rate.prefill_tps + t.decode / rate.decode_tps


def _docs(task: str, metadata: dict[str, Any]) -> tuple[list[Any], Callable[[Any], float]]:
    """The task's documents and its expected answer tokens per document."""
    from coldbias_tasks.core.prompting.documents import (
        answer_list_tokens,
        build_docs,
        build_reverse_docs,
        shown_titles,
    )

    domain, variant, group = parse_task_name(task)
    if variant == REVERSE:
        docs = build_reverse_docs(domain, group, metadata)
        return docs, lambda d: len(d.candidates) * TOKENS_PER_RANKED_USER
    docs = build_docs(domain, group, variant, metadata)
    per_answer = answer_list_tokens(shown_titles(domain, metadata), docs[0].k) if docs else 0.0
    return docs, lambda d: per_answer


def make_plan(
    tasks: Sequence[str], metadata: dict[str, Any], counter: TokenCounter | None = None
) -> Plan:
    """The plan of a run of ``tasks`` (expanded names) with these ``coldbias_*`` settings."""
    from coldbias_tasks.core.prompting.documents import domain_budget

    counter = counter or TokenCounter()
    settings = Settings.from_metadata(metadata)
    plans, prompts_of = [], []
    by_key: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    for name in tasks:
        docs, answer_tokens = _docs(name, metadata)
        domain, variant, _ = parse_task_name(name)
        kind = "reverse" if variant == REVERSE else ("open" if variant == "open" else "catalog")
        plan = TaskPlan(name, prompts=len(docs))
        plan.decode = sum(answer_tokens(d) for d in docs)
        budget = domain_budget(domain, metadata) if kind != "reverse" else 0
        plan.decode_cap = budget * len(docs) if budget else int(plan.decode * 1.5)
        if kind != "reverse":
            values = {d.value for d in docs if d.value != NEUTRAL_ID and not is_replicate_id(
                d.value)}  # fmt: skip
            plan.n_values = len(values)
            plan.n_phrasings = len({d.phrasing for d in docs if d.value in values})
            plan.n_repeats = len({d.repeat for d in docs})
            if not docs[0].control_task:
                plan.mde = planned_mde(plan.n_values, plan.n_phrasings, plan.n_repeats,
                                       settings.alpha, SD_SENTENCE, SD_NOISE)  # fmt: skip
        keys = [(domain, kind, getattr(d, "repeat", 0)) for d in docs]
        for key, d in zip(keys, docs):
            by_key[key].append(d.prompt)
        plans.append(plan)
        prompts_of.append(list(zip(keys, (d.prompt for d in docs))))
    prefixes = {key: shared_prefix(texts) for key, texts in by_key.items()}
    prefix_tokens = {key: counter.count(p) for key, p in prefixes.items()}
    charged: set[tuple[str, str, int]] = set()
    for plan, items in zip(plans, prompts_of):
        for key, prompt in items:
            rest = counter.count(prompt[len(prefixes[key]) :]) + counter.chat_after
            head = counter.chat_before + prefix_tokens[key]
            plan.prefill += head + rest
            plan.uncached += rest + (0 if key in charged else head)
            charged.add(key)
    total = sum(p.prompts for p in plans)
    context = (sum(p.prefill for p in plans) + sum(p.decode for p in plans) / 2) / max(total, 1)
    gpus = [gpu_throughput(g, context, total) for g in GPU_CLASSES]
    return Plan(plans, settings, counter.method, load_calibration() or DEFAULT_CPU, gpus)


# --- output -----------------------------------------------------------------------------------


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _mde(value: float) -> str:
    if math.isnan(value):
        return "–"
    return "underpowered" if math.isinf(value) else f"{value:.3f}"


def render(plan: Plan, label: str) -> str:
    """The printed plan."""
    s = plan.settings
    lines = [
        f"coldbias plan: {label} ({len(plan.tasks)} task{'s' * (len(plan.tasks) != 1)}); "
        f"n_items {s.n_items}, k {s.k}, repeats {s.repeats}, replicates {s.replicates}, phrasings "
        f"{s.phrasings or 'all'}; no model loaded",
        f"tokens {plan.counting}",
        "",
        f"{'task':<34} {'V':>2} {'P':>3} {'prompts':>7} {'prefill tok':>12} "
        f"{'after prefix':>12} {'decode tok':>10} {'MDE (IOU)':>12}",
    ]
    for t in [*plan.tasks, plan.total]:
        design = f"{t.n_values or '':>2} {t.n_phrasings or '':>3}"
        lines.append(
            f"{t.task:<34} {design} {t.prompts:>7,} {t.prefill:>12,} {t.uncached:>12,} "
            f"{round(t.decode):>10,} {_mde(t.mde) if t.task != 'total' else '':>12}"
        )
    tot = plan.total
    lines += [
        "",
        f"answers: {tot.prompts:,} (one generation per prompt)",
        f"prefill: {tot.prefill:,} tokens; {tot.uncached:,} after the shared catalog prefix "
        f"(prefix caching: each repeat's catalog computed once per domain)",
        f"decode: ≈ {round(tot.decode):,} tokens expected (k titles per answer), at most "
        f"{tot.decode_cap:,} at max_gen_toks",
        "",
        "estimated time (engine start + prefill after prefix ÷ prefill rate + decode ÷ batched "
        "decode rate):",
    ]
    for rate in [plan.machine, *plan.gpus]:
        lines.append(
            f"  {rate.name:<16} ≈ {_duration(plan.seconds(rate)):>7}  ({rate.prefill_tps:,.0f} "
            f"prefill tok/s, {rate.decode_tps:,.0f} decode tok/s; {rate.source})"
        )
    lines += [
        "",
        f"MDE: the IOU disparity detected with 80 % power at α {s.alpha:g}, assuming the "
        f"spread of the committed 1.5B runs (between sentences {SD_SENTENCE}, sampling noise "
        f"{SD_NOISE} per repeat; docs/cost.md); 'underpowered': the test cannot reach α.",
    ]
    return "\n".join(lines)


_SHORTHANDS = ("n_items", "k", "repeats", "replicates", "phrasings")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="coldbias plan",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--tasks", required=True, help="coldbias tasks or groups, comma-separated")
    parser.add_argument("--metadata", help="""coldbias_* settings as JSON ({"coldbias_k": 10})""")
    for key in _SHORTHANDS:
        parser.add_argument(f"--{key}", type=int, help=f"coldbias_{key}")
    parser.add_argument("--no-tokenizer", action="store_true", help="the chars/4 estimate only")
    parser.add_argument(
        "--calibrate", action="store_true",
        help="measure this machine's prefill and decode rates with the bundled 0.5B model via "
        "vLLM (a few minutes; cached) before planning",
    )  # fmt: skip
    args = parser.parse_args(argv)
    metadata: dict[str, Any] = {}
    if args.metadata:
        fix = """write it as --metadata '{"coldbias_k": 10}'."""
        metadata = json_object(args.metadata, SettingsError, f"--metadata {args.metadata!r}", fix)
    for key in _SHORTHANDS:
        if (value := getattr(args, key)) is not None:
            metadata[f"coldbias_{key}"] = value
    tasks = expand_tasks(args.tasks)
    if args.calibrate:
        from coldbias_tasks.app.calibrate import calibrate

        print(json.dumps(calibrate().as_dict()))
    plan = make_plan(tasks, metadata, TokenCounter(use_tokenizer=not args.no_tokenizer))
    print(render(plan, args.tasks))
    return 0
