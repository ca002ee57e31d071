"""The ``coldbias_*`` settings of a run, read strictly from lm-eval's ``--metadata``.

lm-eval hands every task the run's metadata (and the model's arguments); keys that do not start
with ``coldbias_`` are not ours and are ignored. Ours are checked: an unknown ``coldbias_*`` key
is an error naming the closest valid key, integers must be JSON integers (not ``true``, not
``1.5``, not ``"10"``), and ranges are checked; :meth:`Settings.for_catalog` then checks
``n_items`` and ``k`` against the real size of the catalog in use.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from coldbias_tasks.core.errors import SettingsError
from coldbias_tasks.core.files.compat import RETIRED_SETTINGS

__all__ = ["DEFAULTS", "SPECS", "Settings"]

PREFIX = "coldbias_"


@dataclass(frozen=True)
class _Spec:
    """One setting: its key, JSON type, default, a range check and what it means."""

    key: str
    kind: str  # "int", "float", "str", "path"
    default: Any
    check: Callable[[Any], bool] | None
    rule: str
    help: str


SPECS: tuple[_Spec, ...] = (
    _Spec("coldbias_k", "int", 20, lambda v: v >= 1, "≥ 1", "items to recommend"),
    _Spec(
        "coldbias_n_items", "int", 500, lambda v: v >= 1, "≥ 1",
        "catalog items shown (a seeded stratified subset when smaller than the catalog)",
    ),
    _Spec("coldbias_repeats", "int", 3, lambda v: v >= 1, "≥ 1", "sampled answers per sentence"),
    _Spec(
        "coldbias_replicates", "int", 3, lambda v: 0 <= v <= 20, "0–20",
        "extra neutral answers per repeat to the same prompt (noise floor and tests)",
    ),
    _Spec(
        "coldbias_phrasings", "int", 0, lambda v: v == 0 or v >= 2, "0 (all) or ≥ 2",
        "matched phrasings asked per value (the first P of data/personas.yaml, form-major; a "
        "group with fewer asks all of its own); 0 = all of them. Fewer phrasings: cheaper, "
        "less power for the headline",
    ),
    _Spec(
        "coldbias_order", "str", "shuffle", lambda v: v in ("shuffle", "fixed"),
        "'shuffle' or 'fixed'", "catalog order: seeded shuffle per repeat, or fixed",
    ),
    _Spec(
        "coldbias_seed", "int", 1234, lambda v: 0 <= v < 1 << 63, "0 … 2**63 − 1",
        "seed of the subset and the shuffles",
    ),
    _Spec(
        "coldbias_alpha", "float", 0.05, lambda v: 0 < v < 1, "in (0, 1)",
        "level of the per-value tests (Holm over each group)",
    ),
    _Spec("coldbias_template", "path", None, None, "", "template name or Jinja file"),
    _Spec("coldbias_language", "str", "en", None, "", "language of the prompt and personas"),
    _Spec("coldbias_catalog", "path", None, None, "", "catalog file replacing the built-in one"),
    _Spec("coldbias_personas", "path", None, None, "", "persona file replacing the built-in one"),
    _Spec(
        "coldbias_items", "int", 50, lambda v: v >= 1, "≥ 1",
        "reverse task: catalog items each ranked for the group's users",
    ),
    _Spec(
        "coldbias_max_requests", "int", 10_000, lambda v: v >= 1, "≥ 1",
        "most requests (prompts) one task may send; raise it to run a bigger task",
    ),
)  # fmt: skip
#: Seconds per request used for the time estimate: float32 vLLM on 2 AVX2 cores, 60-item
#: catalog, k = 20 (BENCHMARKS.md, "dtype: bf16 vs float32").
SECONDS_PER_REQUEST = 3.7
#: Largest magnitude of a number in a setting (checked before any arithmetic).
NUMBER_LIMIT = 1 << 63
DEFAULTS: dict[str, Any] = {s.key: s.default for s in SPECS}
#: Settings of earlier task versions: refused in a new run with the reason, skipped when an old
#: run's recorded settings are read back (``retired_ok``); kept with the other compatibility
#: rules in :mod:`coldbias_tasks.core.files.compat`.
RETIRED = RETIRED_SETTINGS
_BY_KEY = {s.key: s for s in SPECS}


def _typed(spec: _Spec, value: Any) -> Any:
    """The value in its type, or a SettingsError naming key, value and fix."""
    shown = f"{spec.key}={value!r}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= NUMBER_LIMIT:
        raise SettingsError(
            f"--metadata {spec.key}={str(value)[:12]}… ({len(str(value))} digits): must be "
            f"{spec.rule or 'a value'} ({spec.help}); numbers beyond 2**63 are refused."
        )
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise SettingsError(
                f"--metadata {shown}: must be a whole number ({spec.help}); write e.g. "
                f'"{spec.key}": {spec.default} (a JSON integer, no quotes).'
            )
    elif spec.kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SettingsError(
                f"--metadata {shown}: must be a number ({spec.help}); write e.g. "
                f'"{spec.key}": {spec.default}.'
            )
        value = float(value)
    elif value is not None and not isinstance(value, str):
        raise SettingsError(f"--metadata {shown}: must be text ({spec.help}).")
    if spec.check is not None and value is not None and not spec.check(value):
        raise SettingsError(f"--metadata {shown}: must be {spec.rule} ({spec.help}).")
    return value


@dataclass(frozen=True)
class Settings:
    """A run's coldbias settings (see :data:`SPECS` for meanings and defaults).

    ``explicit``: the keys the user set (a default ``n_items`` shrinks to a small catalog, an
    explicit one must fit).
    """

    k: int
    n_items: int
    repeats: int
    replicates: int
    phrasings: int
    order: str
    seed: int
    alpha: float
    template: str | None
    language: str
    catalog: str | None
    personas: str | None
    items: int
    max_requests: int
    explicit: frozenset[str] = frozenset()

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any], retired_ok: bool = False) -> Settings:
        """Read the ``coldbias_*`` keys of ``metadata`` (others are not ours). A retired key
        (:data:`RETIRED`) is an error naming why, or skipped with ``retired_ok`` (an old run's
        recorded settings)."""
        ours = {k: v for k, v in metadata.items() if isinstance(k, str) and k.startswith(PREFIX)}
        for key in sorted(set(ours) & set(RETIRED)):
            if not retired_ok:
                raise SettingsError(f"--metadata {key}: no longer a setting; {RETIRED[key]}.")
            del ours[key]
        unknown = sorted(k for k in ours if k not in _BY_KEY)
        if unknown:
            key = unknown[0]
            close = difflib.get_close_matches(key, list(_BY_KEY), n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise SettingsError(
                f"--metadata: unknown setting {key!r}; {hint}valid settings: {', '.join(_BY_KEY)}."
            )
        values = {s.key: _typed(s, ours[s.key]) if s.key in ours else s.default for s in SPECS}
        return cls(
            **{key[len(PREFIX) :]: value for key, value in values.items()},
            explicit=frozenset(ours),
        )

    def check_requests(self, n: int, task: str, how: str) -> None:
        """Refuse a task of ``n`` requests (``how``: e.g. "8 personas × 5 repeats") above
        ``coldbias_max_requests``, with the count, a time estimate and the fix."""
        if n <= self.max_requests:
            return
        hours = n * SECONDS_PER_REQUEST / 3600
        raise SettingsError(
            f"{task}: {n:,} requests ({how}), about {hours:,.1f} h at "
            f"{SECONDS_PER_REQUEST} s per request on a 2-core CPU (BENCHMARKS.md), more than "
            f"coldbias_max_requests={self.max_requests:,}. Lower coldbias_repeats, or pass "
            f"--metadata '{{\"coldbias_max_requests\": {n}}}' to run it anyway."
        )

    def for_catalog(self, size: int, name: str) -> Settings:
        """These settings for a catalog of ``size`` items: an unset ``n_items`` shows the whole
        catalog when it is smaller than the default; an explicit one, and ``k``, must fit.
        """
        n_items = self.n_items
        if n_items > size:
            if "coldbias_n_items" in self.explicit:
                raise SettingsError(
                    f"--metadata coldbias_n_items={n_items}: catalog {name!r} has only {size} "
                    f"items; use coldbias_n_items ≤ {size}."
                )
            n_items = size
        if self.k > n_items:
            raise SettingsError(
                f"--metadata coldbias_k={self.k}: only {n_items} items are shown (catalog "
                f"{name!r}, coldbias_n_items={n_items}); use coldbias_k ≤ {n_items}."
            )
        return replace(self, n_items=n_items)
