"""The built wheel ships tasks/ and data/ and works from any directory."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHECK = """
from lm_eval.tasks import TaskManager
from coldbias_tasks.core.resources import tasks_dir
from coldbias_tasks.core.prompting.documents import build_docs
root = tasks_dir()
assert "site" in str(root) or "wheel" in str(root), root
manager = TaskManager(include_path=str(root), include_defaults=False)
assert "coldbias_movie" in manager.all_groups, manager.all_groups
docs = build_docs("music", "age", "plain", {"coldbias_n_items": 30, "coldbias_k": 3})
print(root, len(docs))
"""


@pytest.mark.slow
def test_wheel_ships_tasks_and_data(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
    )
    (wheel,) = tmp_path.glob("coldbias-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in (
        "coldbias_tasks/tasks/_coldbias_template_yaml",
        "coldbias_tasks/tasks/groups/coldbias.yaml",
        "coldbias_tasks/tasks/templates/lines.en.jinja",
        "coldbias_tasks/tasks/templates/reverse.en.jinja",
        "coldbias_tasks/data/lang/fr.yaml",
        "coldbias_tasks/data/movie.jsonl",
        "coldbias_tasks/data/domains/movie.yaml",
        "coldbias_tasks/data/personas.yaml",
        "coldbias_tasks/render/static/sort.js",
        "coldbias_tasks/render/static/views.js",
        "coldbias_tasks/render/templates/leaderboard.html.j2",
    ):
        assert needed in names
    site = tmp_path / "wheel_site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert str(site) in out.stdout
