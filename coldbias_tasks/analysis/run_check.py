"""A forward task's logged documents checked against the task before any number is computed.

:func:`check_task_docs` is the one check :mod:`coldbias_tasks.analysis.run_samples` runs on
every forward samples file: the documents belong to the task of the file's name and config
(domain, group, variant, the explicit ``coldbias_*`` settings), agree among themselves (one
catalog, one seed, one order, the same items shown), show only ids inside their catalog, hold
each (persona, repeat) once and only personas of the task's persona file. When the loader is
given the function that builds a task's documents (``LoadOptions.documents``: the app passes
:func:`coldbias_tasks.core.prompting.documents.build_docs`), a run made by this coldbias version is
rebuilt from its recorded settings and each logged document must equal its rebuilt one (user
sentence, shown ids, hashes, group): persona ids swapped between documents are caught whatever
the persona file's layout. A mismatch raises :class:`RunError` naming the file, the line and
the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from coldbias_tasks import __version__
from coldbias_tasks.core.errors import ColdbiasError, RunError
from coldbias_tasks.core.records import ReverseDoc, TaskDoc
from coldbias_tasks.core.settings import Settings
from coldbias_tasks.core.vocabulary import (
    OPEN,
    PREF,
    TASK_VERSION,
    explicit_group,
    parse_task_name,
    sentence_id,
)
from coldbias_tasks.core.world.catalog import load_catalog

__all__ = [
    "DocBuilder",
    "check_reverse_docs",
    "check_task_docs",
    "expected_keys",
    "run_settings",
    "task_metadata",
]

#: ``build_docs(domain, group, variant, metadata)``: the documents a task asks.
DocBuilder = Callable[[str, str, str, Mapping[str, Any]], Sequence[TaskDoc]]
#: Fields of a logged document not compared with its rebuilt one (the prompt follows from the
#: others; the package version is compared before rebuilding).
_NOT_COMPARED = frozenset({"prompt", "coldbias_version"})
_FIX = (
    "the samples file was edited, damaged or copied from another task or run; restore it or "
    "rerun the task."
)


def task_metadata(task: str, results: Mapping[str, Any]) -> dict[str, Any]:
    """The ``metadata`` mapping of the task's config in the results JSON ({} when absent)."""
    configs = results.get("configs")
    config = configs.get(task) if isinstance(configs, Mapping) else None
    metadata = config.get("metadata") if isinstance(config, Mapping) else None
    return dict(metadata) if isinstance(metadata, Mapping) else {}


def run_settings(task: str, results: Mapping[str, Any], strict: bool = False) -> Settings | None:
    """The task's coldbias settings as the run recorded them; None when they do not parse
    (``strict``: a RunError naming the task's config and the reason)."""
    metadata = task_metadata(task, results)
    try:
        return Settings.from_metadata(
            {k: v for k, v in metadata.items() if str(k).startswith("coldbias_")},
            retired_ok=True,
        )
    except ColdbiasError as err:
        if strict:
            raise RunError(
                f"results config of {task}: its recorded settings cannot be read ({err}); the "
                "results file was edited or damaged: restore it or rerun the task."
            ) from None
        return None


def _version_at_least(version: Any, major: int) -> bool:
    """Whether a task version ("3.0", 3.0) is at least ``major``; a version that is no number
    (an imported run's "seed-study-1") is not."""
    try:
        return float(version) >= major
    except (TypeError, ValueError, OverflowError):
        return False


def expected_keys(
    task: str, results: Mapping[str, Any], group: str, variant: str
) -> set[tuple[str, int]] | None:
    """The (persona, repeat) pairs the task must hold, from the run's coldbias settings and the
    persona file: task version ≥ 4, every value in its first P phrasings (sentence ids; the
    pref variant: P × Q cells, Q the domain's preferences); earlier versions, one id per value.
    None when they cannot be known (a persona file that is gone, or a run of task version 3,
    whose control personas depended on a retired setting)."""
    from coldbias_tasks.core.world.domains import preference_ids
    from coldbias_tasks.core.world.personas import load_personas  # persona files here

    settings = run_settings(task, results)
    if settings is None:
        return None
    version = task_metadata(task, results).get("version")
    group = explicit_group(group)
    phrased = _version_at_least(version, 4)
    if not phrased and _version_at_least(version, 3):
        return None
    try:
        config = load_personas(settings.personas)
        personas = config.group(group, settings.replicates, variant)
        n = config.asked(config.find(group, variant), settings.language, settings.phrasings)
        if variant == PREF:
            n *= len(preference_ids(parse_task_name(task)[0]))
    except ColdbiasError:
        return None
    ids = [
        p.id if p.is_neutral or not phrased else sentence_id(p.id, j)
        for p in personas
        for j in range(1 if p.is_neutral or not phrased else n)
    ]
    return {(pid, r) for pid in ids for r in range(settings.repeats)}


def _fail(path: Path, line: int, reason: str) -> RunError:
    return RunError(f"{path}, line {line}: {reason}; {_FIX}")


#: Task version → the first coldbias version that wrote it (older claims are false).
_FIRST_WRITER = {"4.1": (0, 5, 0), "4.0": (0, 4, 0)}
#: Results keys a task version first wrote (a task claiming an older version cannot hold them).
_KEYS_SINCE = {"4.1": "diversity_"}


def _release(version: str) -> tuple[int, ...] | None:
    """``"0.5.0"`` → (0, 5, 0); None for a version that is not a release number (and for a
    checkout's ``0.0.0+checkout``, which claims nothing)."""
    parts = version.split("+")[0].split(".")[:3]
    found = tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None
    return found if found and any(found) else None


def _check_version_claims(
    task: str,
    path: Path,
    results: Mapping[str, Any],
    docs: Sequence[TaskDoc],
    lines: Sequence[int],
    metadata: Mapping[str, Any],
) -> None:
    """The versions a run claims must agree with its content: one coldbias version over a
    task's documents, not older than the first that wrote the task version its results
    record, and a task version not older than the keys its results hold (a claim edited to
    an old version would skip the rebuild check)."""
    claims = {d.coldbias_version for d in docs}
    if len(claims) > 1:
        own = docs[0].coldbias_version
        first = next(i for i, d in enumerate(docs) if d.coldbias_version != own)
        raise _fail(
            path, lines[first], f"documents of one task claim coldbias versions {sorted(claims)}"
        )
    version = str(metadata.get("version"))
    entry = (results.get("results") or {}).get(task)
    keys = entry if isinstance(entry, Mapping) else {}
    recorded = _release(version)
    for since, prefix in _KEYS_SINCE.items():
        older = recorded is not None and recorded < (_release(since) or ())
        if older and any(str(k).startswith(prefix) for k in keys):
            raise RunError(
                f"{path}: the results record task version {version} for {task}, but hold "
                f"{prefix}* keys that task version {since} first wrote; {_FIX}"
            )
    claim, first_writer = _release(docs[0].coldbias_version), _FIRST_WRITER.get(version)
    if claim is not None and first_writer is not None and claim < first_writer:
        raise _fail(
            path,
            lines[0],
            f"the documents claim coldbias {docs[0].coldbias_version}, but task version "
            f"{version} (the run's results) was first written by coldbias "
            f"{'.'.join(map(str, first_writer))}",
        )


def _identity(task: str, results: Mapping[str, Any]) -> tuple[str, str, str]:
    """(domain, group, variant) of ``task`` from its name; its config's ``dataset_kwargs``
    must agree."""
    domain, variant, group = parse_task_name(task)
    configs = results.get("configs")
    config = configs.get(task) if isinstance(configs, Mapping) else None
    kwargs = config.get("dataset_kwargs") if isinstance(config, Mapping) else None
    if isinstance(kwargs, Mapping):
        recorded = (kwargs.get("domain"), kwargs.get("group"), kwargs.get("variant", "plain"))
        if recorded != (domain, group, variant):
            raise RunError(
                f"results config of {task}: dataset_kwargs {dict(kwargs)} do not match the task "
                f"name; {_FIX}"
            )
    return domain, group, variant


def _check_settings(
    path: Path, docs: Sequence[TaskDoc], lines: Sequence[int], settings: Settings, domain: str
) -> None:
    """Each document against the settings the run recorded explicitly."""
    explicit = settings.explicit
    wanted: dict[str, Any] = {}
    for key, field in (("seed", "seed"), ("order", "order"), ("language", "language")):
        if f"coldbias_{key}" in explicit:
            wanted[field] = getattr(settings, key)
    if "coldbias_catalog" in explicit:
        wanted["catalog"] = settings.catalog or domain
    for doc, line in zip(docs, lines, strict=True):
        for field, value in wanted.items():
            if getattr(doc, field) != value:
                raise _fail(
                    path,
                    line,
                    f"{field} {getattr(doc, field)!r} but the run's setting is {value!r}",
                )
        shows = doc.variant != OPEN  # an open task shows no catalog
        if shows and "coldbias_n_items" in explicit and len(doc.shown_ids) != settings.n_items:
            raise _fail(
                path,
                line,
                f"{len(doc.shown_ids)} items shown but the run's setting is "
                f"coldbias_n_items = {settings.n_items}",
            )
        if not 0 <= doc.repeat < settings.repeats:
            raise _fail(
                path, line, f"repeat {doc.repeat} outside the run's {settings.repeats} repeats"
            )


def _check_agreement(path: Path, docs: Sequence[TaskDoc], lines: Sequence[int]) -> None:
    """One catalog (hash), seed, order, language and template, the same items shown."""
    first = docs[0]
    items = set(first.shown_ids)
    for doc, line in zip(docs, lines, strict=True):
        for field in ("catalog", "catalog_sha256", "seed", "order", "language", "template_sha256"):
            if getattr(doc, field) != getattr(first, field):
                raise _fail(
                    path,
                    line,
                    f"{field} {getattr(doc, field)!r} differs from line {lines[0]}'s "
                    f"{getattr(first, field)!r}",
                )
        if len(set(doc.shown_ids)) != len(doc.shown_ids) or set(doc.shown_ids) != items:
            raise _fail(path, line, f"the items shown differ from those of line {lines[0]}")
    try:
        catalog = load_catalog(first.catalog)
    except ColdbiasError:
        return  # a user's catalog that is gone: the report names it where it needs it
    if catalog.sha256 != first.catalog_sha256:
        return  # another catalog version: the rebuild (same version) compares the hash
    outside = sorted(i for i in items if not 0 <= i < len(catalog))
    if outside:
        raise _fail(
            path,
            lines[0],
            f"shown id(s) {outside[:5]} outside catalog {first.catalog!r} ({len(catalog)} items)",
        )


def _check_keys(
    path: Path,
    docs: Sequence[TaskDoc],
    lines: Sequence[int],
    expected: set[tuple[str, int]] | None,
    source: str,
) -> None:
    """Each (persona, repeat) once, and only those the task asks; a persona says the same
    user sentence in every repeat (ids swapped in some repeats relabel answers)."""
    seen: dict[tuple[str, int], int] = {}
    said: dict[str, tuple[str, int]] = {}
    for doc, line in zip(docs, lines, strict=True):
        user, first = said.setdefault(doc.persona_id, (doc.user, line))
        if doc.user != user:
            raise _fail(
                path,
                line,
                f"persona {doc.persona_id!r} says {doc.user[:60]!r} but {user[:60]!r} on line "
                f"{first}",
            )
        key = (doc.persona_id, doc.repeat)
        if key in seen:
            raise _fail(
                path,
                line,
                f"persona {key[0]!r} repeat {key[1]} logged twice (lines {seen[key]} and {line})",
            )
        seen[key] = line
        if expected is not None and key not in expected:
            raise _fail(
                path, line, f"persona {key[0]!r} repeat {key[1]} is not a document of {source}"
            )


_REBUILT: dict[str, dict[tuple[str, int], TaskDoc] | None] = {}


def _rebuilt(
    build: DocBuilder, domain: str, group: str, variant: str, metadata: Mapping[str, Any]
) -> dict[tuple[str, int], TaskDoc] | None:
    """The task's documents by (persona, repeat) as this version builds them (cached); None
    when they cannot be built (a persona or catalog file that is gone)."""
    ours = {k: v for k, v in metadata.items() if str(k).startswith("coldbias_")}
    key = json.dumps([domain, group, variant, ours], sort_keys=True, default=str)
    if key not in _REBUILT:
        try:
            docs = build(domain, group, variant, ours)
            _REBUILT[key] = {(d.persona_id, d.repeat): d for d in docs}
        except ColdbiasError:
            _REBUILT[key] = None
        if len(_REBUILT) > 64:
            _REBUILT.pop(next(iter(_REBUILT)))
    return _REBUILT[key]


def _compare(path: Path, doc: TaskDoc, line: int, rebuilt: TaskDoc) -> None:
    logged, fresh = doc.to_dict(), rebuilt.to_dict()
    for field, value in fresh.items():
        if field in _NOT_COMPARED or logged.get(field) == value:
            continue
        shown = f"{logged.get(field)!r}"[:80]
        raise _fail(
            path,
            line,
            f"persona {doc.persona_id!r} repeat {doc.repeat}: {field} {shown} but the task "
            f"built from the run's settings has {f'{value!r}'[:80]}",
        )


def check_reverse_docs(
    task: str, path: Path, docs: Sequence[ReverseDoc], lines: Sequence[int]
) -> None:
    """A reverse task's documents: its domain and group, one catalog and seed, each (item,
    repeat) once, the same users in every document (RunError: file, line, reason)."""
    domain, _, group = parse_task_name(task)
    first, seen = docs[0], {}
    for doc, line in zip(docs, lines, strict=True):
        if (doc.domain, doc.attribute_group) != (domain, group):
            raise _fail(
                path,
                line,
                f"a document of domain {doc.domain!r}, group {doc.attribute_group!r} in the "
                f"samples of {task}",
            )
        for field in ("catalog_sha256", "seed", "language", "template_sha256"):
            if getattr(doc, field) != getattr(first, field):
                raise _fail(path, line, f"{field} differs from line {lines[0]}'s")
        if sorted(doc.candidates) != sorted(first.candidates):
            raise _fail(path, line, f"the users shown differ from those of line {lines[0]}")
        key = (doc.item_id, doc.repeat)
        if key in seen:
            raise _fail(
                path, line, f"item {key[0]} repeat {key[1]} logged twice (line {seen[key]})"
            )
        seen[key] = line


def check_task_docs(
    task: str,
    path: Path,
    results: Mapping[str, Any],
    docs: Sequence[TaskDoc],
    lines: Sequence[int],
    build: DocBuilder | None = None,
) -> None:
    """Refuse (RunError: file, line, reason) a forward task's documents ``docs`` (logged on
    ``lines`` of ``path``) that do not belong to ``task`` as the run's results JSON
    ``results`` describes it (see the module docstring)."""
    domain, group, variant = _identity(task, results)
    for doc, line in zip(docs, lines, strict=True):
        found = (doc.domain, explicit_group(doc.attribute_group), doc.variant)
        if found != (domain, group, variant):  # an implicit task's docs: "implicit_<group>"
            raise _fail(
                path,
                line,
                f"a document of domain {doc.domain!r}, group {doc.attribute_group!r}, variant "
                f"{doc.variant!r} in the samples of {task}",
            )
    _check_agreement(path, docs, lines)
    settings = run_settings(task, results, strict=True)
    assert settings is not None
    _check_settings(path, docs, lines, settings, domain)
    metadata = task_metadata(task, results)
    _check_version_claims(task, path, results, docs, lines, metadata)
    current = (
        str(metadata.get("version")) == TASK_VERSION
        and docs[0].coldbias_version == __version__
        and all(d.coldbias_version == __version__ for d in docs)
    )
    rebuilt = _rebuilt(build, domain, group, variant, metadata) if build and current else None
    if rebuilt is None:
        source = f"the task's persona file ({(settings and settings.personas) or 'built-in'})"
        _check_keys(path, docs, lines, expected_keys(task, results, group, variant), source)
        return
    _check_keys(path, docs, lines, set(rebuilt), "the task built from the run's settings")
    for doc, line in zip(docs, lines, strict=True):
        _compare(path, doc, line, rebuilt[(doc.persona_id, doc.repeat)])
