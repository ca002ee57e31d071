"""Build ``data/facts/movie.jsonl``: item-quality facts of the movie catalog (facts only).

Source: the CC0 Wikidata film snapshot shipped by ``bokeh-sampledata`` (2026.1,
``bokeh_sampledata/_data/movies.db``, tables ``omdb`` and ``tomatoes`` joined on ``ID``), the
same source as the open reference list (scripts/build_reference.py). A catalog film is matched
by the parser's normalized title key and a year within ±1 (the closest year; two candidates at
the same distance: left out as ambiguous). Written per matched film: ``id`` (the catalog's),
``imdb`` (the snapshot's identifier), ``critics_score`` (the snapshot's critics' approval
score, ``tomatoes.Meter``, 0–100; null when absent) and ``box_office`` (``tomatoes.BoxOffice``
as stored, US dollars; null when absent). Coverage is printed and written to
``data/facts/sources.json``. Songs and universities: no offline fact exists (the college
catalog deliberately has no ranks), so there are no such files.

    pip install bokeh-sampledata==2026.1 && python scripts/build_item_facts.py
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from coldbias_tasks.core.parsing.catalog_index import normalized_key

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "data" / "movie.jsonl"
OUT = ROOT / "data" / "facts"


def _snapshot() -> dict[str, list[tuple[int, str, float | None, float | None]]]:
    """normalized title key → [(year, imdbID, critics score, box office)]."""
    from bokeh_sampledata.movies_data import movie_path

    out: dict[str, list[tuple[int, str, float | None, float | None]]] = defaultdict(list)
    with sqlite3.connect(f"file:{movie_path}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT o.Title, o.Year, o.imdbID, t.Meter, t.BoxOffice FROM omdb o "
            "LEFT JOIN tomatoes t ON o.ID = t.ID ORDER BY o.Year, o.imdbID"
        ).fetchall()
    for title, year, imdb, meter, box in rows:
        if title and year:
            out[normalized_key(str(title))].append((int(year), str(imdb), meter, box))
    return out


def main() -> None:
    snapshot = _snapshot()
    films = [json.loads(line) for line in CATALOG.read_text(encoding="utf-8").splitlines()]
    rows, ambiguous = [], 0
    for film in films:
        near = [c for c in snapshot.get(normalized_key(film["title"]), [])
                if abs(c[0] - film["year"]) <= 1]  # fmt: skip
        near.sort(key=lambda c: abs(c[0] - film["year"]))
        if not near:
            continue
        if len(near) > 1 and abs(near[0][0] - film["year"]) == abs(near[1][0] - film["year"]):
            ambiguous += 1
            continue
        _, imdb, meter, box = near[0]
        rows.append({
            "id": film["id"], "imdb": imdb,
            "critics_score": None if meter is None else int(meter),
            "box_office": None if box is None else float(box),
        })  # fmt: skip
    OUT.mkdir(exist_ok=True)
    with open(OUT / "movie.jsonl", "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    scored = sum(r["critics_score"] is not None for r in rows)
    boxed = sum(r["box_office"] is not None for r in rows)
    coverage = {
        "movie": {
            "source": "bokeh-sampledata 2026.1, bokeh_sampledata/_data/movies.db (tables omdb, "
            "tomatoes joined on ID), a Wikidata snapshot retrieved 2026-10-18",
            "licence": "CC0-1.0",
            "catalog_films": len(films),
            "matched": len(rows),
            "ambiguous_left_out": ambiguous,
            "critics_score": scored,
            "box_office": boxed,
            "coverage": f"{scored} of {len(films)} catalog films have a critics' score, "
            f"{boxed} a box office figure (the snapshot covers films of 1940–2014)",
        },
        "music": {"coverage": "no offline fact of song quality: item quality not computed"},
        "college": {"coverage": "no offline fact (the catalog deliberately has no ranks): "
                    "item quality not computed"},
    }  # fmt: skip
    (OUT / "sources.json").write_text(json.dumps(coverage, indent=2) + "\n", encoding="utf-8")
    print(coverage["movie"]["coverage"])


if __name__ == "__main__":
    main()
