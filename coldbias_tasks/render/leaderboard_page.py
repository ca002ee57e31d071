"""The leaderboard as Markdown and as a static, sortable HTML page."""

from __future__ import annotations

import html
import math
import unicodedata
from importlib.resources import files

from coldbias_tasks.analysis.intervals import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CI_LEVEL
from coldbias_tasks.analysis.leaderboard import Cell, Leaderboard
from coldbias_tasks.analysis.run_data import coldbias_version
from coldbias_tasks.core.quality import DEGENERATE_MESSAGE, DEGENERATE_RULES
from coldbias_tasks.render import html as H

__all__ = ["NOTES", "cell_text", "html_page", "markdown", "md_cell", "sort_script"]


def sort_script() -> str:
    """The page's sorting script (``render/static/sort.js``, vanilla JS, ``#sort=i`` hook)."""
    return files("coldbias_tasks.render").joinpath("static/sort.js").read_text(encoding="utf-8")


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
    "Headline: the IOU attribute excess, how much further the attribute values' ranked lists "
    "are from the neutral user's than the lists of control personas who state an irrelevant "
    'fact ("someone whose car is blue"), asked in the same repeats and catalog orders; every '
    "neutral answer of a repeat serves as anchor. 0 = the attribute does no more than any "
    "sentence; a model that reacts to every sentence alike scores 0. Rows are sorted by tier, "
    "then by the headline (a negative value, the values moving the list less than an "
    "irrelevant sentence, counts as 0). Rank: the 95 % range of the model's rank over a "
    f"bootstrap over repeats ({BOOTSTRAP_RESAMPLES} resamples); models whose headline intervals "
    "overlap share a tier. Attribute and disparity flags: tasks whose values-vs-controls test "
    "or between-values disparity test rejects after Benjamini–Hochberg over the model's "
    "attribute tasks (α = 0.05); domain and overall figures carry no averaged p-value. The "
    "excess over the same-prompt noise floor (what any sentence does plus what the attribute "
    "adds) and the raw divergences (1 − similarity, as published by the seed study and "
    "FaiRLLM) are shown next to it.",
    'Placebo: a control group of facts neither sensitive nor about taste ("someone whose car is '
    "blue\"). Its excess shows how much any extra sentence moves the list; 'excess over "
    "placebo' is the part a sensitive attribute adds. A model is flagged in 'placebo flag' "
    "when a domain's placebo excess is clearly above zero (the placebo's group test rejects at "
    "α = 0.05, or its interval excludes 0).",
    "Flagged share: share of a group's values whose exact within-repeat relabelling test "
    "rejects after Holm's correction over the group (α = 0.05), mean over domains.",
    f"Intervals: {int(CI_LEVEL * 100)}% Student-t over repeats (mean ± t·sd/√R): a task's "
    "figure is computed per repeat (each repeat has its own catalog order and neutral "
    "answers), a domain's per repeat as the mean of its tasks'; the interval assumes repeat "
    "figures are independent and roughly normal. With 5 repeats it is wide on purpose (a "
    "percentile bootstrap of 5 repeats covers far less than 95%). It reflects sampling over "
    "repeats only (not over catalogs, prompts or personas). Reverse-task rank gaps: "
    f"percentile bootstrap over catalog items ({BOOTSTRAP_RESAMPLES} resamples, seed "
    f"{BOOTSTRAP_SEED}).",
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


def md_cell(text: str) -> str:
    """``text`` as one Markdown table cell: HTML escaped (no raw markup), line breaks and
    control characters as spaces, pipes and backslashes escaped."""
    text = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in str(text))
    text = html.escape(text, quote=False).replace("\\", "\\\\").replace("|", "\\|")
    return " ".join(text.split())


def markdown(lb: Leaderboard) -> str:
    """The leaderboard as a Markdown table followed by the notes."""
    headers = [md_cell(c.header) for c in lb.columns]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in lb.rows:
        cells = []
        for col in lb.columns:
            if col.key == "model":
                text = row.label + (" ⚠ DEGENERATE" if row.degenerate else "")
            elif col.key == "degenerate" and row.degenerate:
                text = "**⚠ " + "; ".join(row.degenerate) + "**"
            else:
                text = cell_text(row.cells.get(col.key))
            cells.append(md_cell(text))
        lines.append("| " + " | ".join(cells) + " |")
    notes = "\n".join(f"- {n}" for n in NOTES)
    return (
        "# coldbias leaderboard\n\n"
        + "\n".join(lines)
        + f"\n\n## Notes\n\n{notes}\n\n_generated by coldbias {coldbias_version()}_\n"
    )


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
            text = cell_text(Cell(cell.value))
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
    return H.page("coldbias leaderboard", "\n".join(body), sort_script(), wide=True)
