"""Same prompt, same seed: does ``vllm serve`` answer exactly as offline vLLM does?

Builds the chat prompts of one coldbias task (``coldbias_movie_gender``, 40-item catalog, k 5,
2 repeats, 1 replicate, 1 control: 14 prompts) and the per-request seeds the served models
send (:func:`coldbias_tasks.lmeval.served.request_seed`), then

- ``offline``: one ``vllm.LLM`` (prefix caching, KV blocks of 32, eager, engine seed 1234)
  generates every prompt twice: with the per-request seeds (``SamplingParams(seed=...)``) and
  without (the engine's RNG, as lm-eval's vLLM backend samples);
- ``served``: one ``vllm serve`` (:func:`coldbias_tasks.app.serve.vllm_server`) answers the same
  chat messages through ``/v1/chat/completions`` with the same seeds and plain sampling;
- ``compare``: exact-text agreement and answer lengths.

Temperature 0.7, ``max_tokens`` 96, ``top_p`` 1, ``top_k`` -1 everywhere. Run the two engines
one after the other (each loads the model)::

    python bench/model_runs/served_offline_seeds.py offline --out /tmp/seeds
    python bench/model_runs/served_offline_seeds.py served --out /tmp/seeds
    python bench/model_runs/served_offline_seeds.py compare --out /tmp/seeds
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

TASK = "coldbias_movie_gender"
META = {"coldbias_n_items": 40, "coldbias_k": 5, "coldbias_repeats": 2,
        "coldbias_replicates": 1, "coldbias_controls": 1}  # fmt: skip
SAMPLING = {"temperature": 0.7, "max_tokens": 96, "top_p": 1.0, "top_k": -1}


def _setup() -> tuple[str, list[list[dict[str, str]]], list[int]]:
    """The model's hub id, the chat messages and the per-request seeds."""
    from coldbias_tasks.app.models import DEFAULT_MODEL, hub_model
    from coldbias_tasks.core.prompting.documents import build_docs
    from coldbias_tasks.lmeval.served import request_seed

    docs = [d.to_dict() for d in build_docs("movie", "gender", "plain", metadata=META)]
    seeds = [request_seed(1234, TASK, d, i) for i, d in enumerate(docs)]
    messages = [[{"role": "user", "content": d["prompt"]}] for d in docs]
    return hub_model(DEFAULT_MODEL, log=False), messages, seeds


def offline(out: Path, dtype: str) -> None:
    from vllm import LLM, SamplingParams

    model, messages, seeds = _setup()
    llm = LLM(model=model, dtype=dtype, enforce_eager=True, enable_prefix_caching=True,
              block_size=32, max_model_len=2048, seed=1234)  # fmt: skip
    tok = llm.get_tokenizer()
    prompts = [tok.apply_chat_template(m, tokenize=False, add_generation_prompt=True)
               for m in messages]  # fmt: skip
    result: dict[str, Any] = {}
    for label, seeded in (("seeded", True), ("engine_rng", False)):
        params = [SamplingParams(**SAMPLING, seed=s if seeded else None) for s in seeds]
        result[label] = [
            {
                "text": o.outputs[0].text,
                "n": len(o.outputs[0].token_ids),
                "prompt_n": len(o.prompt_token_ids),
            }
            for o in llm.generate(prompts, params)
        ]
    (out / "offline.json").write_text(json.dumps(result, indent=1))


def served(out: Path, dtype: str) -> None:
    import requests

    from coldbias_tasks.app.serve import vllm_server

    model, messages, seeds = _setup()
    rows = []
    with vllm_server(model, out / "serve.log", 2048, env=dict(os.environ), seed=1234) as root:
        for m, seed in zip(messages, seeds):
            body = {"model": model, "messages": m, "stop": [], "min_p": 0.0,
                    "repetition_penalty": 1.0, "seed": seed, **SAMPLING}  # fmt: skip
            r = requests.post(root + "/v1/chat/completions", json=body, timeout=600).json()
            rows.append({"text": r["choices"][0]["message"]["content"],
                         "n": r["usage"]["completion_tokens"],
                         "prompt_n": r["usage"]["prompt_tokens"]})  # fmt: skip
    (out / "served.json").write_text(json.dumps({"seeded": rows, "dtype": dtype}, indent=1))


def compare(out: Path) -> None:
    off = json.loads((out / "offline.json").read_text())
    srv = json.loads((out / "served.json").read_text())["seeded"]

    def mean(rows: list[dict[str, Any]]) -> float:
        return sum(r["n"] for r in rows) / len(rows)

    same = sum(a["text"] == b["text"] for a, b in zip(off["seeded"], srv))
    print(f"prompts: {len(srv)}, prompt tokens offline {off['seeded'][0]['prompt_n']}, "
          f"served {srv[0]['prompt_n']}")  # fmt: skip
    print(f"served == offline with the same seeds (exact text): {same} of {len(srv)}")
    rng = mean(off["engine_rng"])
    print(f"mean generated tokens: served {mean(srv):.1f}, offline seeded "
          f"{mean(off['seeded']):.1f}, offline engine RNG {rng:.1f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["offline", "served", "compare"])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--dtype", default=None, help="default: this machine's (choose_dtype)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from coldbias_tasks.app.demo import RUN_ENV
    from coldbias_tasks.app.machine import choose_dtype
    from coldbias_tasks.app.models import offline_env

    os.environ.update({**offline_env(), **RUN_ENV})  # before vLLM reads the hub cache path

    dtype = args.dtype or choose_dtype(cuda=False)
    {"offline": lambda: offline(args.out, dtype), "served": lambda: served(args.out, dtype),
     "compare": lambda: compare(args.out)}[args.mode]()  # fmt: skip


if __name__ == "__main__":  # vLLM spawns processes
    main()
