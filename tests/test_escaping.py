"""Every field is escaped where it is rendered: version, template and language in the report's
HTML, model names in the leaderboard's Markdown cells, dollar signs in plot labels (issue 31)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coldbias_tasks.app import cli
from tests.run_fixtures import (
    TASK,
    synthetic_run,
)
from tests.run_fixtures import copy_run as _copy
from tests.run_fixtures import edit_samples as _edit
from tests.run_fixtures import set_results as _set_results

# --- 3. every field escaped where it is rendered ---------------------------------------------

EVIL = '<img src=x onerror="alert(1)">'


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder of two tasks (synthetic answers)."""
    return synthetic_run(tmp_path_factory, [TASK, "coldbias_music_gender"])


def test_report_html_escapes_version_template_and_language(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    run = _copy(real_run, tmp_path / "run")

    def versions(data: dict) -> None:
        data["versions"][TASK] = EVIL
        data["configs"][TASK]["metadata"]["version"] = "3.1"  # another version: no rebuild
        for key in [k for k in data["results"][TASK] if k.startswith("diversity_")]:
            del data["results"][TASK][key]  # keys task version 3.1 never wrote

    _set_results(run, versions)

    def fields(lines: list[dict]) -> None:
        for line in lines:
            line["doc"]["template"] = EVIL
            line["doc"]["language"] = "<script>alert(2)</script>"

    _edit(run, fields)
    rep = tmp_path / "rep"
    assert cli.main(["report", str(run), "--output", str(rep)]) == 0, capsys.readouterr().err
    page = (rep / "report.html").read_text()
    assert "<img src=x" not in page and "<script>alert" not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page


def test_leaderboard_markdown_cells_stay_cells(real_run: Path, tmp_path: Path, capsys) -> None:
    run = _copy(real_run, tmp_path / "run")
    name = "evil | model\n| injected | row <b>bold</b> " + EVIL

    def model(data: dict) -> None:
        data["model_name"] = name

    _set_results(run, model)
    lb = tmp_path / "lb"
    assert cli.main(["leaderboard", str(run), "--output", str(lb)]) == 0, capsys.readouterr().err
    text = (lb / "leaderboard.md").read_text()
    first = text[text.index("\n|") :].split("\n\n")[0]  # the main table (details follow)
    table = [line for line in first.splitlines() if line.startswith("|")]
    assert len(table) == 3, table  # header, rule, one row
    assert "<b>" not in text and "<img" not in text and "&lt;b&gt;bold" in table[2]
    assert "evil \\| model \\| injected" in table[2]
    widths = {len(line.replace("\\|", "").split("|")) for line in table}
    assert len(widths) == 1  # every line has as many cells
    assert "<img src=x" not in (lb / "leaderboard.html").read_text()


def test_dollar_signs_in_names_do_not_break_the_plots(real_run: Path, tmp_path: Path, capsys):
    run = _copy(real_run, tmp_path / "run")

    def model(data: dict) -> None:
        data["model_name"] = "org/$\\frac{a}{$ model"

    _set_results(run, model)
    rep = tmp_path / "rep"
    assert cli.main(["report", str(run), "--output", str(rep)]) == 0, capsys.readouterr().err
    assert list(rep.glob("*.png"))
