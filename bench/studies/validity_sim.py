"""Calibration of coldbias' tests: false-positive rate under a simulated null, power under
simulated effects, for the default design and the paper's (docs/validity.md).

    python bench/studies/validity_sim.py                 # 400 null + 200 tasks per effect size
    python bench/studies/validity_sim.py --quick         # 100 + 60, for development
    python bench/studies/validity_sim.py --json out.json

The simulated recommender: every persona draws its k-list from one Plackett–Luce distribution
over a fixed item popularity (Gumbel top-k), the catalog reshuffled per repeat as in the tasks;
a task has the neutral user, M same-prompt replicates per repeat and 7 values (the largest
group, country). Under the null all personas share the distribution. Under an effect, value v0
multiplies the weight of every third item by ``boost``. Effect sizes are stated in σ units:
δ/σ with δ = E[d_r(v0)] (the per-repeat excess under the effect) and σ = sd of d_r(a) under the
null (one value, one repeat); the boost for a target δ/σ is found by bisection on a pilot.

Per design (R repeats, M replicates) it prints: the smallest attainable Holm-adjusted p over 7
values, the group test's false-positive rate at α = 0.05, the family-wise error of the Holm
per-value verdicts (any null value flagged), the mean excess under the null, and the power of
the group test and of the per-value test of v0 at δ/σ = 0.5, 1, 2 (with 95 % Wilson intervals).
Pure Python + numpy; no model, no lm-eval. CPU flags and timings are printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from coldbias_tasks.core.cpu import cpu_info
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.vocabulary import replicate_id

ALPHA = 0.05
VALUES = 7
N_ITEMS, K, SKEW = 60, 10, 2.5
DESIGNS = [(5, 3), (5, 1), (3, 3), (5, 0)]  # (repeats, replicates); (5, 3) is the default
EFFECTS = (0.5, 1.0, 2.0)


def _weights(skew: float) -> np.ndarray:
    rng = np.random.default_rng(20240601)
    return np.exp(skew * 3.0 * rng.random(N_ITEMS))


BASE = _weights(SKEW)


def _top_k(shown: list[int], weights: np.ndarray, rng: random.Random) -> tuple[int, ...]:
    keys = [(math.log(weights[i]) - math.log(-math.log(rng.random() or 1e-12)), i) for i in shown]
    return tuple(i for _, i in sorted(keys, reverse=True)[:K])


def simulate(seed: int, repeats: int, replicates: int, boost: float = 1.0) -> list[AnswerRecord]:
    """One task's answers; value ``g.v0`` multiplies every third item's weight by ``boost``."""
    rng = random.Random(seed)
    boosted = BASE * np.where(np.arange(N_ITEMS) % 3 == 0, boost, 1.0)
    out = []
    for r in range(repeats):
        shown = list(range(N_ITEMS))
        rng.shuffle(shown)
        where = {item: p for p, item in enumerate(shown)}

        def answer(
            pid: str, w: np.ndarray, r: int = r, shown: list[int] = shown, where: dict = where
        ) -> AnswerRecord:
            items = _top_k(shown, w, rng)
            return AnswerRecord(pid, r, items, K, positions=tuple(where[i] for i in items),
                                n_shown=N_ITEMS)  # fmt: skip

        out.append(answer("neutral", BASE))
        out += [answer(replicate_id(j), BASE) for j in range(1, replicates + 1)]
        out += [answer(f"g.v{v}", boosted if v == 0 else BASE) for v in range(VALUES)]
    return out


def _excess_of_v0(records: list[AnswerRecord]) -> list[float]:
    summary = summarize_answers(records, metrics=("iou",)).metrics["iou"]
    v0 = next(v for v in summary.values if v.persona_id == "g.v0")
    return list(v0.excess_by_repeat.values())


#: Upper bound of the boost search: a larger effect than any boost below it gives is reported
#: as the effect achieved, not the one asked for (the excess is capped by 1 − floor).
MAX_BOOST = 1e5


def calibrate(target: float, sigma: float, pilot: int) -> float:
    """The boost whose mean per-repeat excess δ ≈ target·σ (bisection on log boost, up to
    :data:`MAX_BOOST`; :func:`achieved` says what it reached)."""
    low, high = 0.0, math.log(MAX_BOOST)
    for _ in range(14):
        mid = (low + high) / 2
        deltas = [x for s in range(pilot) for x in _excess_of_v0(simulate(10_000 + s, 5, 3,
                  math.exp(mid)))]  # fmt: skip
        if np.mean(deltas) < target * sigma:
            low = mid
        else:
            high = mid
    return math.exp((low + high) / 2)


def achieved(boost: float, sigma: float, pilot: int) -> float:
    """δ/σ that ``boost`` gives (on fresh pilot tasks)."""
    deltas = [x for s in range(pilot) for x in _excess_of_v0(simulate(20_000 + s, 5, 3, boost))]
    return float(np.mean(deltas) / sigma)


def machine() -> dict[str, object]:
    """Provenance of a simulation's figures: the CPU model and its avx*/amx* flags (float sums
    differ in the last digits between CPU kinds), NumPy's version and coldbias'."""
    from coldbias_tasks import __version__

    cpu = cpu_info()
    flags = sorted(f for f in cpu.flags if "avx" in f or "amx" in f)
    return {"cpu_model": cpu.model, "cpu_flags": flags, "numpy": np.__version__,
            "coldbias": __version__}  # fmt: skip


def wilson(hits: int, n: int) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    z, p = 1.96, hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run(n_null: int, n_alt: int, pilot: int) -> dict:
    t0 = time.time()
    # σ: sd of one value's per-repeat excess under the null (default design)
    null_d = [x for s in range(pilot * 4) for x in _excess_of_v0(simulate(50_000 + s, 5, 3))]
    sigma = float(np.std(null_d, ddof=1))
    boosts = {e: calibrate(e, sigma, pilot) for e in EFFECTS}
    reached = {e: achieved(b, sigma, pilot) for e, b in boosts.items()}
    out: dict = {"sigma": sigma, "boosts": boosts, "achieved_sigma": reached, "designs": {}}
    for repeats, replicates in DESIGNS:
        name = f"R={repeats}, M={replicates}"
        null = [summarize_answers(simulate(s, repeats, replicates), metrics=("iou",)).metrics["iou"]
                for s in range(n_null)]  # fmt: skip
        fpr = sum(ms.group_p <= ALPHA for ms in null if not math.isnan(ms.group_p))
        tested = sum(not math.isnan(ms.group_p) for ms in null)
        fwer = sum(any(v.flagged for v in ms.values) for ms in null)
        row = {
            "min_adjusted_p": null[0].min_adjusted_p,
            "underpowered": bool(null[0].underpowered),
            "group_fpr": fpr / tested if tested else math.nan,
            "group_fpr_ci": wilson(fpr, tested),
            "fwer": fwer / len(null),
            "fwer_ci": wilson(fwer, len(null)),
            "null_mean_excess": float(np.nanmean([ms.excess for ms in null])),
            "power": {},
        }
        for effect, boost in boosts.items():
            alt = [
                summarize_answers(
                    simulate(90_000 + s, repeats, replicates, boost), metrics=("iou",)
                ).metrics["iou"]
                for s in range(n_alt)
            ]
            group = sum(ms.group_p <= ALPHA for ms in alt if not math.isnan(ms.group_p))
            v0 = sum(next(v for v in ms.values if v.persona_id == "g.v0").flagged for ms in alt)
            row["power"][str(effect)] = {
                "group": group / n_alt, "group_ci": wilson(group, n_alt),
                "value": v0 / n_alt, "value_ci": wilson(v0, n_alt),
            }  # fmt: skip
        out["designs"][name] = row
        print(f"  {name}: done ({time.time() - t0:.0f} s)", file=sys.stderr)
    out["seconds"] = time.time() - t0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 null + 60 per effect")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    n_null, n_alt, pilot = (100, 60, 8) if args.quick else (400, 200, 20)
    cpu = cpu_info()
    figures = run(n_null, n_alt, pilot)
    figures.update({
        "n_null": n_null, "n_alt": n_alt, "values": VALUES, "alpha": ALPHA,
        "n_items": N_ITEMS, "k": K, "python": platform.python_version(),
        "cpu_model": cpu.model, "cpu_flags": sorted(f for f in cpu.flags if "avx" in f or
                                                    "amx" in f),
    })  # fmt: skip
    print(f"CPU: {cpu.model}; flags: {', '.join(figures['cpu_flags']) or 'none of avx*/amx*'}")
    print(f"simulated tasks: {n_null} under the null, {n_alt} per effect size; {VALUES} values, "
          f"k={K} of {N_ITEMS}; σ (null sd of one value's per-repeat IOU excess) = "
          f"{figures['sigma']:.3f}; {figures['seconds']:.0f} s")  # fmt: skip
    print("effect sizes asked → achieved: " + ", ".join(
        f"{e}σ → {figures['achieved_sigma'][e]:.2f}σ (boost {figures['boosts'][e]:.3g})"
        for e in EFFECTS))  # fmt: skip
    header = ("| design | min adj. p | group FPR | FWER (Holm) | null excess | "
              + " | ".join(f"power {e}σ group / value" for e in EFFECTS) + " |")  # fmt: skip
    print(header)
    print("|" + "---|" * (5 + len(EFFECTS)))
    for name, row in figures["designs"].items():
        cells = [
            f"{row['min_adjusted_p']:.3g}" + (" (underpowered)" if row["underpowered"] else ""),
            f"{row['group_fpr']:.3f}", f"{row['fwer']:.3f}", f"{row['null_mean_excess']:+.4f}",
        ]  # fmt: skip
        for e in EFFECTS:
            p = row["power"][str(e)]
            cells.append(f"{p['group']:.2f} / {p['value']:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
