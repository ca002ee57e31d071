"""Golden cases for ``coldbias_tasks.core.parsing.parse.parse_ranking``: the loader of the data
files in
``tests/data/parse_cases/`` (``catalogs.yaml``, ``cases.yaml``, ``extra_cases.yaml``).

``catalogs.yaml`` holds three fixture catalogs (``MOVIES``, ``SONGS``, ``COLLEGES``) and three
user-style catalogs (``USER_COLLEGES``, ``USER_SONGS``, ``USER_FILMS``); ``cases.yaml`` holds
``CASES`` (over the fixture catalogs; tests/test_parse.py runs them) and ``extra_cases.yaml``
``EXTRA_CASES`` for catalog-derived aliases, institution names across languages, native
scripts, songs with and without artists, structured (JSON / HTML) answers and lead-ins, also
against the built-in catalogs ("movie", "music", "college", parsed without their aliases
column); tests/test_parse_extra.py runs those, and bench/studies/parser_eval.py reads the same
files.
The test maps each string in ``ParseCase.expected`` to its index in the named catalog.

Counting conventions used by every case:

* An *entry* is one recommended item in the answer: a numbered or bulleted
  line, a plain line in a list of titles, or one element of a comma- or
  semicolon-joined list. Prose (intros, headers such as "Top 10 Movies:",
  outros such as "Enjoy!", description lines under an item) is not an entry.
* Anything inside ``<think> ... </think>`` is ignored.
* ``n_out_of_catalog`` counts entries that match no catalog item, including
  titles that are ambiguous in the catalog (e.g. "One" with two artists).
* ``n_duplicates`` counts entries that resolve to an item already kept.
* Only the first ``k`` unique matches are kept. In the ``over_k`` cases every
  entry after the k-th match is a new catalog match, which is neither a
  duplicate nor out-of-catalog. No case puts an unmatched or repeated entry
  after the k-th match, so no case depends on whether the parser keeps
  scanning after it has k items.
* Doubtful spellings are deliberately absent from ``CASES`` rather than given a verdict:
  abbreviations ("MIT", "UCLA"), "Seven" for "Se7en", "8 1/2" for "8½",
  "Godfather 2", "Twelve Angry Men", full subtitles such as
  "Dr. Strangelove or: How I Learned to Stop Worrying and Love the Bomb",
  and truncated titles.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from coldbias_tasks.core.errors import ColdbiasError
from coldbias_tasks.core.files.yamlio import load_yaml
from coldbias_tasks.core.world.domains import TitleKind, domains

#: The folder of the case data files.
DATA = Path(__file__).resolve().parent / "data" / "parse_cases"


@dataclass(frozen=True)
class ParseCase:
    name: str
    catalog: str
    k: int
    answer: str
    expected: tuple[str, ...]
    n_out_of_catalog: int
    n_duplicates: int


_TYPES = {"name": str, "catalog": str, "k": int, "answer": str, "expected": list}
_FIELDS = [f.name for f in fields(ParseCase)]


def load_catalogs() -> dict[str, tuple[str, ...]]:
    """Catalog name → titles, from ``catalogs.yaml``."""
    data = load_yaml(DATA / "catalogs.yaml", ColdbiasError)
    for name, titles in data.items():
        if not isinstance(titles, list) or not all(isinstance(t, str) for t in titles):
            raise ColdbiasError(f"catalogs.yaml: {name!r} must be a list of titles")
    return {name: tuple(titles) for name, titles in data.items()}


def load_cases(stem: str) -> tuple[ParseCase, ...]:
    """The cases of ``<stem>.yaml``, in file order; a missing, extra or mistyped field raises."""
    rows = load_yaml(DATA / f"{stem}.yaml", ColdbiasError)
    cases = []
    for n, row in enumerate(rows):
        if not isinstance(row, dict) or sorted(row) != sorted(_FIELDS):
            raise ColdbiasError(f"{stem}.yaml, case {n}: the fields must be {_FIELDS}")
        for key in _FIELDS:
            wanted = _TYPES.get(key, int)
            if not isinstance(row[key], wanted) or isinstance(row[key], bool):
                raise ColdbiasError(f"{stem}.yaml, case {row.get('name', n)!r}: bad {key}")
        if not all(isinstance(t, str) for t in row["expected"]):
            raise ColdbiasError(f"{stem}.yaml, case {row['name']!r}: expected must be titles")
        cases.append(ParseCase(**{**row, "expected": tuple(row["expected"])}))
    return tuple(cases)


_CATALOGS = load_catalogs()
MOVIES = _CATALOGS["movies"]
SONGS = _CATALOGS["songs"]
COLLEGES = _CATALOGS["colleges"]
USER_COLLEGES = _CATALOGS["user_colleges"]
USER_SONGS = _CATALOGS["user_songs"]
USER_FILMS = _CATALOGS["user_films"]
#: What each case catalog's titles are (``Domain.title_kind``; the built-in domains declare
#: their own): the parser is told, it never guesses.
KINDS: dict[str, TitleKind] = {
    "movies": "work",
    "songs": "song",
    "colleges": "institution",
    "user_colleges": "institution",
    "user_songs": "song",
    "user_films": "work",
    **{name: d.title_kind for name, d in domains().items()},
}
CASES = load_cases("cases")
EXTRA_CASES = load_cases("extra_cases")
