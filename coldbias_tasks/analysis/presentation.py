"""How the readers show each registered measure: its title, report columns, leaderboard column
and how tasks combine (``data/metrics.yaml``), and the report's values of one task's result.

The measure itself (:mod:`coldbias_tasks.core.measures`) says what it computes; this module only
says how it is shown. :func:`shown` gives a measure's :class:`Shown` (defaults for a measure
without an entry: its name as title and column, no leaderboard column, pooled by the mean).
:func:`report_values` reads one task's estimates (:class:`~coldbias_tasks.core.result.TaskResult`)
into report columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args

from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.files.yamlio import load_yaml
from coldbias_tasks.core.measures import Measure, lm_keys, measure, measures
from coldbias_tasks.core.measures.base import Scope
from coldbias_tasks.core.resources import data_dir
from coldbias_tasks.core.result import TaskResult
from coldbias_tasks.core.similarities import similarity
from coldbias_tasks.core.vocabulary import ANSWER_KEY

__all__ = [
    "Pooling",
    "Shown",
    "forget",
    "load_presentation",
    "ordered",
    "present",
    "report_values",
    "shown",
]

#: How the leaderboard shows a measure of its own: not at all, over all of a model's answers
#: pooled, or as the mean over its attribute tasks.
Board = Literal["", "answers", "tasks"]
#: How tasks combine (a domain, a group, the model): their mean; the mean with the series
#: combined repeat by repeat and a t-interval over repeats (tasks of one run share each
#: repeat's catalog order); or the mean with the standard error √(Σ SE²) / n and a Student-t
#: interval with Welch–Satterthwaite degrees of freedom (tasks asking different sentences).
Pooling = Literal["mean", "repeats", "stderr"]
_KEYS = ("name", "label", "column", "stderr_column", "p_column", "verdict_column", "interval",
         "leaderboard", "pooling", "family")  # fmt: skip


@dataclass(frozen=True)
class Shown:
    """How one measure is shown (see ``data/metrics.yaml``'s header)."""

    measure: Measure
    label: str
    column: str
    stderr_column: str
    verdict_column: str
    p_column: str
    interval: bool = False
    leaderboard: Board = ""
    pooling: Pooling = "mean"
    #: the leaderboard family its column belongs to ("": the fidelity family)
    family: str = ""

    def title(self, sim: str = "") -> str:
        """The label with ``{M}`` filled by the similarity's printed name."""
        return self.label.replace("{M}", similarity(sim).label if sim else "")

    @property
    def direction(self) -> str:
        return "↑" if self.measure.higher_is_better else "↓"

    @property
    def interval_columns(self) -> tuple[str, str] | tuple[()]:
        keys = self.measure.keys
        if self.interval or "ci_low" in keys:
            return f"{self.column}_ci_low", f"{self.column}_ci_high"
        return ()


def _entry(raw: Any, where: str, names: set[str]) -> dict[str, Any]:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise SettingsError(f"{where}: each entry must be a mapping with a name; keys: {_KEYS}")
    unknown = [k for k in raw if k not in _KEYS]
    if unknown:
        raise SettingsError(
            f"{where}: unknown keys {unknown}; fix: remove them (the keys "
            f"are {', '.join(_KEYS)}; a verdict rule belongs to the measure's module)"
        )
    if raw["name"] not in names:
        raise SettingsError(f"{where}: {_not_a_measure(raw['name'])}")
    for key in ("label", "column", "stderr_column", "p_column", "verdict_column", "family"):
        if not isinstance(raw.get(key, ""), str):
            raise SettingsError(
                f"{where}: {key} must be text, got {_shown(raw[key])}; fix: write it as text"
            )
    for key in ("column", "stderr_column", "p_column", "verdict_column"):
        if raw.get(key) == ANSWER_KEY or (key in raw and not raw[key].isidentifier()):
            raise SettingsError(
                f"{where}: {key} {raw[key]!r} is not a column name of its own (an identifier, "
                f"not {ANSWER_KEY!r}); fix: pick another name"
            )
    if not isinstance(raw.get("interval", False), bool):
        raise SettingsError(f"{where}: interval must be true or false")
    for key, allowed in (("leaderboard", get_args(Board)), ("pooling", get_args(Pooling))):
        if raw.get(key, allowed[0]) not in allowed:
            raise SettingsError(f"{where}: {key} must be one of {list(allowed)}, got {raw[key]!r}")
    return raw


def load_presentation(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """measure name → its entry in ``path`` (default: the package's ``data/metrics.yaml``),
    checked (SettingsError naming the entry and the fix)."""
    path = path or data_dir() / "metrics.yaml"
    entries = load_yaml(path, SettingsError)
    if not isinstance(entries, list):
        raise SettingsError(f"{path}: expected a list of entries, one per measure")
    names = {m.name for m in measures()}
    out: dict[str, dict[str, Any]] = {}
    where: dict[str, str] = {}
    for i, raw in enumerate(entries):
        where_i = f"{path}, entry {i + 1}"
        entry = _entry(raw, where_i, names)
        if entry["name"] in out:
            raise SettingsError(
                f"{where_i}: name {entry['name']!r} is listed twice; fix: keep one entry"
            )
        out[entry["name"]] = entry
        where[entry["name"]] = where_i
    _no_shared_columns(out, where)
    return out


def _not_a_measure(name: str) -> str:
    """Why ``name`` is no measure's, and the fix (an lm-eval key is named as such)."""
    keys = {lk.key: lk.measure.name for r in (False, True) for lk in lm_keys(reverse=r).values()}
    if name == ANSWER_KEY:
        why = "the answer record's lm-eval key; fix: remove the entry"
    elif name in keys:
        why = f"an lm-eval key of the measure {keys[name]!r}; fix: name: {keys[name]}"
    else:
        registered = ", ".join(sorted(m.name for m in measures()))
        why = f"fix: name one of {registered}, or remove the entry"
    return f"name: no registered measure {name!r} ({why})"


def _no_shared_columns(entries: Mapping[str, dict[str, Any]], where: Mapping[str, str]) -> None:
    """Refuse two measures of one scope shown in the same report column (the later would
    silently replace the earlier's numbers)."""
    owner: dict[tuple[str, str], str] = {}
    for m in measures():
        for column in _columns(m, entries.get(m.name, {})):
            other = owner.setdefault((m.scope, column), m.name)
            if other != m.name:
                named = where.get(m.name) or where.get(other) or "data/metrics.yaml"
                raise SettingsError(
                    f"{named}: column {column!r} of {m.name!r} is already {other!r}'s; fix: "
                    "give it a column of its own"
                )


def _columns(m: Measure, entry: Mapping[str, Any]) -> list[str]:
    s = _shown_from(m, entry)
    out = [s.column, *s.interval_columns]
    for part, column in (("stderr", s.stderr_column), ("p", s.p_column),
                         ("verdict", s.verdict_column)):  # fmt: skip
        if part in m.keys:
            out.append(column)
    return out


def _shown(value: object) -> str:
    text = repr(value)
    return text[:60] + ("..." if len(text) > 60 else "")


@lru_cache(maxsize=1)
def _package_entries() -> dict[str, dict[str, Any]]:
    return load_presentation()


#: entries given in code (:func:`present`): a plugin's measures, a test's
_PRESENTED: dict[str, dict[str, Any]] = {}


def present(name: str, **entry: Any) -> None:
    """How a measure registered in code (a plugin, a test) is shown: the keys of a
    data/metrics.yaml entry, checked alike (SettingsError)."""
    names = {m.name for m in measures()}
    _PRESENTED[name] = _entry({"name": name, **entry}, f"present({name!r})", names)


def forget(name: str) -> None:
    """Drop what :func:`present` said of ``name``."""
    _PRESENTED.pop(name, None)


def shown(m: Measure | str) -> Shown:
    """How measure ``m`` (or the one registered under that name) is shown."""
    m = measure(m) if isinstance(m, str) else m
    return _shown_from(m, _PRESENTED.get(m.name) or _package_entries().get(m.name, {}))


def _shown_from(m: Measure, entry: Mapping[str, Any]) -> Shown:
    column = entry.get("column") or m.name
    p_name = m.p_name or f"{m.name}_p"
    return Shown(
        m,
        entry.get("label") or m.name.replace("_", " "),
        column,
        entry.get("stderr_column") or f"{column}_stderr",
        entry.get("verdict_column") or f"{column}_verdict",
        entry.get("p_column") or p_name,
        bool(entry.get("interval", False)),
        entry.get("leaderboard", ""),
        entry.get("pooling", "mean"),
        entry.get("family", ""),
    )


def report_values(
    result: TaskResult, scope: Scope, sim: str = "", exclude: tuple[Measure, ...] = ()
) -> dict[str, Any]:
    """Report column → value of every registered measure of ``scope`` in ``result`` (for
    ``sim`` when the scope is per similarity; ``exclude``: measures shown in a table of their
    own): the value, its interval, standard error, p-value and verdict where the measure has
    them."""
    out: dict[str, Any] = {}
    for m in measures(scope):
        if m in exclude:
            continue
        s, e = shown(m), result.estimate(m, sim)
        out[s.column] = float(e.value)
        if s.interval_columns:
            out |= dict(zip(s.interval_columns, (e.ci_low, e.ci_high)))
        if "stderr" in m.keys:
            out[s.stderr_column] = float(e.stderr)
        if "p" in m.keys:
            out[s.p_column] = float(e.p_value)
        if "verdict" in m.keys:
            out[s.verdict_column] = e.verdict_text or (
                "" if math.isnan(e.value) and not e.verdict else e.verdict
            )
    return out


def ordered(layout: tuple[str, ...], values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with the keys named in ``layout`` first, in its order, then the others in
    their own order (measures without a place in the layout go last)."""
    return {k: values[k] for k in layout if k in values} | {
        k: v for k, v in values.items() if k not in layout
    }
