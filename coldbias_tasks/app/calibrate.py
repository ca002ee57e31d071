"""This machine's generation rates for ``coldbias plan``: measured once with the bundled model,
cached in ``<cache>/calibration.json`` (``~/.cache/coldbias`` or ``$COLDBIAS_CACHE``).

:func:`calibrate` loads the bundled 0.5B model in vLLM (the engine ``coldbias eval`` would run:
the CPU dtype, prefix caching on) and sends real prompts (``coldbias_movie_gender``, 100 items,
k 10, 2 phrasings, 2 repeats, 3 replicates: 28 prompts) twice in one batch each: first with one
output token (the prefill rate: prompt tokens vLLM computed, i.e. not served from its prefix
cache, per second), then answering in full, the prompts now cached (the batched decode rate:
generated tokens per second). Engine start is timed too. A calibration of another CPU model or
core count is ignored. :func:`run_batch` and :func:`load_engine` also serve bench/speed/scaling.py.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from coldbias_tasks.app.machine import choose_dtype, cpu_info

__all__ = [
    "DEFAULT_CPU",
    "Measurement",
    "Throughput",
    "calibrate",
    "calibration_file",
    "chat_prompts",
    "load_calibration",
    "load_engine",
    "machine_key",
    "run_batch",
]

#: Settings of the calibration prompts.
CALIBRATION_TASK = ("movie", "gender")
CALIBRATION_METADATA = {
    "coldbias_n_items": 100,
    "coldbias_k": 10,
    "coldbias_phrasings": 2,
    "coldbias_repeats": 2,
    "coldbias_replicates": 3,
}


@dataclass(frozen=True)
class Throughput:
    """Rates of one machine or GPU class: prefill tokens/s (computed, not cached), batched
    decode tokens/s, engine start seconds, and where the figures come from."""

    name: str
    prefill_tps: float
    decode_tps: float
    start_s: float
    source: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


#: This machine without a calibration: the two-parameter fit of BENCHMARKS.md ("What dominates
#: the model-side time": 3.1 ms per computed prefill token, 9.0 ms per generated token in the
#: batch) and the engine start of its first-run measurement (85 s); 0.5B model, float32 vLLM,
#: 2 AVX2 cores.
DEFAULT_CPU = Throughput(
    "this machine",
    320.0,
    110.0,
    85.0,
    "stated default, not measured here: the bundled 0.5B on 2 AVX2 cores, BENCHMARKS.md; "
    "`coldbias plan --calibrate` measures this machine once",
)


@dataclass(frozen=True)
class Measurement:
    """One batch through vLLM: wall seconds, prompt tokens, those served from the prefix cache,
    generated tokens, requests."""

    seconds: float
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    requests: int

    @property
    def computed_prefill(self) -> int:
        return self.prompt_tokens - self.cached_tokens

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


def calibration_file() -> Path:
    from coldbias_tasks.app.models import cache_dir

    return cache_dir() / "calibration.json"


def machine_key() -> str:
    """The CPU model and usable cores: a calibration holds for this key only."""
    cpu = cpu_info()
    return f"{cpu.model}, {cpu.cores} cores"


def load_calibration(path: Path | None = None) -> Throughput | None:
    """The cached calibration of this machine; None when absent, unreadable or measured on
    another CPU."""
    path = path or calibration_file()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("machine") != machine_key():
            return None
        rate = Throughput(**data["throughput"])
        if not all(math.isfinite(x) and x > 0 for x in (rate.prefill_tps, rate.decode_tps)):
            return None
        return rate
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def load_engine(dtype: str | None = None) -> Any:
    """The bundled 0.5B model in vLLM with the settings of a ``coldbias eval`` run on this CPU
    (prefix caching with the demo's 32-token blocks, eager mode, context 8192, seed 1234,
    statistics on for the counters)."""
    from coldbias_tasks.app.demo import RUN_ENV
    from coldbias_tasks.app.models import hub_model, offline_env

    for key, value in {**offline_env(), **RUN_ENV}.items():
        os.environ.setdefault(key, value)
    from vllm import LLM

    return LLM(
        model=hub_model(log=False),
        dtype=dtype or choose_dtype(cuda=False),
        enforce_eager=True,
        enable_prefix_caching=True,
        block_size=32,
        max_model_len=8192,
        seed=1234,
        disable_log_stats=False,
    )


def chat_prompts(llm: Any, texts: Sequence[str]) -> list[str]:
    """``texts`` as single user turns in the model's chat template
    (as ``--apply_chat_template``)."""
    tok = llm.get_tokenizer()
    return [
        tok.apply_chat_template(
            [{"role": "user", "content": t}], tokenize=False, add_generation_prompt=True
        )
        for t in texts
    ]


def _counters(llm: Any) -> dict[str, float]:
    from vllm.v1.metrics.reader import Counter

    names = ("vllm:prompt_tokens", "vllm:prefix_cache_hits", "vllm:generation_tokens")
    out = dict.fromkeys(names, 0.0)
    for metric in llm.get_metrics():
        if isinstance(metric, Counter) and metric.name in out:
            out[metric.name] += metric.value
    return out


def run_batch(llm: Any, prompts: Sequence[str], max_tokens: int, seed: int = 1234) -> Measurement:
    """Generate for ``prompts`` in one batch (temperature 0.7, as the tasks); the measurement."""
    from vllm import SamplingParams

    params = SamplingParams(temperature=0.7, max_tokens=max_tokens, seed=seed)
    before = _counters(llm)
    start = time.perf_counter()
    llm.generate(list(prompts), params, use_tqdm=False)
    seconds = time.perf_counter() - start
    after = _counters(llm)
    delta = {k: int(after[k] - before[k]) for k in after}
    return Measurement(
        seconds,
        delta["vllm:prompt_tokens"],
        delta["vllm:prefix_cache_hits"],
        delta["vllm:generation_tokens"],
        len(prompts),
    )


def calibrate(path: Path | None = None) -> Throughput:
    """Measure this machine (module docstring), cache and return its rates."""
    from coldbias_tasks.core.prompting.documents import build_docs, domain_budget

    domain, group = CALIBRATION_TASK
    texts = [d.prompt for d in build_docs(domain, group, "plain", CALIBRATION_METADATA)]
    start = time.perf_counter()
    llm = load_engine()
    start_s = time.perf_counter() - start
    prompts = chat_prompts(llm, texts)
    llm.reset_prefix_cache()
    prefill = run_batch(llm, prompts, 1)
    decode = run_batch(llm, prompts, domain_budget(domain, CALIBRATION_METADATA))
    dtype = choose_dtype(cuda=False)
    rate = Throughput(
        "this machine",
        prefill.computed_prefill / prefill.seconds,
        decode.generated_tokens / decode.seconds,
        start_s,
        f"calibrated {time.strftime('%Y-%m-%d')}: bundled 0.5B, vLLM {dtype}, "
        f"{len(prompts)} prompts",
    )
    path = path or calibration_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "machine": machine_key(),
        "throughput": rate.as_dict(),
        "prefill": asdict(prefill),
        "decode": asdict(decode),
    }
    path.write_text(json.dumps(record, indent=2), encoding="utf-8")
    return rate
