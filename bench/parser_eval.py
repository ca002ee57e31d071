"""Parser accuracy on the hand-written answer set, a fuzzy-cutoff sweep, and parser speed.

    python bench/parser_eval.py

Prints: cases fully correct, false matches (items returned that the case does not expect) and
missed items, for the shipped cutoff and a sweep of cutoffs; then answers per second for
realistic 20-line answers against the 500-item movie catalog on one core.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.parse_cases

from coldbias_tasks.core import parse
from coldbias_tasks.core.catalog import load_catalog
from tests.parse_cases import CASES, COLLEGES, MOVIES, SONGS

CATALOGS = {"movies": MOVIES, "songs": SONGS, "colleges": COLLEGES}


def score(cutoff: float) -> tuple[int, int, int]:
    """(cases fully correct, false matches, missed expected items) at ``cutoff``."""
    parse.FUZZY_CUTOFF = cutoff
    parse._cached_index.cache_clear()
    correct = false = missed = 0
    for case in CASES:
        catalog = CATALOGS[case.catalog]
        got = parse.parse_ranking(case.answer, catalog, case.k)
        titles = [catalog[i] for i in got.items]
        false += sum(1 for t in titles if t not in case.expected)
        missed += sum(1 for t in case.expected if t not in titles)
        correct += (
            titles == list(case.expected)
            and len(got.out_of_catalog) == case.n_out_of_catalog
            and len(got.duplicates) == case.n_duplicates
        )
    return correct, false, missed


def wikidata_false_matches() -> tuple[int, list[tuple[str, str]]] | None:
    """Every Wikidata film title (bokeh-sampledata, 1940–2014) that is NOT in the movie catalog,
    parsed as a one-line answer against the 500-item catalog: each match is a false match unless
    it is the same film under another title. None without bokeh-sampledata.
    """
    try:
        import sqlite3

        from bokeh_sampledata.movies_data import movie_path
    except ImportError:
        return None
    titles = load_catalog("movie").titles
    keys = {parse.normalized_key(t) for t in titles}
    with sqlite3.connect(movie_path) as con:
        others = sorted({row[0] for row in con.execute("SELECT Title FROM omdb") if row[0]})
    others = [t for t in others if parse.normalized_key(t) not in keys]
    hits = []
    for other in others:
        got = parse.parse_ranking(other, titles, 1)
        if got.items:
            hits.append((other, titles[got.items[0]]))
    return len(others), hits


def speed(n_answers: int = 2000) -> float:
    """Answers per second: 20-line answers, mixed exact, typo'd and invented titles."""
    titles = load_catalog("movie").titles
    rng = random.Random(0)
    answers = []
    for _ in range(n_answers):
        lines = []
        for rank in range(1, 21):
            title = rng.choice(titles)
            roll = rng.random()
            if roll < 0.1:
                title = title[:-1] + "x"  # typo → fuzzy stage
            elif roll < 0.2:
                title = f"Invented Film {rng.randint(0, 10**6)}"  # hallucination → fuzzy miss
            lines.append(f"{rank}. **{title}** ({rng.randint(1950, 2020)})")
        answers.append("\n".join(lines))
    parse.parse_ranking("warm up", titles, 20)
    start = time.perf_counter()
    for answer in answers:
        parse.parse_ranking(answer, titles, 20)
    return n_answers / (time.perf_counter() - start)


if __name__ == "__main__":
    shipped = parse.FUZZY_CUTOFF
    print(f"{len(CASES)} hand-written answers")
    print("cutoff  fully-correct  false-matches  missed-items  wikidata-matches")
    for cutoff in (70.0, 75.0, 80.0, 85.0, shipped, 90.0, 95.0, 100.0):
        correct, false, missed = score(cutoff)
        wiki = wikidata_false_matches()
        wiki_hits = "n/a" if wiki is None else str(len(wiki[1]))
        mark = "  <- shipped" if cutoff == shipped else ""
        print(f"{cutoff:6.1f}  {correct:13d}  {false:13d}  {missed:12d}  {wiki_hits:>16}{mark}")
    parse.FUZZY_CUTOFF = shipped
    parse._cached_index.cache_clear()
    wikidata = wikidata_false_matches()
    if wikidata is not None:
        n_titles, hits = wikidata
        print(f"{n_titles} Wikidata film titles not in the catalog → {len(hits)} matched:")
        for answer, matched in hits:
            print(f"    {answer!r} → {matched!r}")
    print(f"speed: {speed():.0f} answers/s (20 lines each, 500-item catalog, one core)")
