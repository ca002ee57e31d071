"""Matplotlib figures of the report (Agg backend, PNG files).

Each figure carries a small provenance footer (model, seed, template and catalog hash
prefixes) so a PNG that leaves the report still says where it came from. Inputs are plain
dicts; all divergences are in [0, 1].
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["bar_chart", "exposure_bars", "footer_text", "plot_names", "radar", "short_label"]

METRIC_LABELS = {"iou": "IOU", "serp": "SERP", "prag": "PRAG"}
VARIANT_COLORS = {"plain": "#1f77b4", "context": "#d62728", "mitigation": "#2ca02c"}
#: line style and marker per variant, so identical polygons stay distinguishable
VARIANT_STYLES = {"plain": ("-", "o"), "context": ("--", "s"), "mitigation": (":", "^")}
NEUTRAL_COLOR = "#333333"
DPI = 110


def footer_text(model: str, seed: object, template_sha: str, catalog_sha: str) -> str:
    """One line of provenance for a figure footer."""
    return (
        f"model: {model}  ·  seed: {seed}  ·  template {template_sha[:10] or '?'}  ·  "
        f"catalog {catalog_sha[:10] or '?'}"
    )


def _finish(fig: plt.Figure, footer: str, path: Path) -> Path:
    """Add the provenance footer (wrapped to the figure width; also stored as the PNG's
    ``Description`` text chunk) and save.
    """
    chars = max(40, int(fig.get_figwidth() * 17))
    text = "\n".join(textwrap.wrap(footer, chars))
    fig.text(0.005, 0.005, text, fontsize=7, color="#666666", ha="left", va="bottom")
    fig.savefig(path, dpi=DPI, metadata={"Description": footer, "Software": "coldbias"})
    plt.close(fig)
    return path


def short_label(persona: str) -> str:
    """Persona id without its group ("gender.girl" → "girl"); the group is in the title."""
    return persona.split(".", 1)[-1]


def bar_chart(
    title: str,
    values: Mapping[str, Mapping[str, tuple[float, float, float]]],
    floors: Mapping[str, float],
    footer: str,
    path: Path,
    warning: str = "",
) -> Path:
    """Divergence per attribute value, one panel per metric.

    ``values``: metric → persona → (mean, std over repeats, p-value); ``floors``: metric →
    noise floor (dashed line; omitted when NaN). Bars whose paired test is significant at
    α = 0.05 get a star. A non-empty ``warning`` is printed in red under the title.
    """
    metrics = [m for m in ("iou", "serp", "prag") if m in values]
    personas = sorted({p for m in metrics for p in values[m]})
    width = max(10.0, 1.0 + len(metrics) * (0.55 * len(personas) + 1.2))
    fig, axes = plt.subplots(1, len(metrics), figsize=(width, 4.2), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        stats = [values[metric].get(p, (math.nan, math.nan, math.nan)) for p in personas]
        means = [s[0] for s in stats]
        stds = [0.0 if math.isnan(s[1]) else s[1] for s in stats]
        x = np.arange(len(personas))
        ax.bar(x, means, yerr=stds, capsize=4, color="#4c78a8", alpha=0.85, label="divergence")
        for xi, (mean, std, p) in zip(x, stats):
            if not math.isnan(p) and p <= 0.05 and not math.isnan(mean):
                ax.text(xi, min(1.02, mean + std + 0.02), "*", ha="center", fontsize=12)
        floor = floors.get(metric, math.nan)
        if not math.isnan(floor):
            ax.axhline(floor, ls="--", color="#d62728", lw=1.4, label=f"noise floor {floor:.2f}")
        ax.set_xticks(x)
        ax.set_xticklabels([short_label(p) for p in personas], rotation=30, ha="right")
        ax.set_ylim(0, 1.24)  # headroom above 1 for the legend
        ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_title(f"{METRIC_LABELS.get(metric, metric)} divergence")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", ncol=2, framealpha=0.9)
    axes[0][0].set_ylabel("1 − similarity to neutral (mean ± std over repeats)")
    fig.suptitle(title, fontsize=11)
    top = 1.0
    if warning:
        fig.text(0.5, 0.905, warning, color="#c00000", fontsize=9, ha="center", weight="bold")
        top = 0.9
    fig.tight_layout(rect=(0, 0.05, 1, top))
    return _finish(fig, footer, path)


def radar(
    title: str,
    series: Mapping[str, Mapping[str, float]],
    footer: str,
    path: Path,
) -> Path:
    """Spider plot: one polygon per variant (plain / context / mitigation) over the axes.

    ``series``: variant → axis label → divergence. Axes are the union of labels, in sorted
    order; a missing value is drawn at 0 and the legend says how many axes it lacks.
    """
    labels = sorted({a for s in series.values() for a in s})
    n = len(labels)
    angles = [2 * math.pi * i / n for i in range(n)]
    fig = plt.figure(figsize=(6.2, 6.0))
    ax = fig.add_subplot(111, polar=True)
    for variant, by_axis in series.items():
        vals = [by_axis.get(a, math.nan) for a in labels]
        missing = sum(math.isnan(v) for v in vals)
        drawn = [0.0 if math.isnan(v) else v for v in vals]
        color = VARIANT_COLORS.get(variant)
        label = variant + (f" ({missing} missing)" if missing else "")
        style, marker = VARIANT_STYLES.get(variant, ("-", "o"))
        ax.plot(
            [*angles, angles[0]],
            [*drawn, drawn[0]],
            linestyle=style,
            marker=marker,
            color=color,
            label=label,
            linewidth=1.8,
        )
        ax.fill([*angles, angles[0]], [*drawn, drawn[0]], alpha=0.12, color=color)
    ax.set_xticks(angles)
    ax.set_xticklabels(labels, fontsize=9)
    ax.set_ylim(0, 1)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0])
    ax.set_yticklabels(["0.25", "0.5", "0.75", "1"], fontsize=7, color="#666666")
    ax.set_title(title, fontsize=11, pad=18)
    ax.legend(loc="upper right", bbox_to_anchor=(1.25, 1.12), fontsize=8)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return _finish(fig, footer, path)


def exposure_bars(
    title: str,
    shares: Mapping[str, Mapping[str, float]],
    footer: str,
    path: Path,
    max_categories: int = 12,
) -> tuple[Path, list[str]]:
    """Share of recommended items per category, one bar per persona (neutral in dark grey).

    Shows the recommended categories with the largest summed share over personas, at most
    ``max_categories`` and fewer when there are many personas (returned as the second value);
    the CSV holds all of them.
    """
    personas = sorted(shares, key=lambda p: (p != "neutral", p))
    categories = sorted({c for s in shares.values() for c in s})
    totals = {c: sum(shares[p].get(c, 0.0) for p in personas) for c in categories}
    n_p = max(1, len(personas))
    limit = max(4, min(max_categories, 72 // n_p))  # at most ~72 bars stay readable
    shown = sorted((c for c in categories if totals[c] > 0), key=lambda c: -totals[c])[:limit]
    width = max(6.0, 1.5 + len(shown) * (0.2 * n_p + 0.4))
    fig, ax = plt.subplots(figsize=(min(width, 16.0), 4.6))
    bar_w = 0.8 / n_p
    cmap = plt.get_cmap("tab10")
    x = np.arange(len(shown))
    color_index = 0
    for i, persona in enumerate(personas):
        if persona == "neutral":
            color, hatch = NEUTRAL_COLOR, "//"
        else:
            color, hatch = cmap(color_index % 10), None
            color_index += 1
        ax.bar(
            x - 0.4 + bar_w * (i + 0.5),
            [shares[persona].get(c, 0.0) for c in shown],
            width=bar_w,
            color=color,
            hatch=hatch,
            edgecolor="white" if hatch else None,
            label=short_label(persona),
        )
    ax.set_xticks(x)
    ax.set_xticklabels(shown, rotation=30, ha="right", fontsize=9)
    ax.set_ylabel("share of recommended items")
    top = max((shares[p].get(c, 0.0) for p in personas for c in shown), default=1.0)
    ax.set_ylim(0, min(1.05, max(0.1, top * 1.15)))
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="persona")
    suffix = (
        f" ({len(shown)} of {len(categories)} categories, by share)"
        if len(shown) < len(categories)
        else ""
    )
    ax.set_title(title + suffix, fontsize=11)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return _finish(fig, footer, path), shown


def plot_names(items: Sequence[str]) -> str:
    """File-name-safe slug of the joined ``items``."""
    raw = "_".join(items)
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in raw)
