"""Every lm-eval metric of coldbias, declared once.

A :class:`MetricSpec` says what a metric is called, which way is better, its range, the
function computing it from a task's summary (and its standard error, if it has one), how groups
combine it, its label and description, and where the report and the leaderboard show it. The
lm-eval aggregations and task YAMLs (:mod:`coldbias_tasks.lmeval.harness`, ``taskgen``), the
report tables, the leaderboard columns, the task card's metric table and the Every Eval Ever
directions (docs/eee.md) all read :func:`declared`.

Adding a metric: compute it (a field or annotated property of
:class:`~coldbias_tasks.core.measures.aggregate.AnswersSummary`,
:class:`~coldbias_tasks.core.measures.aggregate.MetricSummary` or
:class:`~coldbias_tasks.core.measures.reverse.ReverseSummary`), then one entry in
``data/metrics.yaml``
(its header lists the keys; checked on import: a path that is no number of the summary is an
error) and ``python -m coldbias_tasks.lmeval.taskgen``. Code outside the package (a plugin, a
test) calls :func:`declare` with any function of the summary instead.
``tests/test_metric_specs.py`` adds a toy metric that way and finds it in lm-eval's results,
the report CSV and the leaderboard.

Scopes: ``"similarity"`` metrics are computed per similarity m ∈ {iou, serp, prag} from the
task's ``MetricSummary`` (lm-eval keys ``{m}_{name}``; the report's ``groups`` table, one row
per m); ``"task"`` metrics from the ``AnswersSummary`` (key ``name``; the ``fidelity`` table);
``"reverse"`` metrics from a reverse task's ``ReverseSummary`` (the ``reverse_groups`` table).
Only directed quantities are metrics (lm-eval's ``higher_is_better``, docs/measurement.md §6):
noise floors, spreads and the mean catalog position are report and leaderboard columns only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from functools import lru_cache, partial
from operator import attrgetter
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.measures.declarations import metric_entries, sampled_fields
from coldbias_tasks.core.resources import data_dir
from coldbias_tasks.core.stats.series import t_interval
from coldbias_tasks.core.vocabulary import SIMILARITY_NAMES

__all__ = [
    "DISPARITY",
    "DISPARITY_P",
    "DIVERGENCE",
    "EXCESS",
    "LmMetric",
    "MetricSpec",
    "Outcome",
    "declare",
    "declare_test",
    "declared",
    "lm_metrics",
    "load_declarations",
    "metric_spec",
    "ordered",
    "report_values",
    "withdraw",
]

Scope = Literal["similarity", "task", "reverse"]
#: Which forward tasks list a metric: both protocols, catalog tasks only (what needs a shown
#: catalog: positions, out-of-catalog entries) or open tasks only (the grounding rates).
Protocol = Literal["both", "catalog", "open"]
Kind = Literal["estimate", "p"]
#: How the leaderboard shows a metric: not at all, over all of a model's answers pooled (rates
#: over answers or list entries), or as the mean over its attribute tasks.
Pooling = Literal["", "answers", "tasks"]
#: How the figures of several tasks combine (a domain, a group, the leaderboard's headline):
#: their mean; the mean with the series combined repeat by repeat and a t-interval over repeats
#: (tasks of one run share each repeat's catalog order); or the mean with the standard error
#: √(Σ SE²) / n and ± 1.96 SE (tasks asking different sentences: independent errors).
TaskPooling = Literal["mean", "repeats", "stderr"]


@dataclass(frozen=True)
class MetricSpec:
    """One metric (see the module docstring).

    ``value``: the per-task function (its argument is set by ``scope``); NaN when undefined
    (e.g. no replicates). ``stderr``: its standard error, lm-eval key ``{key}_stderr`` (NaN →
    lm-eval's "N/A"). ``range``: (low, high) in the metric's units; a ``"p"`` kind excludes 0.
    ``label``: short title (``{M}`` → IOU/SERP/PRAG); ``description``: what it means, units and
    edge cases, one or two sentences. ``controls``: also computed for a control group's own
    tasks (the placebo). ``column``/``stderr_column``: the report column (default ``name``).
    ``leaderboard``: see :data:`Pooling`. ``protocol``: which forward tasks list it
    (:data:`Protocol`).

    The quantity's further parts (all optional): ``series`` its per-repeat series (repeat →
    figure, same units); ``interval`` its own 95 % interval (else t over ``series`` clipped to
    ``range``, else none); ``sampling``: it assumes sampled answers and is withheld (NaN) for
    deterministic ones (:mod:`.determinism`); ``verdict``: a sentence saying what its test
    found (report column ``verdict_column``, default ``<column>_verdict``); ``pooling``: how
    tasks combine (:data:`TaskPooling`); ``source``: the attribute path ``value`` reads, when
    declared by path (set by the loader; determinism blanks the sampled ones by it).
    """

    name: str
    value: Callable[[Any], float]
    higher_is_better: bool
    range: tuple[float, float]
    label: str
    description: str
    scope: Scope = "task"
    kind: Kind = "estimate"
    stderr: Callable[[Any], float] | None = None
    controls: bool = True
    column: str = ""
    stderr_column: str = ""
    leaderboard: Pooling = ""
    series: Callable[[Any], Mapping[int, float]] | None = None
    interval: Callable[[Any], tuple[float, float]] | None = None
    sampling: bool = False
    verdict: Callable[[Any], str] | None = None
    verdict_column: str = ""
    pooling: TaskPooling = "mean"
    protocol: Protocol = "both"
    source: str = ""

    def __post_init__(self) -> None:
        """Refuse what cannot be shown: a value outside its choices, an empty range, a p-value
        not in (0, 1] pointing up, a reverse metric not named ``reverse_*``, a leaderboard
        pooling its scope cannot have (ValueError naming the metric)."""
        for name, allowed in (
            ("scope", get_args(Scope)), ("kind", get_args(Kind)),
            ("leaderboard", get_args(Pooling)), ("pooling", get_args(TaskPooling)),
        ):  # fmt: skip
            if getattr(self, name) not in allowed:
                raise ValueError(f"{self.name}: {name} {getattr(self, name)!r} is not one of "
                                 f"{allowed}")  # fmt: skip
        if not self.range[0] < self.range[1]:
            raise ValueError(f"{self.name}: range must be [low, high] with low < high")
        if self.kind == "p" and (self.range != (0.0, 1.0) or not self.higher_is_better):
            raise ValueError(f"{self.name}: a p-value has range [0, 1] and higher_is_better")
        if self.scope == "reverse" and not self.name.startswith("reverse_"):
            raise ValueError(f"reverse metric {self.name!r} must start with 'reverse_'")
        if self.leaderboard and self.scope == "reverse":
            raise ValueError(f"{self.name}: reverse metrics have their leaderboard columns")
        if self.leaderboard == "answers" and self.scope != "task":
            raise ValueError(
                f"{self.name}: only a per-task metric of the answers (fidelity, positions) "
                'pools over all answers; use leaderboard="tasks"'
            )
        if self.pooling == "repeats" and self.series is None:
            raise ValueError(f"{self.name}: pooling 'repeats' needs its per-repeat series")
        if self.pooling == "stderr" and self.stderr is None:
            raise ValueError(f"{self.name}: pooling 'stderr' needs its standard error")

    @property
    def averaged(self) -> bool:
        """Whether an lm-eval group averages it over its tasks: not p-values (a mean of
        p-values is no p-value); standard errors are never averaged (lm-eval pools the tasks'
        own under ``X_stderr``)."""
        return self.kind != "p"

    @property
    def report_column(self) -> str:
        return self.column or self.name

    @property
    def stderr_report_column(self) -> str:
        return self.stderr_column or f"{self.report_column}_stderr"

    @property
    def direction(self) -> str:
        return "↑" if self.higher_is_better else "↓"

    @property
    def range_text(self) -> str:
        low, high = (_number(x) for x in self.range)
        return f"{'(' if self.kind == 'p' else '['}{low}, {high}]"

    def lm_keys(self) -> tuple[str, ...]:
        """Its lm-eval metric keys without the stderr keys: ``{m}_{name}`` per similarity, or
        ``name``."""
        if self.scope == "similarity":
            return tuple(f"{m}_{self.name}" for m in SIMILARITY_NAMES)
        return (self.name,)

    def title(self, similarity: str = "") -> str:
        return self.label.replace("{M}", similarity.upper())

    @property
    def interval_report_columns(self) -> tuple[str, ...]:
        """``(<column>_ci_low, <column>_ci_high)`` when it has an interval, else ()."""
        if self.interval is None and self.series is None:
            return ()
        return f"{self.report_column}_ci_low", f"{self.report_column}_ci_high"

    @property
    def verdict_report_column(self) -> str:
        return self.verdict_column or f"{self.report_column}_verdict"

    def series_of(self, part: Any) -> dict[int, float]:
        """Its per-repeat series in ``part`` (repeat → figure); ValueError when it has none."""
        if self.series is None:
            raise ValueError(f"{self.name} has no per-repeat series; declare its `series`")
        return dict(self.series(part))

    def interval_of(self, part: Any) -> tuple[float, float]:
        """Its 95 % interval in ``part``: its own, else Student's t over its series clipped to
        its range (NaN with < 2 repeats), else (NaN, NaN)."""
        if self.interval is not None:
            low, high = self.interval(part)
            return float(low), float(high)
        if self.series is not None:
            return t_interval(self.series(part), bounds=self.range)
        return math.nan, math.nan


def _number(x: float) -> str:
    return f"{x:g}".replace("-", "−")


@dataclass(frozen=True)
class LmMetric:
    """One lm-eval metric key: its spec, the similarity it is computed for ("" unless the
    scope is ``"similarity"``) and whether it is the spec's standard error."""

    key: str
    spec: MetricSpec
    similarity: str = ""
    is_stderr: bool = False

    @property
    def higher_is_better(self) -> bool:
        """A standard error has no direction of its own; lm-eval wants one: the metric's."""
        return self.spec.higher_is_better

    @property
    def averaged(self) -> bool:
        return self.spec.averaged and not self.is_stderr

    def compute(self, summary: Any) -> float | str:
        """The number from a task's summary (a ``AnswersSummary`` or ``ReverseSummary``); a
        missing standard error is lm-eval's "N/A"."""
        part = summary.metrics[self.similarity] if self.similarity else summary
        fn = self.spec.stderr if self.is_stderr else self.spec.value
        assert fn is not None
        value = float(fn(part))
        return "N/A" if self.is_stderr and math.isnan(value) else value


_DECLARED: dict[str, MetricSpec] = {}
#: bumped by every change of :data:`_DECLARED` (the key of :func:`lm_metrics`' cache)
_generation = 0


def declare(spec: MetricSpec) -> MetricSpec:
    """Add ``spec`` to the declared metrics (after the others); returns it. A name declared
    twice raises ValueError (what a spec itself may not be: :meth:`MetricSpec.__post_init__`)."""
    global _generation
    if spec.name in _DECLARED:
        raise ValueError(f"metric {spec.name!r} is declared twice; give the new one its own name")
    if spec.sampling and spec.source not in sampled_fields():
        raise ValueError(
            f"{spec.name}: a quantity that depends on sampling is declared in data/metrics.yaml "
            "(sampling: true; deterministic answers blank the fields listed there)"
        )
    _DECLARED[spec.name] = spec
    _generation += 1
    return spec


def withdraw(name: str) -> None:
    """Remove a declared metric (a plugin's or a test's); unknown names are ignored."""
    global _generation
    if _DECLARED.pop(name, None) is not None:
        _generation += 1


def declared(scope: Scope | None = None) -> tuple[MetricSpec, ...]:
    """The declared metrics of ``scope`` (all without), in declaration order."""
    return tuple(s for s in _DECLARED.values() if scope is None or s.scope == scope)


def metric_spec(name: str) -> MetricSpec:
    """The declared metric ``name`` (KeyError naming the declared ones if there is none)."""
    spec = _DECLARED.get(name)
    if spec is None:
        raise KeyError(f"no metric {name!r} is declared; declared: {', '.join(_DECLARED)}")
    return spec


def lm_metrics(reverse: bool = False, control: bool = False) -> dict[str, LmMetric]:
    """lm-eval key → :class:`LmMetric`, in the order of the task YAMLs' ``metric_list``: the
    forward metrics (a control group's tasks: those with ``controls``), or the reverse ones.
    ``X_stderr`` follows ``X``: lm-eval writes "N/A" under ``X_stderr,<filter>`` when it
    processes ``X``; the metric ``X_stderr``, processed next, writes the real one there.
    Built once per set of declarations (``process_results`` asks for every document)."""
    return dict(_lm_metrics(reverse, control, _generation))


@lru_cache(maxsize=16)
def _lm_metrics(reverse: bool, control: bool, generation: int) -> dict[str, LmMetric]:
    out: dict[str, LmMetric] = {}
    for spec in _DECLARED.values():
        if (spec.scope == "reverse") != reverse or (control and not spec.controls):
            continue
        sims = SIMILARITY_NAMES if spec.scope == "similarity" else ("",)
        for sim, key in zip(sims, spec.lm_keys()):
            out[key] = LmMetric(key, spec, sim)
            if spec.stderr is not None:
                out[f"{key}_stderr"] = LmMetric(f"{key}_stderr", spec, sim, is_stderr=True)
    return out


def report_values(scope: Scope, part: Any) -> dict[str, float]:
    """Report column → value of every declared metric of ``scope`` (and its standard error,
    column ``stderr_column`` or ``<column>_stderr``) from ``part``: a task's ``MetricSummary``
    for ``"similarity"``, its ``AnswersSummary`` for ``"task"``, ``ReverseSummary`` for
    ``"reverse"``."""
    out: dict[str, Any] = {}
    for spec in declared(scope):
        out[spec.report_column] = float(spec.value(part))
        if spec.interval_report_columns:
            low, high = spec.interval_of(part)
            out |= dict(zip(spec.interval_report_columns, (low, high)))
        if spec.stderr is not None:
            out[spec.stderr_report_column] = float(spec.stderr(part))
        if spec.verdict is not None:
            out[spec.verdict_report_column] = spec.verdict(part)
    return out


@dataclass(frozen=True)
class Outcome:
    """What a statistical test finds in one summary: its ``estimate``, one-sided ``p_value``
    (in (0, 1]; NaN: no test possible), 95 % interval and, optionally, the estimate per
    repeat (``by_repeat``) and a standard error."""

    estimate: float
    p_value: float
    ci_low: float = math.nan
    ci_high: float = math.nan
    by_repeat: Mapping[int, float] | None = None
    stderr: float = math.nan


def _test_interval(test: Callable[[Any], Outcome], part: Any) -> tuple[float, float]:
    found = test(part)
    return found.ci_low, found.ci_high


def _verdict_of(test: Callable[[Any], Outcome]) -> Callable[[Any], str]:
    def verdict(part: Any) -> str:
        p, alpha = test(part).p_value, getattr(part, "alpha", 0.05)
        if math.isnan(p):
            return "n/a: no test possible"
        if p <= alpha:
            return f"detected (p ≤ α = {alpha:g})"
        return f"not detected (p > α = {alpha:g})"

    return verdict


def declare_test(
    name: str,
    test: Callable[[Any], Outcome],
    *,
    higher_is_better: bool,
    range: tuple[float, float],
    label: str,
    description: str,
    series: bool = False,
    **more: Any,
) -> tuple[MetricSpec, MetricSpec]:
    """Declare a statistical test as two quantities: ``name`` (its estimate, with its interval,
    with ``series`` its per-repeat ``by_repeat``, and the verdict at the summary's α) and
    ``name_p`` (its p-value). ``more``: further :class:`MetricSpec` fields (scope, leaderboard,
    pooling, sampling, …). Returns both specs (withdraw them by name)."""
    probe: dict[str, Any] = {}
    if series:
        probe = {"series": lambda part: test(part).by_repeat or {}}
    estimate = MetricSpec(
        name, lambda part: test(part).estimate, higher_is_better, range, label, description,
        interval=partial(_test_interval, test), verdict=_verdict_of(test),
        **probe, **more,
    )  # fmt: skip
    p_more = {k: v for k, v in more.items() if k in ("scope", "controls", "sampling", "protocol")}
    p_spec = MetricSpec(
        f"{name}_p", lambda part: test(part).p_value, True, (0.0, 1.0), f"{label} p",
        f"one-sided p-value of: {description}", kind="p", **p_more,
    )  # fmt: skip
    return declare(estimate), declare(p_spec)


def ordered(layout: tuple[str, ...], values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the keys named in ``layout`` first, in its order, then the others in
    their own order (metrics declared without a place in the layout go last)."""
    return {k: values[k] for k in layout if k in values} | {
        k: v for k, v in values.items() if k not in layout
    }


# --- the declarations: data/metrics.yaml ---------------------------------------------------------

#: YAML key → required (``source`` is set from ``value``)
_KEYS = {f.name: f.default is MISSING for f in fields(MetricSpec) if f.name != "source"}


@dataclass(frozen=True)
class _Bounds:
    """An interval read from two attribute paths of a summary (``interval: [low, high]``)."""

    low: Callable[[Any], float]
    high: Callable[[Any], float]

    def __call__(self, part: Any) -> tuple[float, float]:
        return float(self.low(part)), float(self.high(part))


def _summary_type(scope: str) -> type:
    from coldbias_tasks.core.measures.aggregate import AnswersSummary, MetricSummary
    from coldbias_tasks.core.measures.reverse import ReverseSummary

    return {"similarity": MetricSummary, "task": AnswersSummary, "reverse": ReverseSummary}[scope]


def _path_type(cls: type, path: str) -> Any:
    """The annotated type at attribute ``path`` of ``cls`` (dataclass fields and annotated
    properties); None where the path does not exist."""
    for part in path.split("."):
        attr = getattr(cls, part, None)
        if isinstance(attr, property) and attr.fget is not None:
            cls = get_type_hints(attr.fget).get("return")
        else:
            cls = get_type_hints(cls).get(part) if isinstance(cls, type) else None
        if cls is None:
            return None
    return cls


def _spec_of(entry: Any, where: str) -> MetricSpec:
    """One entry of the declarations file as a :class:`MetricSpec` (its keys are the spec's
    fields; ``value``/``stderr`` attribute paths of the scope's summary); a wrong entry raises
    SettingsError naming it and the fix."""
    if not isinstance(entry, dict):
        raise SettingsError(f"{where}: each entry must be a mapping of the keys {list(_KEYS)}")
    missing = [k for k, required in _KEYS.items() if required and k not in entry]
    unknown = [k for k in entry if k not in _KEYS]
    if missing or unknown:
        raise SettingsError(
            f"{where}: missing keys {missing}, unknown keys {unknown}; the keys are "
            f"{list(_KEYS)} (see the file's header)"
        )
    low_high = entry["range"]
    if not (
        isinstance(low_high, list)
        and len(low_high) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in low_high)
    ):
        raise SettingsError(f"{where}: range must be [low, high] (two numbers), got {low_high}")
    for key in ("higher_is_better", "controls", "sampling"):
        if not isinstance(entry.get(key, True), bool):
            raise SettingsError(f"{where}: {key} must be true or false, got {entry[key]!r}")
    if entry.get("protocol", "both") not in get_args(Protocol):
        raise SettingsError(
            f"{where}: protocol must be one of {list(get_args(Protocol))}, got "
            f"{entry['protocol']!r}"
        )
    scope = entry.get("scope", "task")
    summary = _summary_type(scope) if scope in get_args(Scope) else None
    interval = entry.get("interval", [])
    if not (isinstance(interval, list) and len(interval) in (0, 2)):
        raise SettingsError(f"{where}: interval must be [low path, high path], got {interval}")
    numbers = [(k, entry[k]) for k in ("value", "stderr") if k in entry]
    for key, path in [*numbers, *(("interval", x) for x in interval)]:
        if summary and _path_type(summary, str(path)) not in (float, int):
            raise SettingsError(
                f"{where}: {key} {path!r} is no number of {summary.__name__} (a field or "
                "annotated property path)"
            )
    if summary and "series" in entry:
        found = _path_type(summary, str(entry["series"]))
        if get_origin(found) not in (dict, Mapping):
            raise SettingsError(
                f"{where}: series {entry['series']!r} is no per-repeat mapping of "
                f"{summary.__name__} (a dict[int, float] field or annotated property)"
            )
    for key in ("name", "label", "description", "column", "stderr_column", "verdict_column"):
        if not isinstance(entry.get(key, ""), str):
            raise SettingsError(f"{where}: {key} must be text, got {entry[key]!r}")
    converted: dict[str, Any] = {
        k: attrgetter(str(entry[k])) for k in ("value", "stderr", "series") if k in entry
    }
    if interval:
        converted["interval"] = _Bounds(*(attrgetter(str(x)) for x in interval))
    if "verdict" in entry:
        from coldbias_tasks.core.measures.verdicts import RULES

        if entry["verdict"] not in RULES:
            raise SettingsError(
                f"{where}: verdict {entry['verdict']!r} is no rule; the rules: {list(RULES)} "
                "(coldbias_tasks/core/measures/verdicts.py)"
            )
        converted["verdict"] = RULES[entry["verdict"]]
    converted["source"] = str(entry["value"])
    converted["range"] = (float(low_high[0]), float(low_high[1]))
    converted["description"] = " ".join(entry["description"].split())
    try:
        return MetricSpec(**(entry | converted))
    except ValueError as err:
        raise SettingsError(f"{where}: {err}; fix the entry") from None


def load_declarations(path: Path | None = None) -> list[MetricSpec]:
    """The metrics declared in ``path`` (default: the package's ``data/metrics.yaml``)."""
    entries = metric_entries(path)
    path = path or data_dir() / "metrics.yaml"
    return [_spec_of(e, f"{path}, entry {i + 1}") for i, e in enumerate(entries)]


for _spec in load_declarations():
    try:
        declare(_spec)
    except ValueError as _err:  # a name given twice
        raise SettingsError(f"{data_dir() / 'metrics.yaml'}: {_err}") from None

#: The forward quantities the analysis selects by (typed selectors: pass these, not names).
DISPARITY = metric_spec("disparity")
DISPARITY_P = metric_spec("disparity_p")
DIVERGENCE = metric_spec("divergence")
EXCESS = metric_spec("excess")
