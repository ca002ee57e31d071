"""The built-in catalogs' facts and vocabularies, and the loader's handling of users' files."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pycountry
import pytest
from datasets import Dataset, load_dataset

from coldbias_tasks.core.errors import CatalogError
from coldbias_tasks.core.parsing.catalog_index import normalized_key
from coldbias_tasks.core.resources import data_dir
from coldbias_tasks.core.world.catalog import load_catalog, western_rule
from coldbias_tasks.core.world.domains import domains

# --------------------------------------------------------------------------------------------
# Vocabularies (data/README.md documents the same lists)

MOVIE_GENRES = frozenset(
    "Action Adventure Animation Biography Comedy Crime Documentary Drama Family Fantasy History "
    "Horror Music Musical Mystery Romance Sport Thriller War Western".split()
) | {"Science Fiction"}
MUSIC_GENRES = frozenset(
    {
        "Rock",
        "Pop",
        "Hip Hop",
        "R&B/Soul",
        "Funk/Disco",
        "Electronic/Dance",
        "Punk/New Wave",
        "Metal",
        "Alternative/Indie",
        "Country/Folk",
        "Reggae",
        "Latin",
    }
)
REGIONS = frozenset(
    {
        "North America",
        "Latin America",
        "Europe",
        "Middle East",
        "Africa",
        "East Asia",
        "South Asia",
        "Southeast Asia",
        "Central Asia",
        "Oceania",
    }
)
#: ISO 3166-3 codes of dissolved states that may appear in a film's production countries.
HISTORIC_CODES = frozenset({"SUHH", "CSHH", "YUCS", "DDDE"})


def _region_table() -> dict[str, str]:
    groups = {
        "North America": "US CA",
        "Latin America": "MX AR BR CL CO PE UY VE CU EC CR PR",
        "Europe": (
            "GB IE FR DE IT ES PT NL BE LU CH AT DK SE NO FI IS PL CZ SK HU RO BG GR CY MT EE LV "
            "LT SI HR RS BA ME MK AL RU BY UA"
        ),
        "Middle East": "TR IL IR SA AE QA OM KW BH JO LB IQ",
        "Africa": "EG ZA NG KE ET GH MA TN DZ UG",
        "East Asia": "CN JP KR TW HK MO MN",
        "South Asia": "IN PK BD LK NP",
        "Southeast Asia": "SG MY TH ID PH VN BN",
        "Central Asia": "KZ UZ",
        "Oceania": "AU NZ",
    }
    return {code: region for region, codes in groups.items() for code in codes.split()}


#: Country (ISO alpha-2) → region of the college catalog.
COUNTRY_REGION = _region_table()


def _table(name: str) -> pd.DataFrame:
    return load_catalog(name).table


def _is_alpha2(code: str) -> bool:
    return pycountry.countries.get(alpha_2=code) is not None


# --------------------------------------------------------------------------------------------
# All built-in catalogs


@pytest.mark.parametrize("name", sorted(domains()))
def test_builtin_has_500_items_with_unique_ids(name: str) -> None:
    table = _table(name)
    assert len(load_catalog(name)) == len(table) == 500
    assert table["id"].is_unique
    assert all(item_id.startswith(f"{name}-") for item_id in table["id"])


@pytest.mark.parametrize("name", sorted(domains()))
def test_shown_titles_have_unique_parser_keys(name: str) -> None:
    title_column = domains()[name].title_column
    catalog = load_catalog(name)
    assert catalog.titles == tuple(catalog.table[title_column])
    clashes = {k: n for k, n in Counter(map(normalized_key, catalog.titles)).items() if n > 1}
    assert not clashes


@pytest.mark.parametrize("name", sorted(domains()))
def test_datasets_reads_builtin_file(name: str, tmp_path: Path) -> None:
    path = data_dir() / f"{name}.jsonl"
    ds = load_dataset("json", data_files=str(path), split="train", cache_dir=str(tmp_path))
    assert ds.num_rows == 500
    assert set(domains()[name].schema) == set(ds.column_names)


# --------------------------------------------------------------------------------------------
# Movies


def test_movie_countries_are_iso_codes() -> None:
    bad = [
        (title, code)
        for title, codes in zip(_table("movie")["title"], _table("movie")["countries"])
        for code in codes
        if not (
            _is_alpha2(code)
            or (code in HISTORIC_CODES and pycountry.historic_countries.get(alpha_4=code))
        )
    ]
    assert not bad
    assert all(
        len(codes) >= 1 and len(set(codes)) == len(codes) for codes in _table("movie")["countries"]
    )


def test_movie_language_is_iso_639_1() -> None:
    bad = [
        c
        for c in _table("movie")["original_language"]
        if pycountry.languages.get(alpha_2=c) is None
    ]
    assert not bad


def test_movie_genres_from_vocabulary_one_to_three() -> None:
    for title, genres in zip(_table("movie")["title"], _table("movie")["genres"]):
        assert 1 <= len(genres) <= 3, title
        assert len(set(genres)) == len(genres), title
        assert set(genres) <= MOVIE_GENRES, (title, set(genres) - MOVIE_GENRES)


def test_movie_years_in_range() -> None:
    years = _table("movie")["year"]
    assert years.between(1920, 2025).all()


def test_movie_western_flag_follows_rule() -> None:
    table = _table("movie")
    wrong = [
        title
        for title, countries, western in zip(table["title"], table["countries"], table["western"])
        if western != western_rule(countries)
    ]
    assert not wrong
    assert (~table["western"]).sum() >= 80


def test_western_rule_uses_primary_country_only() -> None:
    assert western_rule(["US", "JP"])
    assert not western_rule(["JP", "US"])
    assert not western_rule(["MX", "US"])  # Mexico counts as Latin America
    assert western_rule(["SUHH"]) and western_rule(["RU"]) and western_rule(["NZ"])
    assert not western_rule([])


# --------------------------------------------------------------------------------------------
# Music


def test_music_fields() -> None:
    table = _table("music")
    assert table["year"].between(1970, 2019).all()
    assert set(table["genre"]) <= MUSIC_GENRES
    assert all(map(_is_alpha2, table["artist_country"]))
    for title, artist, display in zip(table["title"], table["artist"], table["display"]):
        assert display == f"{title} by {artist}"


def test_music_100_songs_per_decade() -> None:
    table = _table("music")
    assert all(
        f"{year // 10 * 10}s" == decade for year, decade in zip(table["year"], table["decade"])
    )
    assert Counter(table["decade"]) == {f"{d}s": 100 for d in range(1970, 2020, 10)}


# --------------------------------------------------------------------------------------------
# Colleges


def test_college_country_and_region() -> None:
    table = _table("college")
    assert all(map(_is_alpha2, table["country"]))
    assert set(table["region"]) <= REGIONS
    wrong = [
        (name, country, region)
        for name, country, region in zip(table["name"], table["country"], table["region"])
        if COUNTRY_REGION.get(country) != region
    ]
    assert not wrong


def test_college_aliases_unique_and_not_other_names() -> None:
    table = _table("college")
    owner = {normalized_key(name): i for i, name in enumerate(table["name"])}
    seen: dict[str, int] = {}
    for i, aliases in enumerate(table["aliases"]):
        for alias in aliases:
            key = normalized_key(alias)
            assert key, alias
            assert seen.setdefault(key, i) == i, f"alias {alias!r} used twice"
            assert owner.get(key, i) == i, f"alias {alias!r} is another college's name"


# --------------------------------------------------------------------------------------------
# Users' catalogs: formats that work


def test_json_list_of_strings(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps(["Heat", "The Matrix", "Amélie"]), encoding="utf-8")
    catalog = load_catalog(path)
    assert catalog.titles == ("Heat", "The Matrix", "Amélie")
    assert catalog.name == "list"


def test_csv_with_title_column(tmp_path: Path) -> None:
    path = tmp_path / "films.csv"
    path.write_text("title,year\nHeat,1995\n1984,1984\nAlien,1979\n", encoding="utf-8")
    catalog = load_catalog(path)
    assert catalog.titles == ("Heat", "1984", "Alien")
    assert list(catalog.table["year"]) == ["1995", "1984", "1979"]


def test_jsonl_with_title_column(tmp_path: Path) -> None:
    path = tmp_path / "films.jsonl"
    rows = [{"title": "Heat", "year": 1995}, {"title": "Alien", "year": 1979}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    catalog = load_catalog(path)
    assert catalog.titles == ("Heat", "Alien")
    assert catalog.categories("year") == {0: ["1995"], 1: ["1979"]}


def test_saved_dataset_folder(tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    Dataset.from_dict({"title": ["Heat", "Alien"], "genre": ["Crime", "Horror"]}).save_to_disk(
        str(folder)
    )
    catalog = load_catalog(folder)
    assert catalog.titles == ("Heat", "Alien")
    assert catalog.categories("genre") == {0: ["Crime"], 1: ["Horror"]}


# --------------------------------------------------------------------------------------------
# Users' catalogs: errors name the file, the row and the problem


def _error(path: Path) -> str:
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    message = str(info.value)
    assert str(path) in message
    return message


def test_missing_title_column(tmp_path: Path) -> None:
    path = tmp_path / "no_title.csv"
    path.write_text("movie,year\nHeat,1995\n", encoding="utf-8")
    message = _error(path)
    assert "no 'title' column" in message and "'movie'" in message


def test_empty_title(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("title,year\nHeat,1995\n,1979\n", encoding="utf-8")
    message = _error(path)
    assert "row 2" in message and "empty" in message


def test_duplicate_title(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(["Heat", "Alien", "Heat"]), encoding="utf-8")
    message = _error(path)
    assert "row 3" in message and "row 1" in message and "duplicate title" in message


@pytest.mark.parametrize("other", ["Matrix, The", "matrix!"])
def test_titles_with_same_key(tmp_path: Path, other: str) -> None:
    path = tmp_path / f"same_key_{normalized_key(other)}_{len(other)}.json"
    path.write_text(json.dumps(["The Matrix", "Heat", other]), encoding="utf-8")
    message = _error(path)
    assert "row 3" in message and "row 1" in message
    assert "normalize to the same key" in message and repr(other) in message


def test_invalid_json_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"title": "Heat"}\n{"title": "Alien"\n', encoding="utf-8")
    message = _error(path)
    assert "line 2" in message and "malformed JSON" in message


def test_jsonl_line_number_counts_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "blank_line.jsonl"
    path.write_text('{"title": "Heat"}\n\n{"title": "Heat"}\n', encoding="utf-8")
    message = _error(path)
    assert "row 2" in message and re.search(r"\bline 3\b", message)


def test_unsupported_extension(tmp_path: Path) -> None:
    path = tmp_path / "films.txt"
    path.write_text("Heat\nAlien\n", encoding="utf-8")
    message = _error(path)
    assert "unsupported catalog format '.txt'" in message


def test_nonexistent_path(tmp_path: Path) -> None:
    message = _error(tmp_path / "missing.csv")
    assert "neither a declared domain" in message and "existing file" in message
