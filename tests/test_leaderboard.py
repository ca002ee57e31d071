"""`coldbias leaderboard`: merging runs, columns, intervals, degenerate ordering, outputs.

Synthetic output folders come from the helpers of ``tests/test_report.py``; the slow test adds a
real run (fixture ``lm_eval_run``) and checks the static page in headless Chromium.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from coldbias_tasks.analysis import intervals, leaderboard, leaderboard_columns
from coldbias_tasks.analysis.leaderboard_columns import ColumnSpec, Family, Slot
from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.analysis.summaries import summarize_task
from coldbias_tasks.app import cli, commands
from coldbias_tasks.core.measures import DIVERGENCE, EXCESS, measure
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.similarities import SIMILARITY_NAMES
from coldbias_tasks.core.vocabulary import HEADLINE
from coldbias_tasks.render.leaderboard_page import (
    MAX_MD_COLUMNS,
    details,
    html_page,
    markdown,
    opened_views,
)
from coldbias_tasks.render.leaderboard_tables import long_table
from tests.test_report import (
    K,
    copy_rule,
    make_samples,
    records_of,
    spread_rule,
    write_run,
)


def biased_rule(persona: str, repeat: int, shown: list[int]) -> list[int]:
    """Attribute personas share only one item with the neutral list."""
    base = [shown[i] for i in (11, 13, 17, 19, 23)]
    if persona == "neutral":
        return base
    return [base[0], *(shown[27 - j - (repeat % 2)] for j in range(K - 1))]


def fair_tasks() -> dict:
    return {
        "coldbias_movie_gender": make_samples("coldbias_movie_gender", spread_rule),
        "coldbias_music_gender": make_samples("coldbias_music_gender", spread_rule),
        "coldbias_music_physics": make_samples("coldbias_music_physics", spread_rule),
    }


def three_models(root: Path) -> list[Path]:
    """zeta/fair (low divergence), alpha/biased (high), org/copycat (0, but degenerate)."""
    fair = write_run(root / "fair", fair_tasks(), model="zeta/fair")
    biased = write_run(
        root / "biased",
        {"coldbias_movie_gender": make_samples("coldbias_movie_gender", biased_rule)},
        model="alpha/biased",
    )
    copycat = write_run(
        root / "copycat",
        {"coldbias_movie_gender": make_samples("coldbias_movie_gender", copy_rule)},
        model="org/copycat",
    )
    return [copycat, biased, fair]


def labels(lb: leaderboard.Leaderboard) -> list[str]:
    return [row.label for row in lb.rows]


def test_two_seeds_of_one_model_are_one_row(tmp_path: Path) -> None:
    lines = make_samples("coldbias_movie_gender", spread_rule)
    a = write_run(tmp_path / "a", {"coldbias_movie_gender": lines}, model="m/x", seed=1)
    other = make_samples("coldbias_movie_gender", biased_rule)
    b = write_run(tmp_path / "b", {"coldbias_movie_gender": other}, model="m/x", seed=2)
    lb = leaderboard.build_leaderboard([a, b], resamples=200)
    assert labels(lb) == ["m/x"]
    (row,) = lb.rows
    assert row.cells["n"].value == len(lines) + len(other)
    assert row.model.seeds == ["1", "2"]
    pooled = row.model.tasks["coldbias_movie_gender"]
    assert pooled.repeats == 6
    # pooled statistic = summarize_answers over both runs' answers, repeats kept apart
    expected = summarize_answers(pooled.records).metrics["iou"].mean
    assert row.cells["movie_iou"].value == pytest.approx(expected)
    single = summarize_answers(records_of(lines)).metrics["iou"].mean
    biased = summarize_answers(records_of(other)).metrics["iou"].mean
    assert expected == pytest.approx((single + biased) / 2)


def test_other_model_args_make_another_row(tmp_path: Path) -> None:
    lines = make_samples("coldbias_movie_gender", spread_rule)
    a = write_run(tmp_path / "a", {"coldbias_movie_gender": lines}, model="m/x", seed=1)
    b = write_run(tmp_path / "b", {"coldbias_movie_gender": lines}, model="m/x", backend="hf")
    lb = leaderboard.build_leaderboard([a, b], resamples=50)
    assert sorted(labels(lb)) == ["m/x [hf; dtype=bfloat16]", "m/x [vllm; dtype=bfloat16]"]
    # the label is a record (name, qualifier), never parsed back from its text
    parts = sorted((r.model.row_label.name, r.model.row_label.qualifier) for r in lb.rows)
    assert parts == [("m/x", "hf; dtype=bfloat16"), ("m/x", "vllm; dtype=bfloat16")]
    page = html_page(lb)
    assert '>m/x</span><br><span class="small">[hf; dtype=bfloat16]</span>' in page


def test_model_scores_are_frozen_once_made(tmp_path: Path) -> None:
    """A row's ModelData is made once, with its rank and tier: no pass fills it later."""
    import dataclasses

    from coldbias_tasks.analysis.leaderboard_cells import model_data

    out = write_run(tmp_path / "o", fair_tasks())
    (model,) = pool_runs(load_folder(out))
    data = model_data(model, [summarize_task(t) for t in model.tasks.values()], 20)
    assert data.rank is None and data.tier is None and data.reverse == {}
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.rank = "1"  # type: ignore[misc]
    (row,) = leaderboard.build_rows([model], 20)[1]
    # one phrasing per value: no headline, so neither rank nor tier (test_ranking ranks)
    assert "rank" not in row.cells and "tier" not in row.cells and row.cells["n"].value == data.n


def test_a_label_names_its_parts_and_numbers_rows_still_alike() -> None:
    from coldbias_tasks.analysis.pooling import _model_label
    from coldbias_tasks.analysis.run_data import RowLabel

    rows = [("org/m [x]", "hf", {}), ("org/m [x]", "hf", {})]
    found = _model_label(rows)
    assert found == [RowLabel("org/m [x]", "hf"), RowLabel("org/m [x]", "hf", 2)]
    assert [str(x) for x in found] == ["org/m [x] [hf]", "org/m [x] [hf] #2"]


def test_a_column_is_one_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A spec added to the table becomes a column (title, direction, per-domain key) with its
    cells on every row and in the CSV tables; a spec no row has a cell for is not shown."""

    def domain_tasks(data, slot: Slot) -> leaderboard.Cell:
        return leaderboard.Cell(len(data.domains[slot.id]))

    def per_domain(data):
        return (Slot(k, (("dkey", k),), (k,)) for k in data.domains)

    toy = Family(
        "toy",
        (
            ColumnSpec("{dkey}_toy_tasks", "{dkey} toy tasks", domain_tasks, "↑"),
            ColumnSpec("toy_never", "never", lambda data, slot: None, always=False),
        ),
        per_domain,
    )
    monkeypatch.setattr(leaderboard_columns, "FAMILIES", (*leaderboard_columns.FAMILIES, toy))
    lb = leaderboard.build_leaderboard(three_models(tmp_path), resamples=50)
    keys = [c.key for c in lb.columns]
    assert keys[-2:] == ["movie_toy_tasks", "music_toy_tasks"]
    assert "toy_never" not in keys
    assert lb.columns[-1].header == "music toy tasks ↑"
    fair = next(r for r in lb.rows if r.label.startswith("zeta/fair"))
    assert (fair.cells["movie_toy_tasks"].value, fair.cells["music_toy_tasks"].value) == (1, 2)
    assert "music_toy_tasks" not in next(r for r in lb.rows if r is not fair).cells
    long = long_table(lb)
    assert set(long[long.column == "music_toy_tasks"].model) == {fair.label}


def test_columns_values_and_directions(tmp_path: Path) -> None:
    out = write_run(tmp_path / "fair", fair_tasks(), model="zeta/fair")
    lb = leaderboard.build_leaderboard([out])
    (row,) = lb.rows
    tasks = fair_tasks()
    means = {t: summarize_answers(records_of(lines)).metrics for t, lines in tasks.items()}
    for metric in SIMILARITY_NAMES:
        assert row.cells[f"movie_{metric}"].value == pytest.approx(
            means["coldbias_movie_gender"][metric].mean
        )
        assert row.cells[f"music_{metric}"].value == pytest.approx(
            (
                means["coldbias_music_gender"][metric].mean
                + means["coldbias_music_physics"][metric].mean
            )
            / 2
        )
    assert row.cells["movie_iou_excess"].value == pytest.approx(
        means["coldbias_movie_gender"]["iou"].excess
    )
    # attribute group pooled over domains
    assert row.cells["group_gender_iou_excess"].value == pytest.approx(
        (
            means["coldbias_movie_gender"]["iou"].excess
            + means["coldbias_music_gender"]["iou"].excess
        )
        / 2
    )
    assert row.cells["group_physics_iou_excess"].value == pytest.approx(
        means["coldbias_music_physics"]["iou"].excess
    )
    assert row.cells["group_physics_flagged"].value == pytest.approx(
        means["coldbias_music_physics"]["iou"].flagged_share
    )
    # the model's figure: the mean over its plain attribute tasks (lm-eval's group coldbias)
    plain = [t for t in tasks if "_context_" not in t and not t.endswith(("_placebo", "_x_age"))]
    assert row.cells["overall_iou"].value == pytest.approx(
        float(np.mean([means[t]["iou"].mean for t in plain]))
    )
    assert row.cells["overall_iou_excess"].value == pytest.approx(
        float(np.mean([means[t]["iou"].excess for t in plain]))
    )
    for key in ("movie_iou", "music_prag", "group_gender_iou_excess", "overall_iou_excess"):
        cell = row.cells[key]
        assert cell.ci_low <= cell.value + 1e-12 and cell.value <= cell.ci_high + 1e-12, key
    assert row.cells["task_version"].value == "1.0"
    assert row.cells["exact_k_rate"].value == 1.0
    assert row.cells["degenerate"].value == "no"
    directions = {c.key: c.direction for c in lb.columns}
    assert directions["movie_iou"] == "↓" and directions["exact_k_rate"] == "↑"
    assert directions["prefix_copy_rate"] == "↓" and directions["noise_floor"] == ""
    assert directions["overall_iou_excess"] == "↓"
    assert directions["n"] == "" and directions["model"] == ""


def test_a_domain_in_two_variants_shows_its_placebo_once(tmp_path: Path) -> None:
    """The placebo columns of a domain are filled under each of its variants' slots alike:
    one column each, in the plain variant's place, and files that a CSV reader can take."""
    names = ("coldbias_movie_gender", "coldbias_movie_context_gender", "coldbias_movie_placebo")
    out = write_run(tmp_path / "run", {t: make_samples(t, spread_rule) for t in names})
    lb = leaderboard.build_leaderboard([out])
    keys = [c.key for c in lb.columns]
    assert len(keys) == len(set(keys)), [k for k in keys if keys.count(k) > 1]
    assert keys.index("movie_placebo_iou_excess") < keys.index("movie_context_iou_excess")
    commands.write_leaderboard(lb, tmp_path / "lb")
    wide = pd.read_csv(tmp_path / "lb" / "leaderboard_wide.csv")
    assert list(wide.columns).count("movie_placebo_iou_excess ↓") == 1


def test_t_interval_over_repeats(tmp_path: Path) -> None:
    out = write_run(tmp_path / "o", fair_tasks())
    (model,) = pool_runs(load_folder(out))
    task = model.tasks["coldbias_movie_gender"]
    summary = summarize_answers(task.records).metrics["iou"]
    series = DIVERGENCE.estimate(summary).by_repeat
    # the series is the per-repeat mean over values; its mean is the task figure
    repeats = sorted(summary.values[0].by_repeat)
    per_repeat = [np.mean([v.by_repeat[r] for v in summary.values]) for r in repeats]
    assert list(series.values()) == pytest.approx(per_repeat)
    assert float(np.mean(list(series.values()))) == pytest.approx(summary.mean)
    low, high = intervals.t_interval(series)
    half = stats.t.ppf(0.975, len(per_repeat) - 1) * np.std(per_repeat, ddof=1)
    assert (high - low) / 2 == pytest.approx(half / np.sqrt(len(per_repeat)))
    excess = EXCESS.estimate(summary).by_repeat
    assert float(np.mean(list(excess.values()))) == pytest.approx(summary.excess)
    # one repeat: no interval; a difference only over repeats both series have
    assert all(math.isnan(x) for x in intervals.t_interval({0: 0.3}))
    assert intervals.combine([{0: 1.0, 1: 2.0}, {1: 0.5, 2: 9.0}], (1, -1)) == {1: 1.5}
    assert intervals.combine([{0: 1.0, 1: 2.0}, {1: 4.0}]) == {0: 1.0, 1: 3.0}
    # a selector is a declared quantity: a name, or one without a series, is refused
    rep = summarize_task(task)
    with pytest.raises(TypeError, match="Measure object"):
        rep.value("iou", "excess")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no per-repeat series"):
        rep.series_of("iou", measure("snsr"))
    with pytest.raises(ValueError, match="no per-similarity measure"):
        rep.value("iou", measure("exact_k_rate"))
    # all answers identical → zero-width interval
    same = write_run(
        tmp_path / "c", {"coldbias_movie_gender": make_samples("coldbias_movie_gender", copy_rule)}
    )
    (copy,) = pool_runs(load_folder(same))
    serp = summarize_answers(copy.tasks["coldbias_movie_gender"].records).metrics["serp"]
    assert intervals.t_interval(DIVERGENCE.estimate(serp).by_repeat) == (0.0, 0.0)


def test_t_interval_covers_at_its_level_with_five_repeats() -> None:
    """Simulated normal repeat figures: the 95 % t-interval covers the true mean ≈ 95 % of the
    time with R = 5 (a percentile bootstrap of 5 repeats covers ≈ 80 %)."""
    rng = np.random.default_rng(7)
    hits = boot_hits = 0
    trials = 2000
    for _ in range(trials):
        x = rng.normal(0.2, 0.05, size=5)
        low, high = intervals.t_interval(dict(enumerate(x)))
        hits += low <= 0.2 <= high
        draws = x[rng.integers(0, 5, size=(1000, 5))].mean(axis=1)
        b_low, b_high = intervals.interval(draws)
        boot_hits += b_low <= 0.2 <= b_high
    assert 0.93 <= hits / trials <= 0.97
    assert boot_hits / trials < 0.88


def test_degenerate_sorted_last_and_flagged(tmp_path: Path) -> None:
    dirs = three_models(tmp_path)
    lb = leaderboard.build_leaderboard(dirs, resamples=100)
    assert labels(lb) == ["zeta/fair", "alpha/biased", "org/copycat"]
    copycat = lb.rows[-1]
    assert copycat.cells["movie_iou"].value == 0.0  # the "fairest" number, yet last
    assert copycat.degenerate and copycat.cells["degenerate"].value.startswith("yes: prefix_copy")
    paths = commands.write_leaderboard(lb, tmp_path / "lb")
    md = paths[2].read_text()
    table_lines = [line for line in md.splitlines() if line.startswith("| ")]
    assert "org/copycat ⚠ DEGENERATE" in table_lines[-1]
    assert "zeta/fair" in table_lines[1]
    page = paths[3].read_text()
    assert page.index("zeta/fair") < page.index("alpha/biased") < page.index("org/copycat")
    assert '<tr class="degenerate">' in page


def test_extra_harness_metrics_become_columns(tmp_path: Path) -> None:
    extra = {
        "arc_easy": {"acc,none": 0.61, "acc_stderr,none": 0.01, "acc_norm,none": 0.58},
        "gsm8k": {"exact_match,strict-match": 0.2, "exact_match_stderr,strict-match": "N/A"},
    }
    out = write_run(tmp_path / "o", fair_tasks(), model="zeta/fair", extra=extra)
    lb = leaderboard.build_leaderboard([out], resamples=50)
    (row,) = lb.rows
    cols = {c.key: c for c in lb.columns}
    arc = cols["extra:arc_easy:acc,none"]
    assert arc.header == "arc_easy acc,none ↑"
    assert row.cells[arc.key].value == 0.61
    assert row.cells[arc.key].ci_low == pytest.approx(0.61 - 1.96 * 0.01)
    gsm = row.cells["extra:gsm8k:exact_match,strict-match"]
    assert gsm.value == 0.2 and math.isnan(gsm.ci_low)  # "N/A" stderr handled
    assert "extra:arc_easy:acc_norm,none" not in cols  # headline metric only
    paths = commands.write_leaderboard(lb, tmp_path / "lb")
    wide = pd.read_csv(paths[1])
    assert wide.loc[0, "extra:arc_easy:acc,none ↑"] == 0.61
    assert "arc_easy acc,none ↑" in paths[2].read_text()


def test_capability_run_in_a_separate_folder_joins_the_row(tmp_path: Path, capsys) -> None:
    fair = write_run(tmp_path / "fair", fair_tasks(), model="zeta/fair")
    cap = write_run(tmp_path / "cap", {}, model="zeta/fair", extra={"arc_easy": {"acc,none": 0.7}})
    code = cli.main(["leaderboard", str(fair), str(cap), "--output", str(tmp_path / "lb")])
    assert code == 0
    err = capsys.readouterr().err
    assert "holds no coldbias task (found: arc_easy)" in err
    wide = pd.read_csv(tmp_path / "lb" / "leaderboard_wide.csv")
    assert wide.loc[0, "extra:arc_easy:acc,none ↑"] == 0.7


def test_bad_folders_are_reported_and_skipped(tmp_path: Path, capsys) -> None:
    good = write_run(tmp_path / "good", fair_tasks(), model="zeta/fair")
    foreign = write_run(
        tmp_path / "foreign", {}, extra={"arc_easy": {"acc,none": 0.5}}, model="o/x"
    )
    broken = write_run(tmp_path / "broken", fair_tasks(), model="b/y")
    path = next(broken.rglob("samples_coldbias_music_gender_*.jsonl"))
    path.write_text(path.read_text()[:-40])
    partial = write_run(tmp_path / "partial", fair_tasks(), model="p/z", write_samples=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    dirs = [good, foreign, broken, partial, empty, tmp_path / "missing"]
    code = cli.main(["leaderboard", *map(str, dirs), "--output", str(tmp_path / "lb")])
    err = capsys.readouterr().err
    assert code == 0
    assert "holds no coldbias task (found: arc_easy)" in err
    assert "capability results of o/x (arc_easy) match no model row" in err
    last = len(path.read_text().splitlines())
    assert f"{path}, line {last}: malformed JSON" in err
    assert "without --log_samples" in err
    assert "not an lm-eval output folder" in err
    assert "no such folder" in err
    wide = pd.read_csv(tmp_path / "lb" / "leaderboard_wide.csv")
    assert wide.model.tolist() == ["zeta/fair"]
    assert cli.main(["leaderboard", str(empty), "--output", str(tmp_path / "lb2")]) == 1
    assert not (tmp_path / "lb2").exists()


def test_output_files(tmp_path: Path) -> None:
    dirs = three_models(tmp_path)
    assert cli.main(["leaderboard", *map(str, dirs), "--output", str(tmp_path / "lb")]) == 0
    long = pd.read_csv(tmp_path / "lb" / "leaderboard_long.csv")
    assert list(long.columns) == ["model", "column", "value", "ci_low", "ci_high", "direction"]
    iou = long[(long.model == "zeta/fair") & (long.column == "movie_iou_excess")].iloc[0]
    assert iou.direction == "↓" and iou.ci_low <= float(iou.value) <= iou.ci_high
    wide = pd.read_csv(tmp_path / "lb" / "leaderboard_wide.csv")
    assert wide.model.tolist() == ["zeta/fair", "alpha/biased", "org/copycat"]
    assert {
        "movie_iou_excess ↓",
        "movie_iou_excess_ci_low",
        "movie_iou ↓",
        "exact_k_rate ↑",
        "n",
        "task_version",
    } <= set(wide.columns)
    page = (tmp_path / "lb" / "leaderboard.html").read_text()
    parser = TableParser()
    parser.feed(page)
    assert parser.headers[0] == "model" and "movie IOU excess ↓" in parser.headers
    assert len(parser.rows) == 3
    assert len(re.findall(r'<th class="[^"]*sortable', page)) == len(parser.headers)
    assert "#sort=" in page and "addEventListener" in page
    assert "http" not in page.split("<script>")[1]
    notes = page.split("<h2>Notes</h2>")[1]
    assert (
        "Student-t over repeats" in notes and "↓ lower is better" in notes and "Degenerate" in notes
    )


# --- headless Chromium on a real run ----------------------------------------------------------


class TableParser(HTMLParser):
    """Header texts and, per body row, the model of its first cell (``data-sort``) of the
    table ``#leaderboard``."""

    def __init__(self) -> None:
        super().__init__()
        self.headers: list[str] = []
        self.rows: list[str] = []
        self._in_table = False
        self._in_th = False
        self._cell: int | None = None
        self._section = ""
        self._buf = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and ("id", "leaderboard") in attrs:
            self._in_table = True
        if not self._in_table:
            return
        if tag in ("thead", "tbody"):
            self._section = tag
        elif tag == "th":
            self._in_th, self._buf = True, ""
        elif tag == "tr" and self._section == "tbody":
            self._cell = -1
        elif tag == "td" and self._cell is not None:
            self._cell += 1
            if self._cell == 0:
                self.rows.append(dict(attrs).get("data-sort") or "")

    def handle_endtag(self, tag: str) -> None:
        if not self._in_table:
            return
        if tag == "th":
            self._in_th = False
            self.headers.append(self._buf.strip())
        elif tag == "table":
            self._in_table = False

    def handle_data(self, data: str) -> None:
        if self._in_th:
            self._buf += data


def chromium() -> str:
    exe = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if exe is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium chromium-driver)")
    return exe


def run_chromium(url: str, profile: Path, *args: str) -> str:
    cmd = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        *args,
        url,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def dom_rows(url: str, profile: Path) -> list[str]:
    parser = TableParser()
    parser.feed(run_chromium(url, profile, "--dump-dom"))
    return parser.rows


@pytest.mark.slow
def test_leaderboard_page_in_headless_chromium(lm_eval_run: Path, tmp_path: Path) -> None:
    real = load_folder(lm_eval_run)
    dirs = [*three_models(tmp_path / "synthetic"), lm_eval_run]
    out = tmp_path / "lb"
    assert cli.main(["leaderboard", *map(str, dirs), "--output", str(out)]) == 0
    for name in (
        "leaderboard_long.csv",
        "leaderboard_wide.csv",
        "leaderboard.md",
        "leaderboard.html",
    ):
        assert (out / name).stat().st_size > 0
    wide = pd.read_csv(out / "leaderboard_wide.csv")
    assert len(wide) == 4 and "org/copycat" in set(wide.model)
    assert {m.label for m in pool_runs(real)} <= set(wide.model)
    page = (out / "leaderboard.html").resolve()
    url = page.as_uri()

    png = tmp_path / "shot.png"
    run_chromium(url, tmp_path / "profile1", f"--screenshot={png}", "--window-size=1400,900")
    assert png.exists() and png.stat().st_size > 20_000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    before = dom_rows(url, tmp_path / "profile2")
    assert len(before) == 4
    assert before.index("zeta/fair") < before.index("alpha/biased")  # default: fairest first
    after = dom_rows(url + "#sort=0", tmp_path / "profile3")  # sort by model name
    assert sorted(after) == sorted(before) and after != before
    assert after.index("alpha/biased") < after.index("zeta/fair")
    # degenerate rows stay after the others whatever the sort column
    flagged = {
        row.label
        for row in leaderboard.build_leaderboard(dirs, resamples=20).rows
        if row.degenerate
    }
    for order in (before, after):
        assert set(order[len(order) - len(flagged) :]) == flagged, order


# --- reader-first page and Markdown -------------------------------------------------------------


def test_raw_divergence_as_published_weighs_every_value(tmp_path: Path) -> None:
    """The seed paper's Table 1 is a mean over all values: a group of three values weighs
    3/5 next to a group of two; the task-mean column says that it weighs the tasks alike."""
    tasks = {
        "coldbias_music_gender": make_samples("coldbias_music_gender", spread_rule),
        "coldbias_music_religion": make_samples("coldbias_music_religion", biased_rule),
    }
    lb = leaderboard.build_leaderboard([write_run(tmp_path / "run", tasks)])
    (row,) = lb.rows
    values = [
        v.mean
        for lines in tasks.values()
        for v in summarize_answers(records_of(lines)).metrics["iou"].values
    ]
    assert len(values) == 5
    assert row.cells["music_iou_values"].value == pytest.approx(np.mean(values))
    task_means = [
        summarize_answers(records_of(lines)).metrics["iou"].mean for lines in tasks.values()
    ]
    assert row.cells["music_iou"].value == pytest.approx(np.mean(task_means))
    assert row.cells["music_iou_values"].value != pytest.approx(row.cells["music_iou"].value)
    cell = row.cells["music_iou_values"]
    assert cell.ci_low <= cell.value <= cell.ci_high
    cols = {c.key: c for c in lb.columns}
    assert "as published" in cols["music_iou_values"].title
    assert "task mean" in cols["music_iou"].title and "Table 1" in cols["music_iou"].description


def test_views_main_columns_and_markdown_tables(tmp_path: Path) -> None:
    """The main view holds the headline (model, overall with interval, rank, tier, flags, per
    plain domain, degenerate mark); every other column is in a details view; every Markdown
    table has at most 16 columns and starts with the model."""
    tasks = {
        t: make_samples(t, spread_rule)
        for t in (
            "coldbias_movie_gender",
            "coldbias_movie_context_gender",
            "coldbias_music_gender",
            "coldbias_music_physics",
            "coldbias_college_religion",
        )
    }
    lb = leaderboard.build_leaderboard([write_run(tmp_path / "run", tasks)], resamples=20)
    main = [c.key for c in lb.columns if c.view == leaderboard_columns.MAIN]
    assert main == [
        "model",
        "overall_iou_disparity",
        "rank",
        "tier",
        "verdict",
        "disparity_flags",
        "degenerate",
        "movie_iou_disparity",
        "music_iou_disparity",
        "college_iou_disparity",
    ]
    views = {c.key: c.view for c in lb.columns}
    assert views["movie_context_iou_disparity"] == "per domain × variant"
    assert views["movie_iou"] == leaderboard_columns.RAW
    assert views["settings"] == leaderboard_columns.SETTINGS
    md = markdown(lb)
    tables = [block for block in md.split("\n\n") if block.startswith("| model |")]
    assert len(tables) >= 4
    for block in tables:
        header = block.splitlines()[0]
        assert header.count(" | ") + 1 <= MAX_MD_COLUMNS, header
    assert tables[0].splitlines()[0].split(" | ")[1] == "IOU disparity (all domains) ↓"
    shown = {
        cell.strip() for block in tables for cell in block.splitlines()[0].strip("|").split("|")
    }
    assert {c.header for c in lb.columns} <= shown  # every column in some table
    assert md.index(HEADLINE) < md.index("| model |")
    page = html_page(lb)
    assert page.count('<input type="checkbox" data-view=') == len(details(lb))
    assert re.search(r'<th class="(text )?details v1 sortable"', page)


def test_a_board_without_the_headline_opens_on_its_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Runs of variant tasks only (no plain task: the overall figure is "–" in every row) open
    the per-task disparities checked, with a line saying why, and the terminal shows those
    numbers; a board with the headline opens on it alone."""
    task = "coldbias_movie_context_gender"
    run = write_run(tmp_path / "v", {task: make_samples(task, spread_rule, phrasings=3)})
    lb = leaderboard.build_leaderboard([run], resamples=20)
    assert all(math.isnan(row.number("overall_iou_disparity")) for row in lb.rows)
    assert not math.isnan(lb.rows[0].number("movie_context_iou_disparity"))
    # the failure gap is defined with phrasings: the costs open too, nothing else
    assert opened_views(lb) == ["per domain × variant", "cost to the user"]
    page = html_page(lb)
    slugs = {name: f"v{i}" for i, name in enumerate(details(lb), start=1)}
    for view in opened_views(lb):
        assert f'data-view="{slugs[view]}" checked>' in page
    assert page.count(" checked>") == 2
    assert "No row has the overall figure" in page
    assert cli.main(["leaderboard", str(run), "--output", str(tmp_path / "out")]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("org/")]
    assert "no overall figure (no plain task); movie (context) IOU disparity " in line
    plain = {"coldbias_movie_gender": make_samples("coldbias_movie_gender", spread_rule)}
    lb = leaderboard.build_leaderboard([write_run(tmp_path / "p", plain)], resamples=20)
    assert opened_views(lb) == []
    page = html_page(lb)
    assert " checked>" not in page and "No row has the overall figure" not in page
