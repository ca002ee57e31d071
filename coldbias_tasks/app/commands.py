"""``coldbias report`` and ``coldbias leaderboard``: compute (analysis), render, write files.

- ``coldbias report OUT_DIR [--output REPORT_DIR] [--exposure FIELD ...]``: one lm-eval output
  folder (``--output_path`` of a run with ``--log_samples``) → CSV tables, PNG plots, a
  self-contained ``report.html`` and ``provenance.json`` in REPORT_DIR (default
  ``OUT_DIR/coldbias_report``), and a short summary on the terminal. Several runs of one model
  (e.g. seeds) are pooled; several models get one section each and every CSV row names its model.
- ``coldbias leaderboard DIR... [--output LB_DIR]``: ``leaderboard_long.csv``,
  ``leaderboard_wide.csv``, ``leaderboard.md`` and a sortable ``leaderboard.html`` (default
  ``./leaderboard``).

Problems raise :class:`~coldbias_tasks.core.errors.ColdbiasError`; :mod:`.cli` prints them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from coldbias_tasks.analysis.leaderboard import (
    Leaderboard,
    build_leaderboard,
    long_table,
    wide_table,
)
from coldbias_tasks.analysis.report import TaskReport, analyze, tables
from coldbias_tasks.analysis.runs import coldbias_version, load_folder, pool_runs
from coldbias_tasks.core.errors import RunError
from coldbias_tasks.render.leaderboard_page import cell_text, html_page, markdown
from coldbias_tasks.render.report_page import make_plots, render_html, summary_lines

__all__ = [
    "ReportResult",
    "build_report",
    "leaderboard_command",
    "report_command",
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
) -> ReportResult:
    """Write the report of ``out_dir`` into ``report_dir``; raises RunError on a bad folder."""
    src = Path(out_dir)
    dest = Path(report_dir) if report_dir else src / "coldbias_report"
    models = pool_runs(load_folder(src))
    reports = analyze(models, exposure_fields)
    dest.mkdir(parents=True, exist_ok=True)
    frames = tables(reports)
    files = []
    for name, df in frames.items():
        path = dest / f"{name}.csv"
        df.to_csv(path, index=False)
        files.append(path)
    figures = make_plots(reports, dest)
    files += [png for figs in figures.values() for png, _ in figs]
    provenance = {
        "generated_by": "coldbias report",
        "coldbias_version": coldbias_version(),
        "source": str(src),
        "models": [m.provenance() for m in models],
    }
    prov_path = dest / "provenance.json"
    prov_path.write_text(json.dumps(provenance, indent=2, default=str), encoding="utf-8")
    html_path = dest / "report.html"
    html_path.write_text(render_html(reports, figures, frames, str(src)), encoding="utf-8")
    files += [prov_path, html_path]
    return ReportResult(dest, files, reports, summary_lines(reports))


def write_leaderboard(lb: Leaderboard, out_dir: str | Path) -> list[Path]:
    """Write the four leaderboard files; returns their paths."""
    dest = Path(out_dir)
    dest.mkdir(parents=True, exist_ok=True)
    paths = [
        dest / "leaderboard_long.csv",
        dest / "leaderboard_wide.csv",
        dest / "leaderboard.md",
        dest / "leaderboard.html",
    ]
    long_table(lb).to_csv(paths[0], index=False)
    wide_table(lb).to_csv(paths[1], index=False)
    paths[2].write_text(markdown(lb), encoding="utf-8")
    paths[3].write_text(html_page(lb), encoding="utf-8")
    return paths


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
    args = parser.parse_args(list(argv))
    result = build_report(args.out_dir, args.output, args.exposure)
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
    args = parser.parse_args(list(argv))
    lb = build_leaderboard(args.dirs)
    for message in lb.messages:
        print(f"coldbias leaderboard: {message}", file=sys.stderr)
    if not lb.rows:
        raise RunError("no model with coldbias results; nothing written.")
    paths = write_leaderboard(lb, args.output)
    for row in lb.rows:
        excess = cell_text(row.cells.get("overall_iou_excess"))
        raw = cell_text(row.cells.get("overall_iou"))
        flag = f"  WARNING degenerate ({'; '.join(row.degenerate)})" if row.degenerate else ""
        placebo = row.cells.get("placebo_flag")
        if placebo is not None and str(placebo.value).startswith("yes"):
            flag += f"  WARNING placebo excess above zero ({placebo.value[5:]})"
        print(f"{row.label}: IOU excess {excess} (raw IOU divergence {raw}){flag}")
    print(f"leaderboard written to {paths[3]} ({len(lb.rows)} models)")
    return 0
