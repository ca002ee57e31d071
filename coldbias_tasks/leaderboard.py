"""``coldbias leaderboard DIR... [--output LB_DIR]``: one row per model over many output folders.

Runs of one model (same ``model_name``, backend and ``model_args`` minus ``seed``) are merged
with their seeds pooled (:func:`coldbias_tasks.runs.pool_runs`). Columns: per-domain divergence
(IOU, SERP, PRAG; mean over the domain's attribute tasks of the task mean) with a bootstrap 95%
interval, IOU divergence per attribute group (pooled over domains), fidelity, ``n``, task
versions, a degenerate flag, and the headline metric of any other harness task found in the
same results files (capability next to fairness). Degenerate models always sort last.

Writes ``leaderboard_long.csv``, ``leaderboard_wide.csv``, ``leaderboard.md`` and a static,
sortable ``leaderboard.html`` into LB_DIR (default ``./leaderboard``).
"""

from __future__ import annotations

import argparse
import math
import sys
import zlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from coldbias_tasks import html as H
from coldbias_tasks.aggregate import fidelity, positions, summarize_group, value_divergences
from coldbias_tasks.report import DEGENERATE_MESSAGE, DEGENERATE_RULES, degenerate_reasons
from coldbias_tasks.runs import (
    ModelResults,
    Run,
    RunError,
    TaskData,
    coldbias_version,
    pool_runs,
    scan_folder,
)

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "Column",
    "Leaderboard",
    "build_leaderboard",
    "main",
    "task_bootstrap",
]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240601
CI_LEVEL = 0.95
METRICS = ("iou", "serp", "prag")
DOWN, UP = "↓", "↑"


@dataclass(frozen=True)
class Column:
    """A leaderboard column: machine ``key``, display ``title``, direction ↓/↑ or ""."""

    key: str
    title: str
    direction: str = ""
    numeric: bool = True
    description: str = ""

    @property
    def header(self) -> str:
        return f"{self.title} {self.direction}".strip()


@dataclass
class Cell:
    """A value (number, count or text) and its interval (NaN when there is none)."""

    value: float | int | str
    ci_low: float = math.nan
    ci_high: float = math.nan


@dataclass
class Row:
    model: ModelResults
    cells: dict[str, Cell] = field(default_factory=dict)
    degenerate: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.model.label

    def number(self, key: str) -> float:
        cell = self.cells.get(key)
        return cell.value if cell is not None and isinstance(cell.value, float) else math.nan


@dataclass
class Leaderboard:
    columns: list[Column]
    rows: list[Row]
    messages: list[str] = field(default_factory=list)


# --- statistics ------------------------------------------------------------------------------


def task_bootstrap(
    task: TaskData, metric: str, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> np.ndarray:
    """Bootstrap draws (shape ``(resamples,)``) of the task's mean divergence.

    Within each attribute value its per-repeat divergences B_r(a) (one per (persona, repeat)
    answer pair with the neutral answer of the same repeat) are resampled with replacement; a
    draw is the mean over values of their resampled means, i.e. the task statistic recomputed.
    The generator is seeded from ``seed``, the task name and the metric, so a task's draws do
    not depend on which other tasks are in the leaderboard. All-NaN when no value has a pair.
    """
    per_value = value_divergences(task.records, metric)
    rng = np.random.default_rng([seed, zlib.crc32(f"{task.name}:{metric}".encode())])
    means = []
    for persona in sorted(per_value):
        divs = np.array([per_value[persona][r] for r in sorted(per_value[persona])], dtype=float)
        if divs.size == 0:
            continue
        idx = rng.integers(0, divs.size, size=(resamples, divs.size))
        means.append(divs[idx].mean(axis=1))
    if not means:
        return np.full(resamples, math.nan)
    return np.mean(np.vstack(means), axis=0)


def _interval(draws: np.ndarray) -> tuple[float, float]:
    finite = draws[~np.isnan(draws)]
    if finite.size == 0:
        return math.nan, math.nan
    tail = (1 - CI_LEVEL) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def _mean_cell(
    tasks: Sequence[TaskData], metric: str, means: dict[str, float], draws: dict[str, np.ndarray]
) -> Cell:
    """Mean over ``tasks`` of their task means, with the bootstrap interval of that mean."""
    names = [t.name for t in tasks if not math.isnan(means[t.name])]
    if not names:
        return Cell(math.nan)
    value = float(np.mean([means[n] for n in names]))
    low, high = _interval(np.mean(np.vstack([draws[n] for n in names]), axis=0))
    return Cell(value, low, high)


def _variant_suffix(variant: str) -> str:
    return "" if variant == "plain" else f"_{variant}"


# --- building --------------------------------------------------------------------------------


def build_rows(
    models: Sequence[ModelResults], resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[list[Column], list[Row]]:
    """Columns (only those with data) and rows, sorted: non-degenerate first, then by the
    overall IOU divergence (lower first), then by name.
    """
    domains: dict[str, tuple[str, str]] = {}  # key → (domain, variant)
    groups: dict[str, tuple[str, str]] = {}
    extra: dict[str, tuple[str, str, bool | None]] = {}
    rows = []
    for model in models:
        row = Row(model)
        means: dict[str, dict[str, float]] = {m: {} for m in METRICS}
        draws: dict[str, dict[str, np.ndarray]] = {m: {} for m in METRICS}
        floors = []
        by_domain: dict[str, list[TaskData]] = defaultdict(list)
        by_group: dict[str, list[TaskData]] = defaultdict(list)
        for task in model.tasks.values():
            summary = summarize_group(task.records)
            for m in METRICS:
                means[m][task.name] = summary.metrics[m].mean
                draws[m][task.name] = task_bootstrap(task, m, resamples)
            floors.append(summary.metrics["iou"].noise_floor.mean)
            dkey = f"{task.domain}{_variant_suffix(task.variant)}"
            gkey = f"{task.group}{_variant_suffix(task.variant)}"
            domains[dkey] = (task.domain, task.variant)
            groups[gkey] = (task.group, task.variant)
            by_domain[dkey].append(task)
            by_group[gkey].append(task)
        plain_domains = [k for k in by_domain if domains[k][1] == "plain"] or list(by_domain)
        for m in METRICS:
            for dkey, tasks in by_domain.items():
                row.cells[f"{dkey}_{m}"] = _mean_cell(tasks, m, means[m], draws[m])
        row.cells["overall_iou"] = _overall_cell(plain_domains, by_domain, means["iou"], draws)
        for gkey, tasks in by_group.items():
            row.cells[f"group_{gkey}_iou"] = _mean_cell(tasks, "iou", means["iou"], draws["iou"])
        records = [r for t in model.tasks.values() for r in t.records]
        fid, pos = fidelity(records), positions(records)
        finite_floors = [f for f in floors if not math.isnan(f)]
        row.cells["exact_k_rate"] = Cell(fid.exact_k_rate)
        row.cells["fill_rate"] = Cell(fid.fill_rate)
        row.cells["out_of_catalog_rate"] = Cell(fid.out_of_catalog_rate)
        row.cells["duplicate_rate"] = Cell(fid.duplicate_rate)
        row.cells["prefix_copy_rate"] = Cell(pos.prefix_copy_rate)
        row.cells["noise_floor"] = Cell(
            float(np.mean(finite_floors)) if finite_floors else math.nan
        )
        row.cells["n"] = Cell(len(records))
        row.cells["task_version"] = Cell(
            ", ".join(dict.fromkeys(t.version for t in model.tasks.values()))
        )
        row.cells["settings"] = Cell(_settings(model.tasks.values()))
        row.degenerate = degenerate_reasons(fid, pos)
        row.cells["degenerate"] = Cell(
            ("yes: " + "; ".join(row.degenerate)) if row.degenerate else "no"
        )
        for task, metric in model.other_metrics.items():
            key = f"extra:{task}:{metric.metric}"
            extra[key] = (task, metric.metric, metric.higher_is_better)
            se = metric.stderr
            if math.isfinite(se):
                row.cells[key] = Cell(
                    metric.value, metric.value - 1.96 * se, metric.value + 1.96 * se
                )
            else:
                row.cells[key] = Cell(metric.value)
        rows.append(row)
    columns = _columns(domains, groups, extra)
    rows.sort(key=_sort_key)
    return columns, rows


def _settings(tasks: Iterable[TaskData]) -> str:
    """Protocol of the row's tasks, e.g. "k=20, 500 shown, shuffle, 5 repeats" (distinct
    values joined with "/"); divergences of rows with other settings are not comparable.
    """
    tasks = list(tasks)

    def joined(values: Iterable[object]) -> str:
        return "/".join(dict.fromkeys(str(v) for v in values))

    return (
        f"k={joined(t.k for t in tasks)}, {joined(t.n_shown for t in tasks)} shown, "
        f"{joined(t.order for t in tasks)}, {joined(t.repeats for t in tasks)} repeats"
    )


def _overall_cell(
    keys: Sequence[str],
    by_domain: dict[str, list[TaskData]],
    means: dict[str, float],
    draws: dict[str, dict[str, np.ndarray]],
) -> Cell:
    """Mean over domains (plain variant) of the domain IOU divergence, each domain weighted
    equally, with the bootstrap interval of that mean.
    """
    values, samples = [], []
    for key in keys:
        names = [t.name for t in by_domain[key] if not math.isnan(means[t.name])]
        if not names:
            continue
        values.append(np.mean([means[n] for n in names]))
        samples.append(np.mean(np.vstack([draws["iou"][n] for n in names]), axis=0))
    if not values:
        return Cell(math.nan)
    low, high = _interval(np.mean(np.vstack(samples), axis=0))
    return Cell(float(np.mean(values)), low, high)


def _sort_key(row: Row) -> tuple[bool, float, str]:
    overall = row.number("overall_iou")
    return (bool(row.degenerate), math.inf if math.isnan(overall) else overall, row.label)


_VARIANT_ORDER = {"plain": 0, "context": 1, "mitigation": 2}
_DOMAIN_ORDER = {"movie": 0, "music": 1, "college": 2}


def _columns(
    domains: dict[str, tuple[str, str]],
    groups: dict[str, tuple[str, str]],
    extra: dict[str, tuple[str, str, bool | None]],
) -> list[Column]:
    cols = [
        Column("model", "model", numeric=False, description="model name (runs pooled)"),
        Column(
            "degenerate",
            "degenerate",
            numeric=False,
            description="fails the fidelity rules: divergences not interpretable as fairness",
        ),
        Column(
            "overall_iou",
            "IOU divergence (all domains)",
            DOWN,
            description="mean over domains (plain variant) of the domain IOU divergence",
        ),
    ]
    order = sorted(
        domains, key=lambda k: (_VARIANT_ORDER.get(domains[k][1], 9), _DOMAIN_ORDER.get(k, 9), k)
    )
    for dkey in order:
        domain, variant = domains[dkey]
        name = domain if variant == "plain" else f"{domain} ({variant})"
        for m in METRICS:
            cols.append(
                Column(
                    f"{dkey}_{m}",
                    f"{name} {m.upper()}",
                    DOWN,
                    description=f"{m.upper()} divergence, mean over {name} attribute tasks",
                )
            )
    gorder = sorted(groups, key=lambda k: (_VARIANT_ORDER.get(groups[k][1], 9), k))
    for gkey in gorder:
        group, variant = groups[gkey]
        name = group if variant == "plain" else f"{group} ({variant})"
        cols.append(
            Column(
                f"group_{gkey}_iou",
                f"{name} IOU",
                DOWN,
                description=f"IOU divergence of the {name} attribute group, mean over domains",
            )
        )
    cols += [
        Column("exact_k_rate", "exact-k rate", UP, description="share of answers with k items"),
        Column("fill_rate", "fill rate", UP, description="mean share of the k slots filled"),
        Column("out_of_catalog_rate", "out-of-catalog rate", DOWN, description="entries"),
        Column("duplicate_rate", "duplicate rate", DOWN, description="entries"),
        Column("prefix_copy_rate", "prefix-copy rate", DOWN, description="catalog-order copying"),
        Column(
            "noise_floor",
            "IOU noise floor",
            DOWN,
            description="neutral vs a second neutral answer to the same prompt",
        ),
        Column("n", "n", description="answers (all tasks, all pooled runs)"),
        Column("task_version", "task version", numeric=False),
        Column("settings", "settings", numeric=False, description="k, items shown, order, repeats"),
    ]
    for key in sorted(extra):
        task, metric, better = extra[key]
        arrow = UP if better is True else DOWN if better is False else ""
        cols.append(Column(key, f"{task} {metric}", arrow, description="other harness task"))
    return cols


def collect(dirs: Sequence[str | Path]) -> tuple[list[Run], list[str]]:
    """Runs of all ``dirs``; each unusable folder becomes a message instead of an exception."""
    runs: list[Run] = []
    messages: list[str] = []
    for d in dirs:
        try:
            found = scan_folder(d)
        except RunError as err:
            messages.append(f"skipped: {err}")
            continue
        if not any(r.tasks for r in found):
            tasks = sorted({t for r in found for t in r.foreign_tasks})
            listed = ", ".join(tasks[:8]) + (", ..." if len(tasks) > 8 else "")
            messages.append(
                f"{d}: holds no coldbias task (found: {listed or 'no task'}); its metrics are "
                "used only as capability columns of a model with coldbias results"
            )
        for r in found:
            messages.extend(r.warnings)
        runs += found
    return runs, messages


def build_leaderboard(
    dirs: Sequence[str | Path], resamples: int = BOOTSTRAP_RESAMPLES
) -> Leaderboard:
    """Leaderboard of all usable folders (problems are in ``messages``, never raised)."""
    runs, messages = collect(dirs)
    models = pool_runs(runs) if runs else []
    for model in models:
        messages += [w for w in model.warnings if w not in messages]
    used = {r.results_file.resolve() for m in models for r in m.runs}
    for run in runs:
        if not run.tasks and run.other_metrics and run.results_file.resolve() not in used:
            messages.append(
                f"{run.results_file}: capability results of {run.model} "
                f"({', '.join(run.other_metrics)}) match no model row (same name, backend and "
                "model_args apart from seed); not shown"
            )
    columns, rows = build_rows(models, resamples)
    settings = {
        row.cells["settings"].value.rsplit(",", 1)[0]
        for row in rows  # repeats may differ
    }
    if len(settings) > 1:
        messages.append(
            "models were run with different settings (" + "; ".join(sorted(settings)) + "): "
            "divergences depend on k and the catalog size, compare such rows with care"
        )
    return Leaderboard(columns, rows, messages)


# --- writing ---------------------------------------------------------------------------------


def _value(cell: Cell | None) -> float | int | str:
    return math.nan if cell is None else cell.value


def _has_ci(lb: Leaderboard, key: str) -> bool:
    return any(key in row.cells and not math.isnan(row.cells[key].ci_low) for row in lb.rows)


def long_table(lb: Leaderboard) -> pd.DataFrame:
    """model, column, value, ci_low, ci_high, direction (one line per row × column)."""
    out = []
    for row in lb.rows:
        for col in lb.columns[1:]:
            cell = row.cells.get(col.key)
            if cell is None:
                continue
            out.append(
                {
                    "model": row.label,
                    "column": col.key,
                    "value": cell.value,
                    "ci_low": cell.ci_low,
                    "ci_high": cell.ci_high,
                    "direction": col.direction,
                }
            )
    return pd.DataFrame(out, columns=["model", "column", "value", "ci_low", "ci_high", "direction"])


def wide_table(lb: Leaderboard) -> pd.DataFrame:
    """One row per model; headers carry the direction marker; interval columns follow."""
    with_ci = {c.key for c in lb.columns if _has_ci(lb, c.key)}
    names = ["model"]
    for col in lb.columns[1:]:
        names.append(f"{col.key} {col.direction}".strip())
        if col.key in with_ci:
            names += [f"{col.key}_ci_low", f"{col.key}_ci_high"]
    out = []
    for row in lb.rows:
        line: dict[str, float | int | str] = {"model": row.label}
        for col in lb.columns[1:]:
            cell = row.cells.get(col.key)
            line[f"{col.key} {col.direction}".strip()] = _value(cell)
            if col.key in with_ci:
                line[f"{col.key}_ci_low"] = math.nan if cell is None else cell.ci_low
                line[f"{col.key}_ci_high"] = math.nan if cell is None else cell.ci_high
        out.append(line)
    return pd.DataFrame(out, columns=names)


def _cell_text(cell: Cell | None, digits: int = 3) -> str:
    if cell is None:
        return "–"
    if isinstance(cell.value, str):
        return cell.value
    if isinstance(cell.value, int):
        return str(cell.value)
    if math.isnan(cell.value):
        return "–"
    text = f"{cell.value:.{digits}f}"
    if not math.isnan(cell.ci_low):
        text += f" [{cell.ci_low:.{digits}f}, {cell.ci_high:.{digits}f}]"
    return text


NOTES = [
    f"Intervals: {int(CI_LEVEL * 100)}% percentile bootstrap, {BOOTSTRAP_RESAMPLES} resamples, "
    f"fixed seed {BOOTSTRAP_SEED}. Within each task, the per-repeat divergences of every "
    "attribute value (one per (persona, repeat) answer pair against the neutral answer of the "
    "same repeat) are resampled with replacement and the task mean recomputed; a domain's draw "
    "is the mean of its tasks' draws. They reflect sampling variation over repeats only (not "
    "over catalogs, prompts or personas); with few repeats they are narrow and approximate.",
    "Direction: ↓ lower is better, ↑ higher is better; columns without an arrow are "
    "descriptive. A divergence is 1 − similarity between an attribute persona's list and the "
    "neutral user's list (0 = identical lists). Compare it with the IOU noise floor (the neutral "
    "answer vs a second neutral answer to the same prompt; older runs without that replicate: "
    "neutral repeats vs each other): divergence at the noise floor is sampling noise, not bias.",
    "Degenerate: a model is flagged when, pooled over its answers, "
    + ", ".join(f"{name} {op} {limit}" for name, op, limit in DEGENERATE_RULES)
    + ". Its divergences are not interpretable as fairness (copying the catalog order gives "
    "zero divergence for every persona), so it is sorted after all other models regardless of "
    "divergence, also when the table is re-sorted.",
    "Runs of one model (same model name, backend and model_args apart from the seed) are "
    "merged into one row with their seeds pooled: each run's repeat r stays paired with that "
    "run's neutral repeat r. Capability columns are the first metric of each other harness "
    "task found in the same results files (interval: ± 1.96 × lm-eval's stderr).",
]


def markdown(lb: Leaderboard) -> str:
    """The leaderboard as a Markdown table followed by the notes."""
    headers = [c.header for c in lb.columns]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in lb.rows:
        cells = []
        for col in lb.columns:
            if col.key == "model":
                text = row.label + (" ⚠ DEGENERATE" if row.degenerate else "")
            elif col.key == "degenerate" and row.degenerate:
                text = "**⚠ " + "; ".join(row.degenerate) + "**"
            else:
                text = _cell_text(row.cells.get(col.key))
            cells.append(text.replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    notes = "\n".join(f"- {n}" for n in NOTES)
    return (
        "# coldbias leaderboard\n\n"
        + "\n".join(lines)
        + f"\n\n## Notes\n\n{notes}\n\n_generated by coldbias {coldbias_version()}_\n"
    )


SORT_SCRIPT = r"""
(function () {
  var table = document.getElementById("leaderboard");
  var tbody = table.tBodies[0];
  var headers = table.tHead.rows[0].cells;
  var state = { col: -1, dir: 1 };
  function key(row, col) {
    var cell = row.cells[col];
    var raw = cell ? cell.getAttribute("data-sort") : null;
    if (raw === null || raw === "") return null;
    var num = Number(raw);
    return isNaN(num) ? raw.toLowerCase() : num;
  }
  function compare(a, b, col, dir) {
    // degenerate models stay after all others, whatever the column
    var da = a.classList.contains("degenerate"), db = b.classList.contains("degenerate");
    if (da !== db) return da ? 1 : -1;
    var ka = key(a, col), kb = key(b, col);
    if (ka === null && kb === null) return 0;
    if (ka === null) return 1;   // missing values last
    if (kb === null) return -1;
    if (typeof ka !== typeof kb) { ka = String(ka); kb = String(kb); }
    return ka < kb ? -dir : ka > kb ? dir : 0;
  }
  function sortBy(col) {
    var dir = state.col === col ? -state.dir : 1;
    state = { col: col, dir: dir };
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.sort(function (a, b) { return compare(a, b, col, dir); });
    rows.forEach(function (r) { tbody.appendChild(r); });
    for (var i = 0; i < headers.length; i++) {
      headers[i].classList.remove("sorted-asc", "sorted-desc");
    }
    headers[col].classList.add(dir === 1 ? "sorted-asc" : "sorted-desc");
    table.setAttribute("data-sorted-by", col + ":" + (dir === 1 ? "asc" : "desc"));
  }
  for (var i = 0; i < headers.length; i++) {
    headers[i].addEventListener("click", (function (c) {
      return function () { sortBy(c); };
    })(i));
  }
  // #sort=<column index> (or #sort=-<index> for descending) sorts on load, exactly as clicks
  var m = /^#sort=(-?)(\d+)$/.exec(window.location.hash);
  if (m && +m[2] < headers.length) {
    headers[+m[2]].click();
    if (m[1] === "-") headers[+m[2]].click();
  }
})();
"""


def html_page(lb: Leaderboard) -> str:
    """Static page: the sortable table (``<table id="leaderboard">``), messages and notes."""
    rows, keys, classes = [], [], []
    for row in lb.rows:
        cells, sort = [], []
        for col in lb.columns:
            cell = row.cells.get(col.key)
            if col.key == "model":
                tip = ", ".join(f"{k}={v}" for k, v in sorted(row.model.model_args.items()))
                name, _, rest = row.label.partition(" [")
                detail = f'<br><span class="small">[{H.esc(rest)}</span>' if rest else ""
                flag = ' <span class="bad">⚠ DEGENERATE</span>' if row.degenerate else ""
                cells.append(f'<span title="{H.esc(tip)}">{H.esc(name)}</span>{flag}{detail}')
                sort.append(row.label)
                continue
            if col.key == "degenerate":
                if row.degenerate:
                    reasons = "<br>".join(
                        f'<span class="reason">{H.esc(r)}</span>' for r in row.degenerate
                    )
                    cells.append(
                        f'<span class="bad">⚠ yes</span><br><span class="small">{reasons}</span>'
                    )
                else:
                    cells.append('<span class="ok">no</span>')
                sort.append(1 if row.degenerate else 0)
                continue
            if cell is None:
                cells.append("–")
                sort.append(None)
                continue
            text = _cell_text(Cell(cell.value))
            if not math.isnan(cell.ci_low):
                text = (
                    f"{H.esc(text)}<br><span class='ci'>[{cell.ci_low:.3f}, "
                    f"{cell.ci_high:.3f}]</span>"
                )
            else:
                text = H.esc(text)
            cells.append(text)
            sort.append(cell.value)
        rows.append(cells)
        keys.append(sort)
        classes.append("degenerate" if row.degenerate else "")
    text_cols = [i for i, c in enumerate(lb.columns) if not c.numeric]
    tbl = H.table(
        [c.header for c in lb.columns],
        rows,
        table_id="leaderboard",
        text_columns=text_cols,
        row_classes=classes,
        header_titles=[c.description or c.title for c in lb.columns],
        sortable=True,
        raw_cells=True,
        sort_keys=keys,
    )
    body = [
        "<h1>coldbias leaderboard</h1>",
        '<p class="sub">Bias of LLM recommenders in the cold start: divergence of attribute '
        "personas' ranked lists from the neutral user's (lower is fairer), next to task fidelity "
        "and capability. Click a column header to sort; degenerate models stay last.</p>",
    ]
    if any(r.degenerate for r in lb.rows):
        body.append(H.warning(f"Rows marked DEGENERATE: {DEGENERATE_MESSAGE}."))
    body.append(f'<div class="scroll">{tbl}</div>')
    if lb.messages:
        body.append("<h2>Messages</h2><ul class='note'>")
        body.extend(f"<li>{H.esc(m)}</li>" for m in lb.messages)
        body.append("</ul>")
    body.append("<h2>Notes</h2><ul class='note'>")
    body.extend(f"<li>{H.esc(n)}</li>" for n in NOTES)
    body.append(f"</ul><p class='note'>generated by coldbias {H.esc(coldbias_version())}</p>")
    return H.page("coldbias leaderboard", "\n".join(body), SORT_SCRIPT, wide=True)


def write(lb: Leaderboard, out_dir: str | Path) -> list[Path]:
    """Write the four output files; returns their paths."""
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


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: 0 when at least one model row was written, else 1. Problems go to stderr."""
    parser = argparse.ArgumentParser(
        prog="coldbias leaderboard",
        description="One row per model from many lm-eval output folders.",
    )
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="lm-eval --output_path folders")
    parser.add_argument("--output", default="leaderboard", help="folder (default ./leaderboard)")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    lb = build_leaderboard(args.dirs)
    for message in lb.messages:
        print(f"coldbias leaderboard: {message}", file=sys.stderr)
    if not lb.rows:
        print(
            "coldbias leaderboard: no model with coldbias results; nothing written.",
            file=sys.stderr,
        )
        return 1
    paths = write(lb, args.output)
    for row in lb.rows:
        overall = _cell_text(row.cells.get("overall_iou"))
        flag = f"  WARNING degenerate ({'; '.join(row.degenerate)})" if row.degenerate else ""
        print(f"{row.label}: IOU divergence {overall}{flag}")
    print(f"leaderboard written to {paths[3]} ({len(lb.rows)} models)")
    return 0
