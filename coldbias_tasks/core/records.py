"""The shapes that cross boundaries: a task document and a parsed answer.

- :class:`TaskDoc`: one lm-eval document (one persona × repeat of one task). Built by
  :mod:`coldbias_tasks.core.prompting.documents`, stored by lm-eval as a plain dict
  (:meth:`TaskDoc.to_dict`), read back by the filter and the run loader
  (:meth:`TaskDoc.from_dict`).
- :class:`AnswerRecord`: one parsed answer. The filter turns it into the JSON-safe *parse
  payload* lm-eval hands to the aggregations and logs with every sample
  (:meth:`AnswerRecord.to_payload`); aggregations, the report and the leaderboard rebuild it
  with :meth:`AnswerRecord.from_payload`.

Payloads carry ``"schema": PAYLOAD_SCHEMA``; a payload without the key is schema 1 (runs made
before the key existed; schema 2 adds ``alpha``; schema 3, task version 4.0, ``value`` and
``phrasing``: a value's answers in its matched phrasings; an optional ``catalog``, the item
ids' catalog, read as "" when absent; schema 4, task version 4.2, ``control``: the answer
belongs to a control group's task; older schemas are read through
:func:`coldbias_tasks.core.files.compat.upgraded`). A malformed document or payload
raises :class:`RecordError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from coldbias_tasks.core.errors import RecordError
from coldbias_tasks.core.files.compat import DEFAULT_ALPHA, upgraded

__all__ = ["PAYLOAD_SCHEMA", "AnswerRecord", "ReverseDoc", "TaskDoc", "UserRankRecord"]

#: Version of the parse payload layout written by :meth:`AnswerRecord.to_payload`.
PAYLOAD_SCHEMA = 4


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"field {name!r} must be an integer, got {value!r}")
    return value


def _ints(value: Any, name: str) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise RecordError(f"field {name!r} must be a list of integers, got {value!r}")
    return tuple(_int(v, name) for v in value)


def _alpha(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise RecordError(f"field 'alpha' must be a number in (0, 1), got {value!r}")
    return float(value)


def _strs(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise RecordError(f"field {name!r} must be a list of strings, got {value!r}")
    return tuple(value)


def _keys(value: Any, n_items: int) -> tuple[str, ...]:
    """An open answer's grounding keys: none, or one string per item."""
    keys = _strs(value, "keys")
    if keys and len(keys) != n_items:
        raise RecordError(f"field 'keys' must hold one key per item ({n_items}), got {len(keys)}")
    return keys


def _doc_fields(cls: type, doc: Any, what: str) -> dict[str, Any]:
    """The declared fields present in a stored document (``alpha``, ``template`` and
    ``language`` may be absent: older runs; ``preference``: other variants); RecordError when it
    is not a mapping or lacks one."""
    if not isinstance(doc, Mapping):
        raise RecordError(f"a {what} must be a mapping, got {type(doc).__name__}")
    optional = {"alpha", "template", "language", "value", "phrasing", "family", "preference"}
    missing = [f.name for f in fields(cls) if f.name not in doc and f.name not in optional]
    if missing:
        raise RecordError(f"{what} lacks {missing}")
    return {f.name: doc[f.name] for f in fields(cls) if f.name in doc}


def _read_doc(cls: type, doc: Any, what: str, ints: tuple[str, ...]) -> dict[str, Any]:
    """:func:`_doc_fields` with the ``ints`` fields and ``alpha`` checked and converted."""
    values = _doc_fields(cls, doc, what)
    for name in ints:
        values[name] = _int(values[name], name)
    if "alpha" in values:
        values["alpha"] = _alpha(values["alpha"])
    return values


def _json_safe(record: Any) -> dict[str, Any]:
    """A document's fields in declared order, tuples as lists (what lm-eval stores)."""
    out = {f.name: getattr(record, f.name) for f in fields(record)}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


@dataclass(frozen=True)
class TaskDoc:
    """One document of a coldbias task: who asks (persona), which repeat, what was shown.

    ``persona_id``: the sentence's id (``gender.female#3``: a value in one phrasing;
    ``neutral``, a replicate); ``value``: the value's persona id (``gender.female``; the
    persona id itself for the neutral user, its replicates and documents of task versions < 4);
    ``phrasing``: the phrasing's index p (0-based; 0 for the neutral user). ``shown_ids``:
    catalog indices in the order shown in the prompt. ``seed``: the catalog
    subset/shuffle seed (``coldbias_seed``), not the model's. ``catalog``: built-in domain name
    or the user's catalog path; ``catalog_sha256`` / ``template_sha256``: provenance hashes;
    ``template``: its name or path; ``language``: the prompt's language; ``alpha``: the test
    level. The last three default for documents written before they existed.
    """

    persona_id: str
    attribute_group: str
    user: str
    domain: str
    variant: str
    repeat: int
    k: int
    order: str
    seed: int
    catalog: str
    catalog_sha256: str
    template_sha256: str
    coldbias_version: str
    shown_ids: tuple[int, ...]
    prompt: str
    alpha: float = DEFAULT_ALPHA
    template: str = "lines"
    language: str = "en"
    #: whether the task's group is a control group (its values are control sentences: no
    #: disparity headline); task version ≥ 3
    control_task: bool = False
    value: str = ""
    phrasing: int = 0
    #: a control sentence's family (content_free, descriptive, irrelevant_fact), else ""
    family: str = ""
    #: the pref variant: the id of the preference the user states (the domain file's
    #: ``preferences``), else ""
    preference: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON-safe dict lm-eval stores (field order as declared, lists for tuples; every
        field always, as lm-eval's dataset takes its columns from the first document)."""
        return _json_safe(self)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> TaskDoc:
        """Read a stored document; extra keys are ignored, missing or mistyped ones raise."""
        values = _read_doc(cls, doc, "task document", ("repeat", "k", "seed"))
        values["phrasing"] = _int(values.get("phrasing", 0), "phrasing")
        value = values.get("value") or values["persona_id"]
        if not isinstance(value, str):
            raise RecordError(f"field 'value' must be text, got {value!r}")
        values["value"] = value
        for name in ("family", "preference"):
            if not isinstance(values.get(name, ""), str):
                raise RecordError(f"field {name!r} must be text, got {values[name]!r}")
        values["shown_ids"] = _ints(values["shown_ids"], "shown_ids")
        for name in ("persona_id", "attribute_group", "user", "domain", "variant", "order"):
            if not isinstance(values[name], str):
                raise RecordError(f"field {name!r} must be text, got {values[name]!r}")
        for name in ("catalog", "catalog_sha256", "template_sha256", "coldbias_version"):
            values[name] = str(values[name])
        if "control_task" in values:
            values["control_task"] = bool(values["control_task"])
        return cls(**values)


@dataclass(frozen=True)
class AnswerRecord:
    """One parsed answer.

    ``items``: catalog ids, best first, unique, at most ``k``. ``positions``: 0-based position
    of each item in the order shown (parallel to ``items``); ``n_shown``: items shown. Counts:
    ``n_entries`` list entries seen (= items + out of catalog + duplicates), ``n_fuzzy`` items
    matched by the fuzzy stage. ``value``/``phrasing``: the value the sentence states and the
    phrasing it uses (:class:`TaskDoc`; a payload of schema < 3: the persona id, phrasing 0).
    ``titles``, ``out_of_catalog`` and ``duplicates`` are the
    logged strings (the latter two cut to the first entries; the counts are complete); they do
    not take part in equality. ``keys``: an open task's grounding keys, parallel to ``items``
    (``c:<row>`` / ``r:<id>`` / ``t:<title>``: ``core/parsing/open_answers.py``; there ``items``
    holds the
    catalog row for a catalog item and a stable negative code for any other key); empty for a
    catalog task. ``alpha``: the task's test level (``coldbias_alpha``), carried
    so that lm-eval's aggregations, which see only payloads, can apply it.
    """

    persona_id: str
    repeat: int
    items: tuple[int, ...]
    k: int
    positions: tuple[int, ...] = ()
    n_shown: int = 0
    n_entries: int = 0
    n_out_of_catalog: int = 0
    n_duplicates: int = 0
    n_fuzzy: int = field(default=0, compare=False)
    titles: tuple[str, ...] = field(default=(), compare=False)
    out_of_catalog: tuple[str, ...] = field(default=(), compare=False)
    duplicates: tuple[str, ...] = field(default=(), compare=False)
    alpha: float = field(default=DEFAULT_ALPHA, compare=False)
    value: str = ""
    phrasing: int = 0
    #: the catalog the items index (:attr:`TaskDoc.catalog`: a built-in domain or a path); ""
    #: in payloads written before it was carried (diversity then has no labels)
    catalog: str = field(default="", compare=False)
    keys: tuple[str, ...] = field(default=(), compare=False)
    #: the answer belongs to a control group's task (:attr:`TaskDoc.control_task`: its
    #: sentences are controls, not values of one attribute); False in payloads of schema < 4
    control: bool = False
    #: the pref variant: the preference the user stated (:attr:`TaskDoc.preference`), else ""
    #: (then left out of the payload)
    preference: str = ""

    def __post_init__(self) -> None:
        if not self.value:
            object.__setattr__(self, "value", self.persona_id)

    def to_payload(self) -> dict[str, Any]:
        """The JSON-safe parse payload (lists for tuples, ``schema`` first)."""
        out: dict[str, Any] = {"schema": PAYLOAD_SCHEMA}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "preference" and not value:
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @staticmethod
    def looks_like_payload(value: Any) -> bool:
        """Whether ``value`` has the keys of a parse payload (any schema)."""
        return isinstance(value, Mapping) and "persona_id" in value and "items" in value

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> AnswerRecord:
        """Rebuild a record from a payload of any known schema; raises :class:`RecordError`."""
        if not cls.looks_like_payload(payload):
            raise RecordError("not a coldbias parse payload (no 'persona_id' and 'items')")
        payload = upgraded(payload)  # older schemas: the fields they lack, as they meant then
        alpha = _alpha(payload["alpha"])
        if "repeat" not in payload or "k" not in payload:
            raise RecordError("parse payload lacks 'repeat' or 'k'")
        if not isinstance(payload["persona_id"], str):
            raise RecordError(f"field 'persona_id' must be text, got {payload['persona_id']!r}")
        counts = {
            name: _int(payload.get(name, 0), name)
            for name in ("n_shown", "n_entries", "n_out_of_catalog", "n_duplicates", "n_fuzzy",
                         "phrasing")
        }  # fmt: skip
        value = payload["value"]
        if not isinstance(value, str):
            raise RecordError(f"field 'value' must be text, got {value!r}")
        catalog = payload["catalog"]
        if not isinstance(catalog, str):
            raise RecordError(f"field 'catalog' must be text, got {catalog!r}")
        control = payload["control"]
        if not isinstance(control, bool):
            raise RecordError(f"field 'control' must be true or false, got {control!r}")
        preference = payload.get("preference", "")
        if not isinstance(preference, str):
            raise RecordError(f"field 'preference' must be text, got {preference!r}")
        return cls(
            persona_id=payload["persona_id"],
            repeat=_int(payload["repeat"], "repeat"),
            items=_ints(payload["items"], "items"),
            k=_int(payload["k"], "k"),
            positions=_ints(payload.get("positions", ()), "positions"),
            titles=_strs(payload.get("titles", ()), "titles"),
            out_of_catalog=_strs(payload.get("out_of_catalog", ()), "out_of_catalog"),
            duplicates=_strs(payload.get("duplicates", ()), "duplicates"),
            alpha=alpha,
            value=value,
            catalog=catalog,
            keys=_keys(payload.get("keys", ()), len(payload["items"])),
            control=control,
            preference=preference,
            **counts,
        )


@dataclass(frozen=True)
class ReverseDoc:
    """One document of a reverse task: one catalog item and the group's users as a numbered
    list in a shuffled order (``candidates``: persona ids in the order shown; ``phrases``: what
    was shown for each). ``seed``: the item sample and shuffle seed."""

    item_id: int
    item_title: str
    domain: str
    attribute_group: str
    repeat: int
    candidates: tuple[str, ...]
    phrases: tuple[str, ...]
    seed: int
    catalog: str
    catalog_sha256: str
    template_sha256: str
    coldbias_version: str
    prompt: str
    alpha: float = DEFAULT_ALPHA
    template: str = "reverse"
    language: str = "en"

    def to_dict(self) -> dict[str, Any]:
        """The JSON-safe dict lm-eval stores, marked ``kind: reverse``."""
        return _json_safe(self) | {"kind": "reverse"}

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> ReverseDoc:
        """Read a stored reverse document (as :meth:`TaskDoc.from_dict`)."""
        values = _read_doc(cls, doc, "reverse document", ("item_id", "repeat", "seed"))
        values["candidates"] = _strs(values["candidates"], "candidates")
        values["phrases"] = _strs(values["phrases"], "phrases")
        if len(values["candidates"]) != len(values["phrases"]) or len(values["candidates"]) < 2:
            raise RecordError("a reverse document needs ≥ 2 candidates, each with a phrase")
        return cls(**values)


@dataclass(frozen=True)
class UserRankRecord:
    """One parsed reverse answer: ``order`` = indices into ``candidates`` (the shown order),
    best first, unique; users the answer left out are absent. Counts as in the parser
    (``n_invalid``: entries naming no candidate or conflicting; ``n_duplicates``: repeats)."""

    item_id: int
    repeat: int
    candidates: tuple[str, ...]
    order: tuple[int, ...]
    n_entries: int = 0
    n_invalid: int = 0
    n_duplicates: int = 0
    alpha: float = field(default=DEFAULT_ALPHA, compare=False)

    @property
    def complete(self) -> bool:
        return sorted(self.order) == list(range(len(self.candidates)))

    def ranks(self) -> dict[str, float]:
        """persona id → rank (1 = first). Users left out share the remaining ranks equally
        (mid-rank), so every answer ranks every user."""
        out: dict[str, float] = {}
        for rank, index in enumerate(self.order, start=1):
            out[self.candidates[index]] = float(rank)
        rest = [c for c in self.candidates if c not in out]
        if rest:
            mid = (len(self.order) + 1 + len(self.candidates)) / 2
            out |= dict.fromkeys(rest, mid)
        return out

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schema": PAYLOAD_SCHEMA, "kind": "reverse"}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> UserRankRecord:
        if not isinstance(payload, Mapping) or payload.get("kind") != "reverse":
            raise RecordError("not a coldbias reverse payload (no 'kind': 'reverse')")
        candidates = _strs(payload.get("candidates"), "candidates")
        order = _ints(payload.get("order"), "order")
        if any(not 0 <= i < len(candidates) for i in order) or len(set(order)) != len(order):
            raise RecordError("reverse payload 'order' must hold unique candidate indices")
        return cls(
            item_id=_int(payload.get("item_id"), "item_id"),
            repeat=_int(payload.get("repeat"), "repeat"),
            candidates=candidates,
            order=order,
            n_entries=_int(payload.get("n_entries", 0), "n_entries"),
            n_invalid=_int(payload.get("n_invalid", 0), "n_invalid"),
            n_duplicates=_int(payload.get("n_duplicates", 0), "n_duplicates"),
            alpha=_alpha(payload.get("alpha", DEFAULT_ALPHA)),
        )
