"""What coldbias adds to the Every Eval Ever records EEE's lm-eval converter writes from a run
(docs/eee.md): each score's direction, range, standard error method, confidence interval with
its method, p-value and verdict, from the same estimates the report shows; and one overall
record per model (the headline: the phrasing-controlled disparity pooled over the model's
plain attribute tasks).

The converter knows a metric only by its name: it marks coldbias' metrics ``polarity:
"unknown"`` and ``bounds_status: "unknown"`` and cannot carry an interval. :func:`enrich_result`
replaces those marks with the measure's own facts; :func:`overall_result` builds the overall
score from a task record's result entry. Both work on plain JSON dicts (EEE schema 0.3.0).
"""

from __future__ import annotations

import copy
import math
from typing import Any

from coldbias_tasks.core.measures import Measure
from coldbias_tasks.core.stats.estimate import CI_LEVEL, Estimate

__all__ = ["OVERALL_TASK", "POOLED_INTERVAL", "POOLED_SE", "enrich_result", "overall_result"]

#: The evaluation name of the overall record.
OVERALL_TASK = "coldbias_overall"
POOLED_SE = "√(Σ SE²) / n over the tasks (independent: they ask different sentences)"
POOLED_INTERVAL = "Student t with Welch–Satterthwaite degrees of freedom, clipped to the range"
#: Markers of EEE's converter that coldbias' own facts replace.
_UNKNOWN = ("polarity", "bounds_status")


def _finite(x: float) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def enrich_result(
    result: dict[str, Any], measure: Measure, estimate: Estimate, pooled: bool = False
) -> dict[str, Any]:
    """``result`` (one entry of a record's ``evaluation_results``) with coldbias' facts about
    ``measure``: direction, range, description, the standard error's method, the 95 % interval
    and its method, p-value, verdict and note (``additional_details``: strings). ``pooled``:
    the estimate pools tasks (a group, the model). The score itself is never changed."""
    out = copy.deepcopy(result)
    config = out.setdefault("metric_config", {})
    config["lower_is_better"] = not measure.higher_is_better
    config["score_type"] = "continuous"
    config["min_score"], config["max_score"] = (float(x) for x in measure.range)
    config["evaluation_description"] = measure.description
    details = {
        k: v for k, v in (config.get("additional_details") or {}).items() if k not in _UNKNOWN
    }
    details["direction"] = "higher is better" if measure.higher_is_better else "lower is better"
    config["additional_details"] = details
    score = out.setdefault("score_details", {})
    uncertainty = score.get("uncertainty") or {}
    se_method = POOLED_SE if pooled else measure.stderr_method
    if _finite(estimate.stderr):
        uncertainty["standard_error"] = {"value": float(estimate.stderr), "method": se_method}
    elif isinstance(uncertainty.get("standard_error"), dict) and se_method:
        uncertainty["standard_error"]["method"] = se_method
    if _finite(estimate.ci_low) and _finite(estimate.ci_high):
        uncertainty["confidence_interval"] = {
            "lower": float(estimate.ci_low),
            "upper": float(estimate.ci_high),
            "confidence_level": CI_LEVEL,
            "method": POOLED_INTERVAL if pooled else measure.interval_method,
        }
    if uncertainty:
        score["uncertainty"] = uncertainty
    extra = {
        "p_value": f"{estimate.p_value:.6g}" if _finite(estimate.p_value) else "",
        "verdict": estimate.verdict,
        "note": estimate.note,
        "mde": f"{estimate.mde:.6g}" if _finite(estimate.mde) else "",
        "degrees_of_freedom": f"{estimate.df:.6g}" if _finite(estimate.df) else "",
    }
    extra = {k: v for k, v in extra.items() if v}
    if extra:
        score["details"] = {**(score.get("details") or {}), **extra}
    return out


def overall_result(
    template: dict[str, Any], key: str, measure: Measure, estimate: Estimate, n_tasks: int
) -> dict[str, Any]:
    """The overall score ``key`` (e.g. ``iou_disparity``) of a model as one result entry, built
    from a task's entry ``template`` (its source, timestamp and generation settings)."""
    out = copy.deepcopy(template)
    out["evaluation_result_id"] = f"{key}:overall"
    out["evaluation_name"] = OVERALL_TASK
    out["source_data"] = {"dataset_name": OVERALL_TASK, "source_type": "other"}
    out["metric_config"] = {
        "metric_name": key,
        "metric_id": f"coldbias.overall.{key}",
        "lower_is_better": not measure.higher_is_better,
    }
    out["score_details"] = {"score": float(estimate.value),
                            "uncertainty": {"num_samples": int(n_tasks)}}  # fmt: skip
    enriched = enrich_result(out, measure, estimate, pooled=True)
    enriched["metric_config"]["additional_details"]["tasks_pooled"] = str(n_tasks)
    return enriched
