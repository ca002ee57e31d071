"""Hostile files and hostile models (issue 24): nothing is deleted outside its folder, no code
runs from data, no answer or run is dropped in silence, no traceback.

Every test works inside ``tmp_path``; a "victim" file lives in ``tmp_path`` but outside the
output folder, so a regression deletes nothing else even when a test fails."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from coldbias_tasks.analysis.reverse_report import ReverseReport
from coldbias_tasks.app import cli, outputs
from coldbias_tasks.app.launch import prepare
from coldbias_tasks.app.outputs import MANIFEST, OutputFolder
from coldbias_tasks.core.errors import (
    CatalogError,
    OutputError,
    PersonaError,
    SettingsError,
    TemplateError,
)
from coldbias_tasks.core.measures.quality import reverse_degenerate_reasons
from coldbias_tasks.core.measures.reverse import ranked_first_most, summarize_reverse
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.prompting.prompt import load_template, render_prompt
from coldbias_tasks.core.records import UserRankRecord
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.core.result import task_result
from coldbias_tasks.core.settings import Settings
from coldbias_tasks.core.vocabulary import ANSWER_KEY
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.personas import load_personas
from coldbias_tasks.lmeval import taskgen
from coldbias_tasks.render.terminal import reverse_summary_lines
from tests.synthetic import SyntheticRecommender, run_synthetic
from tests.test_bad_input import USER_PERSONAS

TASK = "coldbias_movie_gender"
SMALL = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder written by lm-eval's own evaluator (synthetic answers)."""
    out = tmp_path_factory.mktemp("run") / "out"
    run_synthetic(SyntheticRecommender(seed=2), [TASK], SMALL, output_path=out)
    return out


def _write(dest: Path, files: dict[str, str], generator: str = "test") -> OutputFolder:
    output = OutputFolder(dest, generator)
    with output as tmp:
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text)
    return output


def _forge(dest: Path, entries: list[object], generator: str = "test") -> None:
    (dest / MANIFEST).write_text(json.dumps({"generated_by": generator, "files": entries}))


# --- 1. output folders -----------------------------------------------------------------------


def test_crafted_manifest_deletes_nothing_outside_its_folder(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "b.txt").write_text("keep me too")
    _write(dest, {"a.txt": "1"})
    (dest / "link").symlink_to(elsewhere)
    (dest / "linked_file").symlink_to(victim)
    _forge(dest, [str(victim), "../victim.txt", "link/b.txt", "linked_file", "a.txt", 5, ""])
    output = _write(dest, {"a.txt": "2"})
    assert victim.read_text() == "keep me" and (elsewhere / "b.txt").read_text() == "keep me too"
    assert (dest / "linked_file").is_symlink() and (dest / "a.txt").read_text() == "2"
    assert any("ignored 6 entr" in m and "nothing outside" in m for m in output.messages)


def test_crafted_manifest_through_the_commands(real_run: Path, tmp_path: Path, capsys) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    rep, lb = tmp_path / "rep", tmp_path / "lb"
    rep.mkdir()
    lb.mkdir()
    _forge(rep, [str(victim)], "coldbias report")
    _forge(lb, ["../victim.txt"], "coldbias leaderboard")
    assert cli.main(["report", str(real_run), "--output", str(rep)]) == 0
    assert cli.main(["leaderboard", str(real_run), "--output", str(lb)]) == 0
    assert victim.read_text() == "keep me"
    assert "ignored 1 entr" in capsys.readouterr().out


def test_leaderboard_into_a_report_folder_and_vice_versa_is_refused(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    rep, lb = tmp_path / "rep", tmp_path / "lb"
    assert cli.main(["report", str(real_run), "--output", str(rep)]) == 0
    assert cli.main(["leaderboard", str(real_run), "--output", str(lb)]) == 0
    before = {p.name: p.read_bytes() for p in rep.iterdir()}
    capsys.readouterr()
    assert cli.main(["leaderboard", str(real_run), "--output", str(rep)]) == 1
    err = capsys.readouterr().err
    assert "holds the output of 'coldbias report'" in err and "--output" in err
    assert cli.main(["report", str(real_run), "--output", str(lb)]) == 1
    assert "'coldbias leaderboard'" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in rep.iterdir()} == before


@pytest.mark.parametrize("where", ["root", "home", "above_home"])
def test_root_and_home_are_refused(tmp_path: Path, monkeypatch, where: str) -> None:
    home = tmp_path / "users" / "me"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    dest = {"root": Path("/"), "home": home, "above_home": home.parent}[where]

    def untouchable(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the refusal came too late: would write beside {dest}")

    monkeypatch.setattr(outputs, "_recover", untouchable)  # a regression writes nothing
    monkeypatch.setattr(outputs.tempfile, "mkdtemp", untouchable)
    with pytest.raises(OutputError, match="root or home folder"):
        _write(dest, {"a.txt": "x"})
    assert list(home.iterdir()) == []


def test_same_named_user_files_are_refused_with_the_fix(real_run: Path, tmp_path: Path, capsys):
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "report.html").write_text("my own page")
    assert cli.main(["report", str(real_run), "--output", str(rep)]) == 1
    err = capsys.readouterr().err
    assert "report.html" in err and "move them away" in err and "Nothing was written" in err
    assert (rep / "report.html").read_text() == "my own page"
    assert sorted(p.name for p in rep.iterdir()) == ["report.html"]


def test_bad_or_foreign_manifest_is_refused(tmp_path: Path) -> None:
    for text in ["not json", '{"files": ["a.txt"]}', '["a.txt"]']:
        dest = tmp_path / f"d{len(text)}"
        dest.mkdir()
        (dest / MANIFEST).write_text(text)
        with pytest.raises(OutputError, match="not a manifest coldbias wrote"):
            _write(dest, {"a.txt": "x"})
    fifo = tmp_path / "fifo_dest"
    fifo.mkdir()
    os.mkfifo(fifo / MANIFEST)
    with pytest.raises(OutputError, match="not a manifest coldbias wrote"):
        _write(fifo, {"a.txt": "x"})


def test_symlinked_subfolder_is_not_written_through(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dest = tmp_path / "out"
    _write(dest, {"top.txt": "1"})
    (dest / "plots").symlink_to(elsewhere)
    with pytest.raises(OutputError, match="outside the folder"):
        _write(dest, {"top.txt": "2", "plots/p.png": "png"})
    assert list(elsewhere.iterdir()) == [] and (dest / "top.txt").read_text() == "1"


def test_a_failure_partway_restores_every_old_file(tmp_path: Path, monkeypatch) -> None:
    dest = tmp_path / "out"
    _write(dest, {"a.txt": "old a", "b.txt": "old b", "c.txt": "old c", "stale.txt": "old s"})
    calls = []

    def failing(src: Path, dst: Path) -> None:
        calls.append(dst)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        os.replace(src, dst)

    monkeypatch.setattr(outputs, "_place", failing)
    with pytest.raises(OutputError, match="nothing was changed"):
        _write(dest, {"a.txt": "new a", "b.txt": "new b", "c.txt": "new c"})
    assert {p.name: p.read_text() for p in dest.iterdir() if p.name != MANIFEST} == {
        "a.txt": "old a", "b.txt": "old b", "c.txt": "old c", "stale.txt": "old s"
    }  # fmt: skip
    assert "stale.txt" in json.loads((dest / MANIFEST).read_text())["files"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary folder left


def test_stale_temporary_folders_are_cleaned_on_start(tmp_path: Path) -> None:
    """Only folders holding coldbias' marker for this destination, of a process that is gone
    (issue 31: names and ages are not proof of ownership)."""
    dest = tmp_path / "out"
    dead = tmp_path / ".out.999999999.abcd_123"
    old_style = tmp_path / ".out.zyxw9876"
    recent = tmp_path / ".out.recent12"
    mine = tmp_path / ".out.notmine"
    other_dest = tmp_path / ".out.999999999.other123"
    for folder in (dead, old_style, recent, mine, other_dest):
        folder.mkdir()
        (folder / "x.png").write_text("partial")
    os.utime(old_style, (1, 1))
    marker = {"pid": 999999999, "dest": str(dest.resolve()), "role": "new"}
    (dead / outputs.SCRATCH_MARKER).write_text(json.dumps(marker))
    (other_dest / outputs.SCRATCH_MARKER).write_text(json.dumps({**marker, "dest": "/elsewhere"}))
    alive = tmp_path / f".out.{os.getppid()}.live1234"  # a running process's folder
    alive.mkdir()
    (alive / outputs.SCRATCH_MARKER).write_text(json.dumps({**marker, "pid": os.getppid()}))
    _write(dest, {"a.txt": "x"})
    assert not dead.exists()
    assert old_style.exists() and recent.exists() and mine.exists() and alive.exists()
    assert other_dest.exists()


# --- 2. templates in a sandbox --------------------------------------------------------------

_BODY = "{{ user }} {% for t in items %}{{ t }}\n{% endfor %} pick {{ k }}"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}", "unsafe"),
        ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "unsafe"),
        ("{{ items.append(1) }}", "unsafe"),
        ("{% include '/etc/passwd' %}", "not a file of the template's own folder"),
        ("{% include '../victim.txt' %}", "not a file of the template's own folder"),
        ("{% include 'fifo.txt' %}", "not a file of the template's own folder"),
        ("{{ 9**9**9 }}", "power operator"),
        ("{{ 'x' * 10**3 * 10**6 }}", "not allowed"),
        ("{{ 'x' * 100000000 }}", "more than 10,000 times"),
        ("{{ 1 / 0 }}", "division by zero"),
        ("{% include 'self.jinja' %}", "recursion"),
    ],
)
def test_template_code_is_refused_and_runs_nothing(
    tmp_path: Path, monkeypatch, code: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "tpl"
    folder.mkdir()
    (tmp_path / "victim.txt").write_text("secret")
    os.mkfifo(folder / "fifo.txt")
    path = folder / "self.jinja"
    path.write_text(code + _BODY)
    with pytest.raises(TemplateError, match=message) as err:
        load_template(str(path))
    assert str(path) in str(err.value) and "Remove that part" in str(err.value)
    assert not (tmp_path / "PWNED").exists()


def test_template_includes_from_its_own_folder_work(tmp_path: Path) -> None:
    (tmp_path / "intro.txt").write_text("Hello from the intro.")
    path = tmp_path / "t.jinja"
    path.write_text("{% include 'intro.txt' %} " + _BODY)
    text = render_prompt(load_template(str(path)), "movie", ["Heat"], 1, "I am me.", False)
    assert text.startswith("Hello from the intro.") and "Heat" in text


def test_persona_phrases_and_titles_stay_literal_text() -> None:
    """Data is never compiled: Jinja in a title or user sentence is shown as typed."""
    evil = "{{ cycler.__init__.__globals__.os.popen('id').read() }}"
    titles = ["Heat", "{% for x in range(3) %}X{% endfor %}", evil]
    text = render_prompt(load_template(), "movie", titles, 2, f"I am {evil}.", False)
    assert text.count(evil) == 2 and titles[1] in text


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_template_that_is_not_a_regular_file_is_refused(tmp_path: Path, special: str) -> None:
    path = special
    if special == "fifo":
        path = str(tmp_path / "t.jinja")
        os.mkfifo(path)
    with pytest.raises(TemplateError, match="not a regular file"):
        load_template(path)


def test_huge_template_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.jinja"
    path.write_text(_BODY + " " * (2 << 20))
    with pytest.raises(TemplateError, match="more than the 1,048,576 coldbias reads"):
        load_template(str(path))


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
    lines[0] = json.dumps(sample)
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


# --- 6. special files, sizes, huge runs, settings: a message, never a traceback or a hang ----


def _special(tmp_path: Path, kind: str, name: str) -> Path:
    """A FIFO, a symlink to /dev/zero, or a sparse file beyond the limits, named ``name``."""
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        with path.open("wb") as fh:
            fh.truncate((1 << 30) + 1)  # sparse: no disk used
    return path


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
@pytest.mark.parametrize("name", ["c.jsonl", "c.csv", "c.json"])
def test_catalog_that_is_not_a_regular_file_or_too_big(tmp_path: Path, kind: str, name: str):
    path = _special(tmp_path, kind, name)
    message = "more than the 67,108,864" if kind == "huge" else "not a regular file"
    with pytest.raises(CatalogError, match=message):
        load_catalog(str(path))


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_persona_file_that_is_not_a_regular_file_or_too_big(tmp_path: Path, kind: str) -> None:
    path = _special(tmp_path, kind, "p.yaml")
    message = "more than the" if kind == "huge" else "not a regular file"
    with pytest.raises(PersonaError, match=message):
        load_personas(path)


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_samples_or_results_that_are_not_regular_files(
    real_run: Path, tmp_path: Path, capsys, kind: str
) -> None:
    for which in ("samples", "results"):
        run = tmp_path / f"{which}_{kind}"
        shutil.copytree(real_run, run)
        (path,) = run.rglob(f"{which}_*.json*")
        path.unlink()
        _special(path.parent, kind, path.name)
        assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
        err = capsys.readouterr().err
        assert str(path) in err and "Traceback" not in err, err
        assert ("more than the" if kind == "huge" else "not a regular file") in err


def test_huge_repeat_counts_need_the_setting(capsys) -> None:
    meta = {"coldbias_repeats": 10_000, "coldbias_n_items": 20, "coldbias_k": 3}
    with pytest.raises(SettingsError, match=r"coldbias_movie_gender: \d[\d,]+ requests") as err:
        build_docs("movie", "gender", "plain", meta)
    assert "h at 3.7 s per request" in str(err.value)
    assert "coldbias_max_requests" in str(err.value)
    argv = ["--tasks", "coldbias_movie_gender", "--metadata", json.dumps(meta)]
    assert cli.main(["eval", *argv]) == 1
    err_text = capsys.readouterr().err
    assert "requests" in err_text and "Traceback" not in err_text
    allowed = json.dumps({**meta, "coldbias_max_requests": 100_000})
    launch = prepare(["--tasks", "coldbias_movie_gender", "--metadata", allowed])
    assert any("requests" in n and " h at " in n for n in launch.notes)
    with pytest.raises(SettingsError, match="coldbias_reverse_movie_gender"):
        prepare(["--tasks", "coldbias_reverse_movie_gender", "--metadata", json.dumps(
            {"coldbias_repeats": 10_000})])  # fmt: skip


@pytest.mark.parametrize("seed", [2**70, -1, 2**63])
def test_out_of_range_seed_is_a_settings_error(seed: int, capsys) -> None:
    with pytest.raises(SettingsError, match=r"coldbias_seed.*0 … 2\*\*63 − 1"):
        Settings.from_metadata({"coldbias_seed": seed})
    argv = ["--tasks", "coldbias_movie_gender", "--metadata", json.dumps({"coldbias_seed": seed})]
    assert cli.main(["eval", *argv]) == 1
    assert "coldbias_seed" in capsys.readouterr().err


def test_persona_id_with_a_path_is_refused_before_lm_eval(tmp_path: Path, capsys) -> None:
    personas = tmp_path / "p.yaml"
    personas.write_text(USER_PERSONAS.replace("id: vegan", "id: ../../etc"))
    with pytest.raises(PersonaError, match=re.escape("'../../etc' must be letters, digits")):
        load_personas(personas)
    meta = json.dumps({"coldbias_personas": str(personas)})
    assert cli.main(["eval", "--tasks", "coldbias_movie_gender", "--metadata", meta]) == 1
    err = capsys.readouterr().err
    assert "../../etc" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"coldbias_template": "/dev/zero"}, "not a regular file"),
        ({"coldbias_catalog": "/dev/zero"}, "unsupported catalog format"),
        ({"coldbias_catalog": "FIFO.jsonl"}, "not a regular file"),
        ({"coldbias_personas": "/dev/zero"}, "not a regular file"),
        ({"coldbias_template": "EVIL.jinja"}, "unsafe"),
        ({"coldbias_template": "INCLUDE.jinja"}, "not a file of the template's own folder"),
    ],
)
def test_special_files_in_eval_settings_are_one_line(
    tmp_path: Path, capsys, meta: dict, message: str
) -> None:
    os.mkfifo(tmp_path / "FIFO.jsonl")
    (tmp_path / "EVIL.jinja").write_text("{{ cycler.__init__.__globals__.os }}" + _BODY)
    (tmp_path / "INCLUDE.jinja").write_text("{% include '/etc/passwd' %}" + _BODY)
    for name in ("FIFO.jsonl", "EVIL.jinja", "INCLUDE.jinja"):
        meta = {k: v.replace(name, str(tmp_path / name)) for k, v in meta.items()}
    argv = ["--tasks", "coldbias_movie_gender", "--metadata", json.dumps(meta)]
    assert cli.main(["eval", *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


# --- 3. taskgen ------------------------------------------------------------------------------


def test_taskgen_with_personas_needs_out(tmp_path: Path, capsys) -> None:
    personas = tmp_path / "p.yaml"
    personas.write_text("x: 1\n")
    before = sorted(p.name for p in tasks_dir().rglob("*.yaml"))
    with pytest.raises(SystemExit) as err:
        taskgen.main(["--personas", str(personas)])
    assert err.value.code == 2
    assert "--personas needs --out DIR" in capsys.readouterr().err
    assert sorted(p.name for p in tasks_dir().rglob("*.yaml")) == before
