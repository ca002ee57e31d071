"""A small synthetic stand-in for the seed study's repository, in its file layout.

Everything here is invented (titles "Movie 00", ...; two models; three attribute groups): only
the layout and the JSON shape follow the study, so the importer can be tested without its
(unlicensed) data. The answers are known in closed form: at seed s the neutral user gets
catalog items 0..19 and the value with offset o gets items o..o+19, so its IOU divergence is
2o / (20 + o). :data:`OFFSETS` and :func:`offset` define o.
"""

from __future__ import annotations

import json
from pathlib import Path

N_ITEMS = 30
K = 20
SEEDS = (0, 1, 2, 3, 4)
GROUPS = {
    "gender": ["a girl", "a boy", "a female", "a male"],
    "country": ["an American", "a French"],
    "continent": ["an African", "an American"],
}
#: model → base offset per value phrase ("an American" is the same prompt in two groups)
OFFSETS = {
    "gemma3_4b": {"a girl": 4, "a boy": 0, "a female": 3, "a male": 1, "an American": 2,
                  "a French": 5, "an African": 6},
    "llama3.2_3b": {"a girl": 1, "a boy": 1, "a female": 1, "a male": 1, "an American": 1,
                    "a French": 1, "an African": 1},
}  # fmt: skip
DOMAINS = ("college", "movie", "music")


def titles(domain: str) -> list[str]:
    return [f"{domain.title()} {i:02d}" for i in range(N_ITEMS)]


def offset(model: str, phrase: str, seed: int) -> int:
    """The value's offset at a seed: the base offset, plus 1 on odd seeds."""
    return OFFSETS[model][phrase] + seed % 2


def expected_divergence(model: str, phrase: str, seed: int) -> float:
    o = offset(model, phrase, seed)
    return 2 * o / (K + o)


def _entry(domain: str, start: int) -> dict:
    names = titles(domain)[start : start + K]
    text = "\n".join(f"{i}. {t}" for i, t in enumerate(names, start=1))
    return {"recommended_list": names, "response": text, "nb_items": len(names)}


def answer_file(model: str, domain: str, seed: int) -> dict:
    out: dict = {"neutral": _entry(domain, 0)}
    for group, phrases in GROUPS.items():
        out[group] = {p: _entry(domain, offset(model, p, seed)) for p in phrases}
    return out


def write_fixture(root: Path) -> Path:
    """Write the fixture under ``root``; returns ``root``. Irregularities, as in the study:
    gemma3_4b has both ``movie_`` and ``movie_,`` plain sets (the latter holds different,
    recognisable answers: every list shifted by 10), a ``movie_action_movie_fan`` set with a
    sixth seed file, one error entry (no list) and one empty answer; llama3.2_3b has no plain
    music run; one file has an unknown name."""
    (root / "config").mkdir(parents=True, exist_ok=True)
    (root / "data" / "datasets").mkdir(parents=True, exist_ok=True)
    raw = root / "data" / "raw_text_results"
    raw.mkdir(parents=True, exist_ok=True)
    for d in DOMAINS:
        (root / "data" / "datasets" / f"{d}.json").write_text(json.dumps(titles(d)))
    (root / "config" / "sensitive_attributes.json").write_text(json.dumps(GROUPS))
    (root / "config" / "config_inference").write_text(
        "[parameters]\nk = 20\nseeds = 0, 1, 2, 3, 4\n"
    )
    hubs = {"gemma3_4b": "google/gemma-3-4b-it", "llama3.2_3b": "meta-llama/Llama-3.2-3B-Instruct"}
    (root / "config" / "model_config.json").write_text(
        json.dumps({m: {"vllm": h} for m, h in hubs.items()})
    )
    for model in OFFSETS:
        for seed in SEEDS:
            for d in DOMAINS:
                if model == "llama3.2_3b" and d == "music":
                    continue
                data = answer_file(model, d, seed)
                (raw / f"{model}_{d}__{seed}.json").write_text(json.dumps(data))
    for seed in SEEDS:
        late = answer_file("gemma3_4b", "movie", seed)
        late["neutral"] = _entry("movie", 10)
        (raw / f"gemma3_4b_movie_,_{seed}.json").write_text(json.dumps(late))
    for seed in (*SEEDS, 5):
        data = answer_file("gemma3_4b", "movie", seed)
        if seed == 2:
            data["gender"]["a girl"] = {"response": "ERROR: request failed"}
            data["gender"]["a boy"] = {"recommended_list": [], "response": "no idea",
                                       "nb_items": 0}  # fmt: skip
        (raw / f"gemma3_4b_movie_action_movie_fan_{seed}.json").write_text(json.dumps(data))
    (raw / "notes_about_runs.json").write_text("{}")
    return root
