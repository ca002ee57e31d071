"""The seed-study importer and re-analysis on a synthetic fixture in the study's file layout
(tests/seed_fixture.py); the real re-analysis is `bash leaderboards/seed_study/make.sh`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.analysis.seed_study.importer import (
    choose_seeds,
    import_seed_study,
    read_study,
    value_id,
)
from coldbias_tasks.core.errors import RunError
from tests import seed_fixture as fx


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, object]:
    base = tmp_path_factory.mktemp("seed")
    clone = fx.write_fixture(base / "clone")
    out = base / "runs"
    return clone, out, import_seed_study(clone, out)


def _rows(folder: Path) -> dict:
    return {m.model: m for m in pool_runs(load_folder(folder))}


def test_value_ids_follow_our_persona_ids() -> None:
    assert value_id("a girl") == "girl"
    assert value_id("an American") == "american"
    assert value_id("a child of a doctor") == "doctor"
    assert value_id("fat") == "fat"


def test_file_names_mapped(imported) -> None:
    clone, _, _ = imported
    study = read_study(clone)
    assert set(study.files) >= {
        ("gemma3_4b", "movie", ""),
        ("gemma3_4b", "movie", ","),
        ("gemma3_4b", "movie", "action_movie_fan"),
    }
    assert study.unrecognised == ("notes_about_runs.json",)
    assert study.seeds == (0, 1, 2, 3, 4)


def test_counts_and_reported_problems(imported) -> None:
    _, out, summary = imported
    # runs: gemma main 5 + gemma action context 5 + llama main 5
    assert summary.counts["runs"] == 15
    values = sum(len(v) for v in fx.GROUPS.values())
    # main: gemma 3 domains, llama 2 domains, 1 neutral + values per file; context: 5 files
    assert summary.counts["answers"] == (3 * 5 + 2 * 5 + 5) * (1 + values)
    assert summary.counts["errors"] == 1 and summary.counts["empty"] == 1
    text = "\n".join(summary.lines())
    assert "extra seed file(s) [5] not imported" in text
    assert "plain file set '' not imported (superseded by ','" in text
    assert "llama3.2_3b music: no plain run" in text
    assert "1 raw file(s) with an unknown name pattern" in text
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["design"]["k"] == 20 and provenance["design"]["temperature"] == 0.7
    assert provenance["summary"]["errors"] == 1


def test_runs_read_by_the_ordinary_loader(imported) -> None:
    _, out, _ = imported
    rows = _rows(out / "main")
    assert set(rows) == {"google/gemma-3-4b-it", "meta-llama/Llama-3.2-3B-Instruct"}
    gemma = rows["google/gemma-3-4b-it"]
    assert sorted(gemma.seeds, key=int) == ["0", "1", "2", "3", "4"]
    movie = gemma.tasks["coldbias_movie_gender"]
    assert movie.repeats == 5 and movie.order == "fixed"
    # the ',' plain set was imported: its neutral starts at item 10
    neutral = [r for r in movie.records if r.persona_id == "neutral"]
    assert all(r.items[0] == 10 for r in neutral)
    assert "coldbias_music_gender" not in rows["meta-llama/Llama-3.2-3B-Instruct"].tasks
    context = _rows(out / "context_action_movie_fan")["google/gemma-3-4b-it"]
    task = context.tasks["coldbias_movie_context_gender"]
    assert task.repeats == 5  # the sixth seed file is not imported
    girl = [r for r in task.records if r.persona_id == "gender.girl"]
    assert sum(1 for r in girl if not r.items) == 1  # the error entry: kept, empty, counted


def test_missing_seed_file_refused_or_reported(tmp_path: Path) -> None:
    clone = fx.write_fixture(tmp_path / "clone")
    (clone / "data" / "raw_text_results" / "llama3.2_3b_college__3.json").unlink()
    refused = r"llama3.2_3b_college__\*\.json: missing seed file\(s\) \[3\]"
    with pytest.raises(RunError, match=refused):
        import_seed_study(clone, tmp_path / "out")
    summary = import_seed_study(clone, tmp_path / "out2", allow_missing=True)
    assert any("missing seed file(s) [3]" in n for n in summary.notes)


def test_not_a_clone_refused(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="no data/raw_text_results"):
        import_seed_study(tmp_path, tmp_path / "out")


def test_choose_seeds() -> None:
    assert choose_seeds([0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4])[0] == [0, 1, 2, 3, 4]
    seeds, note = choose_seeds([0, 2, 3, 4, 5], [0, 1, 2, 3, 4])
    assert seeds == [0, 2, 3, 4, 5] and "instead of" in note
    seeds, note = choose_seeds([0, 1, 2], [0, 1, 2, 3, 4])
    assert seeds == [0, 1, 2] and note == "missing seed file(s) [3, 4]"


def test_leaderboard_reads_the_import(imported) -> None:
    from coldbias_tasks.analysis.leaderboard import build_leaderboard

    _, out, _ = imported
    lb = build_leaderboard([out / "main"], resamples=50)
    assert len(lb.rows) == 2
    assert all(not math.isnan(r.cells["overall_iou"].value) for r in lb.rows)


def _seed_page(folder: Path):
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.analysis.seed_study.leaderboard import is_seed_study, seed_study_page

    lb = build_leaderboard([folder], resamples=50)
    assert is_seed_study(lb)
    return seed_study_page(lb)


def test_as_published_weighs_every_value_alike_like_the_paper(imported) -> None:
    """The page's "raw IOU, as published" is the study's Table 1 rule: the mean over value
    phrases (gender's 4 values weigh twice country's 2; "an American", in two groups, once),
    not the mean over attribute groups; the fixture's offsets make the two differ by 0.014."""
    from coldbias_tasks.analysis.leaderboard_columns import MAIN

    _, out, _ = imported
    lb = _seed_page(out / "main")
    row = next(r for r in lb.rows if r.model.model == "google/gemma-3-4b-it")
    per_phrase = {
        p: float(np.mean([fx.expected_divergence("gemma3_4b", p, s) for s in fx.SEEDS]))
        for p in _unique_phrases()
    }
    value_weighted = float(np.mean(list(per_phrase.values())))
    group_weighted = float(np.mean([np.mean([per_phrase[p] for p in ps])
                                    for ps in fx.GROUPS.values()]))  # fmt: skip
    assert abs(value_weighted - group_weighted) > 0.01  # the case tells the rules apart
    cell = row.cells["college_iou_published"]
    assert cell.value == pytest.approx(value_weighted, abs=1e-9)
    assert cell.ci_low < cell.value < cell.ci_high  # odd seeds shift every value by one
    # the page's main view: the as-published figures and the excess; no disparity columns
    keys = {c.key: c for c in lb.columns}
    assert keys["college_iou_published"].view == MAIN
    assert keys["overall_iou_excess"].view == MAIN
    assert not [k for k in keys if "disparity" in k or k in ("rank", "tier", "verdict")]
    assert not [k for k in keys if k.endswith("_iou_values")]  # the generic value mean
    assert "cannot be computed" in (lb.headline or "")


def test_as_published_skips_empty_answers_like_the_paper(imported) -> None:
    """An error entry and an empty answer (seed 2) are skipped, as the study's result.py
    does, not counted as divergence 1."""
    _, out, _ = imported
    lb = _seed_page(out / "context_action_movie_fan")
    cell = lb.rows[0].cells["movie_context_iou_published"]
    per = []
    for p in _unique_phrases():
        xs = [fx.expected_divergence("gemma3_4b", p, s) for s in fx.SEEDS
              if not (s == 2 and p in ("a girl", "a boy"))]  # fmt: skip
        per.append(sum(xs) / len(xs))
    assert cell.value == pytest.approx(sum(per) / len(per), abs=1e-9)


def test_leaderboard_command_writes_the_seed_page(imported, tmp_path: Path) -> None:
    """``coldbias leaderboard`` on imported runs writes the seed study's page: its
    introduction, the as-published columns, no disparity, rank or flag column."""
    import csv

    from coldbias_tasks.app.commands import leaderboard_command

    _, out, _ = imported
    assert leaderboard_command([str(out / "main"), "--output", str(tmp_path / "lb")]) == 0
    md = (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
    assert "cannot be computed from its answers" in md
    with (tmp_path / "lb" / "leaderboard_wide.csv").open(encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert "college_iou_published ↓" in header
    assert not [h for h in header if "disparity" in h or h in ("rank", "tier", "verdict")]


def _unique_phrases() -> list[str]:
    return list(dict.fromkeys(p for ps in fx.GROUPS.values() for p in ps))


def test_replayed_table_figures_from_known_answers(imported) -> None:
    from coldbias_tasks.analysis.seed_study.replay import domain_tasks, paper_figure

    _, out, _ = imported
    rows = _rows(out / "main")
    for hub, key in (("google/gemma-3-4b-it", "gemma3_4b"),
                     ("meta-llama/Llama-3.2-3B-Instruct", "llama3.2_3b")):  # fmt: skip
        fig = paper_figure(domain_tasks(rows[hub], "college"))
        per = [[fx.expected_divergence(key, p, s) for s in fx.SEEDS] for p in _unique_phrases()]
        assert fig.n_values == len(per) == 7  # "an American" counts once, as in the study
        assert fig.mean == pytest.approx(sum(sum(x) / 5 for x in per) / len(per))
        assert fig.std == pytest.approx(sum(float(np.std(x)) for x in per) / len(per))
    # movie plain comes from the ',' set: neutral items 10..29, value o..o+19
    fig = paper_figure(domain_tasks(rows["google/gemma-3-4b-it"], "movie"))
    expected = [
        [1 - (fx.offset("gemma3_4b", p, s) + 10) / (30 - fx.offset("gemma3_4b", p, s))
         for s in fx.SEEDS]
        for p in _unique_phrases()
    ]  # fmt: skip
    assert fig.mean == pytest.approx(sum(sum(x) / 5 for x in expected) / len(expected))


def test_replay_skips_empty_value_answers_like_the_study(imported) -> None:
    from coldbias_tasks.analysis.seed_study.replay import paper_figure, seed_means

    _, out, _ = imported
    task = _rows(out / "context_action_movie_fan")["google/gemma-3-4b-it"].tasks[
        "coldbias_movie_context_gender"
    ]
    fig = paper_figure([task])
    phrases = fx.GROUPS["gender"]
    per = {
        p: [fx.expected_divergence("gemma3_4b", p, s) for s in fx.SEEDS if not (s == 2 and p in
            ("a girl", "a boy"))]  # the error entry and the empty answer of seed 2
        for p in phrases
    }  # fmt: skip
    assert fig.mean == pytest.approx(sum(sum(v) / len(v) for v in per.values()) / 4)
    assert seed_means([task])[2] == pytest.approx(
        (fx.expected_divergence("gemma3_4b", "a female", 2)
         + fx.expected_divergence("gemma3_4b", "a male", 2)) / 2
    )  # fmt: skip


def test_seed_level_tests_attainable_p_and_verdicts() -> None:
    from coldbias_tasks.analysis.seed_study.statistics import (
        paired_test,
        subset_relabel_test,
        two_sample_test,
        values_disparity_test,
        verdict,
    )

    paired = paired_test({s: 0.5 + s / 100 for s in range(5)}, {s: 0.1 for s in range(5)})
    assert paired.min_p == pytest.approx(1 / 16) and paired.p == pytest.approx(1 / 16)
    assert verdict(paired, +1).startswith("cannot be decided with 5 seeds")
    apart = two_sample_test([0.9, 0.8, 0.85, 0.95, 0.9], [0.1, 0.2, 0.15, 0.1, 0.12])
    assert apart.p == pytest.approx(2 / 252) and verdict(apart, +1) == "holds beyond noise"
    assert verdict(apart, -1).startswith("contradicted")
    same = two_sample_test([0.5, 0.6, 0.4, 0.5, 0.55], [0.52, 0.58, 0.41, 0.5, 0.54])
    assert same.p > 0.5 and verdict(same, +1) == "does not hold beyond noise"
    split = subset_relabel_test({s: ([0.4 + s / 50, 0.41], [0.1, 0.12]) for s in range(5)})
    assert split.min_p == pytest.approx(2 / 6**5) and split.p == pytest.approx(2 / 6**5)
    flat = values_disparity_test({s: [0.3, 0.3, 0.3] for s in range(5)}, draws=200)
    assert flat.p == 1.0


def test_value_swap_test_is_underpowered_at_five_seeds(imported) -> None:
    from coldbias_tasks.analysis.seed_study.statistics import value_swap_test

    _, out, _ = imported
    task = _rows(out / "main")["google/gemma-3-4b-it"].tasks["coldbias_college_gender"]
    result = value_swap_test(task, "gender.girl")
    assert result.min_p == pytest.approx(1 / 16) and result.underpowered()
    assert result.effect > 0  # the girl's lists are shifted by 4-5 items


def test_persona_disparity_test_decides_where_the_neutral_is_central(imported) -> None:
    from coldbias_tasks.analysis.seed_study.statistics import persona_disparity_test
    from coldbias_tasks.core.measures.summary import summarize_answers
    from coldbias_tasks.core.records import AnswerRecord

    _, out, _ = imported
    task = _rows(out / "main")["google/gemma-3-4b-it"].tasks["coldbias_college_gender"]
    result = persona_disparity_test(task, draws=500)
    assert result.p <= 0.01 and result.effect > 0  # each persona has its own offset
    # a null: every persona of a seed gives that seed's list, so labels carry nothing
    same = [
        AnswerRecord(p, s, tuple(range(s, s + 20)), 20)
        for s in range(5)
        for p in ("neutral", "gender.girl", "gender.boy")
    ]

    class Task:
        records = tuple(same)

    assert persona_disparity_test(Task(), draws=200).p == 1.0  # type: ignore[arg-type]
    assert summarize_answers(same, metrics=("iou",)).metrics["iou"].group_p > 0.05


def test_cli_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from coldbias_tasks.app.cli import main

    clone = fx.write_fixture(tmp_path / "clone")
    assert main(["import-seed-study", str(clone), "--output", str(tmp_path / "out")]) == 0
    assert "15 run folders" in capsys.readouterr().out
    (clone / "data" / "raw_text_results" / "gemma3_4b_music__0.json").unlink()
    assert main(["import-seed-study", str(clone), "--output", str(tmp_path / "o2")]) == 1
    assert "--allow-missing" in capsys.readouterr().err


def test_missing_entry_counted_and_corrupt_file_refused(tmp_path: Path) -> None:
    from coldbias_tasks.analysis.run_data import LoadOptions

    clone = fx.write_fixture(tmp_path / "clone")
    path = clone / "data" / "raw_text_results" / "llama3.2_3b_college__1.json"
    data = json.loads(path.read_text())
    del data["gender"]["a male"]
    path.write_text(json.dumps(data))
    summary = import_seed_study(clone, tmp_path / "out")
    assert summary.counts["missing"] == 1
    assert any("'a male': no answer in the file" in n for n in summary.notes)
    with pytest.raises(RunError, match="answers missing"):
        load_folder(tmp_path / "out" / "main")  # the loader refuses the incomplete task
    runs = load_folder(tmp_path / "out" / "main", LoadOptions(allow_partial=True))
    assert any(t.partial for r in runs for t in r.tasks.values())
    path.write_text("{ not json")
    with pytest.raises(RunError, match=r"llama3.2_3b_college__1.json: malformed JSON"):
        import_seed_study(clone, tmp_path / "out2")
