"""Hostile files, round 4 (issue 31): samples checked against their task, only coldbias' own
scratch folders deleted, every field escaped, bounded reads, no traceback, refusals.

Everything works inside ``tmp_path``; commands that could hang on today's code run in a
subprocess with a timeout."""

from __future__ import annotations

import ast
import copy
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.app import cli
from coldbias_tasks.core.errors import ColdbiasError, PersonaError, RunError, SettingsError
from coldbias_tasks.core.files.jsonl import json_object
from coldbias_tasks.core.settings import Settings
from coldbias_tasks.core.vocabulary import ANSWER_KEY, is_value_id
from coldbias_tasks.core.world.personas import load_personas
from tests import seed_fixture as fx

ROOT = Path(__file__).resolve().parents[1]
DEEP = "[" * 100_000 + "]" * 100_000
SHALLOW = "[" * 5_000 + "]" * 5_000  # deep enough, short enough for a command line


def run_cli(
    *argv: str, timeout: float = 120, env: dict | None = None
) -> subprocess.CompletedProcess:
    """``coldbias ARGV`` in a subprocess of this checkout (a hang fails the test)."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    cmd = [sys.executable, "-m", "coldbias_tasks", *argv]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=environ)


def _one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode not in (0,), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


# --- 4. bounded reads ------------------------------------------------------------------------


def _bomb(levels: int = 9) -> str:
    text = 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    for i in range(1, levels + 1):
        text += f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n"
    return text


@pytest.mark.parametrize("where", ["version", "label"])
def test_yaml_alias_bomb_in_a_persona_file_is_refused_fast(tmp_path: Path, where: str) -> None:
    base = (ROOT / "data" / "personas.yaml").read_text()
    if where == "version":
        text = _bomb() + base.replace("version:", "version: *a9\nold_version:", 1)
    else:
        text = _bomb() + base
    path = tmp_path / "p.yaml"
    path.write_text(text)
    start = time.perf_counter()
    with pytest.raises(PersonaError, match="alias bomb"):
        load_personas(str(path))
    assert time.perf_counter() - start < 1.0


def test_yaml_alias_bomb_in_a_metric_declaration_is_refused(tmp_path: Path) -> None:
    from coldbias_tasks.analysis.presentation import load_presentation as load_declarations

    path = tmp_path / "metrics.yaml"
    lines = [
        f"- name: m{i}\n  label: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]"
        for i in range(1, 10)
    ]
    path.write_text("- name: m0\n  label: &a0 [lol, lol]\n" + "\n".join(lines) + "\n")
    start = time.perf_counter()
    with pytest.raises(SettingsError, match="alias bomb"):
        load_declarations(path)
    assert time.perf_counter() - start < 1.0


def test_deep_yaml_and_json_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("version: " + DEEP)
    with pytest.raises(PersonaError, match="levels deep"):
        load_personas(str(path))
    with pytest.raises(RunError, match="levels deep"):
        json_object('{"a": ' + DEEP + "}", RunError, "here", "fix it")
    assert json_object('{"a": "[[[[[[[[[[" }', RunError, "here", "fix")  # brackets in text


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ('{"coldbias_alpha": 1' + "0" * 400 + "}", "401 digits"),
        ('{"coldbias_k": 1' + "0" * 400 + "}", "401 digits"),
        ('{"coldbias_k": 1' + "0" * 5000 + "}", "unreadable JSON"),
        ('{"coldbias_k": ' + DEEP + "}", "levels deep"),
    ],
)
def test_hostile_metadata_is_one_line(capsys, metadata: str, message: str) -> None:
    code = cli.main(["eval", "--tasks", "coldbias_movie_gender", "--metadata", metadata])
    err = capsys.readouterr().err
    assert code == 1 and message in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1


def test_huge_setting_numbers_are_refused_before_arithmetic() -> None:
    for key in ("coldbias_alpha", "coldbias_repeats", "coldbias_seed"):
        with pytest.raises(SettingsError, match="beyond 2\\*\\*63"):
            Settings.from_metadata({key: 10**400})


@pytest.mark.parametrize("kind", ["catalog", "samples", "eee"])
def test_deep_catalog_samples_line_and_eee_record(tmp_path: Path, capsys, kind: str) -> None:
    if kind == "catalog":
        from coldbias_tasks.core.world.catalog import load_catalog

        for name in ("c.json", "c.jsonl"):
            (tmp_path / name).write_text(DEEP + "\n")
            with pytest.raises(ColdbiasError, match="levels deep"):
                load_catalog(str(tmp_path / name))
        return
    run = tmp_path / "run" / "m"
    run.mkdir(parents=True)
    stamp = "2025-01-01T00-00-00.000000"
    results = {"results": {"coldbias_movie_gender": {}}, "configs": {}}
    (run / f"results_{stamp}.json").write_text(json.dumps(results))
    if kind == "samples":
        (run / f"samples_coldbias_movie_gender_{stamp}.jsonl").write_text(DEEP + "\n")
        assert cli.main(["report", str(tmp_path / "run"), "--output", str(tmp_path / "r")]) == 1
    else:
        (tmp_path / "run" / "eee.json").write_text(
            '{"schema_version": "0.1", "model_info": {}, "evaluation_results": ' + DEEP + "}"
        )
        cli.main(["leaderboard", str(tmp_path / "run"), "--output", str(tmp_path / "lb")])
    err = capsys.readouterr().err
    assert "levels deep" in err and "Traceback" not in err, err


def test_fifo_as_a_tokenizer_config_is_refused_not_read(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.mkdir()
    os.mkfifo(model / "tokenizer_config.json")
    proc = run_cli(
        "eval", "--model", "hf", "--model_args", f"pretrained={model}",
        "--tasks", "coldbias_movie_gender", timeout=60,
    )  # fmt: skip
    _one_line_error(proc, "not a regular file")


def test_truncated_tokenizer_config_is_one_line(tmp_path: Path, capsys) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "tokenizer_config.json").write_text('{"chat_template": "{{ x }}')
    argv = ["--model", "hf", "--model_args", f"pretrained={model}", "--tasks", "coldbias_movie"]
    assert cli.main(["eval", *argv]) == 1
    err = capsys.readouterr().err
    assert "tokenizer_config.json: malformed JSON" in err and "Traceback" not in err, err


# --- seed-study clones -----------------------------------------------------------------------


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return fx.write_fixture(tmp_path / "clone")


def test_fifo_as_a_seed_study_file_is_refused_not_read(clone: Path, tmp_path: Path) -> None:
    target = clone / "data" / "datasets" / "movie.json"
    target.unlink()
    os.mkfifo(target)
    proc = run_cli("import-seed-study", str(clone), "--output", str(tmp_path / "o"), timeout=60)
    _one_line_error(proc, "not a regular file")


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        ("config/sensitive_attributes.json", '["gender", "age"]', "group → list of values"),
        ("config/config_inference", "[parameters]\nseeds = zero, one\n", "seeds = 'zero, one'"),
        ("config/config_inference", "seeds = 1\n", "not an INI file"),
    ],
)
def test_malformed_seed_study_clone_is_one_line(
    clone: Path, tmp_path: Path, capsys, file: str, text: str, message: str
) -> None:
    (clone / file).write_text(text)
    assert cli.main(["import-seed-study", str(clone), "--output", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


def test_seed_study_output_naming_a_file_is_one_line(clone: Path, tmp_path: Path, capsys):
    (tmp_path / "file").write_text("mine")
    assert cli.main(["import-seed-study", str(clone), "--output", str(tmp_path / "file")]) == 1
    err = capsys.readouterr().err
    assert "a file, not a folder" in err and (tmp_path / "file").read_text() == "mine"


# --- 5. no traceback -------------------------------------------------------------------------


def test_an_unexpected_error_is_one_line_with_a_log_file(monkeypatch, capsys) -> None:
    from coldbias_tasks.app import commands

    def broken(argv: list[str]) -> int:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(commands, "templates_command", broken)
    assert cli.main(["templates"]) == 3
    err = capsys.readouterr().err
    assert "unexpected error (ZeroDivisionError: a bug)" in err and "Traceback" not in err
    log = Path(err.split("the traceback is in ")[1].split(";")[0])
    assert "Traceback" in log.read_text() and "ZeroDivisionError" in log.read_text()
    log.unlink()


def test_doctor_without_a_home_folder_is_one_line(monkeypatch, capsys) -> None:
    from coldbias_tasks.app import models

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("COLDBIAS_CACHE", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    with pytest.raises(ColdbiasError, match="set HOME, or COLDBIAS_CACHE"):
        models.cache_dir()
    assert cli.main(["doctor", "--no-probe"]) == 1
    err = capsys.readouterr().err
    assert "set HOME" in err and "Traceback" not in err, err


def test_a_full_disk_during_the_report_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    from coldbias_tasks.app.outputs import OutputFolder

    with (
        pytest.raises(ColdbiasError, match="No space left"),
        OutputFolder(tmp_path / "out", "coldbias report"),
    ):
        raise OSError(28, "No space left on device")
    assert [p.name for p in tmp_path.iterdir()] == []


# --- 1. samples checked against their task ---------------------------------------------------

TASK = "coldbias_movie_gender"
SMALL = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder of two tasks written by lm-eval's own evaluator."""
    from tests.synthetic import SyntheticRecommender, run_synthetic

    out = tmp_path_factory.mktemp("run") / "out"
    run_synthetic(
        SyntheticRecommender(seed=2), [TASK, "coldbias_music_gender"], SMALL, output_path=out
    )
    return out


def _copy(real_run: Path, dest: Path) -> Path:
    shutil.copytree(real_run, dest)
    return dest


def _samples(run: Path, task: str = TASK) -> Path:
    (path,) = run.rglob(f"samples_{task}_*.jsonl")
    return path


def _edit(run: Path, edit) -> Path:
    path = _samples(run)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    edit(lines)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _set_persona(line: dict, persona: str) -> None:
    line["doc"]["persona_id"] = persona
    payload = line[ANSWER_KEY]
    payload = ast.literal_eval(payload) if isinstance(payload, str) else payload
    payload["persona_id"] = persona
    line[ANSWER_KEY] = payload


def _values(lines: list[dict]) -> list[int]:
    return [i for i, line in enumerate(lines) if is_value_id(line["doc"]["persona_id"])]


def _swap_personas(lines: list[dict]) -> None:
    first = _values(lines)[0]
    repeat, persona = lines[first]["doc"]["repeat"], lines[first]["doc"]["persona_id"]
    other = next(
        i for i in _values(lines)
        if lines[i]["doc"]["repeat"] == repeat and lines[i]["doc"]["persona_id"] != persona
    )  # fmt: skip
    _set_persona(lines[first], lines[other]["doc"]["persona_id"])
    _set_persona(lines[other], persona)


def _extra_persona(lines: list[dict]) -> None:
    extra = copy.deepcopy(lines[_values(lines)[-1]])
    _set_persona(extra, "gender.martian")
    lines.append(extra)


def _duplicate(lines: list[dict]) -> None:
    lines.append(copy.deepcopy(lines[_values(lines)[0]]))


def _outside_catalog(lines: list[dict]) -> None:
    for line in lines:  # the same edit everywhere: the items still agree between documents
        shown = line["doc"]["shown_ids"]
        shown[shown.index(max(shown))] = 100_000


def _other_seed(lines: list[dict]) -> None:
    lines[4]["doc"]["seed"] = 99


def _other_group(lines: list[dict]) -> None:
    lines[2]["doc"]["attribute_group"] = "age"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_swap_personas, "' says "),
        (_extra_persona, "'gender.martian' repeat"),
        (_duplicate, "logged twice"),
        (_outside_catalog, ("outside catalog 'movie'", "does not fit its prompt")),
        (_other_seed, "seed 99 differs from line 1"),
        (_other_group, "group 'age'"),
    ],
)
def test_samples_that_do_not_fit_their_task_are_refused(
    real_run: Path, tmp_path: Path, capsys, edit, message: str | tuple[str, ...]
) -> None:
    """(A shown id outside the catalog is refused by whichever check meets it first: the
    catalog check, or an answer that names an item its prompt no longer shows.)"""
    run = _copy(real_run, tmp_path / "run")
    path = _edit(run, edit)
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    messages = (message,) if isinstance(message, str) else message
    assert f"{path}, line " in err and any(m in err for m in messages), err
    assert "Traceback" not in err, err
    assert not (tmp_path / "rep").exists()


@pytest.mark.parametrize("edit", [_extra_persona, _duplicate, _outside_catalog])
def test_the_loader_refuses_without_rebuilding_too(real_run: Path, tmp_path: Path, edit) -> None:
    """A library caller without ``LoadOptions.documents``: the checks from the persona file,
    the catalog and the documents' agreement still hold."""
    run = _copy(real_run, tmp_path / "run")
    _edit(run, edit)
    with pytest.raises(RunError, match="line "):
        load_folder(run)


def test_samples_of_another_task_copied_over_are_refused(real_run: Path, tmp_path: Path, capsys):
    run = _copy(real_run, tmp_path / "run")
    shutil.copy(_samples(run, "coldbias_music_gender"), _samples(run))
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert "line 1: a document of domain 'music'" in err and f"samples of {TASK}" in err, err


def test_the_leaderboard_skips_a_bad_run_and_keeps_the_others(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    good = _copy(real_run, tmp_path / "good")
    bad = _copy(real_run, tmp_path / "bad")
    shutil.copy(_samples(bad, "coldbias_music_gender"), _samples(bad))
    (results,) = bad.rglob("results_*.json")
    data = json.loads(results.read_text())
    data["model_name"] = "other/model"
    results.write_text(json.dumps(data))
    broken = _copy(real_run, tmp_path / "broken")
    (results,) = broken.rglob("results_*.json")
    results.write_text(json.dumps({**json.loads(results.read_text()), "config": []}))
    lb = tmp_path / "lb"
    assert cli.main(["leaderboard", str(good), str(bad), str(broken), "--output", str(lb)]) == 0
    err = capsys.readouterr().err
    assert "a document of domain 'music'" in err and "'config' is list" in err, err
    assert "Traceback" not in err
    assert len(pd.read_csv(lb / "leaderboard_wide.csv")) == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("config", []),
        ("configs", {TASK: []}),
        ("configs", {TASK: {"metadata": [1]}}),
        ("results", {TASK: "x"}),
        ("n-samples", {TASK: 3}),
        ("model_name", ["a"]),
    ],
)
def test_results_fields_of_the_wrong_type_are_one_line(
    real_run: Path, tmp_path: Path, capsys, field: str, value: object
) -> None:
    run = _copy(real_run, tmp_path / "run")
    (results,) = run.rglob("results_*.json")
    results.write_text(json.dumps({**json.loads(results.read_text()), field: value}))
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert "not an lm-eval results file" in err and "Traceback" not in err, err


# --- 2. only what coldbias made is deleted; a kill never leaves a mix -----------------------


def test_folders_beside_the_output_named_like_scratch_are_kept(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    """`coldbias leaderboard R --output leaderboard` kept .leaderboard.previous/ (issue 31)."""
    mine = [tmp_path / ".leaderboard.previous", tmp_path / ".leaderboard.archived"]
    for folder in mine:
        folder.mkdir()
        (folder / "notes.txt").write_text("my notes")
        os.utime(folder, (1, 1))
    dead = tmp_path / ".leaderboard.999999999.abcdefgh"  # a dead process id, no marker
    dead.mkdir()
    argv = ["leaderboard", str(real_run), "--output", str(tmp_path / "leaderboard")]
    assert cli.main(argv) == 0 and cli.main(argv) == 0
    assert all((f / "notes.txt").read_text() == "my notes" for f in mine) and dead.exists()


_KILL = """
import os, signal, sys
from coldbias_tasks.app import outputs
from coldbias_tasks.app.outputs import OutputFolder
calls = []
def place(src, dst):
    calls.append(dst)
    if len(calls) == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)
    os.replace(src, dst)
outputs._place = place
with OutputFolder(sys.argv[1], "test") as tmp:
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp / name).write_text("new " + name)
"""


@pytest.mark.parametrize("at", [1, 2, 3, 4])
def test_a_kill_during_the_swap_is_rolled_back_by_the_next_run(tmp_path: Path, at: int):
    from coldbias_tasks.app.outputs import MANIFEST, OutputFolder

    dest = tmp_path / "out"
    with OutputFolder(dest, "test") as tmp:
        for name in ("a.txt", "b.txt", "c.txt", "old_only.txt"):
            (tmp / name).write_text("old " + name)
    (dest / "user.txt").write_text("mine")
    before = {p.name: p.read_text() for p in dest.iterdir()}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", _KILL, str(dest), str(at)], env=env, timeout=60, check=False
    )
    assert proc.returncode == -9
    with OutputFolder(dest, "test"):  # the next run recovers first
        recovered = {p.name: p.read_text() for p in dest.iterdir()}
        assert "old_only.txt" in json.loads((dest / MANIFEST).read_text())["files"]
        assert len(list(tmp_path.iterdir())) == 2  # the output and this run's scratch folder
    assert recovered == before


# --- 3. every field escaped where it is rendered ---------------------------------------------

EVIL = '<img src=x onerror="alert(1)">'


def _set_results(run: Path, edit) -> None:
    (results,) = run.rglob("results_*.json")
    data = json.loads(results.read_text())
    edit(data)
    results.write_text(json.dumps(data))


def test_report_html_escapes_version_template_and_language(
    real_run: Path, tmp_path: Path, capsys
) -> None:
    run = _copy(real_run, tmp_path / "run")

    def versions(data: dict) -> None:
        data["versions"][TASK] = EVIL
        data["configs"][TASK]["metadata"]["version"] = "3.1"  # another version: no rebuild

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


# --- 6. refuse what cannot be right ----------------------------------------------------------


@pytest.mark.parametrize("title", ["Heat\nAlien", "Heat\r", "Heat\u2028Part 2", "Up\x07"])
def test_titles_with_line_breaks_or_control_characters_are_refused(
    tmp_path: Path, title: str
) -> None:
    from coldbias_tasks.core.errors import CatalogError
    from coldbias_tasks.core.world.catalog import load_catalog

    path = tmp_path / "c.jsonl"
    rows = [{"title": t} for t in ("Jaws", title, "Alien 2")]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(CatalogError, match=r"line 2.*line break or control character"):
        load_catalog(str(path))


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        (("vegan", "vеgan"), "mixes Cyrillic and Latin"),  # Cyrillic е
        (("pop", "рор"), "look alike"),  # all Cyrillic
        (("vegan", "ｖegan"), "NFKC"),  # fullwidth v
        (("vegan", "Vegan"), "look alike"),
    ],
)
def test_confusable_value_ids_are_refused(tmp_path: Path, ids: tuple[str, str], message: str):
    from tests.test_bad_input import USER_PERSONAS

    text = USER_PERSONAS.replace("id: vegan", f"id: {ids[0]}").replace(
        "id: omnivore", f"id: {ids[1]}"
    )
    assert ids[0] in text and ids[1] in text
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PersonaError, match=message) as err:
        load_personas(path)
    assert str(path) in str(err.value)


def test_the_built_in_persona_file_has_no_confusable_ids() -> None:
    load_personas(None)


@pytest.mark.parametrize("where", ["home", "root", "file"])
def test_taskgen_refuses_root_home_and_a_file(tmp_path: Path, monkeypatch, capsys, where: str):
    from coldbias_tasks.lmeval import taskgen

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "file").write_text("mine")
    out = {"home": "~", "root": "/", "file": str(tmp_path / "file")}[where]
    with pytest.raises(SystemExit) as err:
        taskgen.main(["--personas", str(ROOT / "data" / "personas.yaml"), "--out", out])
    assert err.value.code == 2
    assert "--out" in capsys.readouterr().err
    assert list(home.iterdir()) == [] and (tmp_path / "file").read_text() == "mine"


def test_taskgen_with_a_bad_persona_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "p.yaml"
    bad.write_text("version: [\n")
    cmd = [sys.executable, "-m", "coldbias_tasks.lmeval.taskgen", "--personas", str(bad)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [*cmd, "--out", str(tmp_path / "o")], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert str(bad) in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


# --- 5. every subcommand with hostile input: no traceback ------------------------------------


def _hostile_inputs(tmp: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    """subcommand → (argv, environment) with hostile input."""
    deep_run = tmp / "deep" / "m"
    deep_run.mkdir(parents=True)
    (deep_run / "results_2025-01-01T00-00-00.000000.json").write_text('{"results": ' + DEEP + "}")
    bad_run = tmp / "bad" / "m"
    bad_run.mkdir(parents=True)
    (bad_run / "results_2025-01-01T00-00-00.000000.json").write_text(
        json.dumps({"results": {"coldbias_movie_gender": {}}, "config": []})
    )
    clone = fx.write_fixture(tmp / "clone")
    (clone / "config" / "sensitive_attributes.json").unlink()
    os.mkfifo(clone / "config" / "sensitive_attributes.json")
    (tmp / "file").write_text("x")
    return {
        "eval": (["--tasks", "coldbias_movie_gender", "--metadata", '{"a": ' + SHALLOW + "}"], {}),
        "demo": (["--backend", "hf"], {"COLDBIAS_CACHE": str(tmp / "file" / "cache")}),
        "doctor": (["--no-probe"], {"COLDBIAS_CACHE": "", "HOME": str(tmp / "gone")}),
        "tasks-dir": (["--what"], {}),
        "templates": (["--json", "--nonsense"], {}),
        "report": ([str(tmp / "deep"), "--output", str(tmp / "rep")], {}),
        "leaderboard": ([str(tmp / "bad"), "--output", str(tmp / "file")], {}),
        "import-seed-study": ([str(clone), "--output", str(tmp / "seed")], {}),
        "no-such-command": ([], {}),
    }


@pytest.mark.parametrize(
    "command",
    ["eval", "demo", "doctor", "tasks-dir", "templates", "report", "leaderboard",
     "import-seed-study", "no-such-command"],
)  # fmt: skip
def test_every_subcommand_with_hostile_input_prints_no_traceback(tmp_path: Path, command: str):
    argv, env = _hostile_inputs(tmp_path)[command]
    proc = run_cli(command, *argv, timeout=180, env=env)
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-2000:]
    if command not in ("tasks-dir", "doctor"):
        assert proc.returncode != 0, proc.stdout[-500:]


def test_a_fifo_among_the_include_path_yamls_is_skipped(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    os.mkfifo(tasks / "pipe.yaml")
    (tasks / "mine.yaml").write_text("task: my_task\n")
    code = (
        "from coldbias_tasks.app.launch import task_names; import sys; "
        "print(sorted(task_names(sys.argv[1])))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tasks)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.stdout.strip() == "['my_task']", proc.stderr


def test_every_task_kind_passes_the_check(tmp_path: Path, capsys) -> None:
    """No false refusal: intersection, implicit, context, mitigation, placebo and reverse tasks
    of a run of this version equal their rebuilt documents."""
    from tests.synthetic import SyntheticRecommender, run_synthetic

    tasks = [
        "coldbias_movie_gender_x_age", "coldbias_movie_implicit_gender",
        "coldbias_music_context_gender", "coldbias_movie_mitigation_age",
        "coldbias_movie_placebo", "coldbias_reverse_movie_gender",
    ]  # fmt: skip
    meta = {**SMALL, "coldbias_order": "fixed", "coldbias_seed": 7}
    run_synthetic(SyntheticRecommender(seed=3), tasks, meta, output_path=tmp_path / "run")
    assert cli.main(["report", str(tmp_path / "run"), "--output", str(tmp_path / "rep")]) == 0, (
        capsys.readouterr().err
    )


def test_ids_swapped_in_one_repeat_are_refused_without_rebuilding(real_run: Path, tmp_path: Path):
    run = _copy(real_run, tmp_path / "run")
    _edit(run, _swap_personas)
    with pytest.raises(RunError, match="' says "):
        load_folder(run)


def test_a_deeply_nested_manifest_is_refused_not_a_crash(tmp_path: Path) -> None:
    from coldbias_tasks.app.outputs import MANIFEST, OutputFolder
    from coldbias_tasks.core.errors import OutputError

    dest = tmp_path / "out"
    dest.mkdir()
    (dest / MANIFEST).write_text('{"files": ' + DEEP + "}")
    with pytest.raises(OutputError, match="not a manifest coldbias wrote"), OutputFolder(dest, "t"):
        pass


@pytest.mark.parametrize("value", [10**30, "three", True])
def test_unreadable_recorded_settings_refuse_the_task(
    real_run: Path, tmp_path: Path, capsys, value: object
) -> None:
    """An edited setting must not switch the checks off."""
    run = _copy(real_run, tmp_path / "run")

    def edit(data: dict) -> None:
        data["configs"][TASK]["metadata"]["coldbias_k"] = value

    _set_results(run, edit)
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert f"results config of {TASK}: its recorded settings cannot be read" in err, err


def test_reverse_samples_of_another_group_copied_over_are_refused(tmp_path: Path, capsys):
    from tests.synthetic import SyntheticRecommender, run_synthetic

    tasks = ["coldbias_reverse_movie_gender", "coldbias_reverse_movie_religion"]
    meta = {**SMALL, "coldbias_items": 4}
    run_synthetic(SyntheticRecommender(seed=3), tasks, meta, output_path=tmp_path / "run")
    run = tmp_path / "run"
    shutil.copy(_samples(run, tasks[1]), _samples(run, tasks[0]))
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert "line 1: a document of domain 'movie', group 'religion'" in err, err


def test_a_big_yaml_file_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("version: 2\nnotes: [" + "1, " * 2_000_000 + "1]\n")
    start = time.perf_counter()
    with pytest.raises(PersonaError, match="more than the 4,194,304"):
        load_personas(path)
    assert time.perf_counter() - start < 1.0
