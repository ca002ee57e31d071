"""No silently wrong number: every bad input gives a clear error (what, where, the fix) or an
explicit warning wherever the number is shown. Settings, catalogs, templates, persona files,
incomplete and duplicated runs, output folders; a property test over truncated samples."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coldbias_tasks.analysis.pooling import pool_runs
from coldbias_tasks.analysis.run_data import LoadOptions
from coldbias_tasks.analysis.run_files import load_folder
from coldbias_tasks.app import cli
from coldbias_tasks.app.outputs import MANIFEST
from coldbias_tasks.core.errors import (
    CatalogError,
    PersonaError,
    RunError,
    SettingsError,
    TemplateError,
)
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.prompting.documents import build_docs
from coldbias_tasks.core.settings import Settings
from coldbias_tasks.core.world.catalog import load_catalog
from coldbias_tasks.core.world.personas import load_personas
from coldbias_tasks.lmeval import taskgen
from tests.synthetic import SyntheticRecommender, run_synthetic

SMALL = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}

# --- 1. strict settings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"coldbias_kk": 5}, "did you mean 'coldbias_k'"),
        ({"coldbias_catalogue": "x.csv"}, "did you mean 'coldbias_catalog'"),
        ({"coldbias_k": 1.5}, "coldbias_k=1.5: must be a whole number"),
        ({"coldbias_k": True}, "coldbias_k=True: must be a whole number"),
        ({"coldbias_repeats": "5"}, "coldbias_repeats='5': must be a whole number"),
        ({"coldbias_k": 0}, "coldbias_k"),
        ({"coldbias_controls": 2}, "coldbias_controls: no longer a setting"),
        ({"coldbias_phrasings": 1}, "coldbias_phrasings=1: must be 0 (all) or ≥ 2"),
        ({"coldbias_alpha": 1.5}, "coldbias_alpha"),
        ({"coldbias_order": "random"}, "'shuffle' or 'fixed'"),
    ],
)
def test_bad_settings_name_key_value_and_fix(metadata: dict, message: str) -> None:
    with pytest.raises(SettingsError, match="--metadata") as err:
        Settings.from_metadata(metadata)
    assert message in str(err.value)


def test_k_and_n_items_checked_against_the_real_catalog(tmp_path: Path) -> None:
    tiny = tmp_path / "tiny.json"
    tiny.write_text('["Heat", "Alien", "Up"]')
    with pytest.raises(SettingsError, match=r"only 3 items are shown.*coldbias_k ≤ 3"):
        build_docs("movie", "gender", "plain", {"coldbias_catalog": str(tiny)})
    with pytest.raises(SettingsError, match="has only 3 items; use coldbias_n_items ≤ 3"):
        build_docs(
            "movie", "gender", "plain",
            {"coldbias_catalog": str(tiny), "coldbias_k": 2, "coldbias_n_items": 5},
        )  # fmt: skip
    docs = build_docs(
        "movie", "gender", "plain",
        {"coldbias_catalog": str(tiny), "coldbias_k": 2, "coldbias_n_items": 3},
    )  # fmt: skip
    assert all(len(d.shown_ids) == 3 for d in docs)


# --- catalogs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("latin1.csv", b"title\n\xe9t\xe9\n", "not UTF-8 text"),
        ("latin1.json", b'["\xe9t\xe9"]', "not UTF-8 text"),
        ("quote.csv", b'title,year\n"Heat,1995\nAlien,1979\n', "not a readable CSV"),
        ("empty.csv", b"", "not a readable CSV"),
        ("bad.jsonl", b'{"title": "Heat"}\n{"title": \n', "line 2"),
    ],
)
def test_unreadable_catalog_files_name_the_file(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(CatalogError, match=message) as err:
        load_catalog(str(path))
    assert str(path) in str(err.value)


# --- 2. template contract --------------------------------------------------------------------

LIST = "{% for t in items %}{{ t }}\n{% endfor %}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Recommend {{ k }} of:\n" + LIST, "lacks the user sentence"),
        ("{{ user }} wants {{ k }} items.", "lacks the title"),
        ("{{ user }}: pick some of\n" + LIST, "k ({{ k }})"),
        ("   \n", "is empty"),
        ("{{ user }} {{ k }}\n" + LIST + "{{ colour }}", "'colour' is undefined"),
        ("{{ user }\n", "line 1"),
    ],
)
def test_templates_that_cannot_measure_are_refused(tmp_path: Path, text: str, message: str):
    path = tmp_path / "t.jinja"
    path.write_text(text)
    with pytest.raises(TemplateError, match="prompt template") as err:
        build_docs("movie", "gender", "plain", {**SMALL, "coldbias_template": str(path)})
    assert message in str(err.value) and str(path) in str(err.value)


def test_unknown_template_name_lists_the_built_ins() -> None:
    with pytest.raises(TemplateError, match="lines, numbered, json, user_first"):
        build_docs("movie", "gender", "plain", {**SMALL, "coldbias_template": "fancy"})


# --- 3. user personas ------------------------------------------------------------------------

USER_PERSONAS = """version: 2
groups:
  diet:
    label: diet
    values:
      - {id: vegan, phrase: a vegan}
      - {id: omnivore, phrase: someone who eats everything}
"""


def test_user_persona_file_through_taskgen_and_lm_eval(tmp_path: Path) -> None:
    personas = tmp_path / "personas.yaml"
    personas.write_text(USER_PERSONAS)
    out = tmp_path / "tasks"
    assert taskgen.main(["--personas", str(personas), "--out", str(out)]) == 0
    assert (out / "movie" / "coldbias_movie_diet.yaml").is_file()
    meta = {**SMALL, "coldbias_personas": str(personas)}
    results = run_synthetic(
        SyntheticRecommender(seed=1), ["coldbias_movie_diet"], meta, include_path=out
    )
    samples = results["samples"]["coldbias_movie_diet"]
    ids = {s["doc"]["value"] for s in samples}
    assert {"diet.vegan", "diet.omnivore", "neutral"} <= ids
    assert any("I am a vegan" in s["doc"]["prompt"] for s in samples)
    # a layout-2 file (one phrase per value) gets one form in each of the English frames
    assert any("I'd describe myself as a vegan" in s["doc"]["prompt"] for s in samples)
    assert math.isfinite(results["results"]["coldbias_movie_diet"]["iou_disparity,ranked"])
    # without the file in --metadata the group is unknown, and the error says where to add it
    with pytest.raises(PersonaError, match="diet"):
        build_docs("movie", "diet", "plain", SMALL)
    # a user file without a context phrase: the context variant adds the domain file's
    docs = build_docs("movie", "diet", "context", meta)
    assert docs[-1].user.endswith(". I am an action movie fan.")
    # ... and its own `context:` replaces the domain's English phrase
    mine = tmp_path / "mine.yaml"
    mine.write_text(USER_PERSONAS + "context:\n  movie: a horror fan\n")
    docs = build_docs("movie", "diet", "context", {**meta, "coldbias_personas": str(mine)})
    assert docs[0].user == "I am a horror fan."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (USER_PERSONAS + "  diet:\n    values: []\n", "line 8"),  # group defined twice
        (USER_PERSONAS.replace(", phrase: a vegan", ""), "phrase"),
        (USER_PERSONAS.replace("      - {id: vegan", "     - {id: vegan"), "line"),  # syntax
        (USER_PERSONAS.replace("version: 2", "version: 1"), "version"),
        (USER_PERSONAS + "extras: 1\n", "unknown top-level key"),
    ],
)
def test_bad_persona_files_name_file_and_problem(tmp_path: Path, text: str, message: str):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(PersonaError, match=message) as err:
        load_personas(path)
    assert str(path) in str(err.value)


# --- 4–5. completeness and double counting ---------------------------------------------------

TASK = "coldbias_movie_gender"


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder written by lm-eval's own evaluator (synthetic answers)."""
    out = tmp_path_factory.mktemp("run") / "out"
    run_synthetic(SyntheticRecommender(seed=2), [TASK], SMALL, output_path=out)
    return out


def _samples_file(folder: Path) -> Path:
    (path,) = folder.rglob(f"samples_{TASK}_*.jsonl")
    return path


def _copy(run: Path, dest: Path) -> Path:
    shutil.copytree(run, dest)
    return dest


def test_deleted_line_is_refused_then_reported_partial(real_run: Path, tmp_path: Path, capsys):
    run = _copy(real_run, tmp_path / "run")
    path = _samples_file(run)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:5] + lines[6:]))
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert "incomplete" in err and "--allow-partial" in err and "rerun" in err
    assert not (tmp_path / "rep").exists()
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep"), "--allow-partial"]) == 0
    shown = capsys.readouterr()
    assert "WARNING" in shown.out and "reported as partial" in shown.out
    groups = pd.read_csv(tmp_path / "rep" / "groups.csv")
    assert groups.partial.str.startswith("PARTIAL").all()
    assert "PARTIAL" in (tmp_path / "rep" / "report.html").read_text()
    assert cli.main(["leaderboard", str(run), "--output", str(tmp_path / "lb")]) == 1
    assert cli.main(
        ["leaderboard", str(run), "--output", str(tmp_path / "lb"), "--allow-partial"]
    ) == 0  # fmt: skip
    assert "PARTIAL" in (tmp_path / "lb" / "leaderboard.md").read_text()


def test_missing_samples_file_is_refused(real_run: Path, tmp_path: Path, capsys) -> None:
    run = _copy(real_run, tmp_path / "run")
    _samples_file(run).unlink()
    assert cli.main(["report", str(run), "--output", str(tmp_path / "rep")]) == 1
    assert TASK in capsys.readouterr().err


def test_a_copied_run_is_pooled_once(real_run: Path, tmp_path: Path, capsys) -> None:
    a = _copy(real_run, tmp_path / "a")
    b = _copy(real_run, tmp_path / "b")
    models = pool_runs([*load_folder(a), *load_folder(b)])
    single = pool_runs(load_folder(a))
    assert len(models) == 1
    assert len(models[0].tasks[TASK].records) == len(single[0].tasks[TASK].records)
    assert any("same answers" in m for m in models[0].warnings)
    assert cli.main(["leaderboard", str(a), str(b), "--output", str(tmp_path / "lb")]) == 0
    shown = capsys.readouterr()
    assert "same answers" in shown.err and "used once" in shown.err
    other = tmp_path / "seed3"
    run_synthetic(SyntheticRecommender(seed=3), [TASK], {**SMALL, "coldbias_seed": 99}, other)
    pooled = pool_runs([*load_folder(a), *load_folder(other)])
    assert len(pooled[0].tasks[TASK].records) == 2 * len(single[0].tasks[TASK].records)


# --- 6. atomic, clean outputs ----------------------------------------------------------------


def test_unwritable_output_is_one_clear_line(real_run: Path, tmp_path: Path, capsys) -> None:
    """An output path under a file (unwritable for anyone, root included) and a read-only
    folder (when not root): exit 1, one line naming the path, no traceback."""
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    targets = [blocker / "out", blocker]
    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() != 0:
        locked.chmod(0o500)
        targets.append(locked / "out")
    try:
        for command in ("report", "leaderboard"):
            for target in targets:
                code = cli.main([command, str(real_run), "--output", str(target)])
                err = capsys.readouterr().err
                assert code == 1 and "Traceback" not in err, err
                assert str(target) in err and len(err.strip().splitlines()) <= 2, err
    finally:
        locked.chmod(0o700)


def test_a_failed_write_keeps_the_previous_report(
    real_run: Path, tmp_path: Path, monkeypatch
) -> None:
    rep = tmp_path / "rep"
    assert cli.main(["report", str(real_run), "--output", str(rep)]) == 0
    before = (rep / "report.html").read_text()
    from coldbias_tasks.app import commands

    def broken(*args, **kwargs):
        raise RuntimeError("disk full while rendering")

    monkeypatch.setattr(commands, "render_html", broken)
    with pytest.raises(RuntimeError):
        commands.build_report(real_run, rep)
    assert (rep / "report.html").read_text() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".rep.")]


def test_new_output_folder_has_the_usual_permissions(tmp_path: Path) -> None:
    """The atomic writer builds in a private temporary folder; the result is not left 0700."""
    import os

    from coldbias_tasks.app.outputs import OutputFolder

    dest = tmp_path / "out"
    with OutputFolder(dest, "test") as tmp:
        (tmp / "a.txt").write_text("x")
    mask = os.umask(0o022)
    os.umask(mask)
    assert dest.stat().st_mode & 0o777 == 0o777 & ~mask
    assert (dest / "a.txt").read_text() == "x"


def test_output_folder_holds_only_the_current_report(real_run: Path, tmp_path: Path, capsys):
    rep = tmp_path / "rep"
    assert cli.main(["report", str(real_run), "--output", str(rep)]) == 0
    first = set(json.loads((rep / MANIFEST).read_text())["files"])
    stale = rep / next(f for f in first if f.endswith(".png"))
    (rep / "notes.txt").write_text("mine")  # a foreign file
    manifest = json.loads((rep / MANIFEST).read_text())
    manifest["files"].append("old_plot.png")  # a file of an earlier report
    (rep / MANIFEST).write_text(json.dumps(manifest))
    (rep / "old_plot.png").write_bytes(b"png")
    capsys.readouterr()
    assert cli.main(["report", str(real_run), "--output", str(rep), "--exposure", "decade"]) == 0
    out = capsys.readouterr()
    assert not (rep / "old_plot.png").exists()
    assert (rep / "notes.txt").read_text() == "mine" and "notes.txt" in out.out + out.err
    now = set(json.loads((rep / MANIFEST).read_text())["files"])
    assert {p.name for p in rep.iterdir()} - {"notes.txt", MANIFEST} <= now
    assert stale.name not in now or stale.exists()


# --- 8. property: any truncation or deleted line is reported or refused ----------------------


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_truncated_or_edited_samples_are_never_silently_scored(real_run: Path, tmp_path_factory,
                                                               data) -> None:  # fmt: skip
    run = _copy(real_run, tmp_path_factory.mktemp("p") / "run")
    path = _samples_file(run)
    raw = path.read_bytes()
    lines = raw.splitlines(keepends=True)
    how = data.draw(st.sampled_from(["cut_bytes", "cut_lines", "delete_line", "duplicate_line"]))
    if how == "cut_bytes":
        edited = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif how == "cut_lines":
        edited = b"".join(lines[: data.draw(st.integers(0, len(lines) - 1))])
    elif how == "delete_line":
        i = data.draw(st.integers(0, len(lines) - 1))
        edited = b"".join(lines[:i] + lines[i + 1 :])
    else:
        i = data.draw(st.integers(0, len(lines) - 1))
        edited = b"".join(lines[: i + 1] + lines[i:])
    path.write_bytes(edited)
    try:
        models = pool_runs(load_folder(run))
    except RunError:
        pass  # refused, with a message naming the file
    else:
        # only an edit that changes no answer may pass, and then the numbers are unchanged
        original = summarize_answers(pool_runs(load_folder(real_run))[0].tasks[TASK].records)
        now = summarize_answers(models[0].tasks[TASK].records)
        assert math.isclose(now.metrics["iou"].mean, original.metrics["iou"].mean)
        assert len(models[0].tasks[TASK].records) == len(lines)
    if len(edited.splitlines()) != len(lines):
        # with --allow-partial: refused, or kept and marked partial
        try:
            kept = pool_runs(load_folder(run, LoadOptions(allow_partial=True)))
        except RunError:
            return
        task = kept[0].tasks.get(TASK) if kept else None
        assert task is None or task.partial.startswith("PARTIAL")


@pytest.mark.parametrize(
    ("text", "message"),
    [("{k: 1}", "malformed JSON \\(Expecting property name"), ("[1, 2]", "not a JSON object")],
)
def test_a_json_object_reader_names_where_and_the_fix(text: str, message: str) -> None:
    """One reader for --metadata and every JSONL line: malformed JSON and a JSON value that is
    no object are errors naming the place and the fix, never a crash deeper in."""
    from coldbias_tasks.core.errors import SettingsError
    from coldbias_tasks.core.files.jsonl import json_object

    with pytest.raises(SettingsError, match=f"^--metadata: {message}.*; write it as"):
        json_object(text, SettingsError, "--metadata", "write it as --metadata '{...}'")
