"""Served vs offline: ``vllm serve`` driven at ``num_concurrent`` 1 / 4 / 16 against offline vLLM.

    python bench/speed/served_bench.py --json /tmp/served_bench.json
    python bench/speed/served_bench.py --concurrency 1,4 --repeats 2     # smaller
    python bench/speed/served_bench.py --concurrency 16 --n-items 500    # the default catalog

One run, same model (the bundled Qwen2.5-Coder-0.5B-Instruct), dtype (this CPU's choice), task,
prompts, sampling settings and KV block size (32) everywhere: ``coldbias_movie_gender``, 40-item
catalog (``--n-items``: 500 is the default catalog, then context 8192), k = 5, R repeats, M = 2
replicates, ``max_gen_toks`` 96 (what ``coldbias eval`` sizes for k = 5), prefix caching on,
context 2048.

- **offline**: lm-eval's vLLM backend in a subprocess, all requests in one ``LLM.generate``;
  time = inside ``generate_until``; tokens and prefix-cache hits from the engine's counters.
- **served, c**: one ``vllm serve`` on 127.0.0.1 (:func:`coldbias_tasks.app.serve.vllm_server`:
  started and stopped here), driven through
  ``coldbias-local-chat-completions`` (:mod:`coldbias_tasks.lmeval.served`) with
  ``num_concurrent = c``; time = its request loop; generated tokens from the responses'
  ``usage``; prefix-cache hit rate = Δ ``vllm:prefix_cache_hits`` / Δ ``queries`` from the
  server's ``/metrics``. The server's prefix cache is reset before each c (dev-mode
  ``/reset_prefix_cache``) so every run starts cold, like the offline engine.

Prints answers/s, generated tokens/s and the hit rate per run, and each as a ratio to offline;
saves the CPU flags (``avx2``, ``avx512_bf16``, ``amx_bf16``) with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, ROOT / "bench" / "speed"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

TASK = "coldbias_movie_gender"
MAX_GEN_TOKS = 96
MAX_MODEL_LEN = 2048
BLOCK = 32
SEED = 1234
#: catalog items shown (``--n-items``); above 40 the context is 8192
N_ITEMS = 40


def max_model_len() -> int:
    return MAX_MODEL_LEN if N_ITEMS <= 40 else 8192


def metadata(repeats: int) -> dict[str, Any]:
    return {"coldbias_n_items": N_ITEMS, "coldbias_k": 5, "coldbias_repeats": repeats,
            "coldbias_replicates": 2, "coldbias_seed": SEED}  # fmt: skip


def _env() -> None:
    from coldbias_tasks.app.demo import RUN_ENV
    from coldbias_tasks.app.models import offline_env

    for key, value in {**offline_env(), **RUN_ENV}.items():
        os.environ.setdefault(key, value)


def _evaluate(lm: Any, repeats: int) -> dict[str, Any]:
    """``simple_evaluate`` of the task on a model object; wall time inside generate_until."""
    import lm_eval
    from lm_eval.tasks import TaskManager

    from coldbias_tasks.core.resources import tasks_dir

    spent: list[float] = []
    original = lm.generate_until

    def generate_until(requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        start = time.perf_counter()
        try:
            return original(requests, disable_tqdm=disable_tqdm)
        finally:
            spent.append(time.perf_counter() - start)

    lm.generate_until = generate_until
    meta = metadata(repeats)
    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False, metadata=meta)
    results = lm_eval.simple_evaluate(
        model=lm, tasks=[TASK], task_manager=manager, apply_chat_template=True,
        gen_kwargs=f"max_gen_toks={MAX_GEN_TOKS}", metadata=meta, log_samples=True,
        random_seed=SEED, numpy_random_seed=SEED, torch_random_seed=SEED,
    )  # fmt: skip
    assert results is not None
    from coldbias_tasks.core.measures.summary import summarize_answers
    from coldbias_tasks.core.records import AnswerRecord
    from coldbias_tasks.core.vocabulary import ANSWER_KEY

    samples = results["samples"][TASK]
    summary = summarize_answers(AnswerRecord.from_payload(s[ANSWER_KEY]) for s in samples)
    iou = summary.metrics["iou"]
    return {"generate_s": sum(spent), "answers": len(samples), "iou_divergence": iou.mean,
            "iou_floor": iou.noise_floor.mean, "iou_floor_by_repeat": iou.noise_floor.by_repeat,
            "deterministic": summary.deterministic}  # fmt: skip


def offline_worker(repeats: int) -> dict[str, Any]:
    """The offline vLLM run (in its own process: one engine at a time on this CPU)."""
    _env()
    from run_bench import _vllm_counters

    from coldbias_tasks.app.machine import choose_dtype
    from coldbias_tasks.app.models import hub_model
    from coldbias_tasks.app.vllm_shim import install_vllm_cpu_alias

    install_vllm_cpu_alias()
    from lm_eval.models.vllm_causallms import VLLM

    lm = VLLM(
        pretrained=hub_model(log=False), dtype=choose_dtype(cuda=False), enforce_eager=True,
        enable_prefix_caching=True, block_size=BLOCK, max_model_len=max_model_len(), seed=SEED,
        batch_size="auto", disable_log_stats=False,
    )  # fmt: skip
    before = _vllm_counters(lm.model)
    out = _evaluate(lm, repeats)
    after = _vllm_counters(lm.model)
    delta = {k: after[k] - before[k] for k in after}
    out["generated_tokens"] = int(delta["vllm:generation_tokens"])
    out["hit_rate"] = delta["vllm:prefix_cache_hits"] / max(1.0, delta["vllm:prefix_cache_queries"])
    return out


def _metrics(root: str) -> dict[str, float]:
    """Sums of the server's prefix-cache and generation counters."""
    names = ("vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total",
             "vllm:generation_tokens_total")  # fmt: skip
    out = dict.fromkeys(names, 0.0)
    with urllib.request.urlopen(root + "/metrics", timeout=10) as response:
        for line in response.read().decode().splitlines():
            name = line.split("{", 1)[0].split(" ", 1)[0]
            if name in out:
                out[name] += float(line.rsplit(" ", 1)[1])
    return out


def served_run(root: str, model: str, concurrency: int, repeats: int) -> dict[str, Any]:
    from coldbias_tasks.lmeval.served import ServedChat

    request = urllib.request.Request(root + "/reset_prefix_cache", data=b"", method="POST")
    urllib.request.urlopen(request, timeout=30).close()
    lm = ServedChat(base_url=root + "/v1/chat/completions", model=model,
                    num_concurrent=concurrency, seed=SEED)  # fmt: skip
    before = _metrics(root)
    out = _evaluate(lm, repeats)
    after = _metrics(root)
    hits = after["vllm:prefix_cache_hits_total"] - before["vllm:prefix_cache_hits_total"]
    queries = after["vllm:prefix_cache_queries_total"] - before["vllm:prefix_cache_queries_total"]
    out["generated_tokens"] = lm.stats.completion_tokens
    out["server_generated_tokens"] = int(
        after["vllm:generation_tokens_total"] - before["vllm:generation_tokens_total"]
    )
    out["hit_rate"] = hits / max(1.0, queries)
    out["request_loop_s"] = lm.stats.wall_s
    return out


def cpu_flags() -> list[str]:
    """``grep -o 'avx512_bf16\\|amx_bf16\\|avx2' /proc/cpuinfo | sort -u``."""
    words = set(Path("/proc/cpuinfo").read_text().split())
    return sorted(words & {"avx2", "avx512_bf16", "amx_bf16"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", default="1,4,16")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--n-items", type=int, default=40, help="catalog items shown")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    global N_ITEMS
    N_ITEMS = args.n_items
    if args.worker:
        args.worker_out.write_text(json.dumps(offline_worker(args.repeats)))
        return 0
    _env()
    from coldbias_tasks.app.models import hub_model
    from coldbias_tasks.app.serve import vllm_server

    model = hub_model(log=False)
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"served_bench_{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    print("[bench] offline vLLM …", flush=True)
    cmd = [sys.executable, __file__, "--worker", "--worker-out", str(work / "offline.json"),
           "--repeats", str(args.repeats), "--n-items", str(N_ITEMS)]  # fmt: skip
    with (work / "offline.log").open("w") as log:
        subprocess.run(cmd, check=True, stdout=log, stderr=subprocess.STDOUT)
    runs = {"offline": json.loads((work / "offline.json").read_text())}
    print("[bench] vllm serve …", flush=True)
    dev = {"VLLM_SERVER_DEV_MODE": "1"}  # for /reset_prefix_cache
    with vllm_server(model, work / "serve.log", max_model_len(), env=dev, seed=SEED) as root:
        for c in (int(x) for x in args.concurrency.split(",")):
            print(f"[bench] served, num_concurrent {c} …", flush=True)
            runs[f"served c={c}"] = served_run(root, model, c, args.repeats)
    base = runs["offline"]
    load = {"before": load_before, "after": os.getloadavg()}
    print(f"load average (1, 5, 15 min) before {load['before']}, after {load['after']}")
    print(f"CPU flags: {' '.join(cpu_flags())}; {os.cpu_count()} cores; task {TASK}, "
          f"{json.dumps(metadata(args.repeats))}, max_gen_toks {MAX_GEN_TOKS}")  # fmt: skip
    print("| run | answers | s | answers/s | gen tokens/s | prefix hit rate | ÷ offline "
          "(answers/s, tokens/s) | IOU floor | IOU divergence |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    offline = (base["answers"] / base["generate_s"], base["generated_tokens"] / base["generate_s"])
    for name, r in runs.items():
        r["answers_per_s"] = r["answers"] / r["generate_s"]
        r["tokens_per_s"] = r["generated_tokens"] / r["generate_s"]
        r["ratio_answers"] = r["answers_per_s"] / offline[0]
        r["ratio_tokens"] = r["tokens_per_s"] / offline[1]
        print(
            f"| {name} | {r['answers']} | {r['generate_s']:.1f} | {r['answers_per_s']:.3f} | "
            f"{r['tokens_per_s']:.1f} | {r['hit_rate']:.2f} | "
            f"{r['ratio_answers']:.2f}, {r['ratio_tokens']:.2f} | {r['iou_floor']:.3f} | "
            f"{r['iou_divergence']:.3f} |"
        )
    if args.json:
        args.json.write_text(
            json.dumps({"cpu_flags": cpu_flags(), "load": load, "runs": runs}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
