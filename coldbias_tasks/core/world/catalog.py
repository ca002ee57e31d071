"""Catalogs: the items a model chooses from, with metadata for exposure analysis.

``load_catalog(<domain>)`` reads a declared domain's JSONL dataset (the ``catalog`` of its
``data/domains/<name>.yaml``, :mod:`coldbias_tasks.core.world.domains`; the same files
``datasets.load_dataset("json", data_files=...)`` reads); ``load_catalog(path)`` reads a user's
catalog: a JSON list of strings, a CSV / JSONL with a ``title`` column, or a directory written by
``Dataset.save_to_disk``. Every catalog is validated: a bad file gets an error naming the file,
the row (1-based data row; for JSONL also its line) and the fix.
"""

from __future__ import annotations

import hashlib
import io
import json
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.files.jsonl import DATA_LIMIT, json_value, read_jsonl_objects, read_text
from coldbias_tasks.core.parsing.catalog_index import normalized_key
from coldbias_tasks.core.world.domains import domains

__all__ = ["Catalog", "load_catalog", "western_rule"]

#: ISO codes counted as Western production (see data/README.md): North America (US, CA; Mexico
#: counts as Latin America), all of Europe incl. historic states, Australia and New Zealand.
_WESTERN_EXTRA = {"US", "CA", "AU", "NZ", "SUHH", "CSHH", "YUCS", "DDDE", "RU"}
_EUROPE = set(
    "AD AL AT BA BE BG BY CH CY CZ DE DK EE ES FI FR GB GR HR HU IE IS IT LI LT LU LV MC MD ME "
    "MK MT NL NO PL PT RO RS SE SI SK SM UA VA XK".split()
)


def western_rule(countries: Iterable[str]) -> bool:
    """A film is Western iff its PRIMARY (first-listed) production country is in North America
    (US, CA), Europe (incl. Russia and historic European states) or Australia / New Zealand.
    Co-productions follow their primary country only.
    """
    first = next(iter(countries), None)
    return first is not None and (first in _WESTERN_EXTRA or first in _EUROPE)


@dataclass(frozen=True)
class Catalog:
    """A validated catalog.

    ``titles``: the strings shown to the model, in catalog order (the item's index is its
    position). ``table``: one row per item, metadata fields as columns. ``sha256``: hash of the
    titles and metadata, recorded in outputs for provenance.
    """

    name: str
    source: str
    titles: tuple[str, ...]
    table: pd.DataFrame
    sha256: str

    def __len__(self) -> int:
        return len(self.titles)

    def aliases(self) -> list[tuple[str, ...]] | None:
        """Other names per item (an ``aliases`` list column, e.g. "MIT"), or None."""
        if "aliases" not in self.table.columns:
            return None
        return [
            tuple(str(a) for a in value) if isinstance(value, (list, tuple)) else ()
            for value in self.table["aliases"]
        ]

    def categories(self, field: str) -> dict[int, list[str]]:
        """item index → category labels of ``field`` (list fields give several labels)."""
        if field not in self.table.columns:
            raise KeyError(
                f"catalog {self.name!r} has no field {field!r}; fields: {list(self.table.columns)}"
            )
        out: dict[int, list[str]] = {}
        for index, value in enumerate(self.table[field]):
            values = value if isinstance(value, (list, tuple)) else [value]
            out[index] = [str(v) for v in values]
        return out


def _row_hint(path: Path, row: int, lines: list[int] | None = None) -> str:
    """ "file, row R" (1-based data row), plus the file line for JSONL (blank lines counted)."""
    line = f" (line {lines[row]})" if lines and row < len(lines) else ""
    return f"{path}, row {row + 1}{line}"


def _check_titles(path: Path, titles: list[Any], lines: list[int] | None) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    for row, title in enumerate(titles):
        if not isinstance(title, str) or not title.strip():
            raise CatalogError(
                f"{_row_hint(path, row, lines)}: empty or non-text title {title!r}; "
                "give every item a non-empty title string."
            )
        breaks = [ch for ch in title if unicodedata.category(ch) in ("Cc", "Zl", "Zp")]
        if breaks:
            raise CatalogError(
                f"{_row_hint(path, row, lines)}: title {title!r} holds a line break or control "
                f"character ({breaks[0]!r}); a prompt shows one title per line, so it could "
                "never be matched. Write the title on one line."
            )
        key = normalized_key(title)
        if not key:
            raise CatalogError(
                f"{_row_hint(path, row, lines)}: title {title!r} has no letters or digits; "
                "the parser could not match it. Use a real title."
            )
        if key in seen:
            other = titles[seen[key]]
            what = "duplicate title" if other == title else "titles normalize to the same key"
            raise CatalogError(
                f"{_row_hint(path, row, lines)}: {what}: {title!r} and row {seen[key] + 1} "
                f"{other!r} "
                f"(key {key!r}); the parser could not tell them apart. Remove one or make the "
                "titles distinct (e.g. add the year or artist to the title)."
            )
        seen[key] = row
    return tuple(titles)


def _check_types(path: Path, table: pd.DataFrame, schema: Mapping[str, type]) -> None:
    missing = [c for c in schema if c not in table.columns]
    if missing:
        raise CatalogError(f"{path}: missing column(s) {missing}; every row needs {list(schema)}.")
    for column, kind in schema.items():
        for row, value in enumerate(table[column]):
            ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
            if not ok:
                where = _row_hint(path, row, table.attrs.get("lines"))
                raise CatalogError(
                    f"{where}: column {column!r} should be {kind.__name__}, got {value!r}; "
                    "fix the value."
                )


def _read_jsonl(path: Path) -> pd.DataFrame:
    rows = read_jsonl_objects(
        path, CatalogError, "fix the line (one JSON object per item).", DATA_LIMIT
    )
    table = pd.DataFrame([row for _, row in rows])
    table.attrs["lines"] = [line_no for line_no, _ in rows]
    return table


def _read_user_table(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    if path.is_dir():
        try:
            from datasets import load_from_disk

            return load_from_disk(str(path)).to_pandas()
        except Exception as err:  # datasets raises several types for a foreign folder
            raise CatalogError(
                f"{path}: not a dataset folder written by datasets' save_to_disk ({err}); "
                "pass a .json, .jsonl or .csv file or a saved Dataset folder."
            ) from err
    if suffix == ".json":
        raw = json_value(
            read_text(path, CatalogError, DATA_LIMIT), CatalogError, str(path), "fix the file."
        )
        if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
            return pd.DataFrame({"title": raw})
        if isinstance(raw, list) and all(isinstance(x, dict) for x in raw):
            return pd.DataFrame(raw)
        raise CatalogError(
            f"{path}: expected a JSON list of title strings (or of objects with a 'title')."
        )
    if suffix == ".jsonl":
        return _read_jsonl(path)
    if suffix == ".csv":
        text = read_text(path, CatalogError, DATA_LIMIT)
        try:
            return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
            raise CatalogError(
                f"{path}: not a readable CSV ({str(err).strip()}); check the quoting (a field "
                "with a comma or a quote must be enclosed in double quotes, inner quotes "
                "doubled) and that the first line holds the column names."
            ) from err
    raise CatalogError(
        f"{path}: unsupported catalog format {suffix!r}; use .json (list of titles), .jsonl or "
        ".csv with a 'title' column, or a saved Hugging Face dataset folder."
    )


def _hash(titles: tuple[str, ...], table: pd.DataFrame) -> str:
    payload = json.dumps(
        {"titles": titles, "table": table.to_dict(orient="records")},
        sort_keys=True,
        default=str,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def load_catalog(name_or_path: str | Path) -> Catalog:
    """Load and validate a declared domain's catalog by name, or a user's catalog file or
    folder; cached by the file it reads (a changed file needs a new path or a restart)."""
    name = str(name_or_path)
    spec = domains().get(name)
    if spec is None:
        return _load(name, None, "", ())
    return _load(str(spec.catalog_path()), name, spec.title_column, tuple(spec.schema.items()))


@lru_cache(maxsize=16)
def _load(
    name: str, domain: str | None, title_column: str, schema: tuple[tuple[str, type], ...]
) -> Catalog:
    """A domain's catalog (``domain``: its name; ``name``: its file) or a user's (``name``)."""
    if domain is not None:
        path = Path(name)
        table = _read_jsonl(path)
        _check_types(path, table, dict(schema))
        name = domain
    else:
        path = Path(name).expanduser()
        if not path.exists():
            raise CatalogError(
                f"catalog {name!r} is neither a declared domain ({', '.join(domains())}) nor an "
                "existing file or folder; pass one of those names or a path."
            )
        table = _read_user_table(path)
        found = next((c for c in ("title", "display", "name") if c in table.columns), None)
        if found is None:
            raise CatalogError(
                f"{path}: no 'title' column (columns: {list(table.columns)}); rename the column "
                "holding the item names to 'title'."
            )
        title_column, name = found, path.stem
    if table.empty:
        raise CatalogError(f"{path}: the catalog has no items.")
    titles = _check_titles(path, list(table[title_column]), table.attrs.get("lines"))
    table = table.reset_index(drop=True)
    table.attrs.pop("lines", None)
    return Catalog(name, str(path), titles, table, _hash(titles, table))
