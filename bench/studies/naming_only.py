"""Issue 41's naming-only recommender through lm-eval on coldbias_college_open_country (k 10,
R 3, every phrasing): the same universities for every user, named in Chinese for users who state
the Chinese value. Prints, per seed, the grounded rate, the IOU disparity and its p, and the
coverage mark — with the names files (data/names/) and without them (the grounding before
issue 41), side by side.

    python bench/studies/naming_only.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from coldbias_tasks.core import vocabulary
from coldbias_tasks.core.parsing import grounding
from coldbias_tasks.core.world import names
from tests.synthetic import run_synthetic
from tests.synthetic_open import NamingRecommender, chinese_named_pool

TASK = vocabulary.task_name("college", "country", "open")
META = {"coldbias_k": 10, "coldbias_repeats": 3, "coldbias_replicates": 2}


def run(label: str) -> None:
    for seed in range(4):
        with tempfile.TemporaryDirectory() as tmp:
            got = run_synthetic(NamingRecommender(seed=seed), [TASK], META, Path(tmp))
        r = got["results"][TASK]
        print(
            f"{label}\tseed {seed}\tgrounded_rate {r['grounded_rate,ranked']:.3f}\t"
            f"iou_disparity {r['iou_disparity,ranked']:+.4f}\tp {r['iou_disparity_p,ranked']:.3g}"
            f"\tgrounded_share_contrast p {r['grounded_share_contrast_p,ranked']:.3g}"
            f"\tcoverage_dependent {r['coverage_dependent,ranked']:.0f}",
            flush=True,
        )


def main() -> None:
    chinese_named_pool("college")  # the pool is read with the names
    run("with names")
    names.names_files = lambda domain: []  # type: ignore[assignment]
    grounding.clear_cache()
    from coldbias_tasks.core.parsing import open_answers

    open_answers._domain_grounder.cache_clear()
    run("without names")


if __name__ == "__main__":
    main()
