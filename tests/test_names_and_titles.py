"""Refuse what cannot be right: catalog titles with line breaks or control characters, confusable
value ids, taskgen into the root, home or a file, or with a bad persona file (issue 31)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coldbias_tasks.core.errors import PersonaError
from coldbias_tasks.core.world.personas import load_personas
from tests.run_fixtures import (
    ROOT,
)

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
