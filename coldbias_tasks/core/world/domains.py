"""Domains as data: one declaration per recommendation domain, ``domains/<name>.yaml`` in the
package's ``data/`` or in a folder listed in ``COLDBIAS_DATA_PATH``
(:func:`~coldbias_tasks.core.resources.data_folders`).

A domain file holds everything coldbias knows about its domain, and every layer reads it here:
the catalog (file, title column, column types, the stratum of a seeded subset), what the titles
are for the parser (title kind) and the JSON keys an answer may name them by, the year rule and
reference list of the open protocol's grounding, the fields of the report's exposure tables and
of the diversity measures, the nouns shown in each prompt language, the context phrase of the
context variant in each language, the seed study's file tags, and the display order. The keys
are listed in :data:`KEYS` and described in data/README.md ("Domains"). A file that breaks a
rule raises a SettingsError naming the file, the key and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, get_args

from coldbias_tasks.core.errors import PersonaError, SettingsError
from coldbias_tasks.core.files.yamlio import load_yaml
from coldbias_tasks.core.resources import DATA_PATH_ENV, data_dir, data_folders
from coldbias_tasks.core.vocabulary import REVERSE

__all__ = [
    "DOMAIN_LIMIT",
    "KEYS",
    "TITLE_KINDS",
    "YEAR_RULES",
    "Domain",
    "Preference",
    "TitleKind",
    "YearRule",
    "answer_keys",
    "category_fields",
    "check_title_kind",
    "domain",
    "domains",
    "preference_ids",
    "preference_phrase",
    "read_domain",
]

#: What a domain's catalog titles are, which decides how the parser matches them
#: (``core/parsing/catalog_index.py``): "work" (a film, a book: the title as written, also "North by
#: Northwest"), "song" ("Title by Artist": also "Artist - Title", the bare title…),
#: "institution" (a university: institution words folded across languages, "Toronto
#: University" = "University of Toronto").
TitleKind = Literal["work", "song", "institution"]
TITLE_KINDS: tuple[TitleKind, ...] = get_args(TitleKind)
#: How grounding reads a year an open answer states ("Psycho (1998)"): "match" (items are told
#: apart by year, as remakes share a title: the year must fit the item's ``year`` column and
#: picks one of several reference entries of that title), "ignore" (a song's year is often its
#: album's or a re-release's).
YearRule = Literal["match", "ignore"]
YEAR_RULES: tuple[YearRule, ...] = get_args(YearRule)
#: Largest domain file read (bytes); the built-in ones are about 2 kB.
DOMAIN_LIMIT = 64 << 10
#: The keys of a domain file; the first five are required.
KEYS = (
    "order", "title_column", "title_kind", "schema", "nouns", "catalog", "stratum",
    "exposure_fields", "category_fields", "answer_keys", "year_rule", "reference", "context",
    "seed_study", "preferences",
)  # fmt: skip
_REQUIRED = KEYS[:5]
_COLUMN_TYPES: dict[str, type] = {"str": str, "int": int, "list": list, "bool": bool}
#: Category fields a catalog may lack because they are derived: field → the column needed.
_DERIVED = {"decade": "year"}
_NAME = re.compile(r"^[a-z][a-z0-9]{0,39}$")
_ANSWER_KEY = re.compile(r"^[a-z0-9_]{1,40}$")
#: The task-name word that would make a domain's tasks read as reverse tasks.
_RESERVED = (REVERSE,)


def check_title_kind(kind: str, owner: str) -> TitleKind:
    """``kind`` when it is a :data:`TitleKind`; else SettingsError naming ``owner`` and the fix."""
    if kind not in TITLE_KINDS:
        raise SettingsError(
            f"{owner}: title kind {kind!r} is not one of {', '.join(TITLE_KINDS)}; declare what "
            'the titles are ("work" for films or books, "song" for "Title by Artist" strings, '
            '"institution" for universities) as title_kind in the domain file.'
        )
    return kind  # type: ignore[return-value]


@dataclass(frozen=True)
class Preference:
    """A checkable preference of the pref variant: ``id`` (``action``), the catalog ``field``
    whose labels decide whether an item matches it (``genres``) and the ``label`` it needs
    (``Action``); ``phrases``: language → the phrase a user states it with ("an action movie
    fan"), completing the language's sentence frames like a persona form."""

    id: str
    field: str
    label: str
    phrases: Mapping[str, str]


@dataclass(frozen=True)
class Domain:
    """One recommendation domain, as its file ``source`` declares it.

    ``nouns``: language → (plural, singular) shown to the model ("movies", "movie title");
    ``title_column``: the catalog column shown; ``schema``: every column's type, checked on
    load; ``catalog_file``: the JSONL catalog; ``stratum``: the field a seeded catalog subset is
    stratified by (None: simple random subset); ``exposure_fields``: the report's exposure
    tables' default fields; ``category_fields``: the diversity measures' fields (``decade``
    derived from ``year`` when the catalog has no such column); ``title_kind``: what the titles
    are (:data:`TitleKind`), declared, never guessed (a book catalog of "Title by Author"
    strings is "work"); ``answer_keys``: JSON keys an answer may hold a title under ("film");
    ``year_rule``: :data:`YearRule`; ``reference_file``: the open protocol's reference list
    (None: the catalog alone grounds); ``context``: language → the context variant's phrase
    (empty: no context variant); ``order``: display order (report sections, leaderboard
    columns); ``seed_context`` / ``seed_genre_sets``: the seed study's context file tag
    imported as this domain's context rows and the genre sets its catalog rows carry (None /
    empty: the study has no such domain).
    """

    name: str
    title_column: str
    schema: Mapping[str, type]
    nouns: Mapping[str, tuple[str, str]]
    catalog_file: Path = field(compare=False)
    title_kind: TitleKind = "work"
    stratum: str | None = None
    exposure_fields: tuple[str, ...] = ()
    category_fields: tuple[str, ...] = ()
    answer_keys: tuple[str, ...] = ()
    year_rule: YearRule = "ignore"
    reference_file: Path | None = field(default=None, compare=False)
    context: Mapping[str, str] = field(default_factory=dict)
    order: int = 0
    seed_context: str | None = None
    seed_genre_sets: tuple[str, ...] = ()
    source: Path | None = field(default=None, compare=False)
    #: the pref variant's checkable preferences, by id (empty: no pref variant)
    preferences: Mapping[str, Preference] = field(default_factory=dict)

    @property
    def noun(self) -> str:
        """The English plural ("movies")."""
        return self.nouns["en"][0]

    @property
    def noun_singular(self) -> str:
        """The English singular ("movie title")."""
        return self.nouns["en"][1]

    def catalog_path(self) -> Path:
        return self.catalog_file

    def nouns_in(self, language: str) -> tuple[str, str]:
        """(plural, singular) in ``language``; a language the file lacks raises naming it."""
        if language in self.nouns:
            return self.nouns[language]
        raise SettingsError(
            f"no {language!r} nouns for domain {self.name!r}: add `{language}: {{plural: ..., "
            f"singular: ...}}` under `nouns:` in {self.source}."
        )


def _fail(path: Path, key: str, problem: str, fix: str) -> SettingsError:
    return SettingsError(f"{path}: {key}: {problem}; {fix}.")


def _text(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, key, f"{value!r} is not a non-empty text", "write it as a string")
    return value.strip()


def _texts(path: Path, key: str, value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _fail(
            path, key, f"{value!r} is not a list", f"write it as [a, b] (or leave {key} out)"
        )
    out = tuple(_text(path, key, v) for v in value)
    if len(set(out)) != len(out):
        raise _fail(path, key, "an entry repeats", "list each once")
    return out


def _by_language(path: Path, key: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict) or not value:
        raise _fail(
            path, key, "not a mapping of language code → text", "see data/domains/movie.yaml"
        )
    if "en" not in value:
        raise _fail(
            path, key, "no English (en) entry", "add `en:` (English is every task's default)"
        )
    return {_text(path, key, str(code)): v for code, v in value.items()}


def _schema(path: Path, value: object) -> dict[str, type]:
    if not isinstance(value, dict) or not value:
        raise _fail(path, "schema", "not a mapping of column → type", "write {id: str, title: str}")
    bad = {k: v for k, v in value.items() if v not in _COLUMN_TYPES}
    if bad:
        raise _fail(path, "schema", f"unknown type(s) {bad}", f"use {', '.join(_COLUMN_TYPES)}")
    return {str(k): _COLUMN_TYPES[v] for k, v in value.items()}


def _columns(path: Path, key: str, names: tuple[str, ...], schema: Mapping[str, type]) -> None:
    for name in names:
        if name not in schema and _DERIVED.get(name) not in schema:
            raise _fail(
                path, key, f"{name!r} is no column of the schema", "add it to schema or remove it"
            )


def _file(path: Path, folder: Path, key: str, value: object) -> Path:
    """A file named relative to the data folder; it must exist."""
    file = (folder / _text(path, key, value)).resolve()
    if not file.is_file():
        raise _fail(
            path,
            key,
            f"{file} does not exist",
            f"put the file there or fix the path (relative to {folder})",
        )
    return file


def _nouns(path: Path, value: object) -> dict[str, tuple[str, str]]:
    out = {}
    for code, spec in _by_language(path, "nouns", value).items():
        if not isinstance(spec, dict) or set(spec) != {"plural", "singular"}:
            raise _fail(path, f"nouns.{code}", f"{spec!r}", "write {plural: ..., singular: ...}")
        out[code] = (_text(path, f"nouns.{code}", spec["plural"]),
                     _text(path, f"nouns.{code}", spec["singular"]))  # fmt: skip
    return out


def _seed_study(path: Path, value: object) -> tuple[str | None, tuple[str, ...]]:
    if value is None:
        return None, ()
    if (
        not isinstance(value, dict)
        or "context" not in value
        or set(value) - {"context", "genre_sets"}
    ):
        raise _fail(
            path, "seed_study", f"{value!r}", "write {context: <file tag>, genre_sets: [...]}"
        )
    return _text(path, "seed_study.context", value["context"]), _texts(
        path, "seed_study.genre_sets", value.get("genre_sets")
    )


def _preferences(path: Path, value: object, schema: Mapping[str, type]) -> dict[str, Preference]:
    """The ``preferences`` key: id → {field, label, <language>: phrase …} (English needed)."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not value:
        fix = "write `action: {field: genres, label: Action, en: an action movie fan}`"
        raise _fail(path, "preferences", "not a mapping of id → {field, label, en}", fix)
    out: dict[str, Preference] = {}
    for pid, spec in value.items():
        key = f"preferences.{pid}"
        if not isinstance(pid, str) or not _NAME.match(pid) or not isinstance(spec, dict):
            raise _fail(path, key, f"{pid!r}: {spec!r}",
                        "use a lower-case id and {field: ..., label: ..., en: ...}")  # fmt: skip
        spec = dict(spec)
        name = _text(path, f"{key}.field", spec.pop("field", None))
        _columns(path, f"{key}.field", (name,), schema)
        label = _text(path, f"{key}.label", spec.pop("label", None))
        phrases = _by_language(path, key, spec)
        out[pid] = Preference(pid, name, label, {c: _text(path, f"{key}.{c}", t)
                                                 for c, t in phrases.items()})  # fmt: skip
    return out


def read_domain(path: Path, folder: Path | None = None) -> Domain:
    """The domain declared by ``path`` (its name is the file's stem); files it names are
    relative to ``folder`` (default: the folder holding ``domains/``)."""
    folder = folder or path.resolve().parent.parent
    raw = load_yaml(path, SettingsError, DOMAIN_LIMIT)
    if not isinstance(raw, dict):
        raise _fail(path, "the file", "not a mapping of keys", "see data/domains/movie.yaml")
    name = path.stem
    if not _NAME.match(name) or name in _RESERVED:
        raise _fail(
            path, "the file name", f"{name!r} cannot name a domain",
            "use lower-case letters and digits only (task names split on '_'), not 'reverse'",
        )  # fmt: skip
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise _fail(
            path, ", ".join(map(str, unknown)), "unknown key", f"the keys are {', '.join(KEYS)}"
        )
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        raise _fail(path, ", ".join(missing), "missing", "add it (see data/domains/movie.yaml)")
    kind = check_title_kind(raw["title_kind"], f"{path}: title_kind")
    schema = _schema(path, raw["schema"])
    title_column = _text(path, "title_column", raw["title_column"])
    if schema.get(title_column) is not str:
        raise _fail(path, "title_column", f"{title_column!r} is no str column of the schema",
                    "name the column holding the titles")  # fmt: skip
    stratum = raw.get("stratum")
    if stratum is not None:
        stratum = _text(path, "stratum", stratum)
        _columns(path, "stratum", (stratum,), schema)
    exposure = _texts(path, "exposure_fields", raw.get("exposure_fields"))
    _columns(path, "exposure_fields", exposure, schema)
    categories = _texts(path, "category_fields", raw.get("category_fields"))
    _columns(path, "category_fields", categories, schema)
    keys = _texts(path, "answer_keys", raw.get("answer_keys"))
    for key in keys:
        if not _ANSWER_KEY.match(key):
            raise _fail(
                path, "answer_keys", f"{key!r}", "write keys in lower case with '_' for spaces"
            )
    year_rule = raw.get("year_rule", "ignore")
    if year_rule not in YEAR_RULES:
        raise _fail(path, "year_rule", f"{year_rule!r}", f"use one of {', '.join(YEAR_RULES)}")
    if year_rule == "match" and schema.get("year") is not int:
        raise _fail(path, "year_rule", "match needs an int column 'year'", "add it or use ignore")
    order = raw["order"]
    if not isinstance(order, int) or isinstance(order, bool):
        raise _fail(path, "order", f"{order!r} is not an integer", "write the display position")
    context = raw.get("context")
    phrases = {} if context is None else _by_language(path, "context", context)
    seed_context, genre_sets = _seed_study(path, raw.get("seed_study"))
    reference = raw.get("reference")
    return Domain(
        name=name,
        title_column=title_column,
        schema=schema,
        nouns=_nouns(path, raw["nouns"]),
        catalog_file=_file(path, folder, "catalog", raw.get("catalog", f"{name}.jsonl")),
        title_kind=kind,
        stratum=stratum,
        exposure_fields=exposure,
        category_fields=categories,
        answer_keys=keys,
        year_rule=year_rule,
        reference_file=None if reference is None else _file(path, folder, "reference", reference),
        context={code: _text(path, f"context.{code}", t) for code, t in phrases.items()},
        order=order,
        seed_context=seed_context,
        seed_genre_sets=genre_sets,
        source=path,
        preferences=_preferences(path, raw.get("preferences"), schema),
    )


@lru_cache(maxsize=8)
def _registry(folders: tuple[Path, ...]) -> Mapping[str, Domain]:
    found: dict[str, Domain] = {}
    for folder in folders:
        for path in sorted((folder / "domains").glob("*.yaml")):
            spec = read_domain(path, folder)
            if spec.name in found:
                raise _fail(
                    path, "the file name", f"domain {spec.name!r} is also declared by "
                    f"{found[spec.name].source}", "rename one of the two files",
                )  # fmt: skip
            found[spec.name] = spec
    ordered = sorted(found.values(), key=lambda d: (d.order, d.name))
    return MappingProxyType({d.name: d for d in ordered})


def domains(extra: bool = True) -> Mapping[str, Domain]:
    """Every declared domain by name, in display order (``order``, then name): the package's
    and (``extra``) those of the folders in ``COLDBIAS_DATA_PATH``. Read once per set of
    folders; a name declared twice raises naming both files."""
    return _registry(data_folders() if extra else (data_dir().resolve(),))


def domain(name: str) -> Domain:
    """The :class:`Domain` called ``name``; an unknown name raises with the known ones."""
    known = domains()
    if name not in known:
        raise SettingsError(
            f"unknown domain {name!r}; known domains: {', '.join(known)}. Declare it in "
            f"data/domains/{name}.yaml, or add a folder holding domains/{name}.yaml to "
            f"{DATA_PATH_ENV}."
        )
    return known[name]


def answer_keys() -> tuple[str, ...]:
    """Every domain's JSON answer keys, in display order, each once ("movie", "film", …)."""
    return _answer_keys(data_folders())


@lru_cache(maxsize=8)
def _answer_keys(folders: tuple[Path, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(k for d in _registry(folders).values() for k in d.answer_keys))


def category_fields(catalog: str) -> tuple[str, ...]:
    """The diversity fields of catalog ``catalog``: a domain's declared ones; for a user's
    catalog (a path), every field some domain declares, in display order (the caller keeps
    those the catalog has)."""
    known = domains()
    if catalog in known:
        return known[catalog].category_fields
    return tuple(dict.fromkeys(f for d in known.values() for f in d.category_fields))


def preference_ids(name: str) -> tuple[str, ...]:
    """The ids of the pref variant's preferences of domain ``name``, in declared order;
    PersonaError naming the file and the fix for a domain without any."""
    spec = domains().get(name)
    if spec is None or not spec.preferences:
        file = spec.source if spec else f"data/domains/{name}.yaml"
        raise PersonaError(
            f"domain {name!r} declares no preferences; add `preferences: {{action: {{field: "
            f"genres, label: Action, en: an action movie fan}}}}` to {file} (the pref variant "
            "asks each value with each preference)."
        )
    return tuple(spec.preferences)


def preference_phrase(name: str, preference: str, language_name: str, code: str) -> str:
    """The phrase stating ``preference`` of domain ``name`` in language ``code`` (PersonaError
    naming the domain file and the fix when it is not declared)."""
    spec = domains().get(name)
    found = spec.preferences.get(preference) if spec else None
    file = spec.source if spec else f"data/domains/{name}.yaml"
    if found is None:
        known = ", ".join(spec.preferences) if spec and spec.preferences else "none"
        raise PersonaError(
            f"domain {name!r} has no preference {preference!r} (declared: {known}); add it "
            f"under `preferences:` in {file}."
        )
    if code not in found.phrases:
        raise PersonaError(
            f"preference {preference!r} of domain {name!r} has no {language_name} phrase; add "
            f"`{code}: ...` to `preferences.{preference}` in {file}."
        )
    return found.phrases[code]
