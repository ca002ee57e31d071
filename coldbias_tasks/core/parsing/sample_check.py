"""One check at the boundary: an answer and its document, as lm-eval logs them, turned into the
typed (record, document) pair every later step reads.

:func:`check_answer` is the only place a document is validated and an answer parsed (raw model
text) or decoded (a logged parse payload), then checked to fit its document. lm-eval's hooks
(:func:`coldbias_tasks.lmeval.harness.process_results`, its reverse twin) call it on the raw
answer; the offline loader (:mod:`coldbias_tasks.analysis.run_samples`) calls
:func:`read_sample` on each samples line, which finds the logged payload and calls it.

A sample logs its answer record once, under :data:`~coldbias_tasks.core.vocabulary.ANSWER_KEY`;
runs logged before held it under every metric key (read under
``core/files/compat.LEGACY_PAYLOAD_KEYS``). Problems raise
:class:`~coldbias_tasks.core.errors.RecordError` or its subclasses :class:`NoAnswer` (no
coldbias record in the sample) and :class:`AnswerMisfit` (a record that cannot belong to its
document), so that callers can name the fix.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from coldbias_tasks.core.errors import ColdbiasError, RecordError
from coldbias_tasks.core.files.compat import LEGACY_PAYLOAD_KEYS
from coldbias_tasks.core.parsing.answers import record_from_answer, reverse_record_from_answer
from coldbias_tasks.core.parsing.open_answers import item_code
from coldbias_tasks.core.records import AnswerRecord, ReverseDoc, TaskDoc, UserRankRecord
from coldbias_tasks.core.vocabulary import (
    ANSWER_KEY,
    FILTER_NAME,
    OPEN,
)
from coldbias_tasks.core.world.catalog import load_catalog

__all__ = [
    "AnswerMisfit",
    "NoAnswer",
    "answer_id",
    "check_answer",
    "logged_payload",
    "raw_answer",
    "read_sample",
]

Record = AnswerRecord | UserRankRecord
Doc = TaskDoc | ReverseDoc
#: Hex digits of :func:`answer_id` (48 bits: a collision needs ~10^7 answers in one task).
ANSWER_ID_DIGITS = 12
_ID = re.compile(f"[0-9a-f]{{{ANSWER_ID_DIGITS}}}")


class NoAnswer(RecordError):
    """A logged sample without a coldbias answer record (written without coldbias' hooks)."""


class AnswerMisfit(RecordError):
    """An answer record that cannot belong to its document (an edited or damaged file)."""


def answer_id(payload: Mapping[str, Any]) -> str:
    """The answer's short id: the first :data:`ANSWER_ID_DIGITS` hex digits of the sha256 of
    its payload as canonical JSON. Equal payloads have equal ids (in any process, after
    lm-eval pickles them across ranks), so a task's list of ids names its list of payloads."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:ANSWER_ID_DIGITS]


def _misfit(record: Record, doc: Doc) -> str | None:
    """Why a record cannot belong to its document, or None: another persona, item or repeat;
    a k other than the document's (or outside 1..shown items); an item id that was not shown
    (open tasks: an item that is not the code of its grounding key), or given twice; more
    items than k; a negative count."""
    if isinstance(record, UserRankRecord) and isinstance(doc, ReverseDoc):
        if (record.item_id, record.repeat) != (doc.item_id, doc.repeat):
            return f"item {record.item_id} repeat {record.repeat} in a prompt for {doc.item_id}"
        if record.candidates != doc.candidates:
            return "its users are not the users shown"
        counts = (record.n_entries, record.n_invalid, record.n_duplicates)
        return "a negative count" if min(counts) < 0 else None
    assert isinstance(record, AnswerRecord) and isinstance(doc, TaskDoc)
    if (record.persona_id, record.repeat) != (doc.persona_id, doc.repeat):
        return f"{record.persona_id} repeat {record.repeat} in a prompt for {doc.persona_id}"
    is_open = (
        doc.variant == OPEN
    )  # nothing shown: items are grounded keys (core/parsing/open_answers)
    if doc.k < 1 or (not is_open and doc.k > len(doc.shown_ids)):
        return f"k {doc.k} with {len(doc.shown_ids)} items shown"
    if record.k != doc.k:
        return f"k {record.k} in the answer but {doc.k} in the prompt"
    bad_key = _open_key_problem(record.keys, doc) if is_open else None
    if bad_key is not None:
        return bad_key
    if is_open and [item_code(key) for key in record.keys] != list(record.items):
        return "its items are not the codes of its grounding keys"
    shown = set(doc.shown_ids)
    foreign = [] if is_open else [i for i in record.items if i not in shown]
    if foreign:
        return f"item id(s) {foreign[:5]} were not shown"
    if len(set(record.items)) != len(record.items):
        return "an item id appears twice"
    if len(record.items) > record.k:
        return f"{len(record.items)} items for k {record.k}"
    counts = (record.n_shown, record.n_entries, record.n_out_of_catalog, record.n_duplicates)
    return "a negative count" if min(counts) < 0 else None


def _open_key_problem(keys: tuple[str, ...], doc: TaskDoc) -> str | None:
    """Why an open answer's grounding keys cannot be coldbias's, or None: a key that is not
    ``c:<row>``, ``r:<id>`` or ``t:<title>``, or a catalog row outside the document's catalog
    (checked when that catalog, at the hash the document records, can be read)."""
    rows = [key[2:] for key in keys if key.startswith("c:")]
    odd = [k for k in keys if k[:2] not in ("c:", "r:", "t:") or len(k) < 3]
    odd += [f"c:{r}" for r in rows if not (r.isascii() and r.isdigit())]
    if odd:
        return f"grounding key {odd[0]!r:.60} is none of c:<row>, r:<id>, t:<title>"
    if not rows:
        return None
    try:
        catalog = load_catalog(doc.catalog)
    except ColdbiasError:
        return None  # a user's catalog that is gone: its rows cannot be checked
    outside = [int(r) for r in rows if int(r) >= len(catalog)]
    if outside and catalog.sha256 == doc.catalog_sha256:
        n = len(catalog)
        return f"catalog key c:{outside[0]} is outside catalog {doc.catalog!r} ({n} items)"
    return None


def check_answer(
    answer: str | Mapping[str, Any], doc: Mapping[str, Any] | Doc, reverse: bool
) -> tuple[Record, Doc]:
    """The typed (record, document) of one answer of a forward task (``reverse``: a reverse
    task). ``answer``: the model's raw text (parsed against the document) or a logged parse
    payload (decoded, any known schema); ``doc``: the stored document (validated) or an
    already typed one (not validated again). Raises :class:`RecordError` naming the problem:
    a malformed document or payload, or :class:`AnswerMisfit` when the record cannot belong
    to the document."""
    doc_type = ReverseDoc if reverse else TaskDoc
    typed = doc if isinstance(doc, doc_type) else doc_type.from_dict(doc)  # type: ignore[arg-type]
    record: Record
    if isinstance(answer, Mapping):
        record = (UserRankRecord if reverse else AnswerRecord).from_payload(answer)
    elif isinstance(typed, ReverseDoc):
        record = reverse_record_from_answer(answer, typed)
    else:
        assert isinstance(typed, TaskDoc)
        record = record_from_answer(answer, typed)
    problem = _misfit(record, typed)
    if problem is not None:
        raise AnswerMisfit(problem)
    return record, typed


def _decoded(value: Any, reverse: bool) -> Mapping[str, Any] | None:
    """A payload as logged (a mapping, or its Python repr when lm-eval had to stringify it)
    when it has the shape of one, else None."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if reverse:
        return value if isinstance(value, Mapping) and value.get("kind") == "reverse" else None
    return value if AnswerRecord.looks_like_payload(value) else None


def logged_payload(sample: Mapping[str, Any], reverse: bool) -> Mapping[str, Any]:
    """The answer record a samples line logged: under :data:`ANSWER_KEY`, or for runs logged
    before it under the legacy metric key. Raises :class:`NoAnswer` naming the fix."""
    legacy = LEGACY_PAYLOAD_KEYS[reverse]
    found = _decoded(sample.get(ANSWER_KEY, sample.get(legacy)), reverse)
    if found is not None:
        return found
    if reverse:
        raise NoAnswer(
            f"no coldbias reverse payload under {ANSWER_KEY!r} (runs before it: {legacy!r}); "
            "rerun with the package's task YAMLs."
        )
    raise NoAnswer(
        f"no coldbias parse payload under {ANSWER_KEY!r} (runs before it: {legacy!r}): the "
        f"samples were written without the coldbias filter {FILTER_NAME!r} and process_results "
        "(coldbias_tasks.lmeval.harness.process_results). Rerun with the package's task YAMLs "
        "(`coldbias eval ...` or --include_path $(coldbias tasks-dir))."
    )


def raw_answer(sample: Mapping[str, Any]) -> str:
    """The model's raw answer text of a samples line ("" when it logged none)."""
    resps = sample.get("resps")
    while isinstance(resps, list) and resps:
        resps = resps[0]
    return resps if isinstance(resps, str) else ""


def read_sample(sample: Mapping[str, Any], reverse: bool) -> tuple[Record, Doc]:
    """The typed (record, document) of one samples line: its logged payload
    (:func:`logged_payload`) checked against its logged document (:func:`check_answer`)."""
    payload = logged_payload(sample, reverse)
    _check_ids(sample, payload)
    return check_answer(payload, sample.get("doc") or {}, reverse)


def _check_ids(sample: Mapping[str, Any], payload: Mapping[str, Any]) -> None:
    """The answer id lm-eval logged under each metric key must be the logged record's
    (:func:`answer_id`): a record edited after the run no longer has the id lm-eval's
    aggregation saw. Values that are no id (runs before ids) are not compared."""
    metrics = sample.get("metrics")
    keys = [k for k in metrics if isinstance(k, str)] if isinstance(metrics, list) else []
    values = [sample.get(k) for k in keys]
    logged = {v for v in values if isinstance(v, str) and _ID.fullmatch(v)}
    if not logged:
        return
    own = answer_id(payload)
    if logged != {own}:
        other = sorted(logged - {own})[0] if logged - {own} else own
        raise AnswerMisfit(
            f"the answer id logged under the metric keys ({other}) is not the id of the logged "
            f"record ({own}): the record was edited after the run; restore the samples file "
            "or rerun the task"
        )
