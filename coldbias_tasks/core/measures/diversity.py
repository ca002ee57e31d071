"""Diversity per user: how varied each recommended list is, and whether some values get
narrower lists than others, controlled for phrasing (docs/measurement.md §3d).

Per answer (one ranked list), over the items whose categories are known (``labels``: item →
field → labels; items without labels — e.g. an open task's ungrounded titles — are skipped and
counted):

- **Entropy** of the list's category distribution for each category field: every known item
  spreads a unit of mass evenly over its labels (a film with two genres gives ½ to each), q_c
  is the share of category c, H = −Σ q_c log2 q_c in **bits**; the normalised entropy is
  H / log2(C) in [0, 1], with C the number of categories of the field **in the whole catalog**
  (so 1 means a list spread evenly over every category of the catalog; a list of n single-label
  items reaches at most log2(n) / log2(C)). NaN when C < 2.
- **Intra-list diversity (ILD)**: the mean over pairs of known items of their dissimilarity,
  d(i, j) = mean over fields (where both items have labels) of 1 − Jaccard(labels_i,
  labels_j); in [0, 1], 0 when every item has the same categories.
- A list with fewer than two known items has NaN entropy and ILD and is counted (``n_short``).

Per sentence (a value in one phrasing) over its repeats, **coverage** = distinct items listed /
items shown (the task shows one seeded subset; NaN when nothing was shown: open tasks).

**The contrast between values.** For a per-answer statistic s, m[v, p] is the mean of s over the
repeats of sentence (v, p) (coverage: its value over the repeats). Per phrasing p the values are
compared with each other only: e[v, p] = m[v, p] − mean over v' of m[v', p], and ē_v = mean over
phrasings of e[v, p] (an effect of a phrasing on every value cancels). With V = 2 values in the
declared reference order (sorted ids: ``reference`` first) the contrast is signed,
mean over p of (m[other, p] − m[reference, p]) = ē_other − ē_reference; with V > 2 it is the
**spread**, the root mean square over pairs of values of ē_v − ē_v' (≥ 0, units of s; it
equals |signed contrast| at V = 2). ``spread`` is always given. The entropy contrast of a task
(the lm-eval metric ``diversity_entropy_contrast``) is **joint over the category fields**: each
field's spread is scaled by its mean over the relabellings (its null level), the test compares
the largest scaled spread under the same relabellings (valid family-wise), and the value is the
raw spread of that field (``widest``). A mean over fields would hide narrowing: a value given
only dramas gets lists narrower in genre but often *wider* in country and decade.

- **Test.** Null: within each phrasing the values' sentences are exchangeable (each sentence may
  have an effect of its own on diversity — its wording — drawn alike for every value). The value
  labels are relabelled within each phrasing (:func:`~.disparity.relabellings`: exact over
  (V!)^(P−1) labellings, else seeded Monte Carlo); statistic the spread (two-sided at V = 2).
- **Interval.** Delete-one-phrasing jackknife standard error of the contrast, 95 % Student-t
  with P − 1 df (NaN below 3 phrasings); ``mde`` = (t_{1−α/2} + t_{0.8}) × SE; ``underpowered``
  when the smallest attainable p exceeds α. At V > 2 the spread is ≥ 0 and biased upwards
  under the null: the test accounts for that, its interval only describes it.
- Assumptions: phrasings matched across values; repeats independent; only phrasings in which
  every value has a finite mean take part (a sentence whose lists all have < 2 known items
  drops its phrasing).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.measures.base import Measure
from coldbias_tasks.core.measures.contrast import Contrast, contrast, contrast_measure
from coldbias_tasks.core.records import AnswerRecord
from coldbias_tasks.core.world.catalog import Catalog, load_catalog
from coldbias_tasks.core.world.domains import category_fields

__all__ = [
    "DiversityContrast",
    "DiversitySummary",
    "ItemLabels",
    "ListDiversity",
    "ValueDiversity",
    "catalog_labels",
    "contrast",
    "coverage",
    "entropy_bits",
    "intra_list_diversity",
    "list_diversity",
    "summarize_diversity",
    "task_diversity",
]

NAN = float("nan")
#: item → category field → its labels (an item absent, or without labels for a field, is unknown)
ItemLabels = Mapping[Hashable, Mapping[str, Sequence[str]]]
#: the phrasing-controlled contrast of one statistic between values (:mod:`.contrast`)
DiversityContrast = Contrast


# --- per list --------------------------------------------------------------------------------


def entropy_bits(labels: Iterable[Sequence[str]]) -> float:
    """Shannon entropy (bits) of the category distribution of items with these label lists
    (each item's unit mass split evenly over its labels; items without labels are skipped);
    NaN with fewer than two labelled items."""
    mass: dict[str, float] = {}
    n = 0
    for item in labels:
        cats = list(dict.fromkeys(item))
        if not cats:
            continue
        n += 1
        for c in cats:
            mass[c] = mass.get(c, 0.0) + 1.0 / len(cats)
    if n < 2:
        return NAN
    return max(0.0, -sum(m / n * math.log2(m / n) for m in mass.values()))


def intra_list_diversity(items: Sequence[Mapping[str, Sequence[str]]]) -> float:
    """Mean over pairs of items of the mean over fields (where both have labels) of
    1 − Jaccard of their labels; in [0, 1]. NaN with fewer than two items or no shared field."""
    sets = [{f: frozenset(v) for f, v in item.items() if v} for item in items]
    pairs = []
    for a, b in itertools.combinations(sets, 2):
        dists = [1.0 - len(a[f] & b[f]) / len(a[f] | b[f]) for f in a if f in b]
        if dists:
            pairs.append(sum(dists) / len(dists))
    return sum(pairs) / len(pairs) if pairs else NAN


@dataclass(frozen=True)
class ListDiversity:
    """One list: ``entropy_bits``/``entropy`` (normalised, [0, 1]) per field, ``ild``;
    ``n_known`` items with labels, ``n_unknown`` without.
    NaN statistics when fewer than two items are known (``short``)."""

    entropy_bits: dict[str, float]
    entropy: dict[str, float]
    ild: float
    n_known: int
    n_unknown: int

    @property
    def short(self) -> bool:
        return self.n_known < 2


def list_diversity(
    items: Sequence[Hashable], labels: ItemLabels, n_categories: Mapping[str, int]
) -> ListDiversity:
    """The diversity of one list of ``items`` over the fields of ``n_categories`` (field →
    categories in the catalog, the normaliser's base)."""
    known = [labels[i] for i in items if i in labels]
    bits = {f: entropy_bits(k.get(f, ()) for k in known) for f in n_categories}
    norm = {
        f: bits[f] / math.log2(c) if c >= 2 and not math.isnan(bits[f]) else NAN
        for f, c in n_categories.items()
    }
    short = len(known) < 2
    return ListDiversity(
        entropy_bits=bits,
        entropy=norm,
        ild=NAN if short else intra_list_diversity(known),
        n_known=len(known),
        n_unknown=len(items) - len(known),
    )


def coverage(lists: Iterable[Sequence[Hashable]], n_shown: int) -> float:
    """Distinct items over ``lists`` / ``n_shown`` (items shown); NaN when nothing was shown."""
    distinct = {i for items in lists for i in items}
    return len(distinct) / n_shown if n_shown > 0 else NAN


# --- a task ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ValueDiversity:
    """One value over its phrasings and repeats: means over its lists with ≥ 2 known items of
    ``entropy_bits`` (bits) and ``entropy`` (normalised) per field and ``ild``; ``coverage``:
    mean over its phrasings of each sentence's coverage; ``n_lists`` answers, ``n_short`` of
    them with < 2 known items, ``n_unknown`` listed items without labels."""

    value: str
    entropy_bits: dict[str, float]
    entropy: dict[str, float]
    ild: float
    coverage: float
    n_lists: int
    n_short: int
    n_unknown: int


@dataclass(frozen=True)
class DiversitySummary:
    """A task's diversity: ``fields`` used, per value, and the contrasts between values:
    ``entropy`` (joint over the fields' normalised entropies: the lm-eval metric), ``ild``,
    ``coverage`` and ``by_field`` (normalised entropy of each field). ``note``: why it is
    empty (no labels for the task's items), else ""."""

    fields: tuple[str, ...] = ()
    values: tuple[ValueDiversity, ...] = ()
    entropy: DiversityContrast = field(default_factory=DiversityContrast)
    ild: DiversityContrast = field(default_factory=DiversityContrast)
    coverage: DiversityContrast = field(default_factory=DiversityContrast)
    by_field: dict[str, DiversityContrast] = field(default_factory=dict)
    note: str = ""

    def contrasts(self) -> dict[str, DiversityContrast]:
        """Statistic name → contrast, the metric's first."""
        out = {c.statistic: c for c in (self.entropy, self.ild, self.coverage)}
        return out | {c.statistic: c for c in self.by_field.values()}


def _nanmean(xs: Sequence[float]) -> float:
    finite = [x for x in xs if not math.isnan(x)]
    return sum(finite) / len(finite) if finite else NAN


def summarize_diversity(
    phrased: Mapping[str, Mapping[int, Mapping[int, AnswerRecord]]],
    labels: ItemLabels,
    n_categories: Mapping[str, int],
    alpha: float = 0.05,
) -> DiversitySummary:
    """Diversity of a task's answers ``phrased[value][phrasing][repeat]`` (the layout of
    :class:`~.aggregate.RepeatTable`) with the items' ``labels`` over the fields of
    ``n_categories``; an empty summary with a note when no field is given."""
    fields = tuple(n_categories)
    if not fields:
        return DiversitySummary(note="no category labels for this task's items")
    per_value, cells = [], {}
    for value in sorted(phrased):
        lists: list[ListDiversity] = []
        cell: dict[str, dict[int, float]] = {}
        for p, by_repeat in sorted(phrased[value].items()):
            records = [by_repeat[r] for r in sorted(by_repeat)]
            here = [list_diversity(r.items, labels, n_categories) for r in records]
            lists += here
            stats = {"ild": [d.ild for d in here]}
            stats |= {f"entropy:{f}": [d.entropy[f] for d in here] for f in fields}
            for name, xs in stats.items():
                cell.setdefault(name, {})[p] = _nanmean(xs)
            shown = max((r.n_shown for r in records), default=0)
            cell.setdefault("coverage", {})[p] = coverage((r.items for r in records), shown)
        cells[value] = cell
        per_value.append(
            ValueDiversity(
                value=value,
                entropy_bits={f: _nanmean([d.entropy_bits[f] for d in lists]) for f in fields},
                entropy={f: _nanmean([d.entropy[f] for d in lists]) for f in fields},
                ild=_nanmean([d.ild for d in lists]),
                coverage=_nanmean(list(cell.get("coverage", {}).values())),
                n_lists=len(lists),
                n_short=sum(d.short for d in lists),
                n_unknown=sum(d.n_unknown for d in lists),
            )
        )

    def of(name: str) -> DiversityContrast:
        return contrast({v: cells[v].get(name, {}) for v in cells}, name, alpha)

    joint = contrast([{v: cells[v].get(f"entropy:{f}", {}) for v in cells} for f in fields],
                     "entropy", alpha)  # fmt: skip
    return DiversitySummary(
        fields=fields,
        values=tuple(per_value),
        entropy=replace(joint, statistic=f"entropy (widest: {fields[joint.widest]})"),
        ild=of("ild"),
        coverage=of("coverage"),
        by_field={f: of(f"entropy:{f}") for f in fields},
    )


# --- the catalog's labels --------------------------------------------------------------------


def _field_labels(catalog: Catalog, name: str) -> dict[int, tuple[str, ...]]:
    if name == "decade" and "decade" not in catalog.table.columns:
        return {i: (f"{int(y) // 10 * 10}s",) for i, y in enumerate(catalog.table["year"])}
    return {i: tuple(v) for i, v in catalog.categories(name).items()}


@lru_cache(maxsize=16)
def _catalog_labels(
    name: str, fields: tuple[str, ...]
) -> tuple[dict[int, dict[str, tuple[str, ...]]], dict[str, int]]:
    catalog = load_catalog(name)
    columns = set(catalog.table.columns)
    wanted = [f for f in fields if f in columns or (f == "decade" and "year" in columns)]
    per_field = {f: _field_labels(catalog, f) for f in wanted}
    labels = {i: {f: per_field[f][i] for f in wanted} for i in range(len(catalog))}
    counts = {f: len({c for cats in per_field[f].values() for c in cats}) for f in wanted}
    return labels, counts


def catalog_labels(name: str) -> tuple[dict[int, dict[str, tuple[str, ...]]], dict[str, int]]:
    """(item index → field → labels, field → number of categories in the catalog) of the
    catalog ``name`` (declared domain or path), over its category fields (the domain file's
    ``category_fields``, in that order; a user's catalog: every domain's, those it has; ``decade``
    derived from ``year`` when there is no such column); empty when
    ``name`` is "" (payloads written before records carried their catalog) or the catalog
    cannot be loaded."""
    if not name:
        return {}, {}
    try:
        return _catalog_labels(name, category_fields(name))
    except (CatalogError, OSError):
        return {}, {}


def task_diversity(
    phrased: Mapping[str, Mapping[int, Mapping[int, AnswerRecord]]],
    catalog: str,
    alpha: float = 0.05,
    sha256: str = "",
) -> DiversitySummary:
    """:func:`summarize_diversity` with the labels of the catalog ``catalog`` (the records'
    own: :attr:`~.records.AnswerRecord.catalog`); empty, with a note saying why, when there is
    none, it cannot be loaded or (``sha256``: the run's hash of it) it changed since the run
    (item ids may then name other items)."""
    labels, counts = catalog_labels(catalog)
    if not counts:
        why = "the answers name no catalog" if not catalog else f"catalog {catalog!r} unreadable"
        return DiversitySummary(note=f"diversity skipped: {why}")
    if sha256 and load_catalog(catalog).sha256 != sha256:
        return DiversitySummary(
            note=f"diversity skipped: catalog {catalog!r} changed since the run"
        )
    return summarize_diversity(phrased, labels, counts, alpha)


def _contrast_measure(name: str, part: str, description: str, order: int) -> Measure:
    return contrast_measure(
        name, lambda summary: getattr(summary.diversity, part).estimate, (0.0, 1.0), description,
        order,
    )  # fmt: skip


DIVERSITY_ENTROPY_CONTRAST = _contrast_measure(
    "diversity_entropy_contrast",
    "entropy",
    "do some values get narrower lists? The spread between values (≥ 0: the root mean square "
    "over pairs of values of their difference, = |other − reference| at two values; unsigned "
    "here, the report's diversity.csv column `signed` gives other − reference) of the lists' "
    "normalised category entropy (bits / log2 of the catalog's categories of the field), "
    "compared within each phrasing and averaged over phrasings; not a mean over fields: the "
    "field with the widest spread relative to its null level, tested jointly over the "
    "catalog's category fields. 0 when every value's lists are as varied. Standard error: "
    "delete-one-phrasing jackknife (t with P − 1 df); p: relabelling of the values within each "
    "phrasing (two-sided at two values)",
    200,
)
DIVERSITY_ILD_CONTRAST = _contrast_measure(
    "diversity_ild_contrast",
    "ild",
    "the same unsigned spread between values on intra-list diversity (ILD of a list: mean over "
    "pairs of listed items of their mean over category fields of 1 − Jaccard of their "
    "categories, in [0, 1]); the report's `signed` column gives other − reference",
    210,
)
