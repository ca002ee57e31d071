"""A similarity is one module (coldbias_tasks/core/similarities/): RBO, added as one module and
its reference tests, reaches lm-eval's results, the report, the leaderboard's column families
and Every Eval Ever with no other file of the package naming it; and the similarity names are
no string literals scattered through the package."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from coldbias_tasks.core.similarities import SIMILARITY_NAMES
from tests.synthetic import SyntheticRecommender, run_synthetic

PACKAGE = Path(__file__).resolve().parents[1] / "coldbias_tasks"
METADATA = {"coldbias_n_items": 30, "coldbias_k": 4, "coldbias_repeats": 2, "coldbias_seed": 5,
            "coldbias_phrasings": 4}  # fmt: skip


def _literals(name: str) -> list[str]:
    """Places in the package's code where ``name`` stands as a string literal."""
    pattern = re.compile(rf"[\"']{name}[\"']")
    return [
        f"{p.relative_to(PACKAGE)}:{i}"
        for p in PACKAGE.rglob("*.py")
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]


def test_rbo_is_named_in_its_own_module_only() -> None:
    assert "rbo" in SIMILARITY_NAMES
    mentions = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if re.search(r"\brbo\b", p.read_text(encoding="utf-8"), re.IGNORECASE)
    ]
    assert mentions == ["core/similarities/rbo.py"]


def test_the_package_names_similarities_through_the_registry() -> None:
    """At most five "iou" string literals in the package (the headline's one, IOU's module)."""
    found = _literals("iou")
    assert len(found) <= 5, found
    for other in ("serp", "prag"):
        assert all(f.startswith("core/similarities/") for f in _literals(other)), _literals(other)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("route") / "run"
    model = SyntheticRecommender(seed=6, effect={"gender.female": lambda i: 3.0 if i % 3 else 1.0})
    run_synthetic(model, ["coldbias_movie_gender", "coldbias_music_gender"], METADATA, out,
                  model_name="org/route-model")  # fmt: skip
    return out


def test_rbo_reaches_lm_eval_the_report_and_the_leaderboard(run: Path, tmp_path: Path) -> None:
    from coldbias_tasks.analysis.leaderboard import build_leaderboard
    from coldbias_tasks.app.commands import build_report, write_leaderboard

    (results_file,) = run.rglob("results_*.json")
    results = json.loads(results_file.read_text())["results"]["coldbias_movie_gender"]
    for key in ("rbo_disparity", "rbo_disparity_stderr", "rbo_disparity_p", "rbo_divergence",
                "rbo_excess", "rbo_group_p"):  # fmt: skip
        assert f"{key},ranked" in results, key
    value = results["rbo_disparity,ranked"]

    build_report(run, tmp_path / "report")
    groups = pd.read_csv(tmp_path / "report" / "groups.csv")
    row = groups[(groups["task"] == "coldbias_movie_gender") & (groups["metric"] == "rbo")]
    assert row["disparity"].tolist() == [pytest.approx(value, rel=1e-5)]

    write_leaderboard(build_leaderboard([run], resamples=50), tmp_path / "lb")
    long = pd.read_csv(tmp_path / "lb" / "leaderboard_long.csv")
    assert "overall_rbo_disparity" in set(long["column"])
    assert "RBO disparity (all domains)" in (tmp_path / "lb" / "leaderboard.html").read_text()


def test_rbo_reaches_every_eval_ever(run: Path, tmp_path: Path) -> None:
    pytest.importorskip("every_eval_ever", reason="every-eval-ever is not installed")
    from coldbias_tasks.app.eee_export import export_eee

    export = export_eee(run, tmp_path / "eee")
    names = {
        r["metric_config"]["metric_name"]
        for path in export.records
        for r in json.loads(path.read_text())["evaluation_results"]
    }
    assert {"rbo_disparity", "rbo_divergence"} <= names
