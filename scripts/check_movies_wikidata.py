"""Dev check: data/movie.jsonl against the CC0 Wikidata film table shipped in bokeh-sampledata.

Not part of the test suite. Needs ``pip install pycountry bokeh-sampledata``. Films are matched
by the parser's normalized title key (and, when several Wikidata films share it, by the year
within ±1); only catalog films of 1939-2015 are looked up, as the table covers 1940-2014. A
found film agrees on year when within ±1 and on country when at least one
production country is shared (dissolved states count as their successors).

    python scripts/check_movies_wikidata.py
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

import pycountry
from bokeh_sampledata.movies_data import movie_path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from coldbias_tasks.core.parsing.catalog_index import normalized_key

CATALOG = Path(__file__).resolve().parents[1] / "data" / "movie.jsonl"
#: Release years the Wikidata table covers; catalog films outside them (±1) cannot be in it.
COVERED = range(1940 - 1, 2014 + 2)

#: Wikidata country labels that pycountry does not resolve (or resolves differently).
NAMES = {
    "Soviet Union": "SUHH",
    "Georgian SSR": "SUHH",
    "West Germany": "DE",
    "East Germany": "DDDE",
    "Czechoslovakia": "CSHH",
    "Yugoslavia": "YUCS",
    "Federal Republic of Yugoslavia": "YUCS",
    "Socialist Federal Republic of Yugoslavia": "YUCS",
    "Serbia and Montenegro": "YUCS",
    "People's Republic of China": "CN",
    "Republic of China": "TW",
    "Taiwan Island": "TW",
    "British Hong Kong": "HK",
    "Kingdom of the Netherlands": "NL",
    "Kingdom of Great Britain": "GB",
    "Wales": "GB",
    "Kingdom of Italy": "IT",
    "Occupied Palestinian territory": "PS",
    "The Bahamas": "BS",
    "Ivory Coast": "CI",
    "Kosovo": "XK",
    "Russia": "RU",
    "Turkey": "TR",
    "Palestine": "PS",
    "Democratic Republic of the Congo": "CD",
}
#: Dissolved states (ISO 3166-3) → their successors, counted as the same country.
SUCCESSORS = {
    "SUHH": {"RU"},
    "CSHH": {"CZ", "SK"},
    "DDDE": {"DE"},
    "YUCS": {"RS", "HR", "BA", "SI", "MK", "ME"},
}


def to_code(name: str) -> str:
    if name in NAMES:
        return NAMES[name]
    try:
        return str(pycountry.countries.lookup(name).alpha_2)
    except LookupError:
        return f"?{name}"


def widen(codes: set[str]) -> set[str]:
    return codes.union(*(SUCCESSORS.get(code, set()) for code in codes))


def same_country(ours: set[str], theirs: set[str]) -> bool:
    return bool(widen(ours) & theirs or ours & widen(theirs))


def main() -> None:
    wikidata: dict[str, list[tuple[str, int, set[str]]]] = defaultdict(list)
    with sqlite3.connect(movie_path) as db:
        for title, year, country in db.execute("SELECT Title, Year, Country FROM omdb"):
            codes = {to_code(c.strip()) for c in (country or "").split(",") if c.strip()}
            wikidata[normalized_key(title)].append((title, year, codes))

    found = year_ok = country_ok = 0
    problems: list[str] = []
    for line in CATALOG.read_text(encoding="utf-8").splitlines():
        film = json.loads(line)
        if film["year"] not in COVERED:
            continue
        candidates = wikidata.get(normalized_key(film["title"]), [])
        if len(candidates) > 1:
            candidates = sorted(
                (c for c in candidates if abs(c[1] - film["year"]) <= 1),
                key=lambda c: abs(c[1] - film["year"]),
            )
        if not candidates:
            continue
        title, year, codes = candidates[0]
        found += 1
        ours = f"{film['id']} {film['title']!r} {film['year']} {film['countries']}"
        theirs = f"Wikidata {title!r} {year} {sorted(codes)}"
        if abs(year - film["year"]) <= 1:
            year_ok += 1
        else:
            problems.append(f"YEAR     {ours} vs {theirs}")
        if same_country(set(film["countries"]), codes):
            country_ok += 1
        else:
            problems.append(f"COUNTRY  {ours} vs {theirs}")

    print(f"catalog films of 1939-2015 found in Wikidata (bokeh-sampledata): {found}")
    print(f"year agreement (±1):          {year_ok}/{found} = {year_ok / max(found, 1):.1%}")
    print(f"country agreement (≥1 shared): {country_ok}/{found} = {country_ok / max(found, 1):.1%}")
    print(f"disagreements: {len(problems)}")
    for problem in problems:
        print("  " + problem)


if __name__ == "__main__":
    main()
