"""Matplotlib figures of the report (Agg backend, PNG files).

Each figure carries a small provenance footer (model, seed, template and catalog hash
prefixes) so a PNG that leaves the report still says where it came from. Inputs are plain
dicts; all divergences are in [0, 1].
"""

from __future__ import annotations

import functools
import io
import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

from coldbias_tasks.core.measures.exposure import ExposureStat
from coldbias_tasks.core.similarities import SIMILARITY_NAMES, similarity

__all__ = [
    "bar_chart",
    "disparity_figure",
    "exposure_diffs",
    "footer_text",
    "forest",
    "plot_names",
    "prompt_sensitivity",
    "radar",
    "short_label",
    "signed",
]

VARIANT_COLORS = {"plain": "#1f77b4", "context": "#d62728", "mitigation": "#2ca02c"}
#: line style and marker per variant, so identical polygons stay distinguishable
VARIANT_STYLES = {"plain": ("-", "o"), "context": ("--", "s"), "mitigation": (":", "^")}
DPI = 110
#: rows of a figure with one row per (sentence, category): beyond, the largest are kept
MAX_ROWS = 40
_F = TypeVar("_F", bound=Callable[..., Any])


def _literal_text(function: _F) -> _F:
    """Draw every text of the figure literally: model names, categories and titles are data,
    so ``$...$`` is never parsed as mathtext (a malformed one would abort the report)."""

    @functools.wraps(function)
    def drawn(*args: Any, **kwargs: Any) -> Any:
        with plt.rc_context({"text.parse_math": False}):
            return function(*args, **kwargs)

    return drawn  # type: ignore[return-value]


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
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    _write_png(buf.getvalue(), path, {"Description": footer, "Software": "coldbias"})
    return path


def _write_png(data: bytes, path: Path, text: Mapping[str, str]) -> None:
    """The PNG ``data`` written to ``path`` in 256 colours (a third of the bytes; figures are
    flat colours and text) with its ``text`` chunks."""
    from PIL import Image, PngImagePlugin

    image = Image.open(io.BytesIO(data)).convert("RGB").quantize(256)
    info = PngImagePlugin.PngInfo()
    for key, value in text.items():
        info.add_text(key, value)
    image.save(path, format="PNG", optimize=True, pnginfo=info)


def short_label(persona: str) -> str:
    """Persona id without its group ("gender.girl" → "girl"); the group is in the title."""
    return persona.split(".", 1)[-1]


@_literal_text
def bar_chart(
    title: str,
    values: Mapping[str, Mapping[str, tuple[float, float, bool]]],
    floors: Mapping[str, float],
    footer: str,
    path: Path,
    warning: str = "",
) -> Path:
    """Divergence per attribute value, one panel per metric.

    ``values``: metric → persona → (mean, std over repeats, flagged after Holm); ``floors``:
    metric → noise floor (dashed line; omitted when NaN). Flagged values get a star. A
    non-empty ``warning`` is printed in red under the title.
    """
    metrics = [m for m in SIMILARITY_NAMES if m in values]
    personas = sorted({p for m in metrics for p in values[m]})
    width = min(16.0, max(8.0, 1.0 + len(metrics) * (0.4 * len(personas) + 1.2)))
    height = 4.2 if len(personas) <= 16 else 5.0
    fig, axes = plt.subplots(1, len(metrics), figsize=(width, height), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        stats = [values[metric].get(p, (math.nan, math.nan, False)) for p in personas]
        means = [s[0] for s in stats]
        stds = [0.0 if math.isnan(s[1]) else s[1] for s in stats]
        x = np.arange(len(personas))
        ax.bar(x, means, yerr=stds, capsize=4, color="#4c78a8", alpha=0.85, label="divergence")
        for xi, (mean, std, flagged) in zip(x, stats):
            if flagged and not math.isnan(mean):
                ax.text(xi, min(1.02, mean + std + 0.02), "*", ha="center", fontsize=12)
        floor = floors.get(metric, math.nan)
        if not math.isnan(floor):
            ax.axhline(floor, ls="--", color="#d62728", lw=1.4, label=f"noise floor {floor:.2f}")
        ax.set_xticks(x)
        ax.set_xticklabels(
            [short_label(p) for p in personas],
            rotation=30 if len(personas) <= 16 else 60,
            ha="right",
            fontsize=10 if len(personas) <= 16 else 7,
        )
        ax.set_ylim(0, 1.24)  # headroom above 1 for the legend
        ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_title(f"{similarity(metric).label} divergence")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", ncol=2, framealpha=0.9)
    axes[0][0].set_ylabel("1 − similarity to neutral\n(mean ± std over repeats)", fontsize=9)
    fig.suptitle(title, fontsize=11)
    top = 1.0
    if warning:
        fig.text(0.5, 0.905, warning, color="#c00000", fontsize=9, ha="center", weight="bold")
        top = 0.9
    fig.tight_layout(rect=(0, 0.05, 1, top))
    return _finish(fig, footer, path)


@_literal_text
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


def signed(value: float, digits: int = 2) -> str:
    """ "+0.12" / "−0.21" (a real minus sign) / "–" for NaN."""
    if value is None or math.isnan(value):
        return "–"
    text = f"{abs(value):.{digits}f}"
    return ("−" if value < 0 and text.strip("0.") else "+") + text


@_literal_text
def exposure_diffs(
    title: str,
    stats: Sequence[ExposureStat],
    footer: str,
    path: Path,
    per_value: int = 4,
) -> Path:
    """Signed exposure differences (value − neutral) with 95 % intervals, one row per (value,
    category): per value its ``per_value`` categories with the largest absolute difference,
    labelled "girl · Action −0.21 [−0.30, −0.12]", at most :data:`MAX_ROWS` rows (the largest
    absolute differences; every row is in exposure.csv); filled markers: BH q ≤ 0.05."""
    by_value: dict[str, list[ExposureStat]] = {}
    for s in stats:
        if not math.isnan(s.diff):
            by_value.setdefault(s.persona_id, []).append(s)
    rows: list[ExposureStat] = []
    for persona in sorted(by_value):
        rows += sorted(by_value[persona], key=lambda s: -abs(s.diff))[:per_value]
    if len(rows) > MAX_ROWS:  # many sentences: the largest differences, still by sentence
        keep = {id(s) for s in sorted(rows, key=lambda s: -abs(s.diff))[:MAX_ROWS]}
        rows = [s for s in rows if id(s) in keep]
    fig, ax = plt.subplots(figsize=(9.5, max(2.4, 0.32 * len(rows) + 1.4)))
    y = np.arange(len(rows))[::-1]
    for yi, s in zip(y, rows):
        lo, hi = s.ci_low, s.ci_high
        strong = not math.isnan(s.q_value) and s.q_value <= 0.05
        color = "#c0392b" if s.diff > 0 else "#2e86c1"
        if not math.isnan(lo):
            ax.plot([lo, hi], [yi, yi], color=color, lw=1.6)
        ax.plot(
            [s.diff], [yi], "o", color=color, markerfacecolor=color if strong else "white", ms=6
        )
    ax.axvline(0, color="#333333", lw=1)
    ax.set_yticks(y)
    ax.set_yticklabels(
        [
            f"{short_label(s.persona_id)} · {s.category}  {signed(s.diff)} "
            f"[{signed(s.ci_low)}, {signed(s.ci_high)}]"
            for s in rows
        ],
        fontsize=8,
    )
    ax.set_xlabel("share of recommended items: value − neutral answers")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return _finish(fig, footer, path)


@_literal_text
def prompt_sensitivity(
    title: str,
    rows: Sequence[tuple[str, str, float, float, float]],
    footer: str,
    path: Path,
) -> Path:
    """Excess per task under each prompt: rows (task, prompt, excess, ci_low, ci_high); tasks
    on the y axis, one marker and 95 % interval per prompt, offset vertically."""
    tasks = list(dict.fromkeys(r[0] for r in rows))
    prompts = list(dict.fromkeys(r[1] for r in rows))
    fig, ax = plt.subplots(figsize=(9.5, max(2.6, 0.55 * len(tasks) * max(1, len(prompts)) / 2
                                               + 1.6)))  # fmt: skip
    colors = plt.get_cmap("tab10")
    step = 0.7 / max(1, len(prompts))
    for j, prompt in enumerate(prompts):
        for task, p, value, lo, hi in rows:
            if p != prompt or math.isnan(value):
                continue
            y = len(tasks) - 1 - tasks.index(task) + 0.35 - (j + 0.5) * step
            if not math.isnan(lo):
                ax.plot([lo, hi], [y, y], color=colors(j), lw=1.6)
            ax.plot(
                [value],
                [y],
                "o",
                color=colors(j),
                ms=6,
                label=prompt if task == next(r[0] for r in rows if r[1] == prompt) else None,
            )
    ax.axvline(0, color="#333333", lw=1)
    ax.set_yticks(range(len(tasks)))
    ax.set_yticklabels(tasks[::-1], fontsize=8)
    ax.set_xlabel("IOU excess over the same-prompt noise floor (95 % t-interval over repeats)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="best", title="prompt", title_fontsize=8)
    ax.set_title(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return _finish(fig, footer, path)


def plot_names(items: Sequence[str]) -> str:
    """File-name-safe slug of the joined ``items``."""
    raw = "_".join(items)
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in raw)


def plain(text: str) -> str:
    """``text`` drawn as written (a ``$`` starts no mathtext)."""
    return text.replace("$", r"\$")


#: tier colours of the forest plot (tier 1 first; later tiers reuse the last)
TIER_COLORS = ("#1a7f37", "#4c78a8", "#b08800", "#d1242f", "#8250df")


def disparity_figure(
    title: str,
    by_phrasing: Sequence[float],
    phrasings: Sequence[str],
    headline: tuple[float, float, float],
    pairs: Sequence[tuple[str, float, bool]],
    footer: str,
    path: Path,
) -> Path:
    """The headline figure of one task: left, each phrasing's between-minus-within term
    against 0 with the disparity (line) and its 95 % interval (band); right, each pair of
    values' disparity (filled: flagged after Holm). ``phrasings``: each phrasing's label (its
    sentence); ``headline``: (value, low, high). Rows are 0.3 in apart at 8 pt, so labels
    never overlap."""
    fig, axes = plt.subplots(
        1, 2, figsize=(11.0, max(2.8, 1.2 + 0.3 * max(len(by_phrasing), len(pairs)))),
        gridspec_kw={"width_ratios": (1, 1)},
    )  # fmt: skip
    value, low, high = headline
    ax = axes[0]
    y = np.arange(len(by_phrasing))[::-1]
    if not (math.isnan(low) or math.isnan(high)):
        ax.axvspan(low, high, color="#4c78a8", alpha=0.15, label="95 % interval")
    if not math.isnan(value):
        ax.axvline(value, color="#4c78a8", lw=2, label=f"disparity {signed(value)}")
    ax.axvline(0, color="#333333", lw=1)
    ax.plot(list(by_phrasing), y, "o", color="#333333", ms=5)
    ax.set_yticks(y)
    ax.set_yticklabels([plain(label) for label in phrasings], fontsize=8)
    ax.set_xlabel("between − within values (IOU divergence)")
    ax.set_title("per phrasing", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    ax = axes[1]
    y = np.arange(len(pairs))[::-1]
    colors = ["#d1242f" if flagged else "#9aa4b2" for _, _, flagged in pairs]
    ax.barh(y, [v for _, v, _ in pairs], color=colors)
    ax.axvline(0, color="#333333", lw=1)
    # symmetric about 0, so a lone pair's bar reads as its size and sign, not a full panel
    reach = max((abs(v) for _, v, _ in pairs if math.isfinite(v)), default=0.0) or 1e-3
    ax.set_xlim(-1.15 * reach, 1.15 * reach)
    ax.set_yticks(y)
    ax.set_yticklabels([plain(label) for label, _, _ in pairs], fontsize=8)
    ax.set_xlabel("disparity of the pair (red: flagged, Holm)")
    ax.set_title("per pair of values", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.suptitle(plain(title), fontsize=11)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return _finish(fig, plain(footer), path)


def forest(rows: Sequence[tuple[str, float, float, float, int | None, bool]]) -> bytes:
    """PNG of the leaderboard's forest plot: per model (label, value, low, high, tier,
    degenerate) the headline with its 95 % interval, coloured by tier (grey: degenerate or
    unranked), in the order given (the table's: first at the top); models without a value
    are left out."""
    rows = [r for r in rows if not math.isnan(r[1])]
    fig, ax = plt.subplots(figsize=(9.0, 1.3 + 0.34 * max(1, len(rows))))
    y = np.arange(len(rows))[::-1]
    for yi, (_, value, low, high, tier, degenerate) in zip(y, rows):
        color = "#9aa4b2" if degenerate or tier is None else TIER_COLORS[min(tier, 5) - 1]
        if not (math.isnan(low) or math.isnan(high)):
            ax.plot([low, high], [yi, yi], color=color, lw=2)
        ax.plot([value], [yi], "o", color=color, ms=6)
    ax.axvline(0, color="#333333", lw=1)
    ax.set_yticks(y)
    ax.set_yticklabels(
        [
            plain(textwrap.shorten(label, 48))
            + ("  (degenerate)" if degenerate else f"  (tier {tier})" if tier else "")
            for label, _, _, _, tier, degenerate in rows
        ],
        fontsize=8,
    )
    ax.set_xlabel("IOU disparity between values, controlled for phrasing (95 % interval)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": "coldbias"})
    plt.close(fig)
    return buf.getvalue()
