"""Re-read the committed open runs (leaderboards/open/) with the current grounding (issue 41):
no new generation — every logged answer text is grounded again and summarised; per task, the
headline as published (the logged records: all keys, the grounding of the run), on all keys
with the new grounding, and on grounded keys (the rule now), the grounded share per value
(logged → new) and the coverage check (core/measures/coverage.py). Writes
leaderboards/open/coverage_reread.csv and prints it.

    python bench/studies/open_reread.py
"""

from __future__ import annotations

import ast
import gzip
import json
import math
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from coldbias_tasks.core.measures.coverage import grounded_share
from coldbias_tasks.core.measures.design import arrange
from coldbias_tasks.core.measures.disparity import disparity
from coldbias_tasks.core.measures.summary import summarize_answers
from coldbias_tasks.core.parsing.open_answers import record_from_open_answer
from coldbias_tasks.core.records import AnswerRecord, TaskDoc

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "leaderboards" / "open"
OUT = RUNS / "coverage_reread.csv"


def _mean(xs: list[float]) -> float:
    finite = [x for x in xs if not math.isnan(x)]
    return sum(finite) / len(finite) if finite else math.nan


def reread(path: Path) -> dict[str, object]:
    """One samples file re-read (module docstring)."""
    logged, new = [], []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        samples = [json.loads(line) for line in lines]
    for sample in samples:
        payload = sample.get("coldbias_answer", sample.get("iou_divergence"))
        payload = ast.literal_eval(payload) if isinstance(payload, str) else payload
        logged.append(AnswerRecord.from_payload(payload))
        new.append(record_from_open_answer(sample["resps"][0][0], TaskDoc.from_dict(sample["doc"])))
    check = summarize_answers(new, ("iou",)).coverage
    published = disparity("iou", arrange(logged).phrased).estimate
    values = sorted({r.value for r in new if "." in r.value})
    shares = "; ".join(
        f"{v.split('.')[-1]} {_mean([grounded_share(r) for r in logged if r.value == v]):.2f}"
        f"→{_mean([grounded_share(r) for r in new if r.value == v]):.2f}"
        for v in values
    )
    g, a = check.grounded, check.all_keys
    model = path.parent.parent.name if path.parent.parent != RUNS else "qwen2.5-coder-0.5b-instruct"
    return {
        "model": model,
        "task": path.name.split("samples_")[1].split("_20")[0],
        "published": published.value, "published_p": published.p_value,
        "all_keys_new": a.value, "all_keys_new_p": a.p_value,
        "grounded": g.value, "grounded_p": g.p_value, "grounded_verdict": g.verdict,
        "share_contrast": check.share.spread, "share_p": check.share.p_value,
        "coverage_dependent": check.dependent,
        "grounded_share_by_value_logged_to_new": shares,
        "reasons": "; ".join(check.reasons),
    }  # fmt: skip


def main() -> None:
    rows = [reread(p) for p in sorted(RUNS.glob("**/samples_*_open_*.jsonl.gz"))]
    table = pd.DataFrame(rows)
    table.to_csv(OUT, index=False, float_format="%.6g")
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(table.drop(columns=["grounded_share_by_value_logged_to_new", "reasons"]))
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
