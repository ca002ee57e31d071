"""The leaderboard's columns, each declared once: a :class:`ColumnSpec` (key, title, direction,
description and the function computing the row's :class:`Cell` from its
:class:`~coldbias_tasks.analysis.leaderboard_cells.ModelData`) inside a :class:`Family` of
columns repeated per :class:`Slot` (a domain × variant, an attribute group, a reverse key, a
capability metric; static families have one slot). :data:`FAMILIES` in order is the column
order; :func:`fill_cells` fills a row from it and :func:`columns_of` lists the columns some row
has a cell for (or that are always shown). A new column: one :class:`ColumnSpec` in the right
family of :data:`FAMILIES`; a registered
measure with a ``leaderboard`` entry in data/metrics.yaml
(:mod:`coldbias_tasks.analysis.presentation`) gets its column in the family it names there
(default: fidelity; "cost to the user": the utility gaps between values) without one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from coldbias_tasks.analysis.control_families import control_families
from coldbias_tasks.analysis.intervals import combine
from coldbias_tasks.analysis.leaderboard_cells import (
    Cell,
    ModelData,
    cell_of,
    coverage_cell,
    draws_cell,
    flags_cell,
    mean_cell,
    overall,
    overall_estimate,
    placebo_clearly_above_zero,
    pooled,
    pooled_cell,
    settings,
    stderr_cell,
    value_weighted,
)
from coldbias_tasks.analysis.presentation import shown
from coldbias_tasks.analysis.summaries import TaskSummary
from coldbias_tasks.analysis.verdicts import HEADLINE_WORDS, verdict_words
from coldbias_tasks.core.measures import (
    DISPARITY,
    DIVERGENCE,
    EXCESS,
    LmKey,
    Measure,
    lm_keys,
)
from coldbias_tasks.core.measures.determinism import DETERMINISTIC_MESSAGE
from coldbias_tasks.core.similarities import HEADLINE_SIMILARITY, SIMILARITY_NAMES, similarity
from coldbias_tasks.core.vocabulary import HEADLINE_KEY, VARIANTS
from coldbias_tasks.core.world.domains import domains

__all__ = [
    "DOWN",
    "FAMILIES",
    "MAIN",
    "UP",
    "Column",
    "ColumnSpec",
    "Family",
    "Slot",
    "columns_of",
]

DOWN, UP = "↓", "↑"
#: the view of the headline columns: the page's default view, the Markdown's first table
MAIN = "main"
_VARIANT_ORDER = {v: i for i, v in enumerate(VARIANTS)}


@dataclass(frozen=True)
class Column:
    """A leaderboard column: machine ``key``, display ``title``, direction ↓/↑ or ""."""

    key: str
    title: str
    direction: str = ""
    numeric: bool = True
    description: str = ""
    #: the view it is shown in: "main" (the page's default view and the Markdown's first
    #: table) or the name of a family of details (one toggle on the page)
    view: str = MAIN

    @property
    def header(self) -> str:
        return f"{self.title} {self.direction}".strip()


@dataclass(frozen=True)
class Slot:
    """One instance of a column family: ``id`` (unique in the family; the last model's slot of
    an id wins), the ``fields`` its specs' templates are filled with, and its ``order`` among
    the family's slots."""

    id: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    order: tuple[object, ...] = ()
    #: whether its specs of the main view stay there (a domain's other variants: details)
    main: bool = True

    def get(self, name: str) -> str:
        return dict(self.fields)[name]

    def fill(self, template: str) -> str:
        """``template`` with ``{field}`` replaced (static slots: unchanged)."""
        return template.format(**dict(self.fields)) if self.fields else template


CellFunction = Callable[[ModelData, Slot], "Cell | None"]


@dataclass(frozen=True)
class ColumnSpec:
    """One column (per slot of its family): ``key``, ``title``, ``direction`` and
    ``description`` are templates over the slot's fields; ``cell`` computes the row's cell
    (``None``: the row has none). Shown when some row has a cell, or ``always``. ``view``:
    "main" for the default view, else the details family it is toggled with (default: its
    :class:`Family`'s name)."""

    key: str
    title: str
    cell: CellFunction
    direction: str = ""
    description: str = ""
    numeric: bool = True
    always: bool = False
    view: str = ""

    def column(self, slot: Slot, family: str = "") -> Column:
        view = self.view or family
        if view == MAIN and not slot.main:
            view = family
        return Column(
            slot.fill(self.key),
            slot.fill(self.title),
            slot.fill(self.direction),
            self.numeric,
            slot.fill(self.description),
            view,
        )


def _single(data: ModelData) -> Iterable[Slot]:
    return (Slot(),)


@dataclass(frozen=True)
class Family:
    """Columns repeated per slot: each slot's specs in order, the slots ordered by ``order``.
    ``declared``: columns made from the declared metrics (:func:`_declared_columns`, read on
    each use, so a metric declared later has its column), placed before ``specs``."""

    name: str
    specs: tuple[ColumnSpec, ...]
    slots: Callable[[ModelData], Iterable[Slot]] = _single
    declared: Callable[[], tuple[ColumnSpec, ...]] | None = None

    def column_specs(self) -> tuple[ColumnSpec, ...]:
        return (*(self.declared() if self.declared else ()), *self.specs)


def fill_cells(data: ModelData) -> dict[str, Cell]:
    """Column key → cell of one model's row (columns without a cell for it left out)."""
    cells: dict[str, Cell] = {}
    for family in FAMILIES:
        for slot in family.slots(data):
            for spec in family.column_specs():
                cell = spec.cell(data, slot)
                if cell is not None:
                    cells[slot.fill(spec.key)] = cell
    return cells


def columns_of(models: Sequence[ModelData], cells: Sequence[Mapping[str, Cell]]) -> list[Column]:
    """The columns in :data:`FAMILIES` order: those some row of ``cells`` has, and the
    ``always`` ones; each key once."""
    out: dict[str, Column] = {}
    for family in FAMILIES:
        slots = {slot.id: slot for data in models for slot in family.slots(data)}
        if family.slots is _single:
            slots = {"": Slot()}
        for slot in sorted(slots.values(), key=lambda s: s.order):
            for spec in family.column_specs():
                key = slot.fill(spec.key)
                # a key several slots fill alike (a domain's placebo, under each of its
                # variants) is one column, where it first appears
                if key not in out and (spec.always or any(key in row for row in cells)):
                    out[key] = spec.column(slot, family.name)
    return list(out.values())


# --- cell functions --------------------------------------------------------------------------


def _overall(quantity: Measure, data: ModelData, slot: Slot) -> Cell:
    return overall(data, quantity, slot.get("sim") if slot.fields else HEADLINE_SIMILARITY)


def _verdict(data: ModelData, slot: Slot) -> Cell | None:
    found = overall_estimate(data, DISPARITY)  # its verdict is read from its interval
    return Cell(verdict_words(found, HEADLINE_WORDS)) if found.verdict else None


def _flags(test: Measure, data: ModelData, slot: Slot) -> Cell:
    return flags_cell(data.counted, test)


def _deterministic(data: ModelData, slot: Slot) -> Cell | None:
    """Tasks whose excess is withheld (deterministic answers); domains pool the others."""
    fixed = sorted(s.task.name for s in data.stats if s.summary.deterministic)
    return Cell("DETERMINISTIC: " + ", ".join(fixed)) if fixed else None


def _cost(data: ModelData, slot: Slot) -> Cell | None:
    """What the served runs cost, from the served model's counts (lmeval.served)."""
    served = [r.serving for r in data.model.runs if r.serving]
    if not served:
        return None
    tokens = [sum(int(x.get(k, 0)) for x in served) for k in ("prompt_tokens", "completion_tokens")]
    wall = sum(float(x.get("wall_s", 0.0)) for x in served)
    return Cell(f"{tokens[0]:,} prompt + {tokens[1]:,} generated tokens, {wall:.0f} s")


def _partial(data: ModelData, slot: Slot) -> Cell | None:
    partial_tasks = [t.name for t in data.model.tasks.values() if t.partial]
    return Cell("PARTIAL: " + ", ".join(sorted(partial_tasks))) if partial_tasks else None


def _degenerate(data: ModelData, slot: Slot) -> Cell:
    return Cell(("yes: " + "; ".join(data.degenerate)) if data.degenerate else "no")


def _domain(metric: str, quantity: Measure, data: ModelData, slot: Slot) -> Cell:
    return pooled_cell(data.domains[slot.id], metric, quantity)


def _domain_values(data: ModelData, slot: Slot) -> Cell:
    return cell_of(*value_weighted(data.domains[slot.id], HEADLINE_SIMILARITY), DIVERGENCE)


def _placebo_of(data: ModelData, slot: Slot) -> TaskSummary | None:
    domain, variant = data.domain_names[slot.id]
    return data.placebo.get(domain) if variant == "plain" else None


def _placebo_excess(data: ModelData, slot: Slot) -> Cell | None:
    p = _placebo_of(data, slot)
    if p is None:
        return None
    return cell_of(
        p.value(HEADLINE_SIMILARITY, EXCESS), p.series_of(HEADLINE_SIMILARITY, EXCESS), EXCESS
    )


def _over_placebo(data: ModelData, slot: Slot) -> Cell | None:
    p = _placebo_of(data, slot)
    if p is None:
        return None
    p_value, p_series = (
        p.value(HEADLINE_SIMILARITY, EXCESS),
        p.series_of(HEADLINE_SIMILARITY, EXCESS),
    )
    value, series = pooled(data.domains[slot.id], HEADLINE_SIMILARITY, EXCESS)
    return cell_of(value - p_value, combine([series, p_series], (1, -1)))


def _controls(data: ModelData, slot: Slot) -> Cell | None:
    """The domain's sentences against each control family of its placebo task: the mark and
    the range of the family excesses (:mod:`coldbias_tasks.analysis.control_families`)."""
    placebo = _placebo_of(data, slot)
    tasks = [s.task.records for s in data.domains.get(slot.id, [])]
    if placebo is None or not tasks:
        return None
    families = dict(placebo.task.families)
    view = control_families(tasks, placebo.task.records, families)
    values = [f.excess for f in view.families if not math.isnan(f.excess)]
    if not values or view.mark == "not computable":
        return None
    return Cell(f"{view.mark}: {min(values):+.3f} … {max(values):+.3f}")


def _group(quantity: Measure, data: ModelData, slot: Slot) -> Cell:
    return pooled_cell(data.groups[slot.id], HEADLINE_SIMILARITY, quantity)


def _group_flags(data: ModelData, slot: Slot) -> Cell:
    return flags_cell(data.groups[slot.id], DISPARITY)


def _group_flagged(data: ModelData, slot: Slot) -> Cell:
    return mean_cell(
        s.summary.metrics[HEADLINE_SIMILARITY].flagged_share for s in data.groups[slot.id]
    )


def _placebo_flag(data: ModelData, slot: Slot) -> Cell | None:
    if not data.placebo:
        return None
    flagged = [d for d, p in data.placebo.items() if placebo_clearly_above_zero(p)]
    return Cell(("yes: " + ", ".join(sorted(flagged))) if flagged else "no")


def _reverse(data: ModelData, slot: Slot) -> Cell:
    if slot.id == _COMPLETE:
        return Cell(float(np.mean(data.reverse_complete)))
    return draws_cell(data.reverse[slot.id])


def _declared_cell(metric: LmKey, data: ModelData, slot: Slot) -> Cell:
    """A measure with a leaderboard column of its own (``leaderboard`` in data/metrics.yaml):
    over all of the model's answers pooled (``answers``), or over the model's attribute tasks
    (``tasks``): a per-similarity measure pooled as it is shown (an interval when it has one),
    else the mean."""
    if shown(metric.measure).leaderboard == "answers":
        return Cell(float(metric.measure.estimate(data.answers).value))
    if metric.similarity:
        return pooled_cell(data.counted, metric.similarity, metric.measure)
    return mean_cell(s.result.estimate(metric.measure).value for s in data.counted)


def _declared_columns(family: str = "") -> tuple[ColumnSpec, ...]:
    """One column per value key of each forward measure with a ``leaderboard`` pooling and this
    ``family`` (:mod:`coldbias_tasks.analysis.presentation`), in registry order."""
    out = []
    for k in lm_keys().values():
        s = shown(k.measure)
        if not s.leaderboard or k.part != "value" or s.family != family:
            continue
        where = " (all answers pooled)" if s.leaderboard == "answers" else (
            " (mean over the attribute tasks)")  # fmt: skip
        out.append(ColumnSpec(k.key, s.title(k.similarity), partial(_declared_cell, k),
                              s.direction, description=k.measure.description + where,
                              always=True))  # fmt: skip
    return tuple(out)


def _noise_floor(data: ModelData, slot: Slot) -> Cell:
    return mean_cell(s.summary.metrics[HEADLINE_SIMILARITY].noise_floor.mean for s in data.stats)


def _versions(data: ModelData, slot: Slot) -> Cell:
    return Cell(", ".join(dict.fromkeys(t.version for t in data.model.tasks.values())))


def _extra(data: ModelData, slot: Slot) -> Cell:
    metric = data.model.capabilities[slot.get("task")]
    return stderr_cell(metric.value, metric.stderr)


def _eee(data: ModelData, slot: Slot) -> Cell:
    res = data.eee[slot.id][0]
    return stderr_cell(res.value, res.stderr_or_nan)


def _prompt(name: str, data: ModelData, slot: Slot) -> Cell | None:
    return None if data.prompt is None else Cell(data.prompt[name])


def _rank(data: ModelData, slot: Slot) -> Cell | None:
    return None if data.rank is None else Cell(data.rank)


def _tier(data: ModelData, slot: Slot) -> Cell | None:
    return None if data.tier is None else Cell(data.tier)


# --- slots -----------------------------------------------------------------------------------


def _named(part: str, variant: str) -> str:
    return part if variant == "plain" else f"{part} ({variant})"


def _domain_slots(data: ModelData) -> Iterable[Slot]:
    domain_order = {d: i for i, d in enumerate(domains())}
    for dkey, (domain, variant) in data.domain_names.items():
        fields = (("dkey", dkey), ("domain", domain), ("name", _named(domain, variant)))
        order = (_VARIANT_ORDER.get(variant, 9), domain_order.get(domain, 9), dkey)
        yield Slot(dkey, fields, order, main=variant == "plain")


def _group_slots(data: ModelData) -> Iterable[Slot]:
    for gkey, (group, variant) in data.group_names.items():
        fields = (("gkey", gkey), ("name", _named(group, variant)))
        yield Slot(gkey, fields, (_VARIANT_ORDER.get(variant, 9), gkey))


_COMPLETE = "reverse_complete_rate"


def _reverse_slots(data: ModelData) -> Iterable[Slot]:
    """A rank-gap column per domain and per attribute group, and the complete-rankings rate
    (titles and descriptions from the declared reverse metrics)."""
    if not data.model.reverse:
        return
    gap = shown("reverse_rank_gap")
    for part in data.reverse:
        key, title = f"{part}_{gap.measure.name}", f"{part.removeprefix('group_')} {gap.label}"
        fields = (("key", key), ("title", title), ("arrow", gap.direction))
        what = gap.measure.description
        yield Slot(part, (*fields, ("what", what)), (part.startswith("group_"), key))
    complete = shown(_COMPLETE)
    fields = (("key", _COMPLETE), ("title", complete.label), ("arrow", complete.direction))
    what = complete.measure.description
    yield Slot(_COMPLETE, (*fields, ("what", what)), (False, _COMPLETE))


def _similarity_slots(data: ModelData) -> Iterable[Slot]:
    """One slot per registered similarity (:mod:`coldbias_tasks.core.similarities`)."""
    for i, name in enumerate(SIMILARITY_NAMES):
        yield Slot(name, (("sim", name), ("label", similarity(name).label)), (i,))


def _extra_slots(data: ModelData) -> Iterable[Slot]:
    for task, metric in data.model.capabilities.items():
        key = f"extra:{task}:{metric.metric}"
        better = metric.higher_is_better
        arrow = UP if better is True else DOWN if better is False else ""
        fields = (("key", key), ("task", task), ("title", f"{task} {metric.metric}"))
        yield Slot(key, (*fields, ("arrow", arrow)), (key,))


def _eee_slots(data: ModelData) -> Iterable[Slot]:
    for key, (_, first) in data.eee.items():
        arrow = DOWN if first.lower_is_better else UP
        yield Slot(key, (("key", key), ("title", first.column), ("arrow", arrow)), (key,))


# --- the table -------------------------------------------------------------------------------

#: the details views (toggles on the page, further tables in the Markdown)
RAW = "raw divergence (paper-comparable)"
NOISE = "excess over the noise floor"
CONTROLS = "control families and placebo"
SETTINGS = "settings"

_HEADLINE = (
    ColumnSpec("model", "model", lambda d, s: None, numeric=False, always=True, view=MAIN,
               description="model name (runs pooled)"),
    ColumnSpec(HEADLINE_KEY, "IOU disparity (all domains)",
               partial(_overall, DISPARITY), DOWN, always=True, view=MAIN,
               description="headline: mean over the plain attribute tasks (lm-eval's group "
               "coldbias) of how much more the lists differ between users stating different "
               "values than between users stating the same value in other words; 0 = the "
               "values are treated alike; signed; 95 % Student-t interval (Welch df)"),
    ColumnSpec("rank", "rank", _rank, numeric=False, always=True, view=MAIN,
               description="95 % rank interval of the headline (bootstrap over phrasings × "
               "repeats, the same draws for every model; 1 = fairest)"),
    ColumnSpec("tier", "tier", _tier, always=True, view=MAIN,
               description="1 + the number of models significantly fairer (paired one-sided "
               "tests over the same phrasings and repeats, Holm)"),
    ColumnSpec("verdict", "verdict", _verdict, numeric=False, always=True, view=MAIN,
               description="what the headline's interval says: treated differently (above 0), "
               "not detected (MDE), underpowered, phrasings unmatched (below 0) or degenerate"),
    ColumnSpec("disparity_flags", "disparity flags", partial(_flags, DISPARITY),
               numeric=False, always=True, view=MAIN,
               description="attribute tasks whose values are treated differently from each "
               "other beyond phrasing (IOU disparity test), after Benjamini–Hochberg over the "
               "model's attribute tasks: flagged/tested"),
    ColumnSpec("degenerate", "degenerate", _degenerate, numeric=False, always=True,
               view=MAIN,
               description="fails the fidelity rules: divergences not interpretable as fairness"),
    ColumnSpec("deterministic", "deterministic", _deterministic, numeric=False, view=MAIN,
               description=f"tasks withheld: {DETERMINISTIC_MESSAGE}"),
    ColumnSpec("partial", "partial", _partial, numeric=False, view=MAIN,
               description="tasks reported from incomplete runs (--allow-partial): numbers "
               "biased"),
    ColumnSpec("overall_iou_excess", "IOU excess over noise (all domains)",
               partial(_overall, EXCESS), DOWN, always=True, view=NOISE,
               description="mean over the plain attribute tasks of the IOU divergence beyond "
               "the same-prompt noise floor: what any sentence does plus what the value adds"),
    ColumnSpec("overall_iou", "raw IOU divergence (all domains, task mean)",
               partial(_overall, DIVERGENCE), DOWN, always=True, view=RAW,
               description="raw IOU divergence from the neutral user (contains sampling "
               "noise): mean over the plain attribute tasks (every task weighted alike, not "
               "every value as in the seed paper's Table 1)"),
)  # fmt: skip

_PER_DOMAIN = (
    ColumnSpec("{dkey}_iou_disparity", "{name} IOU disparity",
               partial(_domain, HEADLINE_SIMILARITY, DISPARITY), DOWN, view=MAIN,
               description="IOU disparity between values controlled for phrasing, mean over "
               "{name} attribute tasks"),
    ColumnSpec("{dkey}_iou_excess", "{name} IOU excess",
               partial(_domain, HEADLINE_SIMILARITY, EXCESS), DOWN, view=NOISE,
               description="IOU excess over the noise floor, mean over {name} attribute tasks"),
    ColumnSpec("{domain}_placebo_iou_excess", "{domain} placebo IOU excess", _placebo_excess,
               DOWN, view=CONTROLS, description="the placebo control's excess: how much any "
               "extra sentence moves the list"),
    ColumnSpec("{domain}_iou_over_placebo", "{domain} IOU excess over placebo", _over_placebo,
               DOWN, view=CONTROLS, description="domain IOU excess minus the placebo's"),
    ColumnSpec("{domain}_vs_controls", "{domain} vs control families", _controls,
               numeric=False, view=CONTROLS,
               description="secondary: the domain's sentences against each family of control "
               "sentences (content-free, descriptive, irrelevant facts), IOU excess range; "
               "'robust' when the families agree, else 'control-dependent'"),
    ColumnSpec("{dkey}_iou_values", "{name} raw IOU (value mean, as published)",
               _domain_values, DOWN, view=RAW,
               description="raw IOU divergence from the neutral user, mean over every sentence "
               "(value × phrasing) of the {name} attribute tasks, each weighted alike: computed "
               "as the seed paper's Table 1 (a mean over all values), comparable with it (the "
               "study's own script also keeps one answer of a phrase two groups share)"),
    *(
        ColumnSpec(f"{{dkey}}_{m}", f"{{name}} raw {m.upper()} (task mean)",
                   partial(_domain, m, DIVERGENCE), DOWN, view=RAW,
                   description=f"raw {m.upper()} divergence from the neutral user, mean over "
                   "the {name} attribute tasks (every task weighted alike; groups with more "
                   "values weigh more in the seed paper's Table 1: see the value mean)")
        for m in SIMILARITY_NAMES
    ),
)  # fmt: skip

_PER_SIMILARITY = (
    ColumnSpec("overall_{sim}_disparity", "{label} disparity (all domains)",
               partial(_overall, DISPARITY), DOWN, description="the headline in {label}"),
    ColumnSpec("overall_{sim}", "raw {label} divergence (all domains, task mean)",
               partial(_overall, DIVERGENCE), DOWN,
               description="raw {label} divergence from the neutral user, task mean"),
)  # fmt: skip

_PER_GROUP = (
    ColumnSpec("group_{gkey}_iou_disparity", "{name} IOU disparity",
               partial(_group, DISPARITY), DOWN,
               description="IOU disparity of the {name} group controlled for phrasing, mean "
               "over domains"),
    ColumnSpec("group_{gkey}_disparity_flags", "{name} disparity flags", _group_flags,
               numeric=False,
               description="domains where the {name} values are treated differently from each "
               "other (IOU disparity test, BH over the group's tasks): flagged/tested"),
    ColumnSpec("group_{gkey}_iou_excess", "{name} IOU excess", partial(_group, EXCESS), DOWN,
               description="IOU excess of the {name} group, mean over domains"),
    ColumnSpec("group_{gkey}_flagged", "{name} flagged share", _group_flagged, DOWN,
               description="share of {name} values flagged after Holm (IOU), mean over domains"),
)  # fmt: skip

_PLACEBO = (
    ColumnSpec("placebo_flag", "placebo flag", _placebo_flag, numeric=False, view=CONTROLS,
               description="domains whose placebo excess is clearly above zero (its group test "
               "rejects at α, or its 95 % interval excludes 0): lists react to any extra words"),
    ColumnSpec("coverage_dependent", "coverage-dependent", lambda d, s: coverage_cell(d),
               numeric=False, view=CONTROLS, description="open tasks marked coverage-dependent"),
)  # fmt: skip

_REVERSE = (
    ColumnSpec("{key}", "{title}", _reverse, "{arrow}",
               description="reverse task (rank the users for an item): {what}"),
)  # fmt: skip

_FIDELITY = (
    ColumnSpec("noise_floor", "IOU noise floor", _noise_floor, always=True,
               description="neutral vs more answers to the same prompt (descriptive: no "
               "direction)"),
    ColumnSpec("n", "n", lambda d, s: Cell(d.n), always=True,
               description="answers (all tasks, all pooled runs)"),
    ColumnSpec("task_version", "task version", _versions, numeric=False, always=True,
               view=SETTINGS),
    ColumnSpec("settings", "settings", lambda d, s: Cell(settings(d.model.tasks.values())),
               numeric=False, always=True, view=SETTINGS,
               description="k, items shown, order, repeats, template (language)"),
    ColumnSpec("cost", "cost (served)", _cost, numeric=False, view=SETTINGS,
               description="served runs: prompt and generated tokens (the server's usage) and "
               "seconds in the request loop"),
)  # fmt: skip

_CAPABILITY = (ColumnSpec("{key}", "{title}", _extra, "{arrow}", description="other harness task"),)

_PROMPT = (
    ColumnSpec("prompt_sensitivity", "prompt sensitivity", partial(_prompt, "excess_range"),
               DOWN, description="range over prompt templates / languages of the mean IOU "
               "excess of the tasks every prompt ran (docs/measurement.md §6)"),
    ColumnSpec("prompt_rank_tau", "prompt rank τ", partial(_prompt, "group_rank_tau"), UP,
               description="mean pairwise Kendall τ of the prompts' rankings of those tasks"),
    ColumnSpec("prompts", "prompts", partial(_prompt, "prompts"), numeric=False,
               description="the prompt templates (languages) compared"),
)  # fmt: skip

_EEE = (
    ColumnSpec("{key}", "{title}", _eee, "{arrow}",
               description="Every Eval Ever record (another benchmark)"),
)  # fmt: skip

#: every leaderboard column, in column order
FAMILIES: tuple[Family, ...] = (
    Family("headline", _HEADLINE),
    Family("per domain × variant", _PER_DOMAIN, _domain_slots),
    Family("per similarity", _PER_SIMILARITY, _similarity_slots),
    Family("per attribute group", _PER_GROUP, _group_slots),
    Family("placebo", _PLACEBO),
    Family("reverse", _REVERSE, _reverse_slots),
    Family("fidelity", _FIDELITY, declared=_declared_columns),
    Family("cost to the user", (), declared=partial(_declared_columns, "cost to the user")),
    Family("capability (other harness tasks)", _CAPABILITY, _extra_slots),
    Family("prompt sensitivity", _PROMPT),
    Family("capability (Every Eval Ever records)", _EEE, _eee_slots),
)
