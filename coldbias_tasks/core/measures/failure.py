"""Answer failure, per answer: did the user get a usable list? (docs/measurement.md §3e).

An answer **fails** when any of :data:`FAILURE_KINDS` holds, read from its parse record:

- ``no_list``: the answer holds no list entry at all (an empty answer, or prose such as a
  refusal: the record keeps the parsed entries, not the raw text, so the two are one kind);
- ``short``: it lists at least one entry but fewer than k valid items;
- ``out_of_catalog``: an entry names an item not shown (catalog tasks) or not found;
- ``duplicate``: an entry repeats an earlier item.

The per-answer utility is 1.0 for a failed answer, else 0.0 (units: share of answers);
:mod:`.costs` compares it between values (``failure_gap``). A record with k = 0 (no request)
has no utility (NaN).
"""

from __future__ import annotations

from coldbias_tasks.core.measures.contrast import contrast_measure
from coldbias_tasks.core.records import AnswerRecord

__all__ = ["FAILURE_GAP", "FAILURE_KINDS", "failed", "failure_kinds"]

NAN = float("nan")
FAILURE_KINDS: tuple[str, ...] = ("no_list", "short", "out_of_catalog", "duplicate")


def failure_kinds(record: AnswerRecord) -> tuple[str, ...]:
    """The :data:`FAILURE_KINDS` of one answer, in that order (empty: a usable list)."""
    kinds = []
    if record.n_entries == 0 and not record.items:
        kinds.append("no_list")
    elif len(record.items) < record.k:
        kinds.append("short")
    if record.n_out_of_catalog > 0:
        kinds.append("out_of_catalog")
    if record.n_duplicates > 0:
        kinds.append("duplicate")
    return tuple(kinds)


def failed(record: AnswerRecord) -> float:
    """1.0 when the answer fails (any of :data:`FAILURE_KINDS`), else 0.0; NaN when k = 0."""
    if record.k <= 0:
        return NAN
    return 1.0 if failure_kinds(record) else 0.0


FAILURE_GAP = contrast_measure(
    "failure_gap",
    lambda summary: summary.costs.failure.contrast.estimate,
    (0.0, 1.0),
    "do some values get more failed answers (no list, fewer than k items, out-of-catalog or "
    "duplicate entries)? The spread between values of the share of failed answers, compared "
    "within each phrasing and averaged over phrasings (signed at two values: the second value's "
    "share minus the first's); 0 when every value's answers fail alike. Standard error: "
    "delete-one-phrasing jackknife (t with P − 1 df); p: relabelling of the values within each "
    "phrasing",
    240,
)
