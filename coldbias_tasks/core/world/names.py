"""Other names of a domain's items, as facts written for the open protocol:
``data/names/<domain>.yaml`` (and the same file in each folder of ``COLDBIAS_DATA_PATH``),
read by the grounder (``core/parsing/grounding.py``) and by nothing else (the catalog tasks'
parser never sees them, so catalog numbers do not move).

A names file::

    sources:                      # code → where the fact comes from (one sentence)
      zh-official: the institution's own Chinese name (its website, its Wikipedia article)
    items:
      college-157: {names: [北京大学, Beijing University], source: zh-official}
      ref:univ-paris13.fr: {names: [Université Paris 13, Paris 13], source: fr-former}

A key is a catalog item id or ``ref:<reference id>``; each item lists the names it answers to
in the six prompt languages and their scripts (native-script names, translations, standard
abbreviations, former names), and the ``source`` code of the fact. Checked on load (a
CatalogError naming the file, item and fix): the item exists; every name is a non-empty string;
the source is declared; no name (after script folding, ``core/parsing/script_fold.py``, and the
catalog's exact key) names two items, nor another catalog item's own title or alias.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.files.yamlio import load_yaml
from coldbias_tasks.core.parsing.catalog_index import normalized_key
from coldbias_tasks.core.parsing.script_fold import fold_script
from coldbias_tasks.core.resources import data_folders

__all__ = ["REF_PREFIX", "Names", "load_names", "name_key", "names_files"]

#: Key prefix of a reference entry in a names file.
REF_PREFIX = "ref:"
#: A names file larger than this is refused.
MAX_NAMES_BYTES = 2 << 20


@dataclass(frozen=True)
class Names:
    """A domain's other names: ``catalog`` (item id → names), ``reference`` (reference id →
    names), ``sources`` (code → sentence), ``source_of`` (item key → its source code)."""

    catalog: Mapping[str, tuple[str, ...]]
    reference: Mapping[str, tuple[str, ...]]
    sources: Mapping[str, str]
    source_of: Mapping[str, str]

    def __len__(self) -> int:
        return len(self.catalog) + len(self.reference)

    def for_rows(self, ids: Sequence[str]) -> list[tuple[str, ...]]:
        """Names per catalog row (``ids``: the catalog's id column), each name also in its
        folded script form."""
        return [_with_folded(self.catalog.get(str(i), ())) for i in ids]

    def reference_names(self) -> dict[str, tuple[str, ...]]:
        """Names per reference id, each also in its folded script form."""
        return {ident: _with_folded(names) for ident, names in self.reference.items()}


def _with_folded(names: Sequence[str]) -> tuple[str, ...]:
    out: list[str] = []
    for name in names:
        for form in (name, fold_script(name)):
            if form not in out:
                out.append(form)
    return tuple(out)


def name_key(name: str) -> str:
    """The key two names collide on: the catalog's exact key of the script-folded name."""
    return normalized_key(fold_script(name))


def names_files(domain: str) -> list[Path]:
    """Every ``names/<domain>.yaml`` of the data folders, in their order."""
    return [p for p in (f / "names" / f"{domain}.yaml" for f in data_folders()) if p.is_file()]


def load_names(
    domain: str,
    ids: Sequence[str],
    own_names: Sequence[Sequence[str]],
    reference_ids: frozenset[str] | None = None,
) -> Names:
    """The names of ``domain`` from its names files, checked against the catalog (``ids``: its
    id column; ``own_names``: each row's title and aliases) and the reference ids (None: no
    reference list known, its ``ref:`` items are skipped). An empty :class:`Names` when the
    domain has no file."""
    catalog: dict[str, tuple[str, ...]] = {}
    reference: dict[str, tuple[str, ...]] = {}
    sources: dict[str, str] = {}
    source_of: dict[str, str] = {}
    owner: dict[str, str] = {}
    for ident, names in zip(ids, own_names):
        for name in names:
            owner.setdefault(name_key(name), str(ident))
    known = {str(i) for i in ids}
    for path in names_files(domain):
        raw = load_yaml(path, CatalogError, MAX_NAMES_BYTES)
        if not isinstance(raw, dict) or not isinstance(raw.get("items"), dict):
            raise CatalogError(
                f"{path}: needs a mapping with 'sources' and 'items'; see {__name__}."
            )
        file_sources = raw.get("sources") or {}
        if not isinstance(file_sources, dict):
            raise CatalogError(f"{path}: 'sources' must map a code to a sentence.")
        sources.update({str(k): str(v) for k, v in file_sources.items()})
        for key, entry in raw["items"].items():
            key = str(key)
            where = f"{path}, item {key!r}"
            names, source = _entry(where, entry, sources)
            if key.startswith(REF_PREFIX):
                if reference_ids is None:
                    continue
                if key[len(REF_PREFIX) :] not in reference_ids:
                    raise CatalogError(f"{where}: no such reference entry; fix the id.")
                table = reference
                ident = key[len(REF_PREFIX) :]
            else:
                if key not in known:
                    raise CatalogError(f"{where}: no such catalog item; fix the id.")
                table = catalog
                ident = key
            for name in names:
                k = name_key(name)
                if not k:
                    raise CatalogError(f"{where}: name {name!r} has no letters; remove it.")
                other = owner.setdefault(k, key)
                if other not in (key, ident):
                    raise CatalogError(
                        f"{where}: name {name!r} also names {other!r}; a name must name one "
                        "item (drop it where it is ambiguous)."
                    )
            table[ident] = tuple(dict.fromkeys((*table.get(ident, ()), *names)))
            source_of[key] = source
    return Names(catalog, reference, sources, source_of)


def _entry(where: str, entry: object, sources: Mapping[str, str]) -> tuple[list[str], str]:
    if not isinstance(entry, dict) or set(entry) - {"names", "source", "note"}:
        raise CatalogError(f"{where}: needs 'names' (a list) and 'source' (a code), nothing else.")
    names = entry.get("names")
    if (
        not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) and n.strip() for n in names)
    ):
        raise CatalogError(f"{where}: 'names' must be a non-empty list of non-empty strings.")
    source = entry.get("source")
    if not isinstance(source, str) or source not in sources:
        raise CatalogError(
            f"{where}: 'source' {source!r} is not declared under 'sources'; declare it."
        )
    return [n.strip() for n in names], source
