"""The leaderboard as Markdown and as a static, sortable HTML page."""

from __future__ import annotations

import html
import math
import unicodedata
from collections.abc import Sequence
from importlib.resources import files

from markupsafe import Markup

from coldbias_tasks.analysis.intervals import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CI_LEVEL
from coldbias_tasks.analysis.leaderboard import Cell, Leaderboard, Row
from coldbias_tasks.analysis.leaderboard_columns import MAIN, Column
from coldbias_tasks.analysis.run_data import coldbias_version
from coldbias_tasks.core.measures.quality import DEGENERATE_MESSAGE, DEGENERATE_RULES
from coldbias_tasks.core.vocabulary import HEADLINE, HEADLINE_KEY
from coldbias_tasks.render import html as H
from coldbias_tasks.render import plots

__all__ = [
    "NOTES",
    "NO_HEADLINE_VIEWS",
    "cell_text",
    "details",
    "html_page",
    "markdown",
    "md_cell",
    "opened_views",
    "ordered",
    "sort_script",
]


def sort_script() -> str:
    """The page's scripts (``render/static/sort.js``: sorting, ``#sort=i`` hook;
    ``views.js``: the details checkboxes), vanilla JS."""
    static = files("coldbias_tasks.render").joinpath("static")
    return "\n".join(
        static.joinpath(n).read_text(encoding="utf-8") for n in ("sort.js", "views.js")
    )


def cell_text(cell: Cell | None, digits: int = 3) -> str:
    """A cell as text: "0.123 [0.100, 0.150]" with an interval, "–" when missing."""
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
    "Headline (the default view): "
    + HEADLINE
    + " A domain's figure is the mean over its attribute tasks, the overall figure the mean "
    "over all the model's attribute tasks (each weighted alike, as lm-eval's group "
    "'coldbias'); interval: Student t with Welch–Satterthwaite degrees of freedom on the pooled "
    "phrasing-jackknife standard error, the report's rule (docs/measurement.md §3b); its "
    "verdict is read from that interval. Rows are sorted by tier, then by the signed "
    "headline (never clamped; an interval below 0 is flagged 'phrasings unmatched'). Rank: "
    "the 95 % range of "
    f"the model's rank over {BOOTSTRAP_RESAMPLES} bootstrap draws over phrasings × repeats, the "
    "same draws for every model; tier = 1 + the number of models significantly fairer (paired "
    "one-sided tests, Holm). Disparity flags: attribute tasks whose disparity test rejects "
    "after Benjamini–Hochberg over the model's attribute tasks (α = 0.05).",
    "Details (one click away on the page, further tables in the Markdown, all in the CSV "
    "files): the excess over the same-prompt noise floor (what any sentence does plus what the "
    "attribute adds), the raw divergences (1 − similarity to the neutral user's list, as "
    "published by the seed study and FaiRLLM), the control families and the placebo (the "
    "secondary view, §3c), per attribute group, fidelity, settings and capability.",
    "Raw divergence: the 'task mean' columns weigh each attribute task alike; the seed paper's "
    "Table 1 is a mean over all values, computed as the 'value mean, as published' column "
    "(every sentence of the domain's attribute tasks weighted alike): compare published numbers "
    "with that one.",
    'Placebo: a control group of facts neither sensitive nor about taste ("someone whose car is '
    "blue\"). Its excess shows how much any extra sentence moves the list; 'excess over "
    "placebo' is the part a sensitive attribute adds. A model is flagged in 'placebo flag' "
    "when a domain's placebo excess is clearly above zero (the placebo's group test rejects at "
    "α = 0.05, or its interval excludes 0).",
    "Flagged share: share of a group's values whose exact within-repeat relabelling test "
    "rejects after Holm's correction over the group (α = 0.05), mean over domains.",
    f"Intervals of the excess and raw divergences: {int(CI_LEVEL * 100)}% Student-t over "
    "repeats (mean ± t·sd/√R): a task's figure is computed per repeat (each repeat has its own "
    "catalog order and neutral answers), a domain's per repeat as the mean of its tasks'; the "
    "interval assumes repeat figures are independent and roughly normal. With few repeats it "
    "is wide on purpose (a percentile bootstrap of a few repeats covers far less than 95%). It "
    "reflects sampling over repeats only (not over catalogs, prompts or personas). "
    f"Reverse-task rank gaps: percentile bootstrap over catalog items ({BOOTSTRAP_RESAMPLES} "
    f"resamples, seed {BOOTSTRAP_SEED}).",
    "Direction: ↓ lower is better, ↑ higher is better; columns without an arrow are "
    "descriptive (the noise floor has no direction).",
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

#: the Markdown's tables have at most this many columns (the model's included)
MAX_MD_COLUMNS = 16


def ordered(lb: Leaderboard) -> list[Column]:
    """The columns in page order: the main view first, then the details views, each in table
    order."""
    views = list(dict.fromkeys(c.view for c in lb.columns))
    if MAIN in views:
        views.remove(MAIN)
    return [c for v in (MAIN, *views) for c in lb.columns if c.view == v]


#: The views a page opens on when no row has the headline (runs of variant tasks only, e.g. the
#: pref tasks: the overall figure pools plain tasks): the per-task disparities and the costs.
NO_HEADLINE_VIEWS = ("per domain × variant", "cost to the user")


def _has_number(lb: Leaderboard, keys: Sequence[str]) -> bool:
    return any(not math.isnan(row.number(key)) for row in lb.rows for key in keys)


def opened_views(lb: Leaderboard) -> list[str]:
    """The details views shown on load: none when some row has the headline; otherwise those of
    :data:`NO_HEADLINE_VIEWS` with a number in some row (a page opens on its numbers, not on a
    column of "–")."""
    if not lb.rows or _has_number(lb, [HEADLINE_KEY]):
        return []
    views = details(lb)
    return [
        v for v in NO_HEADLINE_VIEWS if v in views and _has_number(lb, [c.key for c in views[v]])
    ]


def details(lb: Leaderboard) -> dict[str, list[Column]]:
    """Details view → its columns, in table order."""
    out: dict[str, list[Column]] = {}
    for c in lb.columns:
        if c.view != MAIN:
            out.setdefault(c.view, []).append(c)
    return out


def _md_text(row: Row, col: Column) -> str:
    if col.key == "model":
        text = row.label + (" ⚠ DEGENERATE" if row.degenerate else "")
    elif col.key == "degenerate" and row.degenerate:
        text = "**⚠ " + "; ".join(row.degenerate) + "**"
    else:
        text = cell_text(row.cells.get(col.key))
    return md_cell(text)


def _md_tables(lb: Leaderboard, columns: Sequence[Column]) -> list[str]:
    """``columns`` as Markdown tables of at most :data:`MAX_MD_COLUMNS` columns, the model's
    first in each."""
    model, rest = lb.columns[0], [c for c in columns if c.key != "model"]
    step = MAX_MD_COLUMNS - 1
    out = []
    for i in range(0, max(1, len(rest)), step):
        cols = [model, *rest[i : i + step]]
        lines = [
            "| " + " | ".join(md_cell(c.header) for c in cols) + " |",
            "|" + "|".join("---" for _ in cols) + "|",
        ]
        lines += ["| " + " | ".join(_md_text(row, c) for c in cols) + " |" for row in lb.rows]
        out.append("\n".join(lines))
    return out


def md_cell(text: str) -> str:
    """``text`` as one Markdown table cell: HTML escaped (no raw markup), line breaks and
    control characters as spaces, pipes and backslashes escaped."""
    text = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in str(text))
    text = html.escape(text, quote=False).replace("\\", "\\\\").replace("|", "\\|")
    return " ".join(text.split())


def markdown(lb: Leaderboard) -> str:
    """The leaderboard as Markdown: the main table (the headline, at most
    :data:`MAX_MD_COLUMNS` columns), the details per view in further tables, the notes."""
    main = [c for c in lb.columns if c.view == MAIN]
    parts = ["# coldbias leaderboard", lb.headline or HEADLINE, *_md_tables(lb, main)]
    for view, cols in details(lb).items():
        parts += [f"## {html.escape(view, quote=False)}", *_md_tables(lb, cols)]
    notes = "\n".join(f"- {n}" for n in (NOTES if lb.notes is None else lb.notes))
    parts += ["## Notes", notes, f"_generated by coldbias {coldbias_version()}_"]
    return "\n\n".join(parts) + "\n"


def _html_cell(row: Row, col: Column) -> tuple[str, object]:
    """A cell's markup (every text escaped) and its sort key."""
    cell = row.cells.get(col.key)
    if col.key == "model":
        tip = ", ".join(f"{k}={v}" for k, v in sorted(row.model.model_args.items()))
        label = row.model.row_label
        name = label.name if label.qualifier else str(label)
        rest = f"[{label.qualifier}]{label.suffix}" if label.qualifier else ""
        detail = f'<br><span class="small">{H.esc(rest)}</span>' if rest else ""
        flag = ' <span class="bad">⚠ DEGENERATE</span>' if row.degenerate else ""
        return f'<span title="{H.esc(tip)}">{H.esc(name)}</span>{flag}{detail}', row.label
    if col.key == "degenerate":
        if not row.degenerate:
            return '<span class="ok">no</span>', 0
        reasons = "<br>".join(f'<span class="reason">{H.esc(r)}</span>' for r in row.degenerate)
        return f'<span class="bad">⚠ yes</span><br><span class="small">{reasons}</span>', 1
    if cell is None:
        return "–", None
    text = H.esc(cell_text(Cell(cell.value)))
    if isinstance(cell.ci_low, float) and not math.isnan(cell.ci_low):
        text += f"<br><span class='ci'>[{cell.ci_low:.3f}, {cell.ci_high:.3f}]</span>"
    return text, cell.value


def _forest(lb: Leaderboard) -> str:
    """The forest plot of the headline (a PNG data URI), or "" when no row has one."""
    rows = []
    for row in lb.rows:
        cell = row.cells.get(HEADLINE_KEY)
        tier = row.cells.get("tier")
        if cell is None or not isinstance(cell.value, float) or math.isnan(cell.value):
            continue
        level = int(tier.value) if tier is not None and isinstance(tier.value, int) else None
        rows.append((row.label, cell.value, cell.ci_low, cell.ci_high, level, bool(row.degenerate)))
    if not rows:
        return ""
    return H.figure(
        plots.forest(rows),
        "The headline per model: IOU disparity between values, controlled for phrasing, with "
        "its 95 % interval; colour: tier (grey: degenerate or unranked); rows in the table's "
        "order (best tier and lowest disparity at the top).",
    )


def html_page(lb: Leaderboard) -> str:
    """Static page: the headline table (``<table id="leaderboard">``; the details views one
    click away: a checkbox per view shows its columns), the forest plot, messages and notes."""
    columns = ordered(lb)
    slugs = {view: f"v{i}" for i, view in enumerate(details(lb), start=1)}
    rows, keys, classes = [], [], []
    for row in lb.rows:
        made = [_html_cell(row, col) for col in columns]
        rows.append([m[0] for m in made])
        keys.append([m[1] for m in made])
        classes.append("degenerate" if row.degenerate else "")
    tbl = H.table(
        [c.header for c in columns],
        rows,
        table_id="leaderboard",
        text_columns=[i for i, c in enumerate(columns) if not c.numeric],
        row_classes=classes,
        header_titles=[c.description or c.title for c in columns],
        sortable=True,
        raw_cells=True,
        sort_keys=keys,
        column_classes=[f"details {slugs[c.view]}" if c.view in slugs else "" for c in columns],
    )
    opened = opened_views(lb)
    views = [
        {"slug": slugs[view], "name": view, "count": len(cols), "open": view in opened}
        for view, cols in details(lb).items()
    ]
    degenerate = any(r.degenerate for r in lb.rows)
    body = H.template("leaderboard.html.j2").render(
        slugs=list(slugs.values()),
        headline=lb.headline or HEADLINE,
        degenerate=Markup(H.warning(f"Rows marked DEGENERATE: {DEGENERATE_MESSAGE}."))
        if degenerate
        else "",
        views=views,
        opened=opened,
        table=Markup(tbl),
        forest=Markup(_forest(lb)),
        messages=lb.messages,
        notes=NOTES if lb.notes is None else lb.notes,
        version=coldbias_version(),
    )
    return H.page("coldbias leaderboard", body, sort_script(), wide=True)
