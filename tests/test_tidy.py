"""``coldbias eval``'s results file (coldbias_tasks/app/tidy.py): no "standard error" of a
standard error, p-value, bound or verdict; each group's headline with lm-eval's mean and
standard error (√(Σ SE²) / n: coldbias' pooling) and the interval and verdict the report and
the leaderboard give it, through lm-eval's own evaluator."""

from __future__ import annotations

import json
import math

import pytest

from coldbias_tasks.app.tidy import tidy_results, untidy_key
from tests.synthetic import SyntheticRecommender, run_synthetic

METADATA = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2, "coldbias_seed": 2,
            "coldbias_phrasings": 3, "coldbias_replicates": 1}  # fmt: skip


@pytest.fixture(scope="module")
def tidied(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("tidy") / "run"
    model = SyntheticRecommender(seed=5, effect={"religion.muslim": lambda i: 3.0 if i % 2 else 1})
    run_synthetic(model, ["coldbias_music"], METADATA, out)
    (path,) = out.rglob("results_*.json")
    before = json.loads(path.read_text())
    assert any(untidy_key(k) for k in before["results"]["coldbias_music_gender"])
    assert tidy_results(out, 0.0) == [f"tidied {path}"]
    return json.loads(path.read_text())


def test_no_key_without_meaning_is_left(tidied: dict) -> None:
    for name, entry in tidied["results"].items():
        assert not [k for k in entry if "_stderr_stderr" in k or k.endswith("_p_stderr,ranked")]
        assert "coldbias_answer_stderr,ranked" not in entry, name
    assert "iou_disparity_stderr,ranked" in tidied["results"]["coldbias_music_gender"]


def test_the_group_carries_the_headline_with_its_interval_and_verdict(tidied: dict) -> None:
    group = tidied["results"]["coldbias_music"]
    members = [t for t in tidied["group_subtasks"]["coldbias_music"]]
    values = [tidied["results"][t]["iou_disparity,ranked"] for t in members]
    errors = [tidied["results"][t]["iou_disparity_stderr,ranked"] for t in members]
    assert group["iou_disparity,ranked"] == pytest.approx(sum(values) / len(values))
    pooled_se = math.sqrt(sum(e**2 for e in errors)) / len(errors)
    assert group["iou_disparity_stderr,ranked"] == pytest.approx(pooled_se)
    low, high = group["iou_disparity_ci_low,ranked"], group["iou_disparity_ci_high,ranked"]
    assert low < group["iou_disparity,ranked"] < high
    # Student t with Welch–Satterthwaite df: wider than ± 1.96 SE, never narrower
    assert high - low >= 2 * 1.96 * pooled_se
    verdict = group["iou_disparity_verdict,ranked"]
    assert verdict.split(" (")[0] in ("detected", "not detected", "underpowered", "degenerate")
    assert (low > 0) == verdict.startswith("detected")
    assert "rbo_disparity_ci_low,ranked" in group
