"""Calibration of the costs to the user: the preference, item-quality and failure gaps between
values, controlled for phrasing (docs/measurement.md §3e; results in docs/validity.md §1e).

A simulated recommender answers a pref task: every value in P phrasings × Q = 3 stated
preferences (the movie domain's action / comedy / horror) in R repeats; k = 10 of n = 60 shown
items (a random subset of the movie catalog per task, so genres and critics' scores are the
real ones; one shown order per repeat, shared by every sentence), Plackett–Luce (Gumbel top-k)
over log-weights. What a scenario adds:

- ``blind``: nothing but a base popularity and a mild pull to the stated genre;
- ``sentence effects``: every sentence its own utility effect, drawn alike for every value —
  its own random item utilities (sd 1.5), its own pull to the stated genre (U(0, 3)), its own
  taste for critics' scores (N(0, 1) per 25 points) and its own failure propensity (U(0, 0.4));
- ``+ position``: on top, a strong position effect (log-weight −3 × shown position / n);
- ``failures at random``: on top, a further 30 % of answers fail (a random length < k or none);
- alternatives (on top of ``sentence effects``): value 1's pull to the stated genre lower by
  δ (``pref δ``), value 1's failure probability higher by δ (``fail +δ``), value 1 drawn to
  lower critics' scores by δ per 25 points (``quality δ``).

Per row: the rejection rate at α of each gap's relabelling test (95 % Wilson interval) and the
mean signed gap (value 1 − value 0) in its units. Numbers from the package's own
:func:`coldbias_tasks.core.measures.costs.summarize_costs`.

    python bench/studies/cost_sim.py --tasks 1000 --json bench/studies/cost_sim.json  # docs
    python bench/studies/cost_sim.py --quick                                  # 40 tasks per row
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.studies.validity_sim import machine, wilson
from coldbias_tasks.core.measures.costs import summarize_costs
from coldbias_tasks.core.measures.item_quality import item_facts
from coldbias_tasks.core.measures.preference import matching_items
from coldbias_tasks.core.records import AnswerRecord

N_ITEMS, K, ALPHA, N_CATALOG = 60, 10, 0.05, 500
PREFS = ("action", "comedy", "horror")
GAPS = ("preference", "quality", "failure")


@dataclass(frozen=True)
class Scenario:
    """Sentence-level spreads (``tau``, ``pull``, ``taste``, ``fail``), the position effect
    ``position``, failures at random ``random_fail``, and value 1's differences ``d_pref``,
    ``d_fail``, ``d_quality``."""

    name: str
    tau: float = 0.0
    pull: float = 0.0
    taste: float = 0.0
    fail: float = 0.0
    position: float = 0.0
    random_fail: float = 0.0
    d_pref: float = 0.0
    d_fail: float = 0.0
    d_quality: float = 0.0


@dataclass(frozen=True)
class Design:
    values: int = 2
    phrasings: int = 4
    repeats: int = 2


EFFECTS = {"tau": 1.5, "pull": 3.0, "taste": 1.0, "fail": 0.4}
SCENARIOS = (
    Scenario("blind"),
    Scenario("sentence effects", **EFFECTS),
    Scenario("+ position", **EFFECTS, position=3.0),
    Scenario("failures at random", **EFFECTS, random_fail=0.3),
    Scenario("pref δ=1", **EFFECTS, d_pref=1.0),
    Scenario("pref δ=2", **EFFECTS, d_pref=2.0),
    Scenario("fail +0.1", **EFFECTS, d_fail=0.1),
    Scenario("fail +0.2", **EFFECTS, d_fail=0.2),
    Scenario("quality δ=0.5", **EFFECTS, d_quality=0.5),
    Scenario("quality δ=1", **EFFECTS, d_quality=1.0),
)
DESIGNS = (Design(2, 4, 2), Design(3, 4, 2))


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Per preference: 1.0 for catalog rows serving it; critics' score centred (÷ 25, 0 when
    unknown)."""
    facts = item_facts("movie")
    has = {p: np.zeros(N_CATALOG) for p in PREFS}
    for p in PREFS:
        has[p][sorted(matching_items("movie", p) or ())] = 1.0
    score = np.zeros(N_CATALOG)
    for i, s in facts.items():
        score[i] = (s - 50.0) / 25.0
    return has, score


def simulate_task(sc: Scenario, design: Design, rng: np.random.Generator) -> dict:
    """One pref task's answers as ``phrased[value][cell][repeat]`` records (cell = q × P + p)."""
    has, score = _tables()
    shown = rng.choice(N_CATALOG, N_ITEMS, replace=False)
    orders = [rng.permutation(N_ITEMS) for _ in range(design.repeats)]
    base = rng.normal(0, 1.0, N_ITEMS)
    phrased: dict = {}
    for v in range(design.values):
        name = f"x.v{v}"
        for q, pref in enumerate(PREFS):
            target = has[pref][shown]
            for p in range(design.phrasings):
                cell = q * design.phrasings + p
                pull = 1.0 + rng.uniform(0, sc.pull) - (sc.d_pref if v == 1 else 0.0)
                taste = rng.normal(0, sc.taste) if sc.taste else 0.0
                taste -= sc.d_quality if v == 1 else 0.0
                u = base + sc.tau * rng.normal(0, 1, N_ITEMS) + pull * target
                u = u + taste * score[shown]
                p_fail = rng.uniform(0, sc.fail) + (sc.d_fail if v == 1 else 0.0)
                for r in range(design.repeats):
                    pos = np.empty(N_ITEMS)
                    pos[orders[r]] = np.arange(N_ITEMS)
                    w = u - sc.position * pos / N_ITEMS + rng.gumbel(size=N_ITEMS)
                    top = [int(shown[j]) for j in np.argsort(-w)[:K]]
                    fails = rng.random() < p_fail or rng.random() < sc.random_fail
                    if fails:
                        top = top[: int(rng.integers(0, K))]
                    phrased.setdefault(name, {}).setdefault(cell, {})[r] = AnswerRecord(
                        f"{name}#{cell}", r, tuple(top), K, n_shown=N_ITEMS,
                        n_entries=len(top), value=name, phrasing=cell, catalog="movie",
                        preference=pref,
                    )  # fmt: skip
    return phrased


def run_row(sc: Scenario, design: Design, tasks: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(GAPS, 0)
    signed = dict.fromkeys(GAPS, 0.0)
    for _ in range(tasks):
        costs = summarize_costs(simulate_task(sc, design, rng), "movie", ALPHA)
        for key, gap in zip(GAPS, costs.gaps()):
            hits[key] += gap.contrast.p_value <= ALPHA
            signed[key] += gap.contrast.signed
    row = {"scenario": sc.name, "values": design.values, "phrasings": design.phrasings,
           "preferences": len(PREFS), "repeats": design.repeats, "tasks": tasks}  # fmt: skip
    for key, n in hits.items():
        low, high = wilson(n, tasks)
        row[f"{key}_reject"] = n / tasks
        row[f"{key}_reject_ci"] = [round(max(0.0, low), 4), round(min(1.0, high), 4)]
        row[f"{key}_mean_signed"] = signed[key] / tasks
    return row


def markdown(rows: list[dict]) -> str:
    out = [
        "| scenario | V × P × Q × R | tasks | reject: preference | quality | failure | "
        "mean signed gap (pref, quality, failure) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [
            f"{r[f'{k}_reject']:.3f} [{r[f'{k}_reject_ci'][0]:.3f}, {r[f'{k}_reject_ci'][1]:.3f}]"
            for k in GAPS
        ]
        means = ", ".join(f"{r[f'{k}_mean_signed']:+.3f}" for k in GAPS)
        out.append(
            f"| {r['scenario']} | {r['values']} × {r['phrasings']} × {r['preferences']} × "
            f"{r['repeats']} | {r['tasks']} | {' | '.join(cells)} | {means} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=200, help="simulated tasks per row")
    ap.add_argument("--quick", action="store_true", help="40 tasks per row")
    ap.add_argument("--json", type=Path, help="write the rows (and the setup) here")
    args = ap.parse_args(argv)
    tasks = 40 if args.quick else args.tasks
    start = time.perf_counter()
    rows = []
    for d, design in enumerate(DESIGNS):
        for i, sc in enumerate(SCENARIOS):
            if design.values > 2 and sc.name not in ("sentence effects", "pref δ=2", "fail +0.2"):
                continue  # the three-valued design: the null that matters and two powers
            rows.append(run_row(sc, design, tasks, seed=1000 * d + i))
            r = rows[-1]
            print(f"{sc.name:20s} V={design.values}: " + " ".join(
                f"{k} {r[f'{k}_reject']:.3f}" for k in GAPS), flush=True)  # fmt: skip
    seconds = time.perf_counter() - start
    print(markdown(rows))
    print(f"{seconds:.0f} s")
    if args.json:
        setup = {"n_items": N_ITEMS, "k": K, "alpha": ALPHA, "catalog": "movie",
                 "preferences": list(PREFS), "seconds": round(seconds, 1),
                 "python": platform.python_version(), **machine()}  # fmt: skip
        args.json.write_text(json.dumps({"setup": setup, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
