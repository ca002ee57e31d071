"""The seed study re-analysed: the paper's tables replayed and each published finding re-tested
on the study's own answers (docs/seed-study.md). Run by leaderboards/seed_study/make.sh:

    python bench/studies/seed_study_findings.py --paper RUNS_625f9a2 --paper-clone CLONE_625f9a2 \
        --latest RUNS_LATEST --latest-clone CLONE --out leaderboards/seed_study

RUNS_* are folders written by ``coldbias import-seed-study``. Writes ``paper_tables.csv`` /
``.md`` (our replay vs the study's data/metric_results/ vs the printed Table 1),
``as_published.csv`` / ``.md`` (the leaderboard's as-published raw IOU per model × domain ×
variant vs the study's own data/metric_results/ and its tables.ipynb; also in paper_era/) and
``findings.json`` / ``.md``. Derived numbers only, no answers.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from coldbias_tasks.analysis.leaderboard import Leaderboard, build_leaderboard
from coldbias_tasks.analysis.leaderboard_cells import variant_suffix
from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.run_data import ModelResults, TaskData
from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.analysis.seed_study.importer import CONTEXT_TAGS, HUB_IDS
from coldbias_tasks.analysis.seed_study.leaderboard import AS_PUBLISHED, seed_study_page
from coldbias_tasks.analysis.seed_study.replay import (
    coupling,
    domain_tasks,
    paper_figure,
    seed_means,
)
from coldbias_tasks.analysis.seed_study.statistics import (
    Test,
    neutral_relabel_test,
    paired_test,
    persona_disparity_test,
    subset_relabel_test,
    trend_test,
    two_sample_test,
    value_swap_test,
    values_disparity_test,
    verdict,
)
from coldbias_tasks.core.measures.excess import noise_floor
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.records import AnswerRecord

DOMAINS = ("college", "music", "movie")  # the paper's column order
#: Table 1 of arXiv:2508.20401 (raw IOU divergence, mean over values; as printed)
PRINTED_TABLE1 = {
    ("gemma3_4b", "college"): 0.55, ("llama3.2_3b", "college"): 0.50,
    ("gemma3_4b", "music"): 0.27, ("llama3.2_3b", "music"): 0.46,
    ("gemma3_4b", "movie"): 0.55, ("llama3.2_3b", "movie"): 0.54,
}  # fmt: skip
TABLES = {1: ("gemma3_4b", "llama3.2_3b"), 2: ("gemma3_1b", "gemma3_4b", "gemma3_12b")}
QWEN = ("qwen3_0.6b", "qwen3_1.7b", "qwen3_4b", "qwen3_8b", "qwen3_14b", "qwen3_32b")


def rows_by_key(folder: Path) -> dict[str, ModelResults]:
    """study model key → pooled row (the five seeds)."""
    inverse = {hub: key for key, hub in HUB_IDS.items()}
    return {inverse[m.model]: m for m in pool_runs(load_folder(folder))}


def metric_results(clone: Path, key: str, domain: str, tag: str) -> float:
    """The study's own overall IOU (data/metric_results/), as get_overall_stats.py computes."""
    path = clone / "data" / "metric_results" / f"{key}_{domain}_{tag}.json"
    if not path.exists():
        return math.nan
    data = json.loads(path.read_text(encoding="utf-8"))
    means = [v["IOU Divergence"]["mean"] for k, v in data.items() if k != "neutral"]
    return sum(means) / len(means)


def excess_by_seed(tasks: Sequence[TaskData]) -> dict[int, float]:
    """Seed-level figure minus that seed's cross-seed neutral floor (mean D(N_s, N_t))."""
    means = seed_means(tasks)
    floor = noise_floor(tasks[0].records, "iou").by_repeat
    return {s: means[s] - floor[s] for s in means if s in floor}


def fmt_test(t: Test) -> str:
    return f"effect {t.effect:+.3f}, p = {t.p:.4f} (smallest attainable {t.min_p:.4f}, {t.kind})"


def share(members: frozenset[str]) -> Callable[[AnswerRecord], float]:
    """Share of the study's list (duplicates included, as its scripts divide) in ``members``;
    an empty list counts 0 (as the study's scripts)."""

    def f(r: AnswerRecord) -> float:
        return sum(t in members for t in r.titles) / len(r.titles) if r.titles else 0.0

    return f


def genre_set(runs: Path, genre: str) -> frozenset[str]:
    lines = (runs / "catalogs" / "movie.jsonl").read_text(encoding="utf-8").splitlines()
    return frozenset(json.loads(x)["title"] for x in lines if json.loads(x).get(genre))


def answers(task: TaskData, persona: str) -> dict[int, AnswerRecord]:
    return {r.repeat: r for r in task.records if r.persona_id == persona}


def paper_tables(paper: dict[str, ModelResults], clone: Path) -> list[dict[str, Any]]:
    out = []
    for table, keys in TABLES.items():
        for key in keys:
            for d in DOMAINS:
                tasks = domain_tasks(paper[key], d)
                fig = paper_figure(tasks)
                theirs = metric_results(clone, key, d, "")
                out.append({
                    "table": table, "model": key, "hub_id": HUB_IDS[key], "domain": d,
                    "ours_iou": round(fig.mean, 4), "ours_std": round(fig.std, 4),
                    "study_metric_results_iou": round(theirs, 4),
                    "printed_table1_iou": PRINTED_TABLE1.get((key, d), math.nan),
                    "abs_diff_vs_study": round(abs(fig.mean - theirs), 4),
                    "within_0.05": abs(fig.mean - theirs) <= 0.05,
                })  # fmt: skip
    return out


def notebook_table(clone: Path) -> dict[tuple[str, str], float]:
    """(model key, domain) → the raw IOU the study's ``tables.ipynb`` printed (its first
    cell's output: the LaTeX rows of its tables, on the context runs "student", "music fan",
    "movie fan"; columns college, music, movie, each IOU, SERP, PRAG, diversity). Empty when
    the clone has no such notebook (commit 625f9a2)."""
    path = clone / "tables.ipynb"
    if not path.exists():
        return {}
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "".join("".join(o.get("text", [])) for o in cells[0].get("outputs", []))
    out = {}
    for m in re.finditer(r"\\textbf\{([^}]*)\}(.*?)\\\\", text):
        numbers = re.findall(r"& ([0-9.]+) ", m.group(2))
        if len(numbers) == 12:  # (IOU, SERP, PRAG, diversity) × (college, music, movie)
            for i, d in enumerate(("college", "music", "movie")):
                out[(m.group(1), d)] = float(numbers[4 * i])
    return out


def as_published_table(
    lb: Leaderboard, runs: Path, clone: Path, table1: dict[tuple[str, str], float]
) -> list[dict[str, Any]]:
    """Per model × domain × variant: the leaderboard's "raw IOU, as published" cell against
    the study's own figure (its data/metric_results/ file of the same answer files, averaged
    as its get_overall_stats.py) and, for the context runs, the number its tables.ipynb
    printed (3 decimals); ``table1``: the printed Table 1 of arXiv v1 (for the paper-era
    answers only: the January 2026 re-run replaced the plain college files). "missing": the
    study has no such run."""
    inverse = {hub: key for key, hub in HUB_IDS.items()}
    sets = json.loads((runs / "provenance.json").read_text(encoding="utf-8"))["summary"]["sets"]
    tag = {(s["model"], s["domain"], s["run_set"], CONTEXT_TAGS[s["tag"]].variant): s["tag"]
           for s in sets}  # fmt: skip
    printed = notebook_table(clone)
    out = []
    for row in lb.rows:
        key = inverse[row.model.model]
        for d in DOMAINS:
            for variant in ("plain", "context"):
                cell = row.cells.get(f"{d}{variant_suffix(variant)}{AS_PUBLISHED}")
                ours = float(cell.value) if cell is not None else math.nan
                t = tag.get((key, d, "main", variant))
                if t is None and variant == "context":
                    continue  # no such run (paper era: its contexts are rows of their own)
                study = metric_results(clone, key, d, t) if t is not None else math.nan
                book = printed.get((key, d), math.nan) if variant == "context" else math.nan
                out.append({
                    "model": key, "hub_id": HUB_IDS[key], "domain": d,
                    "variant": "plain" if variant == "plain" else f"context {t!r}",
                    "leaderboard_as_published": round(ours, 4) if t is not None else "missing",
                    "study_metric_results": round(study, 4) if t is not None else "missing",
                    "study_tables_ipynb": book if not math.isnan(book) else "",
                    "printed_table1_v1": table1.get((key, d), "")
                    if variant == "plain" else "",
                    "abs_diff_vs_study": round(abs(ours - study), 4) if t is not None else "",
                    "abs_diff_vs_ipynb": round(abs(ours - book), 4)
                    if not math.isnan(book) else "",
                })  # fmt: skip
    return out


def seed_tests(latest: dict[str, ModelResults]) -> list[dict[str, Any]]:
    """Per model × task (domain, variant, group) × value at the latest commit: the per-value
    within-seed swap test (always "underpowered" with 5 seeds: smallest p 1/16), the group's
    within-seed persona permutation test (which 5 seeds can decide) and, for contrast, the
    loader's group test (which answer is the neutral one)."""
    out = []
    for key, m in latest.items():
        for name, task in sorted(m.tasks.items()):
            summary = summarize_answers(task.records, metrics=("iou",)).metrics["iou"]
            group = persona_disparity_test(task, draws=2000)
            status = "flagged" if group.p <= 0.05 else "not flagged"
            for v in summary.values:
                t = value_swap_test(task, v.persona_id)
                out.append({
                    "model": key, "task": name, "value": v.persona_id,
                    "raw_iou": round(v.mean, 4), "cross_seed_excess": round(t.effect, 4),
                    "value_p": round(t.p, 4), "value_min_p": round(t.min_p, 4),
                    "value_status": "underpowered" if t.underpowered() else
                    ("flagged" if t.p <= 0.05 else "not flagged"),
                    "group_p": round(group.p, 4), "group_status": status,
                    "core_group_p": round(summary.group_p, 4),
                })  # fmt: skip
    return out


def seed_leaderboard(folder: Path, out: Path) -> tuple[Leaderboard, list[str]]:
    """The leaderboard of the imported runs as ``coldbias leaderboard`` writes it for them
    (``build_leaderboard``, then the seed study's page: the as-published raw IOU, no
    disparity columns; analysis/seed_study/leaderboard.py)."""
    from coldbias_tasks.render.csv_files import write_csv
    from coldbias_tasks.render.leaderboard_page import html_page, markdown
    from coldbias_tasks.render.leaderboard_tables import long_table, wide_table

    lb = seed_study_page(build_leaderboard([folder]))
    out.mkdir(parents=True, exist_ok=True)  # the files `coldbias leaderboard` writes
    write_csv(long_table(lb), out / "leaderboard_long.csv")
    write_csv(wide_table(lb), out / "leaderboard_wide.csv")
    (out / "leaderboard.md").write_text(markdown(lb), encoding="utf-8")
    (out / "leaderboard.html").write_text(html_page(lb), encoding="utf-8")
    return lb, [*lb.messages, f"{len(lb.rows)} model rows written to {out}"]


def model_reports(latest: dict[str, ModelResults], out: Path) -> None:
    """Per model: the report's tables (values, groups, fidelity, exposure) and its terminal
    summary, from the same analysis ``coldbias report`` runs (analysis.report.analyze and
    analysis.tables.tables), without the plots and the HTML page (``coldbias report`` makes
    those)."""
    from coldbias_tasks.analysis.report import analyze
    from coldbias_tasks.analysis.tables import tables
    from coldbias_tasks.render.terminal import summary_lines

    for key, model in sorted(latest.items()):
        folder = out / "reports" / key
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        reports = analyze([model])
        for name, frame in tables(reports).items():  # gzip, no timestamp: reproducible
            frame.to_csv(
                folder / f"{name}.csv.gz", index=False, compression={"method": "gzip", "mtime": 0}
            )
        lines = [*(f"WARNING {w}" for w in model.warnings), *summary_lines(reports)]
        lines = [  # the phrasing-controlled headline is undefined here (one wording per value)
            "headline: not computable for the seed study (one wording per value; "
            "docs/seed-study.md §5)"
            if x.startswith("headline:")
            else x
            for x in lines
        ]
        (folder / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def two_models(a: ModelResults, b: ModelResults, d: str, excess: bool = False) -> Test:
    get = excess_by_seed if excess else seed_means
    return two_sample_test(list(get(domain_tasks(a, d)).values()),
                           list(get(domain_tasks(b, d)).values()))  # fmt: skip


def findings(
    paper: dict[str, ModelResults], latest: dict[str, ModelResults], paper_runs: Path
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    # 1. Gemma 3 4B vs Llama 3.2 3B (paper era), per domain
    f1 = {}
    for d in DOMAINS:
        g, ll = paper["gemma3_4b"], paper["llama3.2_3b"]
        raw, exc = two_models(g, ll, d), two_models(g, ll, d, excess=True)
        f1[d] = {
            "gemma": round(paper_figure(domain_tasks(g, d)).mean, 3),
            "llama": round(paper_figure(domain_tasks(ll, d)).mean, 3),
            "raw": fmt_test(raw), "raw_verdict": verdict(raw, -1),
            "excess": fmt_test(exc), "excess_verdict": verdict(exc, -1),
            "floors": [round(coupling(domain_tasks(x, d))[2], 3) for x in (g, ll)],
        }  # fmt: skip
    out["gemma_vs_llama"] = f1
    # 2. Gemma 3 1B / 4B / 12B: 4B below both (non-monotonic)
    f2 = {}
    for d in DOMAINS:
        one, four, twelve = (paper[k] for k in TABLES[2])
        lo, hi = two_models(one, four, d), two_models(twelve, four, d)
        lo_e, hi_e = two_models(one, four, d, True), two_models(twelve, four, d, True)
        both = [verdict(lo, +1), verdict(hi, +1)]
        both_e = [verdict(lo_e, +1), verdict(hi_e, +1)]
        f2[d] = {
            "iou": [round(paper_figure(domain_tasks(x, d)).mean, 3) for x in (one, four, twelve)],
            "1B_minus_4B": fmt_test(lo), "12B_minus_4B": fmt_test(hi),
            "verdict": "holds beyond noise" if all(v == "holds beyond noise" for v in both)
            else f"does not hold beyond noise ({'; '.join(both)})",
            "excess_1B_minus_4B": fmt_test(lo_e), "excess_12B_minus_4B": fmt_test(hi_e),
            "excess_verdict": "holds beyond noise"
            if all(v == "holds beyond noise" for v in both_e)
            else f"does not hold beyond noise ({'; '.join(both_e)})",
        }  # fmt: skip
    out["gemma_size"] = f2
    # 3. Qwen3 sweep (latest commit): trend and adjacent steps
    f3 = {}
    for d in DOMAINS:
        present = [k for k in QWEN if k in latest and domain_tasks(latest[k], d)]
        figs = [list(seed_means(domain_tasks(latest[k], d)).values()) for k in present]
        exc = [list(excess_by_seed(domain_tasks(latest[k], d)).values()) for k in present]
        trend, trend_e = trend_test(figs), trend_test(exc)
        steps = {
            f"{a}->{b}": fmt_test(two_sample_test(figs[i + 1], figs[i]))
            for i, (a, b) in enumerate(itertools.pairwise(present))
        }
        f3[d] = {
            "models": present,
            "iou": [round(paper_figure(domain_tasks(latest[k], d)).mean, 3) for k in present],
            "floor": [round(coupling(domain_tasks(latest[k], d))[2], 3) for k in present],
            "trend": fmt_test(trend), "trend_verdict": verdict(trend, 0),
            "excess_trend": fmt_test(trend_e), "excess_trend_verdict": verdict(trend_e, 0),
            "adjacent_steps": steps,
        }  # fmt: skip
    out["qwen_sweep"] = f3
    # 4. Gemma 3 4B, movie (paper era, plain): gender → action-film share
    action = genre_set(paper_runs, "action")
    task = paper["gemma3_4b"].tasks["coldbias_movie_gender"]
    f = share(action)
    by = {p: {s: f(r) for s, r in answers(task, p).items()} for p in
          ("neutral", "gender.boy", "gender.girl", "gender.female", "gender.male")}  # fmt: skip
    means = {p: round(100 * sum(v.values()) / len(v), 1) for p, v in by.items()}
    seeds = sorted(by["neutral"])
    mf = subset_relabel_test({
        s: ([by["gender.boy"][s], by["gender.male"][s]],
            [by["gender.girl"][s], by["gender.female"][s]]) for s in seeds
    })  # fmt: skip
    vs_neutral = neutral_relabel_test({
        s: (by["neutral"][s], [by[p][s] for p in by if p != "neutral"]) for s in seeds
    })  # fmt: skip
    genders = ("gender.girl", "gender.boy", "gender.female", "gender.male")
    disparity = values_disparity_test({s: [by[p][s] for p in genders] for s in seeds})
    boy_girl = subset_relabel_test({s: ([by["gender.boy"][s]], [by["gender.girl"][s]])
                                    for s in seeds})  # fmt: skip
    out["action_share_gemma4b"] = {
        "action_set_size": len(action), "percent": means,
        "per_seed_percent": {p: [round(100 * v[s], 1) for s in seeds] for p, v in by.items()},
        "male_coded_minus_female_coded": fmt_test(mf), "mf_verdict": verdict(mf, +1),
        "boy_minus_girl": fmt_test(boy_girl), "boy_girl_verdict": verdict(boy_girl, +1),
        "gender_vs_neutral": fmt_test(vs_neutral),
        "gender_values_disparity": fmt_test(disparity),
        "disparity_verdict": verdict(disparity, +1),
    }  # fmt: skip
    # 5. Gemma 3 12B, movie: "action movie fan" context vs plain (separate runs, same seeds)
    ctx_rows = rows_by_key(paper_runs / "context_action_movie_fan")
    plain, ctx = (
        domain_tasks(paper["gemma3_12b"], "movie"),
        domain_tasks(ctx_rows["gemma3_12b"], "movie", "context"),
    )
    t5 = two_sample_test(list(seed_means(ctx).values()), list(seed_means(plain).values()))
    p5 = paired_test(seed_means(ctx), seed_means(plain))
    ctx_share = {s: f(r) for s, r in answers(ctx[0], "neutral").items()}
    plain_share = {s: f(r) for s, r in answers(plain[0], "neutral").items()}
    out["context_gemma12b"] = {
        "plain_iou": round(paper_figure(plain).mean, 3),
        "action_fan_iou": round(paper_figure(ctx).mean, 3),
        "two_sample": fmt_test(t5), "two_sample_verdict": verdict(t5, -1),
        "paired": fmt_test(p5), "paired_verdict": verdict(p5, -1),
        "neutral_action_share_percent": [
            round(100 * sum(plain_share.values()) / len(plain_share), 1),
            round(100 * sum(ctx_share.values()) / len(ctx_share), 1)],
        "floors": [round(coupling(x)[2], 3) for x in (plain, ctx)],
    }  # fmt: skip
    # 6. Gemma 3 12B, movie: Western share by country / continent / race
    western = genre_set(paper_runs, "western")
    w = share(western)
    f6: dict[str, Any] = {"western_set_size": len(western)}
    for group in ("country", "continent", "race"):
        task = paper["gemma3_12b"].tasks[f"coldbias_movie_{group}"]
        personas = sorted({r.persona_id for r in task.records})
        by = {p: {s: w(r) for s, r in answers(task, p).items()} for p in personas}
        seeds = sorted(by["neutral"])
        values = [p for p in personas if p != "neutral"]
        test = values_disparity_test({s: [by[p][s] for p in values] for s in seeds})
        f6[group] = {
            "percent": {p: round(100 * sum(v.values()) / len(v), 1) for p, v in by.items()},
            "values_disparity": fmt_test(test), "verdict": verdict(test, +1),
        }  # fmt: skip
    out["western_share_gemma12b"] = f6
    # coupling of same-seed answers (the design's caveat), paper era movie
    out["coupling"] = {
        k: dict(zip(("same_seed", "cross_seed", "neutral_floor"),
                    [round(x, 3) for x in coupling(domain_tasks(paper[k], "movie"))]))
        for k in TABLES[2] + ("llama3.2_3b",)
    }  # fmt: skip
    return out


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    cols = list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paper", type=Path, required=True, help="import of commit 625f9a2")
    ap.add_argument("--paper-clone", type=Path, required=True, help="checkout of 625f9a2")
    ap.add_argument("--latest", type=Path, required=True, help="import of the latest commit")
    ap.add_argument("--latest-clone", type=Path, required=True, help="the clone imported")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    boards = {}
    for folder, out in ((args.latest, args.out), (args.paper, args.out / "paper_era")):
        boards[folder], lines = seed_leaderboard(folder / "main", out)
        for line in lines:
            if "left alone" not in line:
                print(line)
    paper, latest = rows_by_key(args.paper / "main"), rows_by_key(args.latest / "main")
    tables = paper_tables(paper, args.paper_clone)
    (args.out / "paper_tables.md").write_text(markdown_table(tables), encoding="utf-8")
    _csv(args.out / "paper_tables.csv", tables)
    for folder, clone, out in (
        (args.latest, args.latest_clone, args.out),
        (args.paper, args.paper_clone, args.out / "paper_era"),
    ):
        table1 = PRINTED_TABLE1 if folder == args.paper else {}
        published = as_published_table(boards[folder], folder, clone, table1)
        (out / "as_published.md").write_text(markdown_table(published), encoding="utf-8")
        _csv(out / "as_published.csv", published)
        diffs = [r[k] for r in published for k in ("abs_diff_vs_study", "abs_diff_vs_ipynb")
                 if r[k] != ""]  # fmt: skip
        print(
            f"as published ({out.name}): {len(diffs)} comparisons, largest |diff| = "
            f"{max(diffs):.4f}"
        )
    model_reports(latest, args.out)
    tests = seed_tests(latest)
    _csv(args.out / "seed_tests.csv", tests)
    under = sum(r["value_status"] == "underpowered" for r in tests)
    groups = {(r["model"], r["task"]): r["group_status"] for r in tests}
    flagged = sum(v == "flagged" for v in groups.values())
    print(
        f"per-value tests: {under} of {len(tests)} underpowered (5 seeds: smallest p 1/16); "
        f"group tests: {flagged} of {len(groups)} flagged at 0.05"
    )
    result = findings(paper, latest, args.paper)
    text = json.dumps(result, indent=1, ensure_ascii=False)
    (args.out / "findings.json").write_text(text + "\n", encoding="utf-8")
    worst = max(r["abs_diff_vs_study"] for r in tables)
    print(f"paper tables: {len(tables)} cells, largest |ours − study| = {worst:.4f}")
    print(text)
    return 0 if worst <= 0.05 else 1


def _csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    import csv

    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    sys.exit(main())
