"""Reading what older coldbias versions wrote: the one module of compatibility with older runs.

What a run of an earlier version may hold, and how this version reads it:

- **parse payload schemas** (:func:`upgraded`, :data:`KNOWN_SCHEMAS`): a payload without
  ``schema`` is schema 1 (no ``alpha``: :data:`DEFAULT_ALPHA`); schema 2 adds ``alpha``;
  schema 3 (task version 4.0) ``value`` and ``phrasing`` (before: the persona id is the value,
  phrasing 0) and an optional ``catalog`` (""); schema 4 (task version 4.2) ``control`` (before:
  False, the offline loader tells a placebo task by its group). A schema not listed is refused
  with the fix (upgrade coldbias). Reverse payloads: ``alpha`` alike.
- **where the payload was logged** (:data:`LEGACY_PAYLOAD_KEYS`): before ``coldbias_answer``
  every metric key held the payload; it is read under ``iou_divergence`` (forward) and
  ``reverse_rank_gap`` (reverse).
- **retired settings** (:data:`RETIRED_SETTINGS`): refused in a new run with the reason, skipped
  when an old run's recorded settings are read back.

Places that still branch on an older task version, reading what the records say:
``core/measures/design.py`` (task version 3's control personas set aside; their ids:
``core/vocabulary.is_control_id``), ``analysis/run_check.expected_keys`` (the sentence ids of
versions 3 and 4), ``core/measures/fidelity.py`` (positions −1 of older payloads),
``core/measures/exposure_disparity.py`` (one phrasing per value before version 4: repeats are
the units), ``analysis/summaries.summarize_task`` (the placebo of runs before 4.2),
``lmeval/harness.answer_record`` (a payload from an older task YAML's filter), ``analysis/eee.py``
(Every Eval Ever records of schema 0.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coldbias_tasks.core.errors import RecordError

__all__ = [
    "DEFAULT_ALPHA",
    "KNOWN_SCHEMAS",
    "LEGACY_PAYLOAD_KEYS",
    "RETIRED_SETTINGS",
    "upgraded",
]

#: Parse payload schemas this version reads (the one it writes: ``records.PAYLOAD_SCHEMA``).
KNOWN_SCHEMAS = (1, 2, 3, 4)
#: Test level of a payload that carries none (schema 1).
DEFAULT_ALPHA = 0.05
#: Runs logged before ``coldbias_answer``: the metric key whose value was the payload, by
#: ``reverse`` (False: forward tasks, True: reverse tasks).
LEGACY_PAYLOAD_KEYS: Mapping[bool, str] = {False: "iou_divergence", True: "reverse_rank_gap"}
#: Settings of earlier task versions → why they are gone.
RETIRED_SETTINGS: Mapping[str, str] = {
    "coldbias_controls": (
        "task version 3's control personas inside every task are gone in version 4: the "
        "control sentences (three families) are asked once per domain in the placebo task"
    ),
}


def upgraded(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A forward parse payload of any known schema with the fields older schemas lack, at what
    they meant then (module docstring): ``alpha``, ``value`` (the persona id when absent or
    empty), ``catalog`` (""), ``control`` (False). Values are not checked here (the record does
    that). Raises :class:`RecordError` for a schema this version does not know."""
    schema = payload.get("schema", 1)
    if schema not in KNOWN_SCHEMAS:
        raise RecordError(
            f"parse payload schema {schema!r} is not known to this coldbias version "
            f"(knows {list(KNOWN_SCHEMAS)}); upgrade coldbias to read this run."
        )
    out = dict(payload)
    out.setdefault("alpha", DEFAULT_ALPHA)
    out["value"] = payload.get("value") or payload.get("persona_id")
    out.setdefault("catalog", "")
    out.setdefault("control", False)
    return out
