"""Self-contained static HTML pieces for the report and the leaderboard.

No templates on disk, no CDN: CSS is inline, images are base64 data URIs, scripts are inline
vanilla JS. Every text goes through :func:`html.escape`.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

__all__ = [
    "CSS",
    "collapsed",
    "data_uri",
    "esc",
    "fmt",
    "fmt_interval",
    "kv_table",
    "number",
    "page",
    "table",
    "template",
    "warning",
]

CSS = """
body { font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       margin: 24px auto; max-width: 1280px; padding: 0 16px; color: #1d2430;
       line-height: 1.45; background: #fff; }
body.wide { max-width: 98vw; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; border-bottom: 2px solid #e3e7ee; padding-bottom: 4px; margin-top: 1.8em; }
h3 { font-size: 1.08em; margin-top: 1.4em; }
p.sub { color: #5b6577; margin-top: 0; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.88em; }
th, td { border: 1px solid #d9dee7; padding: 4px 8px; text-align: right; vertical-align: top; }
th { background: #f1f4f8; font-weight: 600; text-align: center; }
td.text, th.text { text-align: left; }
tr:nth-child(even) td { background: #fafbfd; }
tr.degenerate td { background: #fff1f0; color: #7a2a22; }
tr.degenerate td.flag { font-weight: 700; }
.warning { border: 2px solid #d4380d; background: #fff2e8; color: #871400; padding: 10px 14px;
           border-radius: 6px; margin: 12px 0; font-weight: 600; }
.note { color: #4a5568; font-size: 0.9em; }
.ok { color: #237804; }
.bad { color: #a8071a; font-weight: 600; }
figure { margin: 12px 0 20px; }
figure img { max-width: 100%; border: 1px solid #e3e7ee; }
figcaption { color: #5b6577; font-size: 0.85em; }
code { background: #f1f4f8; padding: 0 3px; border-radius: 3px; font-size: 0.92em; }
.prov td:first-child { text-align: left; font-weight: 600; white-space: nowrap; }
.prov td { text-align: left; word-break: break-all; }
.grid { display: flex; flex-wrap: wrap; gap: 12px; }
.grid figure { flex: 1 1 380px; }
.wide-figures figure { flex: 1 1 560px; max-width: 900px; }
th.sortable { cursor: pointer; user-select: none; }
th.sortable:hover { background: #e2e8f1; }
th.sorted-asc::after { content: " \\25B2"; font-size: 0.7em; }
th.sorted-desc::after { content: " \\25BC"; font-size: 0.7em; }
.ci { color: #6b7385; font-size: 0.85em; white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.scroll table { font-size: 0.8em; }
#leaderboard td:first-child, #leaderboard th:first-child { position: sticky; left: 0;
       background: #fff; z-index: 1; min-width: 180px; max-width: 300px; }
#leaderboard th:first-child { background: #f1f4f8; }
#leaderboard tr.degenerate td:first-child { background: #fff1f0; }
#leaderboard th { min-width: 62px; }
#leaderboard td:not(:first-child) { white-space: nowrap; }
#leaderboard .details { display: none; }
#leaderboard td.text { white-space: normal; min-width: 5em; max-width: 22em; }
#leaderboard th { max-width: 9em; }
p.views label { margin-right: 12px; white-space: nowrap; font-size: 0.9em; }
.small { color: #6b7385; font-size: 0.82em; word-break: break-word; }
.reason { white-space: nowrap; }
.answer { border: 2px solid #2f54eb; background: #f0f5ff; border-radius: 8px; padding: 10px 16px;
          margin: 10px 0 14px; }
.answer .big { font-size: 1.35em; font-weight: 700; }
.answer .verdict { font-size: 1.1em; font-weight: 600; }
details.warnings { border: 1px solid #ffbb96; background: #fff7e6; border-radius: 6px;
                   padding: 6px 12px; margin: 8px 0 12px; color: #871400; }
details.warnings summary { cursor: pointer; font-weight: 600; }
details.warnings ul { margin: 6px 0; padding-left: 20px; font-size: 0.9em; }
"""


def esc(value: Any) -> str:
    """HTML-escaped text of ``value``."""
    return html.escape(str(value), quote=True)


def fmt(value: Any, digits: int = 3) -> str:
    """Numbers with ``digits`` decimals, NaN/None as an en dash, other values as text."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def number(value: object) -> float:
    """A table cell as a float (a CSV's text, None or a label: NaN)."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def fmt_interval(value: object, low: object, high: object) -> str:
    """ "0.051 [-0.005, 0.108]"; the value alone without an interval; "–" when undefined."""
    value, low, high = number(value), number(low), number(high)
    if math.isnan(low) or math.isnan(high):
        return fmt(value)
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def data_uri(png: str | Path | bytes) -> str:
    """A PNG file (or its bytes) as a ``data:image/png;base64,...`` URI."""
    data = png if isinstance(png, bytes) else Path(png).read_bytes()
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def figure(png: str | Path | bytes, caption: str, *, embed: bool = True) -> str:
    """An image with a caption: embedded as a data URI (``embed``; a page of one file), or
    linked by its file name (a page written in the same folder as its PNG files: the report,
    so no figure is stored twice)."""
    src = data_uri(png) if embed or isinstance(png, bytes) else Path(png).name
    return (
        f'<figure><img src="{esc(src)}" alt="{esc(caption)}" loading="lazy">'
        f"<figcaption>{esc(caption)}</figcaption></figure>"
    )


def collapsed(summary: str, items: Sequence[str], css: str = "warnings") -> str:
    """A ``<details>`` box, closed: ``summary`` and a list of ``items`` (texts, escaped)."""
    lis = "".join(f"<li>{esc(t)}</li>" for t in items)
    return f'<details class="{esc(css)}"><summary>{esc(summary)}</summary><ul>{lis}</ul></details>'


def warning(text: str) -> str:
    return f'<div class="warning">⚠ {esc(text)}</div>'


def table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    table_id: str | None = None,
    text_columns: Sequence[int] = (0,),
    row_classes: Sequence[str] | None = None,
    header_titles: Sequence[str] | None = None,
    sortable: bool = False,
    raw_cells: bool = False,
    sort_keys: Sequence[Sequence[Any]] | None = None,
    column_classes: Sequence[str] | None = None,
) -> str:
    """A table. Cells are formatted with :func:`fmt` and escaped unless ``raw_cells``.

    ``sort_keys`` (same shape as ``rows``) are written as ``data-sort`` attributes so that a
    sortable table sorts on numbers, not on formatted text; ``column_classes``: a CSS class per
    column, on its header and cells (shown or hidden together).
    """
    ident = f' id="{esc(table_id)}"' if table_id else ""
    head = []
    for i, col in enumerate(columns):
        cls = ["text"] if i in text_columns else []
        if column_classes and column_classes[i]:
            cls.append(column_classes[i])
        if sortable:
            cls.append("sortable")
        title = f' title="{esc(header_titles[i])}"' if header_titles else ""
        klass = f' class="{" ".join(cls)}"' if cls else ""
        head.append(f'<th{klass}{title} data-col="{i}">{esc(col)}</th>')
    body = []
    for r, row in enumerate(rows):
        klass = f' class="{esc(row_classes[r])}"' if row_classes and row_classes[r] else ""
        cells = []
        for i, cell in enumerate(row):
            text = str(cell) if raw_cells else esc(fmt(cell))
            attrs = []
            cls = ["text"] if i in text_columns else []
            if column_classes and column_classes[i]:
                cls.append(column_classes[i])
            if cls:
                attrs.append(f'class="{esc(" ".join(cls))}"')
            if sort_keys is not None:
                key = sort_keys[r][i]
                attrs.append(f'data-sort="{esc(_sort_value(key))}"')
            joined = (" " + " ".join(attrs)) if attrs else ""
            cells.append(f"<td{joined}>{text}</td>")
        body.append(f"<tr{klass}>{''.join(cells)}</tr>")
    return (
        f"<table{ident}><thead><tr>{''.join(head)}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _sort_value(value: Any) -> str:
    if isinstance(value, float) and math.isnan(value):
        return ""
    if value is None:
        return ""
    return str(value)


def kv_table(items: Mapping[str, Any], css_class: str = "prov") -> str:
    """Two-column key/value table (provenance blocks)."""
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{esc(fmt(v))}</td></tr>" for k, v in items.items())
    return f'<table class="{css_class}"><tbody>{rows}</tbody></table>'


def page(title: str, body: str, script: str = "", wide: bool = False) -> str:
    """A complete HTML document with the inline stylesheet (and an optional inline script);
    ``wide`` lets the body use the whole window width (wide tables).
    """
    js = f"<script>\n{script}\n</script>" if script else ""
    klass = ' class="wide"' if wide else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>"
        f"<body{klass}>{body}{js}</body></html>\n"
    )


@cache
def _environment() -> jinja2.Environment:
    """Templates of ``render/templates``, autoescaped (HTML pages)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("coldbias_tasks.render", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def template(name: str) -> jinja2.Template:
    """The page template ``render/templates/<name>`` (every text autoescaped unless it is
    :class:`markupsafe.Markup` built from escaped parts)."""
    return _environment().get_template(name)
