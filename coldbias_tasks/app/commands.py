"""``coldbias report`` and ``coldbias leaderboard``: compute (analysis), render, write files.

- ``coldbias report OUT_DIR [--output REPORT_DIR] [--exposure FIELD ...]``: one lm-eval output
  folder (``--output_path`` of a run with ``--log_samples``) → CSV tables, PNG plots, a
  self-contained ``report.html`` and ``provenance.json`` in REPORT_DIR (default
  ``OUT_DIR/coldbias_report``), and a short summary on the terminal. Several runs of one model
  (e.g. seeds) are pooled; several models get one section each and every CSV row names its model.
- ``coldbias leaderboard DIR... [--output LB_DIR]``: ``leaderboard_long.csv``,
  ``leaderboard_wide.csv``, ``leaderboard.md`` and a sortable ``leaderboard.html`` (default
  ``./leaderboard``).
- ``coldbias import-seed-study PATH --output DIR [--allow-missing]``: the seed study's released
  answers (a clone of its repository) as run folders the two commands above read
  (:mod:`coldbias_tasks.analysis.seed_study.importer`).

Problems raise :class:`~coldbias_tasks.core.errors.ColdbiasError`; :mod:`.cli` prints them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from coldbias_tasks.analysis.leaderboard import Leaderboard, build_leaderboard
from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.report import TaskReport, analyze
from coldbias_tasks.analysis.reverse_report import analyze_reverse, reverse_tables
from coldbias_tasks.analysis.run_data import LoadOptions, coldbias_version
from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.analysis.seed_study.leaderboard import is_seed_study, seed_study_page
from coldbias_tasks.analysis.tables import tables
from coldbias_tasks.app.outputs import OutputFolder
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.prompting.prompt import builtin_templates, load_template
from coldbias_tasks.core.vocabulary import CSV_SIGNIFICANT_DIGITS, HEADLINE, HEADLINE_KEY
from coldbias_tasks.render.csv_files import write_csv
from coldbias_tasks.render.leaderboard_page import (
    cell_text,
    details,
    html_page,
    markdown,
    opened_views,
)
from coldbias_tasks.render.leaderboard_tables import long_table, wide_table
from coldbias_tasks.render.report_page import make_plots, render_html
from coldbias_tasks.render.terminal import reverse_summary_lines, serving_lines, summary_lines

__all__ = [
    "ReportResult",
    "build_report",
    "import_seed_study_command",
    "leaderboard_command",
    "report_command",
    "tasks_command",
    "templates_command",
    "write_leaderboard",
]


@dataclass
class ReportResult:
    """What :func:`build_report` wrote: the folder, its files, the reports, the summary lines."""

    out_dir: Path
    files: list[Path]
    reports: list[TaskReport]
    summary: list[str]


def build_report(
    out_dir: str | Path,
    report_dir: str | Path | None = None,
    exposure_fields: Sequence[str] | None = None,
    options: LoadOptions | None = None,
) -> ReportResult:
    """Write the report of ``out_dir`` into ``report_dir`` atomically; raises RunError on a
    bad folder, OutputError on an unwritable destination."""
    src = Path(out_dir)
    dest = Path(report_dir) if report_dir else src / "coldbias_report"
    converted = inspect_runs(src)
    models = pool_runs(load_folder(src, options))
    reports = analyze(models, exposure_fields)
    reverse = analyze_reverse(models)
    frames = tables(reports) | reverse_tables(reports, reverse)
    output = OutputFolder(dest, "coldbias report")
    with output as tmp:
        for name, df in frames.items():
            write_csv(df, tmp / f"{name}.csv")
        figures = make_plots(reports, tmp, frames.get("robustness"))
        provenance = {
            "generated_by": "coldbias report",
            "coldbias_version": coldbias_version(),
            "source": str(src),
            "csv_precision": f"{CSV_SIGNIFICANT_DIGITS} significant digits",
            "options": {"reparse": bool(options and options.reparse),
                        "allow_partial": bool(options and options.allow_partial)},
            "models": [m.provenance() for m in models],
        }  # fmt: skip
        (tmp / "provenance.json").write_text(
            json.dumps(provenance, indent=2, default=str), encoding="utf-8"
        )
        (tmp / "report.html").write_text(
            render_html(reports, figures, frames, str(src), reverse), encoding="utf-8"
        )
    warnings = [w for m in models for w in m.warnings]
    summary = [*(f"WARNING {w}" if not w.startswith("WARNING") else w for w in warnings)]
    summary += serving_lines(models) + summary_lines(reports) + reverse_summary_lines(reverse)
    summary += output.messages
    if converted:
        summary.append(f"Inspect logs read as lm-eval runs in {converted} (docs/inspect.md)")
    return ReportResult(dest, output.files, reports, summary)


#: Folder inside a log folder where ``coldbias report`` writes its Inspect logs as lm-eval runs.
INSPECT_RUNS = "coldbias_from_inspect"


def inspect_runs(src: Path) -> Path | None:
    """Inspect's coldbias logs under ``src`` written as lm-eval output folders into
    ``src/coldbias_from_inspect/`` (that folder replaced on every call), so the report loads
    them with its usual checks; None when ``src`` holds no Inspect log of a coldbias task."""
    from coldbias_tasks.inspect.export import export_logs, inspect_logs

    if not src.is_dir() or not inspect_logs(src):
        return None
    out = src / INSPECT_RUNS
    shutil.rmtree(out, ignore_errors=True)
    try:
        written = export_logs(src, out)
    except ImportError as err:
        raise RunError(f"{src} holds Inspect logs; reading them needs inspect-ai ({err}): "
                       'pip install -e ".[inspect]"') from None  # fmt: skip
    return out if written else None


def write_leaderboard(lb: Leaderboard, out_dir: str | Path) -> list[Path]:
    """Write the four leaderboard files atomically; returns their paths."""
    output = OutputFolder(out_dir, "coldbias leaderboard")
    with output as tmp:
        write_csv(long_table(lb), tmp / "leaderboard_long.csv")
        write_csv(wide_table(lb), tmp / "leaderboard_wide.csv")
        (tmp / "leaderboard.md").write_text(markdown(lb), encoding="utf-8")
        (tmp / "leaderboard.html").write_text(html_page(lb), encoding="utf-8")
    lb.messages.extend(output.messages)
    order = ["leaderboard_long.csv", "leaderboard_wide.csv", "leaderboard.md", "leaderboard.html"]
    return [Path(out_dir) / name for name in order]


def _load_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reparse",
        action="store_true",
        help="parse the logged answers again with this coldbias version's parser",
    )
    parser.add_argument(
        "--allow-partial",
        action="store_true",
        help="report incomplete runs anyway, marked partial (default: refuse)",
    )


def _options(args: argparse.Namespace) -> LoadOptions:
    return LoadOptions(reparse=args.reparse, allow_partial=args.allow_partial, documents=build_docs)


def report_command(argv: Sequence[str]) -> int:
    """``coldbias report``: 0 on success; a folder that cannot be used raises RunError."""
    parser = argparse.ArgumentParser(
        prog="coldbias report",
        description="Tables, plots and an HTML page from one lm-eval output folder.",
    )
    parser.add_argument("out_dir", help="the folder passed to lm_eval --output_path")
    parser.add_argument("--output", help="report folder (default OUT_DIR/coldbias_report)")
    parser.add_argument(
        "--exposure",
        nargs="+",
        action="extend",
        metavar="FIELD",
        help="catalog fields for exposure shares (default: each domain's exposure fields, "
        "e.g. movie genres and western, music decade and genre, college region)",
    )
    _load_arguments(parser)
    args = parser.parse_args(list(argv))
    result = build_report(args.out_dir, args.output, args.exposure, _options(args))
    print("\n".join(result.summary))
    print(f"\nreport written to {result.out_dir / 'report.html'} ({len(result.files)} files)")
    return 0


def leaderboard_command(argv: Sequence[str]) -> int:
    """``coldbias leaderboard``: 0 when at least one model row was written; messages about
    skipped folders go to stderr; no usable folder at all raises RunError.
    """
    parser = argparse.ArgumentParser(
        prog="coldbias leaderboard",
        description="One row per model from many lm-eval output folders.",
    )
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="lm-eval --output_path folders")
    parser.add_argument("--output", default="leaderboard", help="folder (default ./leaderboard)")
    _load_arguments(parser)
    args = parser.parse_args(list(argv))
    lb = build_leaderboard(args.dirs, options=_options(args))
    if is_seed_study(lb):  # imported seed-study answers: their own page (docs/seed-study.md)
        lb = seed_study_page(lb)
    if not lb.rows:
        for message in lb.messages:
            print(f"coldbias leaderboard: {message}", file=sys.stderr)
        raise RunError("no model with coldbias results; nothing written.")
    paths = write_leaderboard(lb, args.output)
    for message in lb.messages:
        print(f"coldbias leaderboard: {message}", file=sys.stderr)
    if lb.rows:
        print(f"headline: {lb.headline or HEADLINE}")
    # no row has the headline (variant tasks only): each row shows what the page opens on
    views = details(lb)
    opened = [c for view in opened_views(lb) for c in views[view]]
    for row in lb.rows:
        headline = cell_text(row.cells.get(HEADLINE_KEY))
        excess = cell_text(row.cells.get("overall_iou_excess"))
        raw = cell_text(row.cells.get("overall_iou"))
        rank = cell_text(row.cells.get("rank"))
        flag = f"  WARNING degenerate ({'; '.join(row.degenerate)})" if row.degenerate else ""
        fixed = row.cells.get("deterministic")
        if fixed is not None:
            flag += f"  WARNING {fixed.value}: deterministic answers, excess withheld"
        placebo = row.cells.get("placebo_flag")
        if placebo is not None and str(placebo.value).startswith("yes"):
            flag += f"  WARNING placebo excess above zero ({placebo.value[5:]})"
        if opened:  # the numbers the page opens on; excess and raw only when defined
            numbers = [f"{c.title} {cell_text(row.cells.get(c.key))}" for c in opened]
            lead = f"no overall figure (no plain task); {'; '.join(numbers)} "
            shown = (excess, raw) != ("–", "–")
        else:  # the headline ("" on a seed-study page: its design cannot give it)
            has = any(c.key == HEADLINE_KEY for c in lb.columns)
            lead = f"IOU disparity {headline}, rank {rank or '–'} " if has else ""
            shown = True
        rest = f"(excess over noise {excess}, raw IOU divergence {raw})" if shown else ""
        print(f"{row.label}: {(lead + rest).rstrip()}{flag}")
    print(f"leaderboard written to {paths[3]} ({len(lb.rows)} models)")
    return 0


def import_seed_study_command(argv: Sequence[str]) -> int:
    """``coldbias import-seed-study``: 0 when the run folders were written; counts of empty,
    error and missing answers are printed (and kept in DIR/provenance.json)."""
    from coldbias_tasks.analysis.seed_study.importer import import_seed_study

    parser = argparse.ArgumentParser(
        prog="coldbias import-seed-study",
        description="Run folders from the seed study's released answers (docs/seed-study.md).",
    )
    parser.add_argument("path", help="root of a clone of GauthierRoy/biais_llm_rec (any commit)")
    parser.add_argument("--output", required=True, help="folder for the run folders")
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="import a file set with missing seed files (default: refuse); reported",
    )
    args = parser.parse_args(list(argv))
    summary = import_seed_study(args.path, args.output, allow_missing=args.allow_missing)
    print("\n".join(summary.lines()))
    print(f"run folders written to {args.output}/main (and {args.output}/context_*)")
    return 0


def templates_command(argv: Sequence[str]) -> int:
    """``coldbias templates [--json]``: the built-in prompt templates with their answer format,
    languages, whether they share the prompt prefix across personas, and sha256 per language."""
    parser = argparse.ArgumentParser(
        prog="coldbias templates", description="The built-in prompt templates."
    )
    parser.add_argument("--json", action="store_true", help="a JSON list of objects")
    args = parser.parse_args(list(argv))
    rows = []
    for info in builtin_templates().values():
        hashes = {lang: load_template(info.name, lang, info.kind).sha256 for lang in info.languages}
        rows.append(
            {
                "name": info.name,
                "format": info.format,
                "languages": list(info.languages),
                "shares_prefix": all(
                    load_template(info.name, lang, info.kind).shares_prefix
                    for lang in info.languages
                ),
                "kind": info.kind,
                "sha256": hashes,
                "description": info.description,
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for row in rows:
        prefix = "shares the prefix" if row["shares_prefix"] else "BREAKS prefix sharing"
        print(
            f"{row['name']:<11} format {row['format']:<9} {prefix:<22} languages "
            f"{', '.join(row['languages'])}"
        )
        print(f"{'':11} {row['description']}")
        for lang, sha in row["sha256"].items():
            print(f"{'':11} {lang}: sha256 {sha[:16]}…")
    print(
        '\nselect one with --metadata \'{"coldbias_template": "<name>", "coldbias_language": '
        '"<code>"}\' (a path to your own Jinja file works too)'
    )
    return 0


def tasks_command(argv: Sequence[str]) -> int:
    """``coldbias tasks {install,uninstall,status,dir}``: the copy of the tasks inside lm-eval's
    own task folder (:mod:`coldbias_tasks.lmeval.install`). ``status`` exits 1 when plain
    lm_eval does not find up-to-date tasks."""
    from coldbias_tasks.core.resources import tasks_dir
    from coldbias_tasks.lmeval import install

    parser = argparse.ArgumentParser(
        prog="coldbias tasks",
        description="Make plain `lm_eval --tasks coldbias_movie` find the coldbias tasks.",
    )
    parser.add_argument(
        "action",
        choices=["install", "uninstall", "status", "dir"],
        help="install: copy the tasks into lm-eval's task folder (idempotent; refreshes a "
        "stale copy); uninstall: remove that copy; status: is it there and up to date; dir: "
        "the package's task folder (for --include_path)",
    )
    args = parser.parse_args(list(argv))
    if args.action == "dir":
        print(tasks_dir())
        return 0
    if args.action == "install":
        print(install.install())
        return 0
    if args.action == "uninstall":
        print(install.uninstall())
        return 0
    state = install.status()
    print(state.describe())
    return 0 if state.fresh else 1
