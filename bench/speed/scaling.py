"""How a run's cost grows: time, prefill and decode tokens and prefix-cache hit rate against
n_items, phrasings, repeats and k, side by side in one run (BENCHMARKS.md "Scaling").

    nice python bench/speed/scaling.py --json bench/speed/scaling.json   # one run: 9 configs
    python bench/speed/scaling.py --markdown bench/speed/scaling.json  # a saved run's table
    python bench/speed/scaling.py --dry-run                          # the configs and their plans

One engine (the bundled Qwen2.5-Coder-0.5B-Instruct in vLLM on this CPU, the settings of ``coldbias
plan --calibrate``: this CPU's dtype, prefix caching with 32-token blocks, eager, context 8192)
answers the real chat-templated prompts of ``coldbias_movie_gender`` (2 values, no replicates,
temperature 0.7, ``max_gen_toks`` sized by ``coldbias eval``) for each config in one batch, the
prefix cache reset before each; no config starts after ``--budget-s`` (660 s: the grid is then
reduced, and the output says which configs were not run). The base config is n_items 100, phrasings
2, repeats 2, k 10; each axis varies one setting (n_items 100/250/500, phrasings 2/6/12, repeats
1/2/4, k 5/10/20), the base run counted once. Per config: seconds in ``LLM.generate``, prompts,
prompt tokens, those served from the prefix cache (vLLM's ``prefix_cache_hits``), computed prefill,
generated tokens, hit rate, and ``coldbias plan``'s prediction of the computed prefill and decode
tokens. Per axis: each figure's ratio to the axis's first value and its fitted growth exponent
(log-log slope: 1 = linear). Over all configs: the fit seconds = a + b·(computed prefill) +
c·(generated tokens), whose rates ``--write-calibration`` caches for ``coldbias plan``. The CPU
flags and load are saved with the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

BASE = {"n_items": 100, "phrasings": 2, "repeats": 2, "k": 10}
AXES = {
    "n_items": (100, 250, 500),
    "phrasings": (2, 6, 12),
    "repeats": (1, 2, 4),
    "k": (5, 10, 20),
}
DOMAIN, GROUP = "movie", "gender"


def configs() -> list[dict[str, int]]:
    """The base config, then every axis value that differs from it."""
    out = [dict(BASE)]
    for axis, values in AXES.items():
        out += [{**BASE, axis: v} for v in values if v != BASE[axis]]
    return out


def metadata(cfg: dict[str, int]) -> dict[str, Any]:
    return {f"coldbias_{k}": v for k, v in cfg.items()} | {"coldbias_replicates": 0}


def _label(cfg: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in cfg.items())


def predicted(cfg: dict[str, int], counter: Any) -> dict[str, float]:
    from coldbias_tasks.app.plan import make_plan

    task = make_plan([f"coldbias_{DOMAIN}_{GROUP}"], metadata(cfg), counter).tasks[0]
    return {"prompts": task.prompts, "uncached": task.uncached, "decode": task.decode}


def run(args: argparse.Namespace) -> dict[str, Any]:
    from coldbias_tasks.app.calibrate import chat_prompts, load_engine, run_batch
    from coldbias_tasks.app.machine import FLAGS_OF_INTEREST, choose_dtype, cpu_info
    from coldbias_tasks.app.plan import TokenCounter
    from coldbias_tasks.core.prompting.documents import build_docs, domain_budget

    cpu = cpu_info()
    started = time.perf_counter()
    llm = load_engine()
    engine_s = time.perf_counter() - started
    counter = TokenCounter()
    warm = build_docs(DOMAIN, GROUP, "plain", metadata({**BASE, "n_items": 20, "repeats": 1}))
    run_batch(llm, chat_prompts(llm, [d.prompt for d in warm[:2]]), 8)  # warm-up, not counted
    rows, skipped = [], []
    for cfg in configs():
        if time.perf_counter() - started > args.budget_s:  # keep the run within its budget
            skipped.append(cfg)
            print(f"[scaling] {_label(cfg)}: skipped (over {args.budget_s:.0f} s)", flush=True)
            continue
        meta = metadata(cfg)
        docs = build_docs(DOMAIN, GROUP, "plain", meta)
        llm.reset_prefix_cache()
        load = os.getloadavg()[0]
        m = run_batch(llm, chat_prompts(llm, [d.prompt for d in docs]), domain_budget(DOMAIN, meta))
        row = {
            "config": cfg,
            "seconds": m.seconds,
            "prompts": m.requests,
            "prompt_tokens": m.prompt_tokens,
            "cached_tokens": m.cached_tokens,
            "computed_prefill": m.computed_prefill,
            "generated_tokens": m.generated_tokens,
            "hit_rate": m.hit_rate,
            "plan": predicted(cfg, counter),
            "loadavg_before": load,
        }
        rows.append(row)
        print(f"[scaling] {_label(cfg)}: {m.seconds:.1f} s, {m.requests} prompts, "
              f"prefill {m.computed_prefill} of {m.prompt_tokens}, decode "
              f"{m.generated_tokens}, hit {m.hit_rate:.2f}", flush=True)  # fmt: skip
    return {
        "machine": {
            "cpu": cpu.model,
            "cores": cpu.cores,
            "flags": {f: f in cpu.flags for f in FLAGS_OF_INTEREST},
            "dtype": choose_dtype(cuda=False),
        },
        "engine_start_s": engine_s,
        "token_counting": counter.method,
        "rows": rows,
        "skipped": skipped,
        "total_s": time.perf_counter() - started,
    }


def growth(xs: list[float], ys: list[float]) -> float:
    """Log-log slope of ``ys`` against ``xs`` (1: linear, 0: flat); NaN with a zero."""
    if min(xs) <= 0 or min(ys) <= 0:
        return math.nan
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def fit_rates(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Least squares seconds = a + b·prefill + c·decode: a, the prefill and decode rates."""
    x = np.array([[1.0, r["computed_prefill"], r["generated_tokens"]] for r in rows])
    y = np.array([r["seconds"] for r in rows])
    (a, b, c), *_ = np.linalg.lstsq(x, y, rcond=None)
    pred = x @ np.array([a, b, c])
    return {
        "overhead_s": float(a),
        "prefill_tps": float(1 / b) if b > 0 else math.nan,
        "decode_tps": float(1 / c) if c > 0 else math.nan,
        "max_rel_error": float(np.max(np.abs(pred - y) / y)),
    }


FIGURES = (("seconds", "time"), ("computed_prefill", "prefill"),
           ("generated_tokens", "decode"), ("prompts", "prompts"))  # fmt: skip


def markdown(out: dict[str, Any]) -> str:
    rows = out["rows"]
    find = {tuple(sorted(r["config"].items())): r for r in rows}
    mach = out["machine"]
    flags = ", ".join(f for f, on in mach["flags"].items() if on) or "none of interest"
    lines = [
        f"Machine: {mach['cpu']}, {mach['cores']} cores, flags {flags}; {mach['dtype']}; engine "
        f"start {out['engine_start_s']:.0f} s; whole run {out['total_s']:.0f} s. Tokens of the "
        f"plan {out['token_counting']}.",
        "",
        "| axis | value | prompts | s | computed prefill | plan | generated | plan | "
        "cache hit rate | ratio s | ratio prefill | ratio decode |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    slopes = []
    for axis, all_values in AXES.items():
        keys = [tuple(sorted({**BASE, axis: v}.items())) for v in all_values]
        values = [v for v, key in zip(all_values, keys) if key in find]
        series = [find[key] for key in keys if key in find]
        if len(series) < 2:
            continue
        first = series[0]
        for v, r in zip(values, series):
            lines.append(
                f"| {axis} | {v} | {r['prompts']} | {r['seconds']:.1f} | "
                f"{r['computed_prefill']:,} | {r['plan']['uncached']:,.0f} | "
                f"{r['generated_tokens']:,} | {r['plan']['decode']:,.0f} | {r['hit_rate']:.2f} | "
                f"{r['seconds'] / first['seconds']:.2f} | "
                f"{r['computed_prefill'] / first['computed_prefill']:.2f} | "
                f"{r['generated_tokens'] / max(first['generated_tokens'], 1):.2f} |"
            )
        slopes.append(
            f"| {axis} | "
            + " | ".join(
                f"{growth(list(values), [r[key] for r in series]):.2f}" for key, _ in FIGURES
            )
            + " |"
        )
    fit = fit_rates(rows)
    if out.get("skipped"):
        lines += ["", "Not run (over the time budget): "
                  + "; ".join(_label(c) for c in out["skipped"]) + "."]  # fmt: skip
    lines += [
        "",
        "Fitted growth (log-log slope over the axis: 1 = linear, 0 = flat):",
        "",
        "| axis | time | computed prefill | generated tokens | prompts |",
        "|---|---:|---:|---:|---:|",
        *slopes,
        "",
        f"Fit over the {len(rows)} configs: seconds = {fit['overhead_s']:.1f} + computed prefill "
        f"/ {fit['prefill_tps']:.0f} tok/s + generated / {fit['decode_tps']:.0f} tok/s (largest "
        f"relative error {fit['max_rel_error']:.0%}).",
    ]
    return "\n".join(lines)


def write_calibration(out: dict[str, Any]) -> Path | None:
    """Cache the fitted rates as this machine's calibration for ``coldbias plan``; None (nothing
    written) when the fit gives no positive finite rates (too few or too alike configs)."""
    from coldbias_tasks.app.calibrate import Throughput, calibration_file, machine_key

    fit = fit_rates(out["rows"])
    if not all(math.isfinite(fit[k]) and fit[k] > 0 for k in ("prefill_tps", "decode_tps")):
        return None
    rate = Throughput(
        "this machine", fit["prefill_tps"], fit["decode_tps"], out["engine_start_s"],
        f"calibrated {time.strftime('%Y-%m-%d')} by bench/speed/scaling.py: bundled 0.5B, vLLM "
        f"{out['machine']['dtype']}",
    )  # fmt: skip
    path = calibration_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"machine": machine_key(), "throughput": rate.as_dict()}))
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--json", type=Path, help="write the run's figures here")
    ap.add_argument("--markdown", type=Path, help="print the table of a JSON written earlier")
    ap.add_argument("--dry-run", action="store_true", help="the configs and their plans only")
    ap.add_argument(
        "--budget-s",
        type=float,
        default=660.0,
        help="start no config after this many seconds (a reduced grid, said so)",
    )
    ap.add_argument("--write-calibration", action="store_true",
                    help="cache the fitted rates for coldbias plan")  # fmt: skip
    args = ap.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())))
        return 0
    if args.dry_run:
        from coldbias_tasks.app.plan import TokenCounter

        counter = TokenCounter()
        for cfg in configs():
            print(_label(cfg), predicted(cfg, counter))
        return 0
    out = run(args)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    print(markdown(out))
    if args.write_calibration:
        path = write_calibration(out)
        none = "[scaling] no calibration written: the fit gives no positive finite rates"
        print(f"[scaling] calibration cached in {path}" if path else none)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
