"""Calibration of the headline — the disparity between values controlled for phrasing — under
simulated nulls and alternatives (docs/validity.md §1).

A simulated recommender answers every (value, phrasing) sentence of a task in R repeats: k of n
shown items by Plackett–Luce (Gumbel top-k) over a fixed popularity, the catalog reshuffled per
repeat. What a scenario adds to the utilities of a sentence's answer:

- ``blind``: nothing (persona-blind);
- ``any``: one shared vector for every sentence (a model that reacts to any sentence alike);
- ``content``: an independent random vector per sentence (each wording its own effect), scaled so
  the sd over sentences of their mean IOU divergence from the neutral answer is ``sd``;
- ``register``: that plus a vector shared by every value's sentence of one phrasing;
- ``position``: utilities fall with the position shown (everyone, the neutral user included),
  alone or on top of ``content``;
- ``spread``: every sentence its own temperature (0.6–1.6) and failure rate (0–40 % of answers cut
  short, some empty), on top of ``content``;
- alternatives: ``value`` (one value's sentences all favour every third item by ``delta`` on top of
  ``content``; tuned to a true disparity of 0.05 IOU), ``shared`` (every value's sentences favour
  those items alike: the disparity stays at the null, an excess over controls sees it).

Each row runs ``tasks`` simulated tasks and reports the false-positive (or detection) rate of the
test at α with its 95 % Wilson interval, the coverage of the t-interval, the mean estimate in
units of its mean standard error, and the mean γ. Numbers are computed by the package's own
:func:`coldbias_tasks.core.measures.disparity.disparity_from_tensor` on IOU.

    python bench/studies/disparity_sim.py --json bench/studies/disparity_sim.json  # ≥ 1,000 per row
    python bench/studies/disparity_sim.py --quick                                  # 200 per row
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from coldbias_tasks.core.measures.disparity import disparity_from_tensor

N_ITEMS, K, ALPHA = 60, 10, 0.05
#: spread of the item popularity (log weights): sets the same-prompt floor (≈ 0.45 IOU here)
SKEW = 12.0


@dataclass(frozen=True)
class Scenario:
    """One simulated model (module docstring). ``tau``: sd of a sentence's own utility effect;
    ``tau_frame``: of a phrasing's shared one; ``beta``: position slope; ``spread``: per-sentence
    temperature and failures; ``delta``: value effect on every third item; ``affected``: how
    many values carry it (all: ``shared``)."""

    name: str
    tau: float = 0.0
    tau_frame: float = 0.0
    any_sentence: float = 0.0
    beta: float = 0.0
    spread: bool = False
    delta: float = 0.0
    affected: int = 0
    null: bool = True


@dataclass(frozen=True)
class Design:
    values: int
    phrasings: int
    repeats: int

    @property
    def label(self) -> str:
        return f"V={self.values}, P={self.phrasings}, R={self.repeats}"


def _wilson(hits: int, n: int) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    z, p = 1.96, hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _answers(util: np.ndarray, rng: np.random.Generator, temp: np.ndarray, fail: np.ndarray):
    """Indicator matrix (sentences × items) of each sentence's top-k answer."""
    s = util.shape[0]
    gumbel = -np.log(-np.log(rng.random(util.shape)))
    keys = util / temp[:, None] + gumbel
    top = np.argsort(-keys, axis=1)[:, :K]
    lengths = np.full(s, K)
    cut = rng.random(s) < fail
    lengths[cut] = rng.integers(0, K, size=int(cut.sum()))
    x = np.zeros((s, util.shape[1]))
    for i in range(s):
        x[i, top[i, : lengths[i]]] = 1.0
    return x


def _iou_div(x: np.ndarray) -> np.ndarray:
    inter = x @ x.T
    size = x.sum(axis=1)
    union = size[:, None] + size[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)
    d = 1.0 - sim
    np.fill_diagonal(d, 0.0)
    return d


def simulate_task(sc: Scenario, design: Design, rng: np.random.Generator):
    """(D tensor R × V × P × V × P, per-sentence mean IOU divergence from the neutral answer)."""
    v, p, r = design.values, design.phrasings, design.repeats
    base = SKEW * rng.random(N_ITEMS)  # item popularity (log weights), fixed for the task
    s = v * p
    own = np.zeros((s, N_ITEMS))
    if sc.tau:  # each sentence moves the list by a strength of its own, in a direction of its own
        own += sc.tau * rng.random((s, 1)) ** 3 * rng.normal(0, 1, (s, N_ITEMS))
    if sc.tau_frame:
        frame = rng.normal(0, sc.tau_frame, (p, N_ITEMS))
        own += np.tile(frame, (v, 1))  # sentence index = value * P + phrasing
    if sc.any_sentence:
        own += rng.normal(0, sc.any_sentence, N_ITEMS)[None, :]
    if sc.delta:
        boost = np.zeros(N_ITEMS)
        boost[::3] = sc.delta
        for value in range(sc.affected):
            own[value * p : (value + 1) * p] += boost
    temp = np.ones(s + 1)
    fail = np.zeros(s + 1)
    if sc.spread:
        temp[:s] = rng.uniform(0.6, 1.6, s)
        fail[:s] = rng.uniform(0.0, 0.4, s)
    d = np.zeros((r, v, p, v, p))
    from_neutral = np.zeros((r, s))
    for rep in range(r):
        pos = rng.permutation(N_ITEMS) / N_ITEMS  # position of each item in this repeat's order
        util = base[None, :] - sc.beta * pos[None, :] + np.vstack([own, np.zeros(N_ITEMS)])
        x = _answers(util, rng, temp, fail)
        div = _iou_div(x)
        d[rep] = div[:s, :s].reshape(v, p, v, p)
        from_neutral[rep] = div[:s, s]
    # between-sentence sd of the divergence from the neutral answer, sampling noise removed
    means = from_neutral.mean(axis=0)
    noise = from_neutral.var(axis=0, ddof=1).mean() / r if r > 1 else 0.0
    return d, math.sqrt(max(0.0, means.var(ddof=1) - noise)), float(means.mean())


def run_row(sc: Scenario, design: Design, tasks: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    labels = [f"v{i}" for i in range(design.values)]
    est, ses, rejects, covers, spreads, pair_flags, levels = [], [], 0, 0, [], 0, []
    for _ in range(tasks):
        d, between_sd, level = simulate_task(sc, design, rng)
        levels.append(level)
        res = disparity_from_tensor(d, labels, alpha=ALPHA, seed=int(rng.integers(1 << 30)))
        est.append(res.value)
        ses.append(res.stderr)
        rejects += res.p_value <= ALPHA
        covers += res.ci_low <= 0.0 <= res.ci_high
        pair_flags += any(pr.flagged for pr in res.pairs)
        spreads.append(between_sd)
    est_a, se_a = np.asarray(est), np.asarray(ses)
    lo, hi = _wilson(rejects, tasks)
    mean_se = float(np.nanmean(se_a))
    return {
        "scenario": sc.name,
        "design": design.label,
        "null": sc.null,
        "tasks": tasks,
        "reject_rate": rejects / tasks,
        "reject_wilson": [lo, hi],
        "pair_flag_rate": pair_flags / tasks,
        "coverage_of_0": covers / tasks if sc.null else None,
        "mean_gamma": float(est_a.mean()),
        "sd_gamma": float(est_a.std(ddof=1)),
        "mean_se": mean_se,
        "mean_over_se": float(est_a.mean() / mean_se) if mean_se > 0 else math.nan,
        "se_ratio": float(mean_se / est_a.std(ddof=1)) if est_a.std() > 0 else math.nan,
        "sentence_sd": float(np.mean(spreads)),
        "mean_divergence_from_neutral": float(np.mean(levels)),
    }


def calibrate_delta(design: Design, tau: float, target: float, seed: int = 7) -> float:
    """The value effect ``delta`` whose mean disparity is ``target`` (IOU) when one value carries
    it, by bisection on 60 simulated tasks per step (the true γ of an alternative is defined by
    simulation, not by formula)."""
    labels = [f"v{i}" for i in range(design.values)]
    lo, hi = 0.0, 12.0
    for _ in range(9):
        mid = (lo + hi) / 2
        rng = np.random.default_rng(seed)
        sc = Scenario("calibration", tau=tau, delta=mid, affected=1, null=False)
        mean = np.mean([
            disparity_from_tensor(simulate_task(sc, design, rng)[0], labels).value
            for _ in range(60)
        ])  # fmt: skip
        lo, hi = (mid, hi) if mean < target else (lo, mid)
    return (lo + hi) / 2


def scenarios(tau_small: float, tau_large: float, delta: float) -> list[Scenario]:
    return [
        Scenario("blind"),
        Scenario("any sentence", any_sentence=0.8),
        Scenario("content sd 0.06", tau=tau_small),
        Scenario("content sd 0.15", tau=tau_large),
        Scenario("content + register", tau=tau_large, tau_frame=tau_large),
        Scenario("position", beta=3.0),
        Scenario("position + content", tau=tau_large, beta=3.0),
        Scenario("spread + failures + content", tau=tau_large, spread=True),
        Scenario("one value, disparity 0.05", tau=tau_small, delta=delta, affected=1, null=False),
        Scenario("shift shared by all values", tau=tau_small, delta=delta, affected=99),
    ]


def machine() -> dict:
    flags = ""
    try:
        text = Path("/proc/cpuinfo").read_text()
        flags = " ".join(sorted(set(re.findall(r"\b(avx2|avx512f|avx512_bf16|amx_bf16)\b", text))))
    except OSError:
        pass
    return {"cpu_flags": flags, "python": platform.python_version(), "numpy": np.__version__}


def markdown(out: dict) -> str:
    """The calibration table of docs/validity.md from a JSON written by this script."""
    lines = [
        "| design | scenario | rejects at α [95 % Wilson] | interval covers 0 | mean γ (in SE) "
        "| SE / sd of γ | between-sentence sd |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in out["rows"]:
        lo, hi = row["reject_wilson"]
        cover = "–" if row["coverage_of_0"] is None else f"{row['coverage_of_0']:.3f}"
        rate = f"{row['reject_rate']:.3f} [{lo:.3f}, {hi:.3f}]"
        if not row["null"]:
            rate = f"**{rate}** (power)"
        lines.append(
            f"| {row['design']} | {row['scenario']} | {rate} | {cover} | "
            f"{row['mean_gamma']:+.4f} ({row['mean_over_se']:+.2f}) | {row['se_ratio']:.2f} | "
            f"{row['sentence_sd']:.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="200 tasks per row")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path, help="print the table of a JSON written earlier")
    ap.add_argument("--designs", default="2x12x3,3x6x3,7x6x3")
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    ap.add_argument("--tau", default="4.5,40", help="content sd of the utility effects")
    ap.add_argument("--target", type=float, default=0.05, help="true disparity of the alternative")
    args = ap.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())))
        return 0
    tasks = 200 if args.quick else args.tasks
    tau_small, tau_large = (float(x) for x in args.tau.split(","))
    rows = []
    start = time.time()
    for spec in args.designs.split(","):
        v, p, r = (int(x) for x in spec.split("x"))
        design = Design(v, p, r)
        delta = calibrate_delta(design, tau_small, args.target)
        print(f"{design.label}: value effect {delta:.2f} gives a disparity of {args.target}")
        for i, sc in enumerate(scenarios(tau_small, tau_large, delta)):
            if args.only and sc.name not in args.only.split(","):
                continue
            t0 = time.time()
            row = run_row(sc, design, tasks, seed=1000 * v + 100 * p + i)
            row["seconds"] = round(time.time() - t0, 1)
            row["delta"] = sc.delta
            rows.append(row)
            cov = "" if row["coverage_of_0"] is None else f"{row['coverage_of_0']:.3f}"
            print(
                f"{design.label:16} {sc.name:30} rej {row['reject_rate']:.3f} "
                f"[{row['reject_wilson'][0]:.3f},{row['reject_wilson'][1]:.3f}] cov {cov:5} "
                f"mean {row['mean_gamma']:+.4f} ({row['mean_over_se']:+.2f} SE) "
                f"sd {row['sd_gamma']:.4f} se/sd {row['se_ratio']:.2f} "
                f"sent.sd {row['sentence_sd']:.3f} lvl {row['mean_divergence_from_neutral']:.2f} "
                f"pairs {row['pair_flag_rate']:.3f} "
                f"{row['seconds']}s",
                flush=True,
            )
    out = {"machine": machine(), "alpha": ALPHA, "n_items": N_ITEMS, "k": K,
           "seconds": round(time.time() - start, 1), "rows": rows}  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
