"""Calibration of the attribute excess and the disparity test (docs/validity.md §1b):
false-positive rate under simulated nulls, power under simulated effects, and the effect size
each scenario achieves.

    python bench/attribute_sim.py                # 400 tasks per null, 200 per effect
    python bench/attribute_sim.py --quick        # 100 / 60, for development
    python bench/attribute_sim.py --json out.json

A simulated task is a coldbias attribute task: per repeat (catalog reshuffled) the neutral
answer and M same-prompt replicates, C control personas and V values, each a k-list drawn by a
Plackett–Luce model (Gumbel top-k) over a fixed item popularity. Scenarios:

- ``blind``: every persona samples from the neutral distribution (the attribute and the
  controls' sentences do nothing);
- ``any_sentence``: every value and control samples from one other distribution (a model that
  reacts to any sentence identically) — the null of both tests;
- ``position``: every persona, the neutral user included, prefers the first items shown — a
  null with a catalog-position effect;
- ``two_values`` (alternative of the disparity test): on top of ``any_sentence``, two of the V
  values favour every third item by ``boost``;
- ``attribute`` (alternative of the attribute test): every value, not the controls, favours
  every third item by ``boost`` (the controls react as the neutral user).

Effect sizes are reported as achieved: the mean attribute excess and disparity under each
scenario divided by their null standard deviation (σ from ``any_sentence``). Pure Python +
numpy; no model, no lm-eval. CPU flags and timings are printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from coldbias_tasks.core.attribute import attribute_excess, disparity
from scipy.stats import t as student_t

from coldbias_tasks.app.machine import cpu_info
from coldbias_tasks.core.records import AnswerRecord

ALPHA = 0.05
N_ITEMS, K, SKEW = 60, 10, 2.0
DESIGNS = ((5, 3, 2, 4), (10, 3, 2, 4), (5, 3, 2, 7))  # (R, M, C, V); gender has V = 4
BOOST = 6.0

Weight = Callable[[int, int], float]  # (item, position shown) → weight


def _popularity(seed: int) -> np.ndarray:
    return np.exp(SKEW * 3.0 * np.random.default_rng(seed).random(N_ITEMS))


BASE, OTHER = _popularity(20240601), _popularity(7919)


def _top_k(shown: list[int], weight: Weight, rng: random.Random) -> tuple[int, ...]:
    keys = [
        (math.log(weight(item, pos)) - math.log(-math.log(rng.random() or 1e-12)), item)
        for pos, item in enumerate(shown)
    ]
    return tuple(i for _, i in sorted(keys, reverse=True)[:K])


def _weights(scenario: str) -> tuple[Weight, Weight, Callable[[int], Weight]]:
    """(neutral, control, value v) weights of a scenario."""
    base: Weight = lambda i, p: BASE[i]  # noqa: E731
    said: Weight = lambda i, p: BASE[i] * OTHER[i]  # noqa: E731
    third = lambda i: BOOST if i % 3 == 0 else 1.0  # noqa: E731
    if scenario == "blind":
        return base, base, lambda v: base
    if scenario == "position":
        first: Weight = lambda i, p: BASE[i] * math.exp(-p / 8)  # noqa: E731
        return first, first, lambda v: first
    if scenario == "any_sentence":
        return base, said, lambda v: said
    if scenario == "two_values":
        favoured: Weight = lambda i, p: said(i, p) * third(i)  # noqa: E731
        return base, said, lambda v: favoured if v < 2 else said
    if scenario == "attribute":
        boosted: Weight = lambda i, p: BASE[i] * third(i)  # noqa: E731
        return base, base, lambda v: boosted
    raise ValueError(scenario)


def simulate(seed: int, scenario: str, repeats: int, replicates: int, controls: int, n_values: int):
    """(neutral answers, value answers, control answers) by repeat of one simulated task."""
    rng = random.Random(seed)
    neutral_w, control_w, value_w = _weights(scenario)
    neutrals, values, ctrl = {}, {f"v{v}": {} for v in range(n_values)}, {}
    for r in range(repeats):
        shown = list(range(N_ITEMS))
        rng.shuffle(shown)

        def answer(pid: str, w: Weight, r: int = r, shown: list[int] = shown) -> AnswerRecord:
            items = _top_k(shown, w, rng)
            return AnswerRecord(pid, r, items, K, n_shown=N_ITEMS)

        neutrals[r] = [answer("neutral", neutral_w) for _ in range(replicates + 1)]
        ctrl[r] = [answer(f"control.c{c}", control_w) for c in range(controls)]
        for v in range(n_values):
            values[f"v{v}"][r] = answer(f"v{v}", value_w(v))
    return neutrals, values, ctrl


def wilson(hits: int, n: int) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    z, p = 1.96, hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def scenario_figures(scenario: str, design: tuple[int, int, int, int], n: int) -> dict:
    repeats, replicates, controls, n_values = design
    attr, attr_p, disp, disp_p, covered = [], [], [], [], 0
    for seed in range(n):
        neutrals, values, ctrl = simulate(seed, scenario, repeats, replicates, controls, n_values)
        a = attribute_excess("iou", neutrals, values, ctrl)
        d = disparity("iou", values, ALPHA)
        attr.append(a.mean)
        attr_p.append(a.p_value)
        disp.append(d.value)
        disp_p.append(d.p_value)
        half = student_t.ppf(0.975, repeats - 1) * a.stderr
        covered += a.mean - half <= 0.0 <= a.mean + half
    a_hits = int(np.sum(np.asarray(attr_p) <= ALPHA))
    d_hits = int(np.sum(np.asarray(disp_p) <= ALPHA))
    return {
        "attribute_mean": float(np.mean(attr)),
        "attribute_sd": float(np.std(attr, ddof=1)),
        "attribute_rejects": a_hits / n,
        "attribute_rejects_ci": wilson(a_hits, n),
        "attribute_ci_covers_0": covered / n,
        "disparity_mean": float(np.mean(disp)),
        "disparity_sd": float(np.std(disp, ddof=1)),
        "disparity_rejects": d_hits / n,
        "disparity_rejects_ci": wilson(d_hits, n),
    }


NULLS = ("blind", "any_sentence", "position")
ALTERNATIVES = ("two_values", "attribute")


def run(n_null: int, n_alt: int) -> dict:
    t0 = time.time()
    out: dict = {"designs": {}}
    for design in DESIGNS:
        name = "R={}, M={}, C={}, V={}".format(*design)
        rows = {s: scenario_figures(s, design, n_null) for s in NULLS}
        rows |= {s: scenario_figures(s, design, n_alt) for s in ALTERNATIVES}
        sigma_a = rows["any_sentence"]["attribute_sd"]
        sigma_d = rows["any_sentence"]["disparity_sd"]
        for row in rows.values():
            row["attribute_effect_sigma"] = row["attribute_mean"] / sigma_a
            row["disparity_effect_sigma"] = row["disparity_mean"] / sigma_d
        out["designs"][name] = rows
        print(f"  {name}: done ({time.time() - t0:.0f} s)")
    out["seconds"] = time.time() - t0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 tasks per null, 60 per effect")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    n_null, n_alt = (100, 60) if args.quick else (400, 200)
    cpu = cpu_info()
    figures = run(n_null, n_alt)
    flags = sorted(f for f in cpu.flags if "avx" in f or "amx" in f)
    figures.update({
        "n_null": n_null, "n_alt": n_alt, "alpha": ALPHA, "boost": BOOST, "n_items": N_ITEMS,
        "k": K, "python": platform.python_version(), "cpu_model": cpu.model, "cpu_flags": flags,
    })  # fmt: skip
    print(f"CPU: {cpu.model}; flags: {', '.join(flags) or 'none of avx*/amx*'}; "
          f"{figures['seconds']:.0f} s; {n_null} per null, {n_alt} per alternative")  # fmt: skip
    print("| design | scenario | attribute excess (δ/σ) | attribute test rejects | "
          "interval covers 0 | disparity (δ/σ) | disparity test rejects |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, rows in figures["designs"].items():
        for scenario, r in rows.items():
            print(
                f"| {name} | {scenario} | {r['attribute_mean']:+.4f} "
                f"({r['attribute_effect_sigma']:+.1f}σ) | {r['attribute_rejects']:.3f} | "
                f"{r['attribute_ci_covers_0']:.2f} | {r['disparity_mean']:+.4f} "
                f"({r['disparity_effect_sigma']:+.1f}σ) | {r['disparity_rejects']:.3f} |"
            )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
