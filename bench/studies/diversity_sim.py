"""Calibration of the diversity contrast between values, controlled for phrasing
(docs/measurement.md §3d; results in docs/validity.md §1c).

A simulated recommender answers every (value, phrasing) sentence of a task in R repeats: k of n
items shown (a random subset of the movie catalog, so the categories are the real genres,
countries, decades and Western flags), Plackett–Luce (Gumbel top-k) over a fixed popularity.
What a scenario adds to a sentence's utilities:

- ``blind``: nothing;
- ``wording``: every sentence its own random utility vector (sd ``tau``): each sentence's lists
  move, their diversity barely;
- ``narrow-wording``: every sentence its own **narrowness** — a random genre favoured with a
  random strength up to ``narrow`` (log-weight) — so the diversity of a sentence's lists is its
  wording's: the null the test must hold, drawn alike for every value;
- alternatives ``value δ``: on top of ``narrow-wording``, every sentence of one value favours
  dramas by δ (log-weight): that value's lists are narrower in genre.

Per row: the rejection rate at α of the joint entropy contrast, the ILD and the coverage
contrasts (95 % Wilson interval), and the coverage of 0 by the signed coverage contrast's
t-interval (nulls). Numbers from the package's own
:func:`coldbias_tasks.core.measures.diversity.summarize_diversity`.

    python bench/studies/diversity_sim.py              # 80 tasks per row, < 3 min
    python bench/studies/diversity_sim.py --quick      # 30 tasks per row
    python bench/studies/diversity_sim.py --tasks 1000 --json bench/studies/diversity_sim.json
                                                       # the docs' table
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.studies.validity_sim import machine, wilson
from coldbias_tasks.core.measures.diversity import catalog_labels, summarize_diversity
from coldbias_tasks.core.records import AnswerRecord

N_ITEMS, K, ALPHA = 60, 10, 0.05


@dataclass(frozen=True)
class Scenario:
    """``tau``: sd of a sentence's own utilities; ``narrow``: the largest log-weight of a
    sentence's own favoured genre; ``delta``: the log-weight on dramas of value 1's sentences."""

    name: str
    tau: float = 0.0
    narrow: float = 0.0
    delta: float = 0.0


@dataclass(frozen=True)
class Design:
    values: int = 2
    phrasings: int = 12
    repeats: int = 3


SCENARIOS = (
    Scenario("blind"),
    Scenario("wording", tau=1.5),
    Scenario("narrow-wording", narrow=4.0),
    Scenario("value δ=1", narrow=4.0, delta=1.0),
    Scenario("value δ=2", narrow=4.0, delta=2.0),
    Scenario("value δ=3", narrow=4.0, delta=3.0),
)
DESIGNS = (Design(2, 12, 3), Design(3, 6, 3))


def simulate_task(sc: Scenario, design: Design, rng: np.random.Generator) -> dict:
    """One task's answers as ``phrased[value][phrasing][repeat]`` records."""
    labels, _ = catalog_labels("movie")
    shown = rng.choice(len(labels), N_ITEMS, replace=False)
    genres = sorted({g for i in shown for g in labels[int(i)]["genres"]})
    has = {g: np.array([g in labels[int(i)]["genres"] for i in shown], float) for g in genres}
    drama = has.get("Drama", np.zeros(N_ITEMS))
    base = rng.normal(0, 1.0, N_ITEMS)
    phrased: dict = {}
    for v in range(design.values):
        name = f"x.v{v}"
        for p in range(design.phrasings):
            u = base + sc.tau * rng.normal(0, 1, N_ITEMS)
            if sc.narrow:
                u = u + rng.uniform(0, sc.narrow) * has[genres[rng.integers(len(genres))]]
            if v == 1 and sc.delta:
                u = u + sc.delta * drama
            for r in range(design.repeats):
                top = np.argsort(-(u + rng.gumbel(size=N_ITEMS)))[:K]
                items = tuple(int(shown[j]) for j in top)
                phrased.setdefault(name, {}).setdefault(p, {})[r] = AnswerRecord(
                    f"{name}#{p}", r, items, K, n_shown=N_ITEMS, value=name, phrasing=p
                )
    return phrased


def run_row(sc: Scenario, design: Design, tasks: int, seed: int) -> dict:
    labels, counts = catalog_labels("movie")
    rng = np.random.default_rng(seed)
    hits = {"entropy": 0, "ild": 0, "coverage": 0}
    covered = spread = 0.0
    for _ in range(tasks):
        s = summarize_diversity(simulate_task(sc, design, rng), labels, counts, ALPHA)
        for key, c in (("entropy", s.entropy), ("ild", s.ild), ("coverage", s.coverage)):
            hits[key] += c.p_value <= ALPHA
        covered += s.coverage.ci_low <= 0 <= s.coverage.ci_high
        spread += s.entropy.spread
    row = {"scenario": sc.name, "values": design.values, "phrasings": design.phrasings,
           "repeats": design.repeats, "tasks": tasks}  # fmt: skip
    for key, n in hits.items():
        low, high = wilson(n, tasks)
        row[f"{key}_reject"] = n / tasks
        row[f"{key}_reject_ci"] = [round(max(0.0, low), 4), round(min(1.0, high), 4)]
    row["coverage_ci_covers_0"] = covered / tasks
    row["mean_entropy_spread"] = spread / tasks
    return row


def markdown(rows: list[dict]) -> str:
    out = [
        "| scenario | V × P × R | tasks | reject: entropy (joint) | ILD | coverage | "
        "coverage CI covers 0 | mean entropy spread |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [
            f"{r[f'{k}_reject']:.3f} [{r[f'{k}_reject_ci'][0]:.3f}, {r[f'{k}_reject_ci'][1]:.3f}]"
            for k in ("entropy", "ild", "coverage")
        ]
        out.append(
            f"| {r['scenario']} | {r['values']} × {r['phrasings']} × {r['repeats']} | "
            f"{r['tasks']} | {' | '.join(cells)} | {r['coverage_ci_covers_0']:.3f} | "
            f"{r['mean_entropy_spread']:.3f} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=80, help="simulated tasks per row")
    ap.add_argument("--quick", action="store_true", help="30 tasks per row")
    ap.add_argument("--json", type=Path, help="write the rows (and the setup) here")
    args = ap.parse_args(argv)
    tasks = 30 if args.quick else args.tasks
    start = time.perf_counter()
    rows = []
    for d, design in enumerate(DESIGNS):
        for i, sc in enumerate(SCENARIOS):
            if design.values > 2 and sc.name in ("blind", "wording", "value δ=1"):
                continue  # the three-valued design: the null that matters and two powers
            rows.append(run_row(sc, design, tasks, seed=1000 * d + i))
            print(f"{sc.name:16s} V={design.values}: {rows[-1]['entropy_reject']:.3f}", flush=True)
    seconds = time.perf_counter() - start
    print(markdown(rows))
    print(f"{seconds:.0f} s")
    if args.json:
        setup = {"n_items": N_ITEMS, "k": K, "alpha": ALPHA, "catalog": "movie",
                 "seconds": round(seconds, 1), "python": platform.python_version(),
                 **machine()}  # fmt: skip
        args.json.write_text(json.dumps({"setup": setup, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
