"""Calibration of the seed-study tests on a synthetic model that reproduces the study's design
(docs/seed-study.md §Statistics):

    python bench/studies/seed_design_sim.py            # 200 null + 100 effect replications per test
    python bench/studies/seed_design_sim.py --quick    # 60 + 40, for development
    python bench/studies/seed_design_sim.py --json bench/studies/seed_design_sim.json

The design: 500 items in one fixed order, k = 20, S = 5 seeds, one answer per persona per
seed, no same-prompt replicate. Answers are Plackett–Luce top-k draws (Gumbel top-k) over a
fixed popularity; the **shared request seed** is modelled as common random numbers: at seed s
every prompt's Gumbel noise is ρ·G_s + √(1 − ρ²)·G_{s,prompt} (ρ = 0: independent answers;
ρ → 1: the same noise, as vLLM's seeded sampler gives for near-identical prompts). Under the
null every persona shares the popularity; under an effect, the chosen personas multiply the
weight of a fixed "genre" third of the catalog by ``boost``.

Printed per ρ: false-positive rate at α = 0.05 (with 95 % Wilson intervals) and power of
(a) the per-value within-seed swap test (its smallest p is 1/16: it can never reject),
(b) the group test of core/measures/summary.summarize_answers with no replicates (which answer of
the
seed is the neutral one) and (b') the within-seed persona permutation test
(seed_study.statistics.persona_disparity_test), (c) the two-sample permutation test between the
seed-level means of a model with the effect and the same model without it (null: both
without), (d) the male- vs female-coded subset relabelling test on a genre share, (e) the same
comparison as an unpaired two-sample test that ignores the coupling, (f) the within-seed value
permutation test of between-values disparity. Pure numpy + coldbias; no model.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from coldbias_tasks.analysis.seed_study.statistics import (
    persona_disparity_test,
    subset_relabel_test,
    two_sample_test,
    value_swap_test,
    values_disparity_test,
)
from coldbias_tasks.core.cpu import cpu_info
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.records import AnswerRecord

N_ITEMS, K, SEEDS, ALPHA = 500, 20, 5, 0.05
GENDER = ("gender.girl", "gender.boy", "gender.female", "gender.male")
GENRE = np.arange(N_ITEMS) % 3 == 0


class FakeTask:
    """The two attributes of :class:`~coldbias_tasks.analysis.run_data.TaskData` the tests read."""

    def __init__(self, records: list[AnswerRecord]) -> None:
        self.records = tuple(records)


def popularity(rng: np.random.Generator, skew: float = 2.0) -> np.ndarray:
    """One model's log item weights (a random order of an evenly spread popularity)."""
    return skew * 3.0 * np.linspace(0, 1, N_ITEMS)[rng.permutation(N_ITEMS)]


def simulate(
    rng: np.random.Generator, rho: float, boost: dict[str, float], log_w: np.ndarray
) -> dict[str, dict[int, AnswerRecord]]:
    """persona → seed → answer, for the neutral user and the four gender values, of the model
    with log item weights ``log_w``."""
    out: dict[str, dict[int, AnswerRecord]] = {p: {} for p in ("neutral", *GENDER)}
    for s in range(SEEDS):
        shared = rng.gumbel(size=N_ITEMS)
        for p in out:
            own = rng.gumbel(size=N_ITEMS)
            noise = rho * shared + math.sqrt(1 - rho**2) * own
            score = log_w + np.where(GENRE, math.log(boost.get(p, 1.0)), 0.0) + noise
            items = tuple(int(i) for i in np.argsort(-score)[:K])
            out[p][s] = AnswerRecord(p, s, items, K, n_shown=N_ITEMS, n_entries=K)
    return out


def genre_share(r: AnswerRecord) -> float:
    return float(np.mean([GENRE[i] for i in r.items]))


def run_tests(a: dict, b: dict) -> dict[str, float]:
    """p-values of every test on one simulated model ``a`` (and a second model ``b``)."""
    records = [r for by in a.values() for r in by.values()]
    task = FakeTask(records)
    group_p = summarize_answers(records, metrics=("iou",)).metrics["iou"].group_p
    personas = persona_disparity_test(task, draws=1000).p  # type: ignore[arg-type]
    swap = value_swap_test(task, "gender.girl").p  # type: ignore[arg-type]
    means = [
        [np.mean([1 - _iou(m[p][s], m["neutral"][s]) for p in GENDER]) for s in range(SEEDS)]
        for m in (a, b)
    ]
    models = two_sample_test(means[0], means[1]).p
    shares = {p: [genre_share(a[p][s]) for s in range(SEEDS)] for p in GENDER}
    male = [(shares["gender.boy"][s] + shares["gender.male"][s]) / 2 for s in range(SEEDS)]
    female = [(shares["gender.girl"][s] + shares["gender.female"][s]) / 2 for s in range(SEEDS)]
    subset = subset_relabel_test({
        s: ([shares["gender.boy"][s], shares["gender.male"][s]],
            [shares["gender.girl"][s], shares["gender.female"][s]]) for s in range(SEEDS)
    }).p  # fmt: skip
    unpaired = two_sample_test(male, female).p
    disparity = values_disparity_test(
        {s: [shares[p][s] for p in GENDER] for s in range(SEEDS)}, draws=2000
    ).p
    return {"swap_value": swap, "group_core": group_p, "group_personas": personas,
            "two_models": models, "subset": subset,
            "unpaired_subset": unpaired, "disparity": disparity}  # fmt: skip


def _iou(x: AnswerRecord, y: AnswerRecord) -> float:
    a, b = set(x.items), set(y.items)
    return len(a & b) / len(a | b) if a | b else 1.0


def wilson(hits: int, n: int) -> list[float]:
    if n == 0:
        return [math.nan, math.nan]
    p, z = hits / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)]


def rates(pvalues: list[dict[str, float]]) -> dict[str, dict[str, object]]:
    out = {}
    for name in pvalues[0]:
        hits = sum(1 for p in pvalues if p[name] <= ALPHA)
        out[name] = {"rate": round(hits / len(pvalues), 3), "ci": wilson(hits, len(pvalues))}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--boost", type=float, nargs="+", default=[1.5, 3.0],
                    help="genre weight multipliers of boy and male (power)")  # fmt: skip
    args = ap.parse_args(argv)
    n_null, n_effect = (60, 40) if args.quick else (200, 100)
    rng = np.random.default_rng(2026)
    start = time.time()
    result: dict[str, object] = {"cpu": cpu_info().model or "unknown", "boost": args.boost,
                                 "n_null": n_null, "n_effect": n_effect, "rho": {}}  # fmt: skip
    for rho in (0.0, 0.5, 0.9):
        null = []
        for _ in range(n_null):
            w = popularity(rng)  # the second model is the same model (other seeds)
            null.append(run_tests(simulate(rng, rho, {}, w), simulate(rng, rho, {}, w)))
        entry: dict[str, object] = {"false_positive": rates(null)}
        print(f"rho={rho}: false-positive rate {json.dumps(rates(null))}")
        for boost in args.boost:
            male = {"gender.boy": boost, "gender.male": boost}
            effect = []
            for _ in range(n_effect):
                w = popularity(rng)  # the same model without the effect
                effect.append(run_tests(simulate(rng, rho, male, w), simulate(rng, rho, {}, w)))
            entry[f"power_boost_{boost:g}"] = rates(effect)
            print(f"  power at boost {boost:g}: {json.dumps(rates(effect))}")
        result["rho"][str(rho)] = entry  # type: ignore[index]
    result["seconds"] = round(time.time() - start, 1)
    print(f"{result['seconds']} s on {result['cpu']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
