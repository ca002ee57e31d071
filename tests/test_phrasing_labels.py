"""Figures name a phrasing by its sentence (render/report_figures.phrasing_labels), a pref
task's cells by their stated preference and sentence; the per-pair panel is symmetric about 0."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from coldbias_tasks.render.report_figures import phrasing_labels


def _task(variant: str, group: str = "gender", domain: str = "movie") -> SimpleNamespace:
    return SimpleNamespace(group=group, variant=variant, domain=domain, language="en")


def test_a_plain_task_names_each_phrasing_by_its_sentence() -> None:
    labels = phrasing_labels(_task("plain"), 2)
    assert labels[0] == "I am a girl / a boy." and "phrasing" not in labels[1]


def test_a_pref_task_names_each_cell_by_its_preference_and_sentence() -> None:
    """Cell j states preference j // P in phrasing j % P (the documents' order): with 2
    phrasings and the movie domain's 3 preferences, cells 0, 2, 4 are each preference in the
    first sentence."""
    labels = phrasing_labels(_task("pref"), 6)
    plain = phrasing_labels(_task("plain"), 2)
    assert labels[0] == f"Action · {plain[0]}" and labels[1].startswith("Action · ")
    assert labels[2].startswith("Comedy · ") and labels[4].startswith("Horror · ")
    assert all(len(label) <= 46 for label in labels)
    # cells that cannot be told apart (not a multiple of the preferences): plain numbers
    assert phrasing_labels(_task("pref"), 5) == [f"phrasing {p}" for p in range(5)]
    assert phrasing_labels(_task("plain", group="no_such_group"), 2) == ["phrasing 0", "phrasing 1"]


def test_the_pair_panel_is_symmetric_about_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lone pair's bar reads as its size and sign: the axis spans ±1.15 × the largest |pair|
    (it filled the whole panel when the axis ended at the bar); no finite pair: ±1.15e-3."""
    from coldbias_tasks.render import plots

    seen: list[tuple[float, float]] = []
    monkeypatch.setattr(
        plots, "_finish", lambda fig, footer, path: seen.append(fig.axes[1].get_xlim()) or path
    )
    args = ([0.01, -0.02], ["a", "b"], (0.0, -0.01, 0.01))
    plots.disparity_figure("t", *args, [("x vs y", -0.002, False)], "f", tmp_path / "a.png")
    plots.disparity_figure("t", *args, [("x vs y", math.nan, False)], "f", tmp_path / "b.png")
    assert seen[0] == pytest.approx((-0.0023, 0.0023)) and seen[1] == pytest.approx(
        (-1.15e-3, 1.15e-3)
    )
