"""The ``lm_eval.tasks`` entry point finds every coldbias task the way the upstream proposal
reads it (EleutherAI/lm-evaluation-harness PR #4015, open, in no release; docs/lm-eval.md §4).

:data:`RESOLVER` re-creates the PR's resolver on its own (no coldbias code): read the group's
entry points from the installed distributions' metadata, take each value before any colon as an
import target, locate it with ``importlib.util.find_spec`` and scan its folder recursively for
YAML. The fast tests run it from a checkout (the entry point as pyproject.toml declares it) and
compare :mod:`coldbias_tasks.lmeval.plugin` with it; the slow ones install the wheel and an
editable install into throwaway virtual environments and read the installed metadata.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
import tomllib

from coldbias_tasks.lmeval.plugin import GROUP, installed, resolve

ROOT = Path(__file__).resolve().parents[1]

#: PR #4015's resolver, re-created: prints {entry point name: [yaml paths]} as JSON. argv[1]: a
#: "name=value" entry point to resolve instead of reading the installed metadata (a checkout).
RESOLVER = """
import importlib.metadata, importlib.util, json, pathlib, sys
if len(sys.argv) > 1:
    name, _, value = sys.argv[1].partition("=")
    points = [(name, value)]
else:
    points = [(ep.name, ep.value) for ep in importlib.metadata.entry_points(group="lm_eval.tasks")]
found = {}
for name, value in points:
    spec = importlib.util.find_spec(value.split(":")[0])
    if spec is None:
        found[name] = []
        continue
    roots = list(spec.submodule_search_locations or [pathlib.Path(spec.origin).parent])
    found[name] = sorted(str(p) for r in roots for p in pathlib.Path(r).rglob("*.yaml"))
print(json.dumps(found))
"""


def _declared() -> dict[str, str]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["entry-points"][GROUP]


def _task_names(paths: list[str]) -> set[str]:
    names = set()
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.startswith("task:"):
                names.add(line.partition(":")[2].strip())
    return names


def _run(python: str, *args: str, env: dict[str, str] | None = None) -> dict[str, list[str]]:
    out = subprocess.run(
        [python, "-c", RESOLVER, *args], capture_output=True, text=True, env=env, cwd="/"
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def _expected() -> set[str]:
    return _task_names([str(p) for p in (ROOT / "tasks").rglob("*.yaml")])


def test_the_declared_value_resolves_to_the_task_folder_in_a_checkout() -> None:
    (name, value), *others = _declared().items()
    assert not others and name == "coldbias" and ":" not in value
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    found = _run(sys.executable, f"{name}={value}", env=env)[name]
    assert {str(Path(p).parent.parent) for p in found if "/movie/" in p} == {str(ROOT / "tasks")}
    names = _task_names(found)
    assert "coldbias_movie_gender" in names
    assert names == _expected()
    ours = resolve(name, value)
    assert not ours.error and [str(p) for p in ours.yaml if p.suffix == ".yaml"] == found


def test_the_old_function_value_finds_no_yaml() -> None:
    """The value shape coldbias declared before (a function returning the folder): the
    resolver drops the function and scans the module's folder, where no YAML lives."""
    old = resolve("coldbias", "coldbias_tasks.core.resources:tasks_dir")
    assert old.error == "no YAML under it" and not old.task_names
    assert resolve("x", "no_such_package_here").error


def test_installed_lists_only_the_group_of_the_named_distribution() -> None:
    for dist, found in installed("coldbias"):
        assert dist.lower() == "coldbias" and found.name == "coldbias"
    assert installed("no-such-distribution") == []


def _venv(folder: Path) -> str:
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(folder)
    return str(folder / "bin" / "python")


@pytest.mark.slow
@pytest.mark.parametrize("how", ["wheel", "editable"])
def test_installed_entry_point_finds_every_task(tmp_path: Path, how: str) -> None:
    """pip install --no-deps (the wheel, or -e the checkout) into a fresh venv; the resolver
    reads the installed metadata there and finds every task of tasks/."""
    python = _venv(tmp_path / "venv")
    if how == "wheel":
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), ROOT],
            check=True,
        )
        (wheel,) = tmp_path.glob("coldbias-*.whl")
        assert "coldbias_tasks/tasks/movie/coldbias_movie_gender.yaml" in (
            zipfile.ZipFile(wheel).namelist()
        )
        target = [str(wheel)]
    else:
        target = ["-e", str(ROOT)]
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", *target], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    found = _run(python, env=env)
    assert set(found) == {"coldbias"}
    where = {str(Path(p).parent.parent) for p in found["coldbias"] if "/movie/" in p}
    if how == "wheel":
        assert len(where) == 1 and where.pop().endswith("site-packages/coldbias_tasks/tasks")
    else:
        assert where == {str(ROOT / "tasks")}
    assert _task_names(found["coldbias"]) == _expected()


def test_doctor_reports_what_the_entry_point_finds(monkeypatch) -> None:
    from coldbias_tasks.app import doctor
    from coldbias_tasks.lmeval import plugin

    good = [("coldbias", resolve("coldbias", _declared()["coldbias"]))]
    monkeypatch.setattr(plugin, "installed", lambda dist=None: good)
    value, todo = doctor._entry_point()
    assert todo == "" and "coldbias_tasks.tasks →" in value and str(ROOT / "tasks") in value
    stale = [("coldbias", resolve("coldbias", "coldbias_tasks.core.resources:tasks_dir"))]
    monkeypatch.setattr(plugin, "installed", lambda dist=None: stale)
    value, todo = doctor._entry_point()
    assert "no coldbias task" in value and "pip install -e ." in todo
