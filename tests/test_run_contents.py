"""What is read from a run is checked before it is shown: a results file without samples drops
nothing usable, models sharing a folder name get distinct labels, every number shown is finite
and in range or refused, forged samples are refused, reparsing warns when the logged payload
disagrees, degenerate reverse tasks are named (issue 24)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from coldbias_tasks.analysis.reverse_report import ReverseReport
from coldbias_tasks.app import cli
from coldbias_tasks.core.measures.quality import reverse_degenerate_reasons
from coldbias_tasks.core.measures.reverse import ranked_first_most, summarize_reverse
from coldbias_tasks.core.records import UserRankRecord
from coldbias_tasks.core.result import task_result
from coldbias_tasks.core.vocabulary import ANSWER_KEY
from coldbias_tasks.render.terminal import reverse_summary_lines
from tests.run_fixtures import synthetic_run, with_new_ids

TASK = "coldbias_movie_gender"
SMALL = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder of one task (synthetic answers)."""
    return synthetic_run(tmp_path_factory, [TASK])


# --- 4. loading runs: per-file reasons, nothing usable dropped, distinct labels -------------


def _results_file(run: Path) -> Path:
    (path,) = run.rglob("results_*.json")
    return path


def _rename_model(results: Path, name: str, dest: Path | None = None) -> None:
    """Write ``results`` (to ``dest``, default in place) as a run of the model ``name``."""
    data = json.loads(results.read_text())
    data["model_name"] = name
    data["config"]["model_args"] = f"pretrained={name}"
    (dest or results).write_text(json.dumps(data))


def _with_bad_neighbour(real_run: Path, dest: Path) -> tuple[Path, Path]:
    """A copy of ``real_run`` plus, beside its results, a results file without samples."""
    shutil.copytree(real_run, dest)
    good = _results_file(dest)
    bad = good.with_name("results_2030-01-01T00-00-00.000000.json")
    _rename_model(good, "org/other-model", bad)
    return dest, bad


def test_a_results_file_without_samples_drops_nothing_usable(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    """Leaderboard: the bad file is named with its reason, the good run kept. Report: refused
    (naming the file) unless --allow-partial, then a warning on the terminal and the page."""
    run, bad = _with_bad_neighbour(real_run, tmp_path / "run")
    lb, rep = tmp_path / "lb", tmp_path / "rep"
    assert cli.main(["leaderboard", str(run), "--output", str(lb)]) == 0
    out = capsys.readouterr()
    assert f"skipped: {bad}" in out.err and "--log_samples" in out.err
    assert "synthetic-recommender" in (lb / "leaderboard.md").read_text()
    assert "other-model" not in (lb / "leaderboard_wide.csv").read_text()
    assert cli.main(["report", str(run), "--output", str(rep)]) == 1
    assert str(bad) in capsys.readouterr().err and not rep.exists()
    assert cli.main(["report", str(run), "--output", str(rep), "--allow-partial"]) == 0
    out = capsys.readouterr()
    assert f"WARNING skipped: {bad}" in out.out and "--allow-partial" in out.out
    assert bad.name in (rep / "report.html").read_text()


def test_models_sharing_a_folder_name_get_distinct_labels(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    runs = []
    for where in ("team_a", "team_b"):
        run = tmp_path / where
        shutil.copytree(real_run, run)
        _rename_model(_results_file(run), f"/models/{where}/mymodel")
        runs.append(str(run))
    lb = tmp_path / "lb"
    assert cli.main(["leaderboard", *runs, "--output", str(lb)]) == 0
    wide = pd.read_csv(lb / "leaderboard_wide.csv")
    assert sorted(wide["model"]) == ["team_a/mymodel", "team_b/mymodel"]
    assert set(pd.read_csv(lb / "leaderboard_long.csv")["model"]) == set(wide["model"])
    markdown = (lb / "leaderboard.md").read_text()
    assert "| team_a/mymodel" in markdown and "| team_b/mymodel" in markdown
    html = (lb / "leaderboard.html").read_text()
    assert "team_a/mymodel" in html and "team_b/mymodel" in html


# --- 5. every number shown is finite and in range, or refused ------------------------------


def test_bad_capability_metrics_are_not_shown_and_named(real_run: Path, tmp_path: Path, capsys):
    run = tmp_path / "run"
    shutil.copytree(real_run, run)
    path = _results_file(run)
    data = json.loads(path.read_text())
    data["results"] |= {
        "t_inf": {"acc,none": math.inf, "alias": "t_inf"},
        "t_huge": {"acc,none": -1e308},
        "t_text": {"acc,none": "high"},
        "t_bigint": {"acc,none": 10**400},
        "t_se": {"acc,none": 0.5, "acc_stderr,none": -0.25},
        "t_ok": {"acc,none": 0.75, "acc_stderr,none": 0.01},
    }
    path.write_text(json.dumps(data))
    lb = tmp_path / "lb"
    assert cli.main(["leaderboard", str(run), "--output", str(lb)]) == 0
    err = capsys.readouterr().err
    for task in ("t_inf", "t_huge", "t_text", "t_bigint", "t_se"):
        assert f"{task} acc,none = " in err and "not shown" in err, task
    assert "not a number" in err and "standard error -0.25" in err
    wide = (lb / "leaderboard_wide.csv").read_text()
    assert "t_ok" in wide and not any(t in wide for t in ("t_inf", "t_huge", "t_text", "t_se"))
    assert "inf" not in (lb / "leaderboard.md").read_text().lower().replace("info", "")


def _eee_record(stderr: object, score: object = 0.6) -> dict:
    return {
        "schema_version": "0.3.0",
        "model_info": {"id": "coldbias/synthetic-recommender"},
        "evaluation_results": [
            {
                "evaluation_name": "mmlu",
                "metric_config": {"metric_name": "acc", "lower_is_better": False},
                "score_details": {
                    "score": score,
                    "uncertainty": {"standard_error": {"value": stderr}},
                },
            }
        ],
    }


def test_eee_negative_stderr_or_bad_score_is_refused_per_file(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    eee = tmp_path / "eee"
    eee.mkdir()
    (eee / "bad.json").write_text(json.dumps(_eee_record(-5.38)))
    (eee / "inf.json").write_text(json.dumps(_eee_record(0.1, 1e300)))
    (eee / "str.json").write_text(json.dumps(_eee_record("big")))
    lb = tmp_path / "lb"
    assert cli.main(["leaderboard", str(real_run), str(eee), "--output", str(lb)]) == 0
    err = capsys.readouterr().err
    assert f"{eee / 'bad.json'}" in err and "standard error -5.38" in err
    assert f"{eee / 'inf.json'}" in err and "within ±1e+09" in err
    assert f"{eee / 'str.json'}" in err
    assert "mmlu" not in (lb / "leaderboard_wide.csv").read_text()
    (eee / "good.json").write_text(json.dumps(_eee_record(0.01)))
    assert cli.main(["leaderboard", str(real_run), str(eee), "--output", str(lb)]) == 0
    wide = pd.read_csv(lb / "leaderboard_wide.csv")
    (low,) = wide["eee:mmlu:acc_ci_low"]
    (high,) = wide["eee:mmlu:acc_ci_high"]
    assert low < 0.6 < high


def _edit_first_payload(run: Path, edit) -> Path:
    (path,) = run.rglob(f"samples_{TASK}_*.jsonl")
    lines = path.read_text().splitlines()
    sample = json.loads(lines[0])
    edit(sample[ANSWER_KEY], sample["doc"])
    lines[0] = json.dumps(with_new_ids(sample))
    path.write_text("\n".join(lines) + "\n")
    return path


def _not_shown(payload: dict, doc: dict) -> None:
    payload["items"][0] = max(doc["shown_ids"]) + 1000


def _twice(payload: dict, doc: dict) -> None:
    payload["items"][1] = payload["items"][0]


def _k_negative(payload: dict, doc: dict) -> None:
    payload["k"] = doc["k"] = -5


def _k_huge(payload: dict, doc: dict) -> None:
    payload["k"] = 10**6


def _other_shown(payload: dict, doc: dict) -> None:
    payload["items"][0] = next(i for i in doc["shown_ids"] if i not in payload["items"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_not_shown, "were not shown"),
        (_twice, "appears twice"),
        (_k_negative, "k -5 with"),
        (_k_huge, "k 1000000 in the answer"),
    ],
)
def test_forged_samples_are_refused(real_run: Path, tmp_path: Path, capsys, edit, message):
    run = tmp_path / "run"
    shutil.copytree(real_run, run)
    path = _edit_first_payload(run, edit)
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert f"{path}, line 1" in err and message in err and "--reparse" in err, err


def test_reparse_warns_when_the_logged_payload_disagrees(real_run: Path, tmp_path: Path, capsys):
    run = tmp_path / "run"
    shutil.copytree(real_run, run)
    _edit_first_payload(run, _other_shown)
    rep = tmp_path / "rep"
    assert cli.main(["report", str(run), "--output", str(rep), "--reparse"]) == 0
    out = capsys.readouterr().out
    assert "--reparse reads 1 of" in out and "differently" in out
    capsys.readouterr()
    shutil.rmtree(rep)
    assert cli.main(["report", str(real_run), "--output", str(rep), "--reparse"]) == 0
    assert "--reparse reads" not in capsys.readouterr().out


def test_reverse_task_gets_the_degenerate_rule() -> None:
    users = ("a", "b", "c", "d")
    empty = [UserRankRecord(item_id=i, repeat=0, candidates=users, order=()) for i in range(6)]
    summary = summarize_reverse(empty, draws=50)
    assert summary.complete_rate == 0 and "fill_rate 0.00 < 0.5" in reverse_degenerate_reasons(
        summary
    )
    copied = [UserRankRecord(item_id=i, repeat=0, candidates=users, order=(0, 1, 2, 3))
              for i in range(6)]  # fmt: skip
    assert any(
        r.startswith("keep_order_rate") for r in reverse_degenerate_reasons(summarize_reverse(
            copied, draws=50))
    )  # fmt: skip
    mixed = [UserRankRecord(item_id=i, repeat=0, candidates=users, order=(i % 4, (i + 1) % 4, (
        i + 2) % 4, (i + 3) % 4)) for i in range(8)]  # fmt: skip
    assert reverse_degenerate_reasons(summarize_reverse(mixed, draws=50)) == []


def test_degenerate_reverse_task_is_warned_on_the_terminal() -> None:
    users = ("a", "b", "c", "d")
    empty = [UserRankRecord(item_id=i, repeat=0, candidates=users, order=()) for i in range(6)]
    rep = ReverseReport(
        SimpleNamespace(label="m"),  # type: ignore[arg-type]
        SimpleNamespace(name="coldbias_reverse_movie_gender"),  # type: ignore[arg-type]
        task_result(empty),
        np.zeros(10),
    )
    (warning, line) = reverse_summary_lines([rep])
    assert warning.startswith("WARNING m · coldbias_reverse_movie_gender: degenerate")
    assert "fill_rate 0.00 < 0.5" in warning and "complete rankings 0.00" in line


def test_ranked_first_most_breaks_ties_deterministically() -> None:
    assert ranked_first_most({"b": (0.3, 0.5), "a": (0.4, 0.5), "c": (0.1, 0.2)}) == "b"
    assert ranked_first_most({"b": (0.3, 0.5), "a": (0.3, 0.5)}) == "a"
    assert ranked_first_most({"z": (0.9, 0.6), "a": (0.1, 0.5)}) == "z"
