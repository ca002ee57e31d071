"""Analysis-side benchmark: docs, parsing, aggregations and report tables of a synthetic full run.

    python bench/speed/analysis_bench.py [--repeats 5] [--n-items 500] [--top 25] [--json OUT]

The synthetic run has the shape of the full benchmark: 3 domains × every attribute group of
``data/personas.yaml`` (one task per group, neutral persona included) × R repeats × the full
500-item catalog, k = 20. Answers come from a fixed seeded sampler: 20 numbered lines, mostly
exact titles of the catalog order shown (persona taste + repeat noise + a mild position bias),
formatted "1. Title", "1. **Title** (year)", "- Title" or "1) Title"; 5 % of lines carry a typo,
5 % are invented titles, some answers repeat an item or open with a line of prose.

Timed separately, in this order, as lm-eval and ``coldbias report`` run them:

1. docs: :func:`coldbias_tasks.core.prompting.documents.build_docs` for every task;
2. parse: :func:`coldbias_tasks.lmeval.harness.process_results` over each task's raw answers
   (cold parser caches, as in a fresh lm-eval process);
3. metrics: ``process_results`` per doc on its payload, then the aggregation of ``ANSWER_KEY``
   and every aggregation of :data:`coldbias_tasks.lmeval.harness.METRICS` (what lm-eval does);
4. report (:mod:`coldbias_tasks.analysis.report`, :mod:`coldbias_tasks.analysis.tables`):
   loading an lm-eval-style output folder written from the same payloads (``runs.load_folder``
   + ``pool_runs``), then ``analyze`` and the tables, without plots or HTML.

Steps 2–4 then run again under cProfile; the top functions are printed.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import json
import math
import os
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from coldbias_tasks.core.measures.summary import summarize_answers  # noqa: E402
from coldbias_tasks.core.parsing import answers, catalog_index  # noqa: E402
from coldbias_tasks.core.parsing.sample_check import answer_id  # noqa: E402
from coldbias_tasks.core.prompting.documents import build_docs  # noqa: E402
from coldbias_tasks.core.records import AnswerRecord  # noqa: E402
from coldbias_tasks.core.vocabulary import ANSWER_KEY  # noqa: E402
from coldbias_tasks.core.world.catalog import Catalog, load_catalog  # noqa: E402
from coldbias_tasks.core.world.personas import load_personas  # noqa: E402
from coldbias_tasks.lmeval import harness  # noqa: E402

DOMAINS = ("movie", "music", "college")
SEED = 1234
TARGET_S = 1.0
TIMESTAMP = "2026-01-01T00-00-00.000000"
_ADJECTIVES = "Silent Crimson Last Hidden Broken Golden Endless Distant Quiet Burning".split()
_NOUNS = "Harbor Empire Garden Promise Horizon Letter Winter Kingdom River Shadow".split()


# --- synthetic answers -----------------------------------------------------------------------


def _typo(title: str, rng: random.Random) -> str:
    """One character swapped, dropped or doubled inside a word (titles of ≥ 8 characters)."""
    if len(title) < 8:
        return title
    i = rng.randrange(1, len(title) - 2)
    kind = rng.random()
    if kind < 0.4:
        return title[:i] + title[i + 1] + title[i] + title[i + 2 :]
    if kind < 0.7:
        return title[:i] + title[i + 1 :]
    return title[:i] + title[i] + title[i:]


def _gumbel(rng: random.Random, scale: float) -> float:
    """A Gumbel(0, scale) draw: top-k of score + Gumbel noise samples without replacement."""
    return -scale * math.log(-math.log(rng.random() or 1e-300))


def _year(catalog: Catalog, item: int) -> int | None:
    if "year" not in catalog.table.columns:
        return None
    return int(catalog.table["year"].iloc[item])


class AnswerSampler:
    """Seeded generator of realistic 20-line answers for one domain's catalog."""

    def __init__(self, catalog: Catalog, seed: int = SEED) -> None:
        self.catalog = catalog
        self.seed = seed
        base = random.Random(f"{seed}:{catalog.sha256}:popularity")
        self.popularity = [base.gauss(0, 1.5) for _ in range(len(catalog))]

    def answer(self, doc: dict[str, Any], task: str) -> str:
        """The answer to ``doc`` (its shown order, persona and repeat fix the randomness)."""
        rng = random.Random(f"{self.seed}:{task}:{doc['persona_id']}:{doc['repeat']}")
        taste = random.Random(f"{self.seed}:{doc['persona_id']}:taste")
        shift = {i: taste.gauss(0, 0.8) for i in doc["shown_ids"]}
        scored = sorted(
            (
                self.popularity[i] + shift[i] - 0.002 * pos + _gumbel(rng, 0.6),
                i,
            )
            for pos, i in enumerate(doc["shown_ids"])
        )
        picks = [i for _, i in reversed(scored[-int(doc["k"]) :])]
        lines = []
        if rng.random() < 0.1:
            lines.append(f"Here are my top {doc['k']} recommendations:")
        titles: list[str] = []
        for rank, item in enumerate(picks, start=1):
            title = self.catalog.titles[item]
            roll = rng.random()
            if roll < 0.05:
                title = f"The {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"
            elif roll < 0.10:
                title = _typo(title, rng)
            elif titles and roll < 0.115:
                title = rng.choice(titles)  # a repeated item
            titles.append(title)
            style = rng.random()
            year = _year(self.catalog, item)
            if style < 0.80:
                lines.append(f"{rank}. {title}")
            elif style < 0.90:
                lines.append(f"{rank}. **{title}**" + (f" ({year})" if year else ""))
            elif style < 0.95:
                lines.append(f"- {title}")
            else:
                lines.append(f"{rank}) {title}")
        return "\n".join(lines)


# --- the run ---------------------------------------------------------------------------------


def task_names() -> list[tuple[str, str, str]]:
    """(task, domain, group) of every plain attribute task."""
    groups = list(load_personas().groups)
    return [(f"coldbias_{d}_{g}", d, g) for d in DOMAINS for g in groups]


def build_all_docs(metadata: dict[str, Any]) -> dict[str, list[dict]]:
    return {
        name: [doc.to_dict() for doc in build_docs(d, g, "plain", metadata)]
        for name, d, g in task_names()
    }


def make_answers(docs: dict[str, list[dict]]) -> dict[str, list[str]]:
    samplers = {d: AnswerSampler(load_catalog(d)) for d in DOMAINS}
    return {
        name: [samplers[doc["domain"]].answer(doc, name) for doc in task_docs]
        for name, task_docs in docs.items()
    }


def clear_caches() -> None:
    """Forget parser indexes, memos, normalized strings and cached summaries (a fresh process)."""
    catalog_index.clear_caches()
    answers._shown_view.cache_clear()
    harness._STORE.clear()


def run_parse(docs: dict[str, list[dict]], answers: dict[str, list[str]]) -> dict[str, list]:
    """lm-eval's parse step: per task, ``process_results`` on each raw answer (its payload)."""
    return {
        name: [
            harness.process_results(d, [a])[ANSWER_KEY] for d, a in zip(docs[name], answers[name])
        ]
        for name in docs
    }


def run_metrics(docs: dict[str, list[dict]], parsed: dict[str, list]) -> dict[str, dict]:
    """lm-eval's metric step: ``process_results`` per doc, then each metric's aggregation."""
    out: dict[str, dict] = {}
    for name, payloads in parsed.items():
        per_metric: dict[str, list] = {m: [] for m in (ANSWER_KEY, *harness.METRICS)}
        for doc, payload in zip(docs[name], payloads):
            for metric, value in harness.process_results(doc, [payload]).items():
                per_metric[metric].append(value)
        harness.aggregate_answers(per_metric[ANSWER_KEY])
        out[name] = {  # the metrics the task has (a control task has fewer)
            m: fn(per_metric[m]) for m, (fn, _) in harness.METRICS.items() if per_metric[m]
        }
    return out


def run_summaries_once(parsed: dict[str, list]) -> None:
    """Every task's :func:`summarize_answers` exactly once (no cache)."""
    for payloads in parsed.values():
        summarize_answers(map(AnswerRecord.from_payload, payloads))


def sample_composition(folder: Path) -> dict[str, float]:
    """Mean bytes per logged sample line: the doc, the chat prompt, and the metric payloads."""
    sizes: dict[str, float] = {"line": 0, "doc": 0, "arguments": 0, "payload_copies": 0}
    n = 0
    for path in folder.rglob("samples_*.jsonl"):
        for line in path.read_text().splitlines():
            sample = json.loads(line)
            n += 1
            sizes["line"] += len(line)
            sizes["doc"] += len(json.dumps(sample["doc"]))
            sizes["arguments"] += len(json.dumps(sample["arguments"]))
            sizes["payload_copies"] += sum(
                len(json.dumps(sample[m])) for m in (ANSWER_KEY, *harness.METRICS)
            )
    return {k: v / max(n, 1) for k, v in sizes.items()}


def json_decode_times(folder: Path) -> dict[str, float]:
    """Decoding all sample lines with json and, when installed, msgspec (a vLLM dependency)."""
    lines = [ln for p in folder.rglob("samples_*.jsonl") for ln in p.read_text().splitlines()]
    out = {"json_s": best_of(3, lambda: [json.loads(ln) for ln in lines])[1]}
    if importlib.util.find_spec("msgspec") is not None:
        import msgspec

        decode = msgspec.json.decode
        out["msgspec_s"] = best_of(3, lambda: [decode(ln) for ln in lines])[1]
    return out


def write_output_folder(
    folder: Path, docs: dict[str, list[dict]], answers: dict[str, list[str]], parsed: dict
) -> None:
    """An lm-eval ``--output_path`` folder of the synthetic run: results JSON + samples JSONL."""
    model_dir = folder / "synthetic"
    model_dir.mkdir(parents=True, exist_ok=True)
    metrics = run_metrics(docs, parsed)
    results = {
        "results": {
            name: {
                "alias": name,
                **{f"{m},ranked": v for m, v in values.items()},
                **{f"{m}_stderr,ranked": "N/A" for m in values},
            }
            for name, values in metrics.items()
        },
        "configs": {name: {"task": name, "metadata": {"version": 1.0}} for name in docs},
        "versions": dict.fromkeys(docs, 1.0),
        "config": {
            "model": "vllm",
            "model_args": "pretrained=synthetic-sampler,seed=1234",
            "random_seed": 0,
            "numpy_seed": SEED,
            "torch_seed": SEED,
            "fewshot_seed": SEED,
        },
        "model_name": "synthetic-sampler",
        "lm_eval_version": "0.4.13",
        "transformers_version": "n/a",
        "date": 0.0,
    }
    (model_dir / f"results_{TIMESTAMP}.json").write_text(json.dumps(results))
    for name, task_docs in docs.items():
        with (model_dir / f"samples_{name}_{TIMESTAMP}.jsonl").open("w") as out:
            for i, (doc, answer, payload) in enumerate(zip(task_docs, answers[name], parsed[name])):
                chat = (
                    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
                    f"<|im_start|>user\n{doc['prompt']}<|im_end|>\n<|im_start|>assistant\n"
                )
                sample = {
                    "doc_id": i,
                    "doc": doc,
                    "target": "",
                    "arguments": {"gen_args_0": {"arg_0": chat, "arg_1": {"until": []}}},
                    "resps": [[answer]],
                    "filtered_resps": [answer],
                    "filter": "ranked",
                    "metrics": [ANSWER_KEY, *harness.METRICS],
                    ANSWER_KEY: payload,
                    **dict.fromkeys(harness.METRICS, answer_id(payload)),
                }
                out.write(json.dumps(sample) + "\n")


def report_load(folder: Path) -> Any:
    """``coldbias report``'s first step: read the output folder and pool runs per model."""
    from coldbias_tasks.analysis.pooling import pool_runs
    from coldbias_tasks.analysis.run_files import load_folder

    return pool_runs(load_folder(folder))


def report_tables(models: Any) -> dict[str, Any]:
    """``analyze`` plus the four CSV tables of ``coldbias report`` (no plots, no HTML)."""
    from coldbias_tasks.analysis.report import analyze
    from coldbias_tasks.analysis.tables import tables

    return tables(analyze(models))


def best_of(rounds: int, fn: Callable[[], Any], setup: Callable[[], None] | None = None) -> Any:
    """(last value, min wall seconds, all wall seconds) of ``rounds`` calls of ``fn``."""
    times = []
    value = None
    for _ in range(rounds):
        if setup:
            setup()
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return value, min(times), times


def profile_top(fn: Callable[[], Any], top: int) -> str:
    """cProfile of ``fn``: the top functions by internal time and by cumulative time."""
    profiler = cProfile.Profile()
    profiler.enable()
    fn()
    profiler.disable()
    buf = io.StringIO()
    stats = pstats.Stats(profiler, stream=buf).strip_dirs()
    buf.write(f"--- top {top} by internal time (tottime) ---\n")
    stats.sort_stats("tottime").print_stats(top)
    buf.write(f"--- top {top} by cumulative time ---\n")
    stats.sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--n-items", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds per phase (min shown)")
    ap.add_argument("--top", type=int, default=25, help="functions shown per profile listing")
    ap.add_argument("--json", type=Path, help="save the timings to this JSON file")
    args = ap.parse_args(argv)
    metadata = {
        "coldbias_n_items": args.n_items,
        "coldbias_k": 20,
        "coldbias_repeats": args.repeats,
        "coldbias_order": "shuffle",
        "coldbias_seed": SEED,
    }
    import coldbias_tasks.analysis.tables  # noqa: F401  (imports are not part of the timing)

    load = os.getloadavg()
    rounds = args.rounds
    docs, t_docs, _ = best_of(rounds, lambda: build_all_docs(metadata))
    answers, t_answers, _ = best_of(1, lambda: make_answers(docs))
    n_docs = sum(len(d) for d in docs.values())
    n_lines = sum(a.count("\n") + 1 for task in answers.values() for a in task)
    print(
        f"synthetic run: {len(docs)} tasks ({len(DOMAINS)} domains × {len(docs) // len(DOMAINS)} "
        f"groups), {n_docs} answers ({n_lines:,} lines), {args.repeats} repeats, "
        f"{args.n_items}-item catalogs; answers generated in {t_answers:.2f} s (not counted); "
        f"{os.cpu_count()} cores, loadavg {load[0]:.2f} (shared machine: other processes may "
        f"run); min of {rounds} rounds per phase"
    )

    parsed, t_parse, all_parse = best_of(rounds, lambda: run_parse(docs, answers), clear_caches)
    _, t_parse_warm, _ = best_of(rounds, lambda: run_parse(docs, answers))
    metrics, t_metrics, all_metrics = best_of(
        rounds, lambda: run_metrics(docs, parsed), clear_caches
    )
    _, t_summaries, _ = best_of(rounds, lambda: run_summaries_once(parsed))
    n_aggs = len(docs) * len(harness.METRICS)

    timings: dict[str, Any] = {
        "tasks": len(docs),
        "answers": n_docs,
        "lines": n_lines,
        "rounds": rounds,
        "loadavg_before": list(load),
        "docs_s": t_docs,
        "parse_s": t_parse,
        "parse_all_rounds_s": all_parse,
        "parse_warm_s": t_parse_warm,
        "metrics_s": t_metrics,
        "metrics_all_rounds_s": all_metrics,
        "aggregations": n_aggs,
        "summaries_once_s": t_summaries,
    }
    tmp = Path(tempfile.mkdtemp(prefix="coldbias_analysis_bench_"))
    rows = [
        ("build docs (build_docs, all tasks)", t_docs),
        ("parse (parse_filter, cold caches)", t_parse),
        ("  parse, warm parser memo (not counted)", t_parse_warm),
        (f"metrics ({n_aggs} aggregations + process_results)", t_metrics),
        ("  summarize_answers once per task, no cache (not counted)", t_summaries),
    ]
    total = t_parse + t_metrics
    write_output_folder(tmp, docs, answers, parsed)
    size = sum(p.stat().st_size for p in tmp.rglob("*") if p.is_file())
    models, t_load, _ = best_of(rounds, lambda: report_load(tmp))
    tables, t_tables, _ = best_of(rounds, lambda: report_tables(models))
    timings |= {
        "report_folder_mb": size / 1e6,
        "report_load_s": t_load,
        "report_tables_s": t_tables,
        "report_rows": {k: len(v) for k, v in tables.items()},
        "sample_bytes": sample_composition(tmp),
        "decode": json_decode_times(tmp),
    }
    rows += [
        (f"report: read output folder ({size / 1e6:.0f} MB of JSON)", t_load),
        ("report: analyze + 4 tables (no plots)", t_tables),
    ]
    total += t_tables
    timings["parse_metrics_tables_s"] = total

    fidelity = [m["exact_k_rate"] for m in metrics.values()]
    oob = [m["out_of_catalog_rate"] for m in metrics.values()]
    iou = [m["iou_divergence"] for m in metrics.values()]
    print(
        f"sanity: exact_k_rate {min(fidelity):.2f}–{max(fidelity):.2f}, out_of_catalog_rate "
        f"{min(oob):.3f}–{max(oob):.3f}, iou_divergence {min(iou):.2f}–{max(iou):.2f}\n"
    )
    width = max(len(label) for label, _ in rows) + 2
    for label, seconds in rows:
        print(f"{label.ljust(width)}{seconds:8.3f} s")
    verdict = "meets" if total < TARGET_S else "MISSES"
    what = "parse + metrics + report tables"
    print(f"{what.ljust(width)}{total:8.3f} s  ({verdict} the < {TARGET_S:.0f} s target)")
    comp = timings["sample_bytes"]
    dec = timings["decode"]
    print(
        f"\nlogged sample line: {comp['line'] / 1e3:.1f} kB = doc {comp['doc'] / 1e3:.1f} kB "
        f"+ chat prompt {comp['arguments'] / 1e3:.1f} kB + {len(harness.METRICS)} payload "
        f"copies {comp['payload_copies'] / 1e3:.1f} kB; decoding all lines: json "
        f"{dec['json_s']:.3f} s"
        + (f", msgspec {dec['msgspec_s']:.3f} s" if "msgspec_s" in dec else "")
    )
    timings["loadavg_after"] = list(os.getloadavg())

    def analysis() -> None:
        clear_caches()
        p = run_parse(docs, answers)
        run_metrics(docs, p)
        report_tables(report_load(tmp))

    print("\ncProfile of parse + metrics (+ report read and tables); cProfile inflates")
    print("call-heavy code, use the wall times above for totals:\n")
    print(profile_top(analysis, args.top))
    if args.json:
        args.json.write_text(json.dumps(timings, indent=2))
        print(f"timings saved to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
